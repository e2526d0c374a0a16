"""One vocabulary of column meanings (stviz.data.meanings): what a column of a user's file is, decided once from its
name and its values, and read alike by the intake, the orientation of style measures and the sanity checks.

Every file here is made in the test.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from stviz.cli import main
from stviz.data.intake.build import load_pairs_file
from stviz.data.intake.mapping import detect_mapping
from stviz.data.meanings import guess_aspect, is_key_name, measure_axis, namesake, style_pole

from style_axis_data import parallel, two_direction_frame


def _meta_csv(capsys, *args: str) -> tuple[pd.DataFrame, str]:
    assert main(["meta-eval", "--bootstrap", "20", "--level", "sentence", "--method", "spearman", "--format", "csv",
                 *args]) == 0
    out, err = capsys.readouterr()
    return pd.read_csv(io.StringIO(out)), err


@pytest.mark.parametrize("name,axis", [("style_acc", "style"), ("gpt2_ppl", "fluency"), ("chrF", "content"),
                                       ("p_pos", "style"), ("toxicity", "style"), ("J", "overall"),
                                       ("CLS_NEW_GEN", None), ("XCOMET-XL", None), ("clf_prob", None)])
def test_a_measure_has_the_axis_its_name_says_or_none(name, axis):
    assert measure_axis(name) == axis


def test_poles_targets_and_negations_are_read_from_the_name():
    assert style_pole("p_formal") == ("pole", "formal") and style_pole("p_pos") == ("pole", "positive")
    assert style_pole("toxic_pairwise_score") == ("target", "")  # is the output less toxic than its input?
    assert style_pole("non-toxicity") == ("pole", "non-toxic")  # higher = less toxic: never turned as toxicity
    assert guess_aspect("non-toxicity") == "style" and guess_aspect("J") == "overall"


@pytest.mark.parametrize("name", ["id", "idx", "SID", "source_index", "pair_id", "row_no", "sentence_idx", "key"])
def test_id_names_are_keys(name):
    assert is_key_name(name)


@pytest.mark.parametrize("name", ["index_score", "fluency", "style_1", "bleu_id", "rater_2"])
def test_other_names_are_not_keys(name):
    assert not is_key_name(name)


def _pairs(n: int = 30) -> pd.DataFrame:
    informal, formal = parallel()
    rng = np.random.default_rng(3)
    return pd.DataFrame({"source": (informal * 2)[:n], "output": (formal * 2)[:n],
                         "content": rng.integers(1, 6, n).astype(float)})


def test_keys_by_name_and_by_shape_are_never_measures(tmp_path):
    frame = _pairs().assign(source_index=[i % 10 for i in range(30)], row=range(1, 31),
                            uid=[f"anton_{i}_ru" for i in range(30)], bleu=np.linspace(0, 1, 30))
    frame = frame[["source", "row", "output", "source_index", "uid", "content", "bleu"]]
    path = tmp_path / "keys.csv"
    frame.to_csv(path, index=False)
    dataset, mapping, _ = load_pairs_file(path)
    assert mapping.keys == ["row", "source_index", "uid"] and mapping.metrics == ["bleu"]
    assert mapping.evidence["source_index"] == "named as an identifier"
    assert "key=source_index" in mapping.describe()
    assert not [c for c in dataset.pairs.columns if "index" in c or "uid" in c or c.endswith(":row")]
    assert any("'source_index' holds identifiers" in note for note in dataset.notes)
    # The user's word still wins: --columns metric=source_index makes it a measure.
    forced, mapping, _ = load_pairs_file(path, columns="metric=source_index")
    assert "metric:source_index" in forced.pairs and "source_index" not in mapping.keys


def test_a_row_number_column_in_the_middle_is_a_key_by_its_values(tmp_path):
    frame = _pairs().assign(n=range(30))[["source", "n", "output", "content"]]
    mapping = detect_mapping(frame)
    assert mapping.keys == ["n"]
    assert mapping.evidence["n"] == "its values count the rows (distinct whole numbers in row order)"


def test_a_counter_from_any_start_is_a_key_said_as_such(tmp_path):
    frame = _pairs(40).assign(seq=range(1001, 1041), countdown=range(540, 500, -1))
    path = tmp_path / "seq.csv"
    frame.to_csv(path, index=False)
    dataset, mapping, _ = load_pairs_file(path)
    assert mapping.keys == ["seq", "countdown"] and mapping.metrics == [] and "key=seq" in mapping.describe()
    assert not [c for c in dataset.pairs.columns if "seq" in c or "countdown" in c]
    assert ("Column 'seq' is a key (its values count by one in file order, 1001 to 1040: a counter, not a measure); "
            "it is not used as a score or metric.") in dataset.notes
    # Whole numbers that skip (a measure on a 0-100 scale) stay a measure.
    frame.assign(seq=[1001 + 2 * i for i in range(40)]).drop(columns="countdown").to_csv(path, index=False)
    assert load_pairs_file(path)[1].metrics == ["seq"]


def test_the_product_of_the_ratings_is_a_rating_and_a_pole_beside_the_style_rating_is_a_measure():
    frame = _pairs()
    rng = np.random.default_rng(0)
    frame["style"], frame["fluency"] = rng.integers(1, 6, 30).astype(float), rng.integers(0, 2, 30).astype(float)
    frame["J"] = frame["style"] * frame["fluency"] * frame["content"]
    frame["toxicity"] = rng.random(30)
    mapping = detect_mapping(frame)
    assert "J" in mapping.human and "toxicity" in mapping.metrics
    assert "product of the ratings" in mapping.evidence["J"]
    assert mapping.evidence["toxicity"] == "it names one pole (toxic) and stands beside the human style rating 'style'"
    alone = detect_mapping(frame.drop(columns=["style"]).rename(columns={"toxicity": "non-toxicity"}))
    assert "non-toxicity" in alone.human  # alone, a pole-named column is the style rating


def _detox_frame(seed: int = 0) -> pd.DataFrame:
    """Two directions (toxic->neutral and neutral->toxic), a human style rating of the target reached, a toxicity
    classifier's P(toxic) of each output, and columns of no axis and of the pole 'positive'."""
    frame = two_direction_frame(seed).rename(columns={"p_formal": "toxicity"})
    frame = frame.replace({"formal": "toxic", "informal": "neutral"})
    frame["style"] = (frame["style_1"] + frame["style_2"]) / 2
    rng = np.random.default_rng(seed)
    frame["clf_prob"] = rng.random(len(frame))
    frame["p_pos"] = rng.random(len(frame))
    return frame.drop(columns=["style_1", "style_2", "formality_reg", "fluency_1", "fluency_2"])


def test_toxicity_beside_a_style_rating_is_turned_toward_each_target_and_declarable(tmp_path, capsys):
    frame = _detox_frame()
    path = tmp_path / "detox.csv"
    frame.to_csv(path, index=False)
    truth = np.where(frame["target_style"] == "toxic", frame["toxicity"], 1 - frame["toxicity"])
    wanted = spearmanr(truth, frame["style"])[0]
    for extra in ((), ("--poles", "toxicity=toxic")):
        table, err = _meta_csv(capsys, "--datasets", str(path), "--aspects", "content_mean=none", *extra)
        style = table[table["aspect"] == "style"]
        row = style[style["measure"].str.startswith("toxicity")]
        assert len(row) == 1 and row["r"].iloc[0] == pytest.approx(wanted, abs=5e-4)
        assert "'toxicity' measures toxic" in err
    # Measures whose names say no axis stand on every aspect; p_pos names a pole none of the pairs' styles is.
    measures = set(style["measure"])
    assert "clf_prob (precomputed)" in measures and any(m.startswith("p_pos") for m in measures)
    assert "'p_pos' looks like a measure of positive but was used as it is" in err


def test_a_correctly_oriented_column_that_follows_the_direction_is_never_advised_a_flip(tmp_path, capsys):
    frame = _detox_frame()
    oriented = np.where(frame["target_style"] == "toxic", frame["toxicity"], 1 - frame["toxicity"])
    # Higher on toxic targets (one direction is easier) but rising with the rating within each direction.
    frame["style_clf"] = oriented + np.where(frame["target_style"] == "toxic", 1.0, 0.0)
    path = tmp_path / "oriented.csv"
    frame.drop(columns=["toxicity"]).to_csv(path, index=False)
    table, err = _meta_csv(capsys, "--datasets", str(path), "--aspects", "content_mean=none",
                           "--poles", "style_clf=target")
    assert "flag:" not in err
    _, err = _meta_csv(capsys, "--datasets", str(path), "--aspects", "content_mean=none")
    assert not [line for line in err.splitlines() if line.startswith("flag:") and "style_clf" in line]
    # A column of one pole nobody declared is still flagged: its sign flips between the directions.
    flipped = frame.drop(columns=["toxicity"]).assign(style_clf=frame["toxicity"])
    flipped.to_csv(path, index=False)
    _, err = _meta_csv(capsys, "--datasets", str(path), "--aspects", "content_mean=none")
    assert [line for line in err.splitlines() if line.startswith("flag:") and "'style_clf'" in line]


def test_a_chrf_column_against_the_references_is_checked_as_such_and_one_of_neither_is_flagged(tmp_path, capsys):
    import sacrebleu

    frame = two_direction_frame()
    chrf = sacrebleu.metrics.CHRF()
    frame["chrf"] = [chrf.sentence_score(o, [r]).score for o, r in zip(frame["output"], frame["reference"])]
    frame["bleu"] = np.random.default_rng(0).random(len(frame))
    path = tmp_path / "chrf.csv"
    frame.to_csv(path, index=False)
    _, err = _meta_csv(capsys, "--datasets", str(path), "--aspects", "style_mean=none,fluency_mean=none")
    flags = [line for line in err.splitlines() if line.startswith("flag:")]
    assert not [f for f in flags if "'chrf'" in f]
    assert "'chrf' ranks the pairs as stviz's chrf against the references does" in err
    assert [f for f in flags if "'bleu' is named like stviz's BLEU" in f and "against the references rho" in f]


# -- issue 68: a measure is held to its own namesake only ------------------------------------------------------------
@pytest.mark.parametrize("name,metric", [("bleurt", None), ("BLEURT-20", None), ("iBLEU", None), ("bert_f1", None),
                                         ("comet", None), ("xcomet", None), ("chrF+", None), ("chrF++", "chrf++"),
                                         ("chrf", "chrf"), ("rougeL", "rougeL"), ("rouge1", "rouge1"),
                                         ("rouge", None), ("meteor", "meteor"), ("bertscore", "bertscore"),
                                         ("self-BLEU", "bleu"), ("multi-bleu", "bleu"), ("bleu_score", "bleu")])
def test_a_measure_is_the_namesake_of_its_exact_measure_only(name, metric):
    assert namesake(name) == metric


def test_bleurt_and_other_near_namesakes_are_never_flagged_as_the_measure_their_name_holds(tmp_path, capsys):
    rng = np.random.default_rng(5)
    frame = _pairs(40).assign(bleurt=rng.random(40), iBLEU=rng.random(40), bleu=rng.random(40))
    path = tmp_path / "bleurt.csv"
    frame.to_csv(path, index=False)
    assert main(["correlate", "--dataset", str(path), "--metrics", "bleu,chrf,metric:bleurt,metric:iBLEU,metric:bleu",
                 "--bootstrap", "20"]) == 0
    flags = [line for line in capsys.readouterr().err.splitlines() if line.startswith("flag:")]
    assert not [f for f in flags if "'bleurt'" in f or "'iBLEU'" in f]
    assert [f for f in flags if "'bleu' is named like stviz's BLEU" in f]  # the exact namesake is still checked
