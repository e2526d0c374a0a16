"""Loaders for the public corpora, each from a folder laid out as the authors publish it.

* a style corpus: a folder of ``STYLE.txt`` files, one sentence per line (Corpus of Diverse
  Styles, Krishna et al. 2020; also the demo corpus);
* SGDD-TST (Babakov et al. 2022): ``SGDD-TST.csv`` with the crowd score ``average``, merged with
  ``SGDD-TST_with_metrics.csv`` whose metric columns become precomputed metrics;
* Mir et al. (2019) Yelp outputs: 3 systems x settings x 244 inputs with human scores;
* Yelp sentiment sentences (Shen et al. 2017) labelled negative / positive;
* ParaDetox (Logacheva et al. 2022): English toxic comments and their crowd-written neutral rewrites, read as
  texts labelled toxic / neutral;
* PT16 (Pavlick and Tetreault 2016): sentences with a human formality score, read as released (``SID,label,
  sentence``) through the reader every user's file goes through.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from stviz.data.schema import HUMAN_PREFIX, METRIC_PREFIX, DataError, Dataset

SENTIMENT = {"0": "negative", "1": "positive"}


def read_lines(path: Path) -> list[str]:
    """Non-empty stripped lines of a UTF-8 text file (a clear DataError if it is not UTF-8)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path.name} is not UTF-8 text (byte {exc.start}); re-save it as UTF-8") from exc
    return [line.strip() for line in text.splitlines() if line.strip()]


# -- style corpora ---------------------------------------------------------------------------
def load_style_folder(folder: Path, name: str, title: str, description: str = "",
                      illustrative: bool = False) -> Dataset:
    """A style corpus: every ``STYLE.txt`` in ``folder`` becomes style STYLE."""
    files = sorted(folder.glob("*.txt"))
    if not files:
        raise DataError(f"no STYLE.txt files in {folder}")
    frames = [pd.DataFrame({"text": read_lines(f), "style": f.stem}) for f in files]
    texts = pd.concat(frames, ignore_index=True)
    notes = []
    dupes = int(texts.duplicated(["text", "style"]).sum())
    if dupes:
        notes.append(f"{dupes} sentences occur more than once within a style; all are kept, as published.")
    return Dataset(name=name, title=title, description=description, texts=texts,
                   illustrative=illustrative, notes=notes)


def load_cds(folder: Path) -> Dataset:
    """Corpus of Diverse Styles sample: 11 styles x 1,000 sentences."""
    return load_style_folder(
        folder, "cds", "Corpus of Diverse Styles (11 styles x 1,000)",
        "Krishna, Wieting, Iyyer (EMNLP 2020), the sample used by Fitzpatrick et al. "
        "Non-parallel sentences in 11 styles. Contains unfiltered profanity.",
    )


# -- SGDD-TST ------------------------------------------------------------------------------
SGDD_NON_METRICS = {"text1", "text2", "human"}


def load_sgdd(folder: Path) -> Dataset:
    """SGDD-TST: formality-transfer pairs with crowd similarity votes and the authors' metrics."""
    raw = pd.read_csv(folder / "SGDD-TST.csv")
    pairs = pd.DataFrame({
        "source": raw["INPUT:text_first"].astype(str),
        "output": raw["INPUT:text_second"].astype(str),
        "source_style": "informal",
        "target_style": "formal",
        HUMAN_PREFIX + "average": raw["average"].astype(float),
        HUMAN_PREFIX + "vote_OK": raw["vote_OK"],
        HUMAN_PREFIX + "vote_some_details_lost": raw["vote_some_details_lost"],
        HUMAN_PREFIX + "vote_different": raw["vote_different"],
    })
    notes = []
    with_metrics = folder / "SGDD-TST_with_metrics.csv"
    if with_metrics.exists():
        metrics = pd.read_csv(with_metrics)
        if len(metrics) == len(pairs) and (metrics["text1"].astype(str).values == pairs["source"].values).all():
            for col in metrics.columns:
                if col not in SGDD_NON_METRICS:
                    pairs[METRIC_PREFIX + col] = metrics[col].astype(float).values
            notes.append(f"{len(metrics.columns) - 3} precomputed metric columns from SGDD-TST_with_metrics.csv.")
        else:
            notes.append("SGDD-TST_with_metrics.csv does not align row by row with SGDD-TST.csv; its metrics were not used.")
    return Dataset(
        name="sgdd-tst", title="SGDD-TST (10,287 formality-transfer pairs, human similarity)",
        description="Babakov et al. (NLDB 2022). Informal task-oriented dialogue sentences and their "
                    "formal rewrites; 'average' in [1, 3] is the crowd's content-similarity score.",
        pairs=pairs, notes=notes,
    )


# -- Mir et al. Yelp outputs -----------------------------------------------------------------
def _setting_label(folder_name: str) -> str:
    # "lambda_1" -> "lambda=1"; "rho_0_01" -> "rho=0.01"
    param, _, value = folder_name.partition("_")
    return f"{param}={value.replace('_', '.')}"


def load_mir_yelp(folder: Path) -> Dataset:
    """Mir et al. (NAACL 2019): ARAE / CAAE / DAR outputs on 244 Yelp inputs with human scores."""
    inputs = {s: read_lines(folder / f"sentiment.test.{s}") for s in ("0", "1")}
    human = folder / "evaluations" / "human"
    input_naturalness = human / "naturalness" / "input_texts.npz"
    frames = []
    for system_dir in sorted((folder / "transfer_model_outputs").iterdir()):
        for setting_dir in sorted(system_dir.iterdir()):
            frames.append(_mir_setting(system_dir.name, setting_dir, inputs, human))
    pairs = pd.concat(frames, ignore_index=True)
    if input_naturalness.exists():
        # The same 244 inputs were rated once; every setting's rows repeat those ratings.
        per_input = np.load(input_naturalness)["absolute"].astype(float)
        pairs[HUMAN_PREFIX + "naturalness_input"] = np.tile(per_input, len(frames))
    lexicon = None
    lex_file = folder / "style_lexicon" / "style_words_and_weights.json"
    if lex_file.exists():
        raw = json.loads(lex_file.read_text(encoding="utf-8"))
        words = next(iter(raw.values()))
        lexicon = {str(w): float(weight) for w, weight in words}
    notes = [
        "Human naturalness exists for 9 of the 12 settings (not DAR gamma=0.1, 1, 500); it is empty there.",
        "human:naturalness_relative says which text raters found more natural: 'input', 'output' or empty; "
        "human:naturalness_input is the absolute naturalness of the input sentence.",
    ]
    return Dataset(
        name="mir-yelp", title="Mir et al. Yelp sentiment transfer (3 systems, 12 settings x 244 pairs)",
        description="Outputs of ARAE, CAAE and DAR at 12 hyper-parameter settings on 244 Yelp test "
                    "sentences, with averaged human scores (1-5) for content preservation, style "
                    "transfer intensity and naturalness, and a sentiment style lexicon.",
        pairs=pairs, lexicon=lexicon, notes=notes,
    )


def _mir_setting(system: str, setting_dir: Path, inputs: dict[str, list[str]], human: Path) -> pd.DataFrame:
    outputs = {s: read_lines(setting_dir / f"sentiment.test.{s}.tsf") for s in ("0", "1")}
    for s in ("0", "1"):
        if len(outputs[s]) != len(inputs[s]):
            raise DataError(f"{setting_dir}: {len(outputs[s])} outputs for {len(inputs[s])} inputs in sentiment.test.{s}")
    frame = pd.DataFrame({
        "source": inputs["0"] + inputs["1"],
        "output": outputs["0"] + outputs["1"],
        "system": system,
        "setting": _setting_label(setting_dir.name),
        "source_style": [SENTIMENT["0"]] * len(inputs["0"]) + [SENTIMENT["1"]] * len(inputs["1"]),
        "target_style": [SENTIMENT["1"]] * len(inputs["0"]) + [SENTIMENT["0"]] * len(inputs["1"]),
    })
    key = f"{system}_{setting_dir.name}"
    for aspect in ("content_preservation", "style_transfer_intensity"):
        path = human / aspect / f"{key}.npy"
        frame[HUMAN_PREFIX + aspect] = np.load(path) if path.exists() else np.nan
    nat = human / "naturalness" / f"{key}.npz"
    if nat.exists():
        data = np.load(nat, allow_pickle=True)
        frame[HUMAN_PREFIX + "naturalness"] = data["absolute"].astype(float)
        # Raters compared text A (the input) with text B (the output), as in the authors' repository.
        relative = {"A": "input", "B": "output"}
        frame[HUMAN_PREFIX + "naturalness_relative"] = [relative.get(v, None) for v in data["relative"]]
    else:
        frame[HUMAN_PREFIX + "naturalness"] = np.nan
        frame[HUMAN_PREFIX + "naturalness_relative"] = None
    return frame


# -- Yelp sentiment sentences -----------------------------------------------------------------
def load_yelp_sentiment(folder: Path) -> Dataset:
    """Yelp review sentences labelled negative / positive (dev and test splits)."""
    frames = []
    for split in ("dev", "test", "train"):
        for label, style in SENTIMENT.items():
            path = folder / f"sentiment.{split}.{label}"
            if path.exists():
                frames.append(pd.DataFrame({"text": read_lines(path), "style": style, "split": split}))
    if not frames:
        raise DataError(f"no sentiment.SPLIT.0/1 files in {folder}")
    return Dataset(
        name="yelp-sentiment", title="Yelp sentiment sentences (negative / positive)",
        description="Shen et al. (NeurIPS 2017). Tokenised, lower-cased review sentences for training "
                    "sentiment style classifiers.",
        texts=pd.concat(frames, ignore_index=True),
    )


# -- ParaDetox toxic / neutral sentences -------------------------------------------------------------------------
PARADETOX = "paradetox.tsv"
#: Its columns: the toxic comment, then up to three neutral rewrites (empty where fewer).
PARADETOX_REWRITES = ("neutral1", "neutral2", "neutral3")


def load_paradetox(folder: Path) -> Dataset:
    """ParaDetox: each toxic comment (style ``toxic``) and each of its crowd-written rewrites (``neutral``), with the
    comment they belong to as their :data:`~stviz.data.labels.GROUP`, so a held-out test keeps a comment and its
    rewrites on one side (they share most of their words)."""
    from stviz.data.labels import GROUP

    # A quoted TSV as pandas writes it: seven rewrites hold a line break inside quotes (one text each, 11,927 comments
    # on 11,935 lines); cells are never read as NA markers ("null" is a text), an empty cell is no rewrite.
    raw = pd.read_csv(folder / PARADETOX, sep="\t", dtype=str, keep_default_na=False, na_values=[""])
    missing = [c for c in ("toxic", *PARADETOX_REWRITES) if c not in raw]
    if missing:
        raise DataError(f"{PARADETOX} has no column {', '.join(missing)}: not the file ParaDetox releases")
    raw = raw[raw["toxic"].notna()]
    rewrites = raw.melt(id_vars="toxic", value_vars=list(PARADETOX_REWRITES), value_name="text").dropna(subset=["text"])
    unchanged = rewrites["text"].str.strip() == rewrites["toxic"].str.strip()
    texts = pd.concat([pd.DataFrame({"text": raw["toxic"], "style": "toxic", GROUP: raw["toxic"]}),
                       pd.DataFrame({"text": rewrites.loc[~unchanged, "text"], "style": "neutral",
                                     GROUP: rewrites.loc[~unchanged, "toxic"]})], ignore_index=True)
    notes = [f"{len(raw):,} toxic comments and {int((~unchanged).sum()):,} neutral rewrites (each comment has one to "
             "three); a rewrite keeps its comment as its group, so a held-out test never splits them",
             f"{int(unchanged.sum()):,} rewrites identical to their toxic comment are left out: a text cannot be an "
             "example of both styles",
             "kept in their released form: the toxic comments tokenised and lower-cased, most rewrites as people "
             "write (a word TF-IDF classifier learned from them called 98.5% of held-out rewrites neutral as written "
             "and 98.4% tokenised: it judges words, not the form)"]
    repeated = int(texts.duplicated(["text", "style", GROUP]).sum())
    if repeated:
        notes.append(f"{repeated:,} rewrites repeat another rewrite of the same comment (two workers wrote the same "
                     "text); all are kept, as released")
    return Dataset(
        name="paradetox", title=PARADETOX_TITLE, texts=texts, notes=notes,
        description="Logacheva, Dementieva et al. (ACL 2022). English toxic comments (Jigsaw, Reddit, Twitter) and "
                    "their neutral rewrites written and checked by crowd workers: the texts of each style for the "
                    "style classifier, the n-gram model of neutral text and naturalness of English detoxification. "
                    "Contains offensive language. CC0 1.0.",
    )


PARADETOX_TITLE = "ParaDetox English toxic / neutral sentences (11,927 comments, 19,617 rewrites)"


# -- PT16 formality ratings ---------------------------------------------------------------------------
PT16_SPLITS = {"train": 4477, "tune": 500, "test": 3000}


def load_pt16(folder: Path, split: str) -> Dataset:
    """One PT16 split as rated sentences: read exactly as a user's upload of the released file would be."""
    from stviz.data.intake.build import load_pairs_file

    ds, _, notes = load_pairs_file(folder / f"{split}.csv")
    ds.name, ds.title = f"pt16-{split}", f"PT16 formality ratings, {split} ({len(ds.texts):,} sentences)"
    ds.description = ("Pavlick and Tetreault (TACL 2016): English sentences with a human formality score (about -3 "
                      "informal .. 3 formal) in 'label', as Briakou et al. (EMNLP 2021) release them for training "
                      "formality regressors. Licence: none stated; fetched on request, never shipped.")
    ds.notes = notes + ds.notes
    return ds
