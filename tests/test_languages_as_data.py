"""Language as data (issue 54): a file's own language column, every language counted as itself, one table per
language in one run, and flags that are never completed to another flag.

The mixed files are built from the real corpora in ``../shared/corpora``: RUSSE 2022's human evaluation (Russian),
InFormal (Hindi, Bengali, Telugu, Kannada) and Li et al. 2018's rated Yelp outputs (English).
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from conftest import SHARED_CORPORA
from stviz.cli import COMMANDS, build_parser, main
from stviz.data.intake.build import load_pairs_file
from stviz.languages import dataset_language, language_card, language_parts, parse_language, part_language
from stviz.languages.cards import SCRIPTS
from stviz.languages.detect import real_languages

#: InFormal's similarity labels as its README scores them.
SIMILARITY = {"Approximately Same Meaning": 1.0, "Slight Difference in Meaning": 0.5, "Different Meaning": 0.0}
PER_LANGUAGE = {"ru": 300, "en": 300, "hi": 150, "bn": 150, "te": 150, "kn": 150}


@pytest.fixture(scope="module")
def mixed_frame(corpora) -> pd.DataFrame:
    """Pairs of six languages in one file, shuffled: source, output, system, language, a human content rating."""
    from stviz.data import load_dataset

    russe = pd.read_csv(corpora / "russe2022-humaneval" / "test_all_metrics_russe2022.csv")
    parts = [pd.DataFrame({"source": russe["original"], "output": russe["method_output"],
                           "system": russe["participant_name"], "language": "ru", "content": russe["content"]})]
    for code in ("hi", "bn", "te", "kn"):
        # InFormal is read here as released, from the shared folder (stviz does not list it as a dataset yet).
        lines = (SHARED_CORPORA / "informal" / f"{code}_annotations.jsonl").open(encoding="utf-8")
        rows = [json.loads(line) for line in lines]
        parts.append(pd.DataFrame({"source": [r["candidate_0"] for r in rows], "output": [r["candidate_1"] for r in rows],
                                   "system": "UR-INDIC + BT", "language": code,
                                   "content": [np.mean([SIMILARITY[a["semantic_similarity"]] for a in r["annotations"]])
                                               for r in rows]}))
    yelp = load_dataset("li2018-yelp").pairs.dropna(subset=["human:content"])
    parts.append(pd.DataFrame({"source": yelp["source"], "output": yelp["output"], "system": yelp["system"],
                               "language": "en", "content": yelp["human:content"]}))
    sampled = [part.sample(PER_LANGUAGE[part["language"].iloc[0]], random_state=0) for part in parts]
    return pd.concat(sampled, ignore_index=True).sample(frac=1.0, random_state=1).reset_index(drop=True)


def _meta_csv(path, capsys, *extra) -> pd.DataFrame:
    assert main(["meta-eval", "--datasets", str(path), "--level", "sentence", "--method", "spearman",
                 "--bootstrap", "20", "--format", "csv", *extra]) == 0
    from io import StringIO

    return pd.read_csv(StringIO(capsys.readouterr().out))


def test_one_run_gives_one_table_per_language_each_equal_to_that_languages_file_alone(mixed_frame, tmp_path, capsys):
    with_column, without = tmp_path / "mixed.csv", tmp_path / "mixed-no-language.csv"
    mixed_frame.to_csv(with_column, index=False)
    mixed_frame.drop(columns=["language"]).to_csv(without, index=False)
    tables = {with_column.stem: _meta_csv(with_column, capsys), without.stem: _meta_csv(without, capsys)}
    for stem, table in tables.items():
        assert set(table["language"]) == set(PER_LANGUAGE)
        assert set(table["set"]) == {f"{stem} [{code}]" for code in PER_LANGUAGE}
    for code, n in PER_LANGUAGE.items():
        alone = tmp_path / f"{code}.csv"
        mixed_frame[mixed_frame["language"] == code].to_csv(alone, index=False)
        single = _meta_csv(alone, capsys).set_index("measure")
        assert (single["n"] == n).all()
        for table in tables.values():
            part = table[table["language"] == code].set_index("measure")
            assert list(part.index) == list(single.index)
            np.testing.assert_allclose(part["r"], single["r"], atol=1e-12)


def test_indic_languages_of_their_own_scripts_are_never_read_as_another(mixed_frame, tmp_path):
    path = tmp_path / "no-language.csv"
    mixed_frame.drop(columns=["language"]).to_csv(path, index=False)
    dataset = load_pairs_file(path)[0]
    report = dataset_language(dataset)
    assert report.languages == PER_LANGUAGE and not report.from_column
    assert [row for row, truth in zip(report.rows, mixed_frame["language"]) if row != truth] == []
    assert "detected per pair on input and output" in report.line()


def test_a_language_column_says_each_pairs_language_in_codes_or_names_and_detection_fills_its_gaps(tmp_path):
    from multilingual_data import PAIRS

    rows = [(s, o, "A", "ru") for s, o in PAIRS["ru"]] + [(s, o, "B", "Russian") for s, o in PAIRS["ru"][:5]]
    rows += [(s, o, "A", "ara") for s, o in PAIRS["ar"]] + [(s, o, "A", "") for s, o in PAIRS["en"]]
    path = tmp_path / "langs.csv"
    pd.DataFrame(rows, columns=["source", "output", "system", "lang"]).to_csv(path, index=False)
    dataset, mapping, _ = load_pairs_file(path)
    assert mapping.roles["language"] == "lang"
    report = dataset_language(dataset)
    assert report.languages == {"ru": 25, "ar": 20, "en": 20}
    assert report.from_column == 45 and report.filled == 20
    assert "from the file's language column; 20 pairs it leaves empty detected" in report.line()


def test_cells_naming_no_language_are_detected_alone_the_others_read_from_the_column(tmp_path):
    from multilingual_data import PAIRS

    rows = [(s, o, "en") for s, o in PAIRS["en"]] + [(s, o, "ru") for s, o in PAIRS["ru"][:15]]
    rows += [(s, o, "xx") for s, o in PAIRS["ru"][15:]]  # five cells of an unknown code, on lines 37 to 41
    path = tmp_path / "xx.csv"
    pd.DataFrame(rows, columns=["source", "output", "language"]).to_csv(path, index=False)
    dataset, mapping, _ = load_pairs_file(path)
    assert mapping.roles["language"] == "language" and "language" not in mapping.evidence
    assert ("Column 'language': 5 cell(s) name no language ('xx'); their pairs' language is detected "
            "(lines 37, 38, 39, 40, 41).") in dataset.notes
    report = dataset_language(dataset)
    assert report.languages == {"en": 20, "ru": 20} and report.from_column == 35 and report.filled == 5


def test_a_column_named_lang_that_holds_no_languages_is_not_the_language(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"source": ["a b c", "d e f", "g h i"], "output": ["a b", "d e", "g h"],
                  "lang": ["formal", "casual", "formal"]}).to_csv(path, index=False)
    _, mapping, _ = load_pairs_file(path)
    assert "language" not in mapping.roles
    assert mapping.evidence["lang"] == "named like a language, but its cells are not languages"


@pytest.mark.parametrize("value,code", [("uk", "uk"), ("ukr", "uk"), ("Ukrainian", "uk"), ("am", "am"), ("amh", "am"),
                                        ("Amharic", "am"), ("en-US", "en"), ("EN", "en"), ("eng", "en"),
                                        ("zh_Hans", "zh"), ("cmn", "zh"), ("Bangla", "bn"), ("formal", None), ("", None)])
def test_a_language_is_read_as_files_write_it(value, code):
    assert parse_language(value) == code


def test_every_language_the_detector_knows_has_a_card_with_its_script():
    import py3langid
    import py3langid.langid

    py3langid.classify("x")  # loads the model
    codes = set(py3langid.langid.IDENTIFIER.nb_classes) - {"zxx"}
    cards = {code: language_card(code) for code in codes}
    assert [code for code, card in cards.items() if card.script == "unknown"] == []
    assert cards["am"].name == "Amharic" and cards["am"].script == "Ethiopic"
    assert cards["uk"].script == cards["ru"].script == "Cyrillic" and cards["te"].script == "Telugu"
    assert set(SCRIPTS) <= codes | {"gn"}


def test_detection_keeps_real_languages_and_folds_a_detectors_noise():
    # The held-out nine-language set: no language is folded into another.
    nine = Counter({"ru": 2000, "en": 1983, "uk": 1800, "am": 1800, "ar": 1800, "de": 1796, "zh": 1794, "hi": 1791,
                    "es": 1756, "mk": 7, "bg": 4})
    assert real_languages(nine, sum(nine.values())) == {"ru", "en", "uk", "am", "ar", "de", "zh", "hi", "es"}
    # SGDD-TST's 10,287 English pairs, as py3langid names them: Nigerian Pidgin 34 times is noise.
    sgdd = Counter({"en": 10223, "pcm": 34, "fy": 3, "ha": 3, "fuv": 2, "vec": 2, "wa": 1, "cy": 1})
    assert real_languages(sgdd, 10287) == {"en"}
    # A language of a script of its own stays itself even in a few pairs; a sibling of one script needs a share.
    assert real_languages(Counter({"hi": 1000, "te": 3, "ne": 9}), 1012) == {"hi", "te"}


def test_a_language_chosen_narrows_to_its_pairs_and_a_pooled_row_is_only_given_when_asked(mixed_frame, tmp_path,
                                                                                             capsys):
    path = tmp_path / "mixed.csv"
    mixed_frame.to_csv(path, index=False)
    only = _meta_csv(path, capsys, "--language", "Telugu")
    assert set(only["language"]) == {"te"} and set(only["set"]) == {"mixed"}
    pooled = _meta_csv(path, capsys, "--pooled")
    assert "all languages" in set(pooled["language"]) and "mixed [all languages]" in set(pooled["set"])
    together = pooled[pooled["language"] == "all languages"]
    assert together["n"].max() == len(mixed_frame)
    # Pooled, only measures valid for every language are computed: chrF and BLEU, not MiniLM's English cosine.
    assert set(together["measure"]) == {"BLEU (0-100)", "chrF (0-100)"}
    assert "all languages" not in set(_meta_csv(path, capsys)["language"])


def test_correlate_leaderboard_and_failures_give_one_table_per_language_in_one_run(mixed_frame, tmp_path, capsys):
    path = tmp_path / "mixed.csv"
    small = mixed_frame.groupby("language").head(40)
    small.to_csv(path, index=False)
    assert main(["correlate", "--dataset", str(path), "--metrics", "chrf", "--bootstrap", "10", "--format", "csv"]) == 0
    from io import StringIO

    table = pd.read_csv(StringIO(capsys.readouterr().out))
    assert set(table["language"]) == set(PER_LANGUAGE)
    for code, part in small.groupby("language"):
        from stviz.metrics import compute_metric

        nfc = [[unicodedata.normalize("NFC", t) for t in part[side]] for side in ("source", "output")]
        chrf = compute_metric("chrf", *nfc)  # stviz reads every text in Unicode NFC (said in its notes)
        wanted = spearmanr(chrf, part["content"])[0]
        got = table[(table["language"] == code) & (table["method"] == "spearman")]["r"].iloc[0]
        assert got == pytest.approx(wanted, abs=5e-4)  # the table prints three decimals
    assert main(["failures", "--dataset", str(path), "--metric", "chrf", "--top", "2", "--format", "csv"]) == 0
    assert set(pd.read_csv(StringIO(capsys.readouterr().out))["language"]) == set(PER_LANGUAGE)
    assert main(["correlate", "--dataset", str(path), "--metrics", "chrf", "--bootstrap", "10",
                 "--language", "bn"]) == 0
    out = capsys.readouterr()
    assert "## " not in out.out and "language: bn (set by you" in out.err


def test_parts_know_their_language_without_detecting_again(mixed_frame, tmp_path, monkeypatch):
    from stviz.languages import detect

    path = tmp_path / "mixed.csv"
    mixed_frame.drop(columns=["language"]).to_csv(path, index=False)
    dataset = load_pairs_file(path)[0]
    parts = language_parts(dataset)
    monkeypatch.setattr(detect, "detect_texts", lambda texts: pytest.fail("detected again"))
    assert {part_language(p): len(p.pairs) for p in parts} == PER_LANGUAGE


def _commands_with_language() -> dict[str, list[str]]:
    """Every verb that reads pairs, with the arguments it needs besides ``--language``."""
    needs = {"embed": ["--dataset", "demo", "--embedder", "minilm", "--out", "x.parquet"],
             "reduce": ["--dataset", "demo", "--out", "x.csv"],
             "metrics": ["--dataset", "demo", "--out", "x.csv"], "intensity": ["--dataset", "demo", "--out", "x.csv"],
             "attribute": ["--dataset", "demo", "--out", "x.csv"], "meta-eval": [],
             "study": ["create", "--dataset", "demo"]}
    verbs = [c for c in COMMANDS if c not in ("data", "cache", "doctor", "dashboard")]
    return {verb: needs.get(verb, ["--dataset", "demo"]) for verb in verbs}


@pytest.mark.parametrize("verb", sorted(_commands_with_language()))
def test_every_verb_takes_language_as_written_and_never_completes_a_flag(verb):
    argv = [verb] + (["train"] if verb == "classify" else []) + _commands_with_language()[verb]
    args = build_parser(argv).parse_args(argv + ["--language", "uk"])
    reached = getattr(args, "language", None) or getattr(getattr(args, "dataset", None), "language", None)
    assert reached == "uk"
    with pytest.raises(SystemExit):
        build_parser(argv).parse_args(argv + ["--lang", "uk"])  # an abbreviation is refused, never completed


def test_the_pages_show_one_language_at_a_time_or_every_language_with_a_facet(mixed_frame, tmp_path):
    from pagetest import run_page, shown

    path = tmp_path / "mixed.csv"
    small = mixed_frame.groupby("language").head(30)
    small.to_csv(path, index=False)
    dataset = load_pairs_file(path)[0]
    at = run_page("3_Metrics_vs_humans.py", upload=dataset, state={"language-facet": "ru"})
    assert not at.exception, at.exception
    box = at.selectbox(key="language-facet-box")
    assert box.value == "ru" and set(box.options) == {f"{name} · 30 pairs" for name in (
        "Russian (ru)", "English (en)", "Hindi (hi)", "Bengali (bn)", "Telugu (te)", "Kannada (kn)")}
    assert "shown: Russian (ru), 30 of 180 pairs" in shown(at.caption)
    at = run_page("8_Meta_evaluation.py", upload=dataset, state={"meta-boot": 100, "meta-levels": ["sentence"]})
    assert not at.exception, at.exception
    facet = at.multiselect(key="meta-languages")
    assert set(facet.value) == set(PER_LANGUAGE)
    groups = [d.value for d in at.dataframe if "best" in d.value.columns][0]
    assert set(groups["language"]) == set(PER_LANGUAGE)
