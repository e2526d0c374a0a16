"""Li, Jia, He, Liang (NAACL 2018), *Delete, Retrieve, Generate*: outputs of seven systems and human
rewrites on Yelp, Amazon and image captions, with human references and per-output crowd ratings.

The corpus folder (``li2018/``) is the authors' repository's ``evaluation/`` and ``data/``:

* ``outputs/DOMAIN/sentiment.test.{0,1}.SUFFIX``: ``input<TAB>output<TAB>label`` lines, one file per
  system and direction. File ``.0`` holds inputs of style 0 (negative; for captions: factual captions
  to be made romantic), ``.1`` of style 1 (positive; captions: to be made humorous), as the authors'
  ``run_eval.py`` reads them.
* ``data/DOMAIN/reference.{0,1}``: ``input<TAB>human rewrite`` (captions add a label column);
  ``data/DOMAIN/sentiment.{train,dev}.{0,1}``: style-labelled sentences (train only for captions).
* ``human_ratings/ratings-DOMAIN.csv``: Mechanical Turk results, one row per rated input (the first
  200 of each direction), the 8 outputs shown in shuffled order and rated 1-5 for grammaticality,
  sentiment (target attribute) and topic (content).

The repository does not say which file suffix is which of the paper's systems. :data:`SYSTEM_NAMES`
is the mapping worked out from the authors' own scripts and from other groups' copies of the same
outputs (:data:`SYSTEM_EVIDENCE`); pages and the CLI show it and let the user rename systems.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from stviz.data.released.inventory import survey
from stviz.data.released.outputs import build_pairs, read_lines, read_reference_lines
from stviz.data.schema import HUMAN_PREFIX, DataError, Dataset

CORPUS = "li2018"
#: Dataset name suffix -> (folder under outputs/, folder under data/, ratings file suffix).
DOMAINS = {"yelp": ("yelp", "yelp", "yelp"), "amazon": ("amazon", "amazon", "amazon"),
           "captions": ("captions", "imagecaption", "captions")}
#: Direction (file index) -> (source style, target style).
DIRECTIONS = {
    "yelp": {"0": ("negative", "positive"), "1": ("positive", "negative")},
    "amazon": {"0": ("negative", "positive"), "1": ("positive", "negative")},
    "captions": {"0": ("factual", "romantic"), "1": ("factual", "humorous")},
}
#: Style of the labelled sentence files sentiment.{train,dev}.{0,1} (the repository README).
TEXT_STYLES = {"yelp": ("negative", "positive"), "amazon": ("negative", "positive"),
               "captions": ("humorous", "romantic")}

#: File suffix -> the system's name in the paper.
SYSTEM_NAMES = {
    "mit": "CrossAligned", "fader": "StyleEmbedding", "multi_decoder": "MultiDecoder",
    "rule_base": "TemplateBased", "retrieval": "RetrieveOnly", "label": "DeleteOnly",
    "orgin": "DeleteAndRetrieve", "human": "Human", "target": "Human",
}
#: Why each suffix is taken to be that system (see docs/reproduction-leaderboard.md).
SYSTEM_EVIDENCE = {
    "label": "the authors' run.sh renames DeleteOnly to 'label'; Lee (2020, Stable-Style-Transformer) "
             "publishes these Amazon outputs as sentiment.test.*.DeleteOnly",
    "orgin": "the authors' run.sh renames DeleteAndRetrieve (and RetrieveOnly) to 'orgin'; Jin et al. "
             "(2019, IMaT) publish these Yelp outputs as 'dar'",
    "retrieval": "the authors' run.sh writes RetrieveOnly's results to sentiment.test.*.retrieval",
    "rule_base": "the authors' run.sh builds TemplateBased with build_templatebased.py (a rule-based system)",
    "mit": "CrossAligned is Shen et al.'s (MIT) model; Jin et al. (2019, IMaT) publish these Yelp outputs as 'ca'",
    "multi_decoder": "the file name (Fu et al. 2018's MultiDecoder)",
    "fader": "the one model left: Fu et al. 2018's StyleEmbedding, an adversarial style-embedding model "
             "like Lample et al.'s Fader networks",
    "human": "identical to data/DOMAIN/reference.* (the human rewrites)",
    "target": "identical to data/imagecaption/reference.* (the human rewrites)",
}
#: System order of the paper's tables.
PAPER_ORDER = ("CrossAligned", "StyleEmbedding", "MultiDecoder", "TemplateBased", "RetrieveOnly", "DeleteOnly",
               "DeleteAndRetrieve", "Human")
#: The raters' form fields -> this project's human-score columns (the paper's Gra / Att / Con / Suc).
RATING_COLUMNS = {"grammaticality": HUMAN_PREFIX + "grammaticality", "sentiment": HUMAN_PREFIX + "attribute",
                  "topic": HUMAN_PREFIX + "content", "success": HUMAN_PREFIX + "success"}
TITLES = {"yelp": "Li et al. 2018 Yelp outputs (7 systems + human, 1,000 inputs, crowd ratings)",
          "amazon": "Li et al. 2018 Amazon outputs (7 systems + human, 1,000 inputs, crowd ratings)",
          "captions": "Li et al. 2018 image-caption outputs (7 systems + human, 600 transfers, crowd ratings)"}


def load_li2018(folder: Path, domain: str) -> Dataset:
    """One domain of Li et al. 2018 as pairs (system outputs, references, crowd ratings) and labelled texts."""
    if domain not in DOMAINS:
        raise DataError(f"unknown Li et al. 2018 domain '{domain}'; choose one of {', '.join(DOMAINS)}")
    out_dir, data_dir, ratings_name = DOMAINS[domain]
    folder = Path(folder)
    notes: list[str] = []
    inputs = {}
    references = {}
    for d in DIRECTIONS[domain]:
        lines, file_notes = read_lines(folder / "data" / data_dir / f"sentiment.test.{d}")
        inputs[d] = [line.strip() for line in lines]
        ref_lines, ref_notes = read_lines(folder / "data" / data_dir / f"reference.{d}")
        references[d], align_notes = read_reference_lines(ref_lines, inputs[d], f"reference.{d}")
        notes += file_notes + ref_notes + align_notes
    # The human rewrites (.human, .target) stay a system, as in the paper's tables.
    inventory = survey(folder / "outputs" / out_dir, inputs=inputs, humans="system")
    inventory.check()
    pairs, pair_notes = build_pairs(inventory.files, inputs, DIRECTIONS[domain], references, SYSTEM_NAMES)
    # Systems in the order of the paper's tables.
    rank = {name: i for i, name in enumerate(PAPER_ORDER)}
    pairs = pairs.sort_values(["system", "direction", "line"], key=lambda c: c.map(rank) if c.name == "system" else c,
                              kind="stable").reset_index(drop=True)
    notes += inventory.notes + pair_notes
    pairs, rating_notes = attach_ratings(pairs, folder / "human_ratings" / f"ratings-{ratings_name}.csv")
    notes += rating_notes
    notes.append("System names come from an editable mapping of the file suffixes (" +
                 ", ".join(f"{k} → {v}" for k, v in SYSTEM_NAMES.items() if k in set(pairs["system_file"])) +
                 "); see docs/reproduction-leaderboard.md for the evidence.")
    return Dataset(
        name=f"li2018-{domain}", title=TITLES[domain],
        description="Li, Jia, He, Liang (NAACL 2018), Delete, Retrieve, Generate. Outputs of CrossAligned, "
                    "StyleEmbedding, MultiDecoder, TemplateBased, RetrieveOnly, DeleteOnly and DeleteAndRetrieve "
                    "and human rewrites, one human reference per input, and 1-5 crowd ratings of grammaticality, "
                    "target attribute and content for the first 200 inputs of each direction.",
        texts=_labelled_texts(folder / "data" / data_dir, domain, notes), pairs=pairs, notes=notes,
        human_direction={c: True for c in RATING_COLUMNS.values()},
    )


def _labelled_texts(folder: Path, domain: str, notes: list[str]) -> pd.DataFrame:
    """The style-labelled train/dev sentences (never the test inputs, which are the pairs' sources)."""
    frames = []
    for split in ("train", "dev"):
        for label, style in zip(("0", "1"), TEXT_STYLES[domain]):
            path = folder / f"sentiment.{split}.{label}"
            if path.exists():
                lines, file_notes = read_lines(path)
                notes += file_notes
                frames.append(pd.DataFrame({"text": [t.strip() for t in lines if t.strip()], "style": style,
                                            "split": split}))
    return pd.concat(frames, ignore_index=True)


# -- crowd ratings -----------------------------------------------------------------------------------------
def read_ratings(path: Path) -> tuple[dict[tuple[str, str, str], dict[str, int]], dict[str, int]]:
    """Per (input, target, output) text key its ratings, and the number of rated inputs per target.

    As in the authors' ``run_eval.py``: texts are compared lower-cased, and when two systems wrote
    the same output for an input (so the rater saw it twice), the later rating of that text counts.
    """
    lines, _ = read_lines(path)
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    scores: dict[tuple[str, str, str], dict[str, int]] = {}
    rated: dict[str, int] = {}
    for number, row in enumerate(reader, 2):
        try:
            origs, mods = row["Input.origs"].split("\t"), row["Input.mods"].split("\t")
            target, responses = row["Input.target"], row["Answer.responses"].split("\t")
        except (KeyError, AttributeError) as exc:
            raise DataError(f"{Path(path).name} line {number}: not a ratings row ({exc})") from exc
        rated[target] = rated.get(target, 0) + 1
        for orig, mod, response in zip(origs, mods, responses):
            values = dict(part.split("=") for part in response.split())
            entry = {k: int(v) for k, v in values.items()}
            # Success (the paper's Suc): every aspect rated 4 or 5.
            entry["success"] = int(all(v > 3 for v in entry.values()))
            scores[(orig.strip().lower(), target, mod.strip().lower())] = entry
    return scores, rated


def attach_ratings(pairs: pd.DataFrame, path: Path) -> tuple[pd.DataFrame, list[str]]:
    """The pairs with ``human:grammaticality/attribute/content/success`` (NaN where not rated)."""
    scores, rated = read_ratings(path)
    pairs = pairs.copy()
    values = {column: np.full(len(pairs), np.nan) for column in RATING_COLUMNS.values()}
    found = 0
    for i, (src, out, tgt, line) in enumerate(zip(pairs["source"], pairs["output"], pairs["target_style"],
                                                  pairs["line"])):
        # Only the first N inputs of each direction were rated (run_eval.py's --num-per-class).
        if line >= rated.get(tgt, 0):
            continue
        entry = scores.get((str(src).strip().lower(), tgt, str(out).strip().lower()))
        if entry is None:
            continue
        found += 1
        for field_name, column in RATING_COLUMNS.items():
            values[column][i] = entry[field_name]
    for column, vals in values.items():
        pairs[column] = vals
    expected = sum(int(((pairs["target_style"] == t) & (pairs["line"] < n)).sum()) for t, n in rated.items())
    notes = [f"Crowd ratings from {Path(path).name}: {found:,} of {expected:,} outputs of the rated inputs matched "
             "by text; grammaticality, attribute (the form's 'sentiment') and content (the form's 'topic') are 1-5, "
             "success is 1 when all three are 4 or 5."]
    return pairs, notes


def human_evaluation_table(pairs: pd.DataFrame, order: tuple[str, ...] = PAPER_ORDER) -> pd.DataFrame:
    """Mean rating per system over its rated outputs: the paper's human-evaluation table (Gra, Con, Att, Suc)."""
    rated = pairs.dropna(subset=[RATING_COLUMNS["grammaticality"]])
    table = rated.groupby("system")[[RATING_COLUMNS[k] for k in ("grammaticality", "topic", "sentiment",
                                                                  "success")]].mean()
    table.columns = ["grammaticality", "content", "attribute", "success"]
    table["n"] = rated.groupby("system").size()
    known = [s for s in order if s in table.index]
    return table.loc[known + [s for s in table.index if s not in known]]


__all__ = ["CORPUS", "DOMAINS", "DIRECTIONS", "PAPER_ORDER", "RATING_COLUMNS", "SYSTEM_EVIDENCE", "SYSTEM_NAMES",
           "attach_ratings", "human_evaluation_table", "load_li2018", "read_ratings"]
