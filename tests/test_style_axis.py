"""The style axis (issue 41): measures of one pole turned toward each pair's target, declared on the page and on the
command line, flagged when nobody declared them; perplexity from a file's own human texts; rated sentences as
released; style scorers saved by name and applied to another set; the PT16 formality regressor."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr, spearmanr

from stviz.cli import main
from stviz.data.intake.build import load_pairs_file

from style_axis_data import (detox_pairs, one_direction_file, rated_sentences_file, two_direction_file,
                             two_direction_frame)


def _meta_csv(capsys, *args: str) -> tuple[pd.DataFrame, str]:
    assert main(["meta-eval", "--bootstrap", "30", "--format", "csv", *args]) == 0
    out, err = capsys.readouterr()
    return pd.read_csv(io.StringIO(out)), err


def _row(table: pd.DataFrame, measure: str, statistic: str = "Spearman ρ", level: str = "sentence") -> float:
    rows = table[table["measure"].str.startswith(measure) & (table["statistic"] == statistic)
                 & (table["level"] == level) & (table["aspect"] == "style")]
    assert len(rows) == 1, (measure, list(table["measure"]))
    return float(rows["r"].iloc[0])


def _turned(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A direct computation: P(formal) as 1 - p and the formality score negated where the target is informal."""
    informal = (frame["target_style"] == "informal").to_numpy()
    p = np.where(informal, 1 - frame["p_formal"], frame["p_formal"])
    reg = np.where(informal, -frame["formality_reg"], frame["formality_reg"])
    return p, reg, ((frame["style_1"] + frame["style_2"]) / 2).to_numpy()


# -- measures of one pole, turned toward each pair's target -----------------------------------------------------
def test_pole_measures_are_turned_toward_the_target_as_a_direct_computation(tmp_path, capsys):
    table, err = _meta_csv(capsys, "--datasets", two_direction_file(tmp_path), "--method", "pearson,spearman",
                           "--aspects", "content_mean=none,fluency_mean=none")
    p, reg, human = _turned(two_direction_frame())
    assert _row(table, "p_formal") == pytest.approx(spearmanr(p, human)[0], abs=5e-4)
    assert _row(table, "formality_reg") == pytest.approx(spearmanr(reg, human)[0], abs=5e-4)
    assert _row(table, "p_formal", "Pearson r") == pytest.approx(pearsonr(p, human)[0], abs=5e-4)
    frame = two_direction_frame().assign(p=p, human=human)
    means = frame.groupby("system")[["p", "human"]].mean()
    assert _row(table, "p_formal", "Pearson r", "system") == pytest.approx(pearsonr(means["p"], means["human"])[0],
                                                                           abs=5e-4)
    # Every output says so: the label, and the note naming the rule for each target style.
    assert "p_formal (precomputed) [formal pole, toward target]" in set(table["measure"])
    assert ("'p_formal' measures formal (read from its name; higher = more formal), turned toward each pair's "
            "target: as it is for formal targets, 1 - value for informal targets") in err
    assert "'formality_reg' measures formal" in err and "negated for informal targets" in err
    # Used as they were, the columns are upside down on the formal->informal half: far weaker.
    raw = two_direction_frame()
    assert spearmanr(raw["p_formal"], human)[0] < _row(table, "p_formal") - 0.5


def test_declaring_a_pole_on_the_command_line_changes_the_table_and_an_undeclared_one_is_flagged(tmp_path, capsys):
    path = two_direction_file(tmp_path, "anon.csv", p_formal="clf_a", formality_reg="reg_b")
    args = ["--datasets", path, "--method", "spearman", "--level", "sentence",
            "--aspects", "content_mean=none,fluency_mean=none,style_mean=style"]
    # Names that say no axis: 'clf_a' and 'reg_b' stand on every aspect's table, the style rating's too, used as they
    # are (no pole to turn) and marked as measures nobody assigned an axis (issue 54).
    table, _ = _meta_csv(capsys, *args)
    raw, human = two_direction_frame(), _turned(two_direction_frame())[2]
    assert _row(table, "clf_a") == pytest.approx(spearmanr(raw["p_formal"], human)[0], abs=5e-4)
    rows = table[table["measure"].str.startswith("clf_a")]
    assert set(rows["measure's axis"]) == {"none said: compared on every aspect"}
    table, err = _meta_csv(capsys, *args, "--poles", "clf_a=target,reg_b=target")
    p, reg, human = _turned(two_direction_frame())
    raw = two_direction_frame()
    assert _row(table, "clf_a") == pytest.approx(spearmanr(raw["p_formal"], human)[0], abs=5e-4)  # as declared: as is
    assert "'clf_a' measures toward each pair's target style (declared)" in err
    assert "flag:" not in err  # declared: nobody is second-guessed
    declared, err = _meta_csv(capsys, *args, "--poles", "clf_a=formal,reg_b=formal")
    assert _row(declared, "clf_a") == pytest.approx(spearmanr(p, human)[0], abs=5e-4)
    assert _row(declared, "reg_b") == pytest.approx(spearmanr(reg, human)[0], abs=5e-4)
    assert "'clf_a' measures formal (declared; higher = more formal), turned toward" in err
    # A column named like style whose name says no pole, nobody declaring it: flagged with both numbers and the fix.
    path = two_direction_file(tmp_path, "styled.csv", p_formal="style_clf")
    _, err = _meta_csv(capsys, "--datasets", path, "--method", "spearman", "--level", "sentence",
                       "--aspects", "content_mean=none,fluency_mean=none")
    flag = next(line for line in err.splitlines() if line.startswith("flag:") and "'style_clf'" in line)
    within = spearmanr(raw.loc[raw["target_style"] == "formal", "p_formal"],
                       human[(raw["target_style"] == "formal").to_numpy()])[0]
    assert f"rho = {spearmanr(raw['p_formal'], human)[0]:.3f}" in flag and f"within formal targets {within:.3f}" in flag
    assert "--poles style_clf=formal" in flag and "--poles style_clf=target" in flag


def test_a_bad_or_unknown_pole_is_refused_in_one_line(tmp_path, capsys):
    path = two_direction_file(tmp_path)
    assert main(["meta-eval", "--datasets", path, "--poles", "p_formal"]) == 2
    assert "--poles: 'p_formal' is not COLUMN=POLE" in capsys.readouterr().err
    assert main(["meta-eval", "--datasets", path, "--poles", "nothing=formal", "--bootstrap", "20"]) == 2
    err = capsys.readouterr().err
    assert "--poles names nothing, which the chosen sets do not have; their columns: formality_reg, p_formal" in err
    assert "Traceback" not in err
    assert main(["meta-eval", "--datasets", path, "--poles", "p_formal=polite", "--bootstrap", "20",
                 "--aspects", "content_mean=none,fluency_mean=none"]) == 2
    assert "'polite' is none of the pairs' styles (formal, informal)" in capsys.readouterr().err


def test_correlate_and_failures_turn_a_pole_column_too(tmp_path, capsys):
    path = two_direction_file(tmp_path)
    assert main(["correlate", "--dataset", path, "--human", "style_mean", "--metrics", "metric:p_formal",
                 "--method", "spearman", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    p, _, human = _turned(two_direction_frame())
    table = pd.read_csv(io.StringIO(out))
    assert float(table["r"].iloc[0]) == pytest.approx(spearmanr(p, human)[0], abs=5e-4)
    assert "turned toward each pair's target" in err
    # Failure cases rank the disagreements of the turned values too.
    assert main(["failures", "--dataset", path, "--human", "style_mean", "--metric", "metric:p_formal",
                 "--top", "72", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    ranking = pd.read_csv(io.StringIO(out), index_col="pair").sort_index()
    np.testing.assert_allclose(ranking["metric value"], p, atol=5e-4)
    assert "under p_formal (precomputed) [formal pole, toward target]" in err


def test_declaring_a_pole_on_the_page_changes_the_table(tmp_path):
    from pagetest import plain, run_page

    ds = load_pairs_file(two_direction_file(tmp_path, "anon.csv", p_formal="style_clf"))[0]
    state = {"meta-boot": 100, "meta-methods": ["spearman"], "meta-levels": ["sentence"],
             "meta-aspect-content_mean": "none", "meta-aspect-fluency_mean": "none"}

    def r_of(chosen: dict) -> float:
        """style_clf's r in the table of every row (its own tab: only the open tab is drawn)."""
        at = run_page("8_Meta_evaluation.py", upload=ds, state={**state, **chosen, "meta-tab": "Every row"})
        assert not at.exception, at.exception
        table = next(d.value for d in at.dataframe if "Williams p" in d.value.columns)
        return float(table.loc[table["measure"].str.startswith("style_clf"), "r"].iloc[0])

    at = run_page("8_Meta_evaluation.py", upload=ds, state=state)  # the first tab: by axis, with its flags
    assert not at.exception, at.exception
    assert any("--poles style_clf=formal" in plain(w.value) for w in at.warning)  # flagged: it follows the direction
    at = run_page("8_Meta_evaluation.py", upload=ds, state={**state, "meta-pole-style_clf": "formal"})
    assert not at.exception, at.exception
    assert any("turned toward each pair" in plain(c.value) for c in at.caption)
    p, _, human = _turned(two_direction_frame())
    before, after = r_of({}), r_of({"meta-pole-style_clf": "formal"})
    assert after == pytest.approx(spearmanr(p, human)[0], abs=5e-4) and after > before + 0.5


# -- fluency from the file's own human texts ----------------------------------------------------------------------
def test_perplexity_from_the_files_own_human_texts_never_sees_an_outputs_references(tmp_path, capsys):
    from stviz.measures.fluency.own_texts import own_text_folds

    frame = two_direction_frame()
    folds, line, missing = own_text_folds(frame, ["reference"], ["formal", "informal"])
    assert not missing and "formal: 12 inputs, 12 references; informal: 12 inputs, 12 references" in line
    outputs = set(frame["output"]) - set(frame["source"]) - set(frame["reference"])
    for fold in folds:
        scored = frame[fold.scored]
        seen = {t for texts in fold.training.values() for t in texts}
        assert not seen & set(scored["reference"]) and not seen & set(scored["source"]) and not seen & outputs
    table, err = _meta_csv(capsys, "--datasets", two_direction_file(tmp_path), "--method", "spearman",
                           "--aspects", "content_mean=none,style_mean=none")
    assert "−perplexity (n-gram LM)" in set(table.loc[table["aspect"] == "fluency", "measure"])
    assert "the n-gram language model learned from the file's own human-written texts" in err


# -- rated sentences as released ----------------------------------------------------------------------------------
@pytest.mark.parametrize("ids", ["id", "SID"])
def test_rated_sentences_as_released_read_label_as_the_rating_and_id_as_nothing(tmp_path, ids):
    ds, mapping, _ = load_pairs_file(rated_sentences_file(tmp_path, ids=ids))
    assert mapping.describe() == f"source=sentence,human=label,key={ids}"
    assert ds.pairs is None and list(ds.texts.columns) == ["text", "style", "human:label"]
    assert len(ds.texts) == 48 and "None" not in set(ds.texts["text"])  # the 'None' row is a missing one, said
    assert any("written as a missing value (None, NaN, null)" in n for n in ds.notes)
    assert any(f"Column '{ids}' holds row numbers" in n for n in ds.notes)


def test_pt16_is_fetched_from_its_release_and_verified(tmp_path, monkeypatch):
    """data fetch pt16: the network is the true external border; it answers with the published bytes."""
    import requests
    from conftest import SHARED_CORPORA

    from stviz.data import load_dataset
    from stviz.data.corpora import sources

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    prefix = "https://raw.githubusercontent.com/Elbria/xformal-FoST-meta/HEAD/best-practices/Formality/PT16_for_huggingface/"

    def published(self, url, timeout):
        name = url.removeprefix(prefix).replace("README.md", "README.upstream.md")
        answer = type("Response", (), {"status_code": 200, "content": (SHARED_CORPORA / "pt16" / name).read_bytes()})
        return answer()

    monkeypatch.setattr(requests.Session, "get", published)
    sources.fetch("pt16")
    assert sources.is_installed("pt16") and len(load_dataset("pt16-train").texts) == 4477
    monkeypatch.setattr(requests.Session, "get", lambda self, url, timeout: type(
        "Response", (), {"status_code": 200, "content": b"SID,label,sentence\n"})())
    with pytest.raises(Exception, match="differs from the published version"):
        sources.fetch("pt16")


# -- style scorers saved by name, applied to another set ----------------------------------------------------------
def test_a_scorer_trained_on_one_rated_file_is_applied_to_another_on_the_command_line(tmp_path, capsys):
    train, other = rated_sentences_file(tmp_path, "train.csv", seed=0), rated_sentences_file(tmp_path, "other.csv", 1)
    assert main(["classify", "train", "--ratings", train, "--name", "mine", "--out", str(tmp_path / "mine")]) == 0
    out = capsys.readouterr().out
    assert "style scorer mine: ridge on TF-IDF" in out and "held-out MAE" in out and "higher = more" not in out
    table, _ = _meta_csv(capsys, "--datasets", other, "--style-scorer", str(tmp_path / "mine"), "--method", "spearman")
    row = table[table["measure"].str.startswith("mine (TF-IDF ridge on train 'label'; held-out MAE")]
    assert len(row) == 1 and row["r"].iloc[0] > 0.5  # its agreement on the other file, beside its own held-out error
    assert main(["classify", "train", "--ratings", train, "--kind", "lr"]) == 2
    assert "--ratings learns a scorer" in capsys.readouterr().err


def test_a_scorer_trained_on_the_page_is_saved_by_name_and_applied_to_another_set(tmp_path, monkeypatch):
    from pagetest import plain, run_page

    from stviz.measures.style import saved

    # A home of its own: the training job runs in a worker process, which takes the server's STVIZ_HOME.
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    ds = load_pairs_file(rated_sentences_file(tmp_path, "mine.csv"))[0]
    at = run_page("8_Meta_evaluation.py", upload=ds, state={"meta-boot": 100, "meta-train-set": "mine",
                                                           "meta-train-name": "from-page"})
    at.button(key="meta-train-go").click().run()
    assert not at.exception, at.exception
    said = " ".join(plain(s.value) for s in at.success)
    assert "Saved as **from-page**" in said and "held-out MAE" in said
    assert "from-page" in saved.saved_scorers()
    other = load_pairs_file(rated_sentences_file(tmp_path, "other.csv", seed=3))[0]
    at = run_page("8_Meta_evaluation.py", upload=other, state={"meta-boot": 100, "meta-scorers": "from-page",
                                                              "meta-methods": ["spearman"], "meta-tab": "Every row"})
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "Williams p" in d.value.columns)
    row = table[table["measure"].str.startswith("from-page (TF-IDF ridge on mine 'label'; held-out MAE")]
    assert len(row) == 1 and float(row["r"].iloc[0]) > 0.5


# -- the public formality scorer ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_pt16_formality_regressor_and_a_one_direction_file_without_formal_texts(tmp_path, capsys, corpora):
    from stviz.measures.style.formality import formality_scorer

    scorer = formality_scorer()
    assert scorer.trained_on == "pt16-train" and scorer.n_train == 4477 and scorer.pole == "formal"
    assert 0.6 < scorer.held_out["mae"] < 1.0 and scorer.held_out["spearman"] > 0.6  # 5-fold on PT16's train file
    table, err = _meta_csv(capsys, "--datasets", one_direction_file(tmp_path), "--direction", "informal>formal",
                           "--method", "spearman")
    style = table[table["aspect"] == "style"]
    assert set(style["measure"]) == {f"{scorer.label} [formal pole]"}  # no classifier: one style of human texts
    assert {"sentence", "system"} <= set(style["level"]) and (style["r"] > 0.5).all()
    assert {"content", "fluency"} <= set(table["aspect"])
    assert "no style classifier measures" in err


@pytest.mark.slow
def test_the_leaderboard_takes_a_style_scorer_turned_toward_the_target(tmp_path, capsys, corpora):
    path = two_direction_file(tmp_path)
    assert main(["leaderboard", "--dataset", path, "--metrics", "style_score", "--n-resamples", "100",
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    board = pd.read_csv(io.StringIO(out)).set_index(["system", "metric"])["value"]
    assert board[("rewriter", "style_score")] > board[("halfway", "style_score")] > board[("copier", "style_score")]
    assert "style scorer: pt16-formality" in err and "negated for informal targets" in err


def test_a_chosen_style_scorer_that_applies_to_no_target_says_why():
    # Sentiment targets: the built-in scorer rates formality, so the column is left out, with its reason.
    from stviz.measures.style.scoring import leaderboard_style_score

    notes = []
    pairs = pd.DataFrame({"output": ["good food", "bad food"], "target_style": ["positive", "negative"]})
    assert np.isnan(leaderboard_style_score(pairs, "auto", notes)).all()
    assert notes == ["style scorer not computed: none applies to these targets (the built-in one, pt16-formality, "
                     "rates formal / informal targets); name one with --style-scorer"]


# -- English detoxification: ParaDetox's texts train the style classifier (issue 68) ----------------------------------
def _detox(corpora) -> pd.DataFrame:
    return detox_pairs(corpora / "paradetox" / "paradetox.tsv")


def _of_the_sample(texts: pd.DataFrame, pairs: pd.DataFrame) -> int:
    """ParaDetox's texts of the sample's comments: each comment, its rewrites, and the same texts written for another
    comment (two workers wrote "Yeah, I googled that thing." for two comments)."""
    of_a_comment = texts["input"].isin(set(pairs["source"]))
    return int((of_a_comment | texts["text"].isin(set(texts.loc[of_a_comment, "text"]))).sum())


@pytest.mark.parametrize("source, target, found", [
    ("toxic", "neutral", "paradetox"), ("toxic", "non-toxic", "paradetox"), ("Offensive", "Neutral", "paradetox"),
    ("toxic", "detoxified", "paradetox"), ("toxic", "Non_Toxic", "paradetox"), ("negative", "positive", "yelp-sentiment"),
    ("informal", "formal", None), ("positive", "neutral", None)])  # the last: sentiment, though ParaDetox has neutral
def test_a_set_of_toxic_to_neutral_pairs_finds_paradetox_under_its_own_style_names(corpora, source, target, found):
    from stviz.data.labels import StyleTexts, matching_corpus
    from stviz.data.schema import Dataset

    pairs = _detox(corpora).assign(source_style=source, target_style=target)
    ds = Dataset("detox", "detox", pairs=pairs)
    assert matching_corpus(ds) == found
    if found == "paradetox":
        texts = StyleTexts.resolve(ds)
        # The classifier's classes and the language model's styles are the set's own names: no target goes unknown.
        assert set(texts.labelled()["style"]) == {source, target} and texts.corpus.name == "paradetox"
        assert ("named as the pairs name them" in texts.describe()) == ((source, target) != ("toxic", "neutral"))
    two_names = pairs.assign(target_style=np.where(pairs.index % 2 == 0, "neutral", "non-toxic"))
    assert matching_corpus(Dataset("detox", "detox", pairs=two_names)) is None  # one style, two classes: no match


def test_english_detox_pairs_get_paradetoxs_style_accuracy_and_direction_corrected_emd(corpora, monkeypatch):
    """Meta-evaluation's style measures on English detoxification without references: before ParaDetox, only the
    own-text classifier, which has no neutral text to learn from; now ParaDetox's classifier, checked against a direct
    computation of Mir et al.'s direction-corrected EMD from its style distributions."""
    from stviz.analyses import tradeoffs
    from stviz.analyses.meta_measures import measure_set
    from stviz.data import labels
    from stviz.data.schema import Dataset
    from stviz.progress import reporter

    ds = Dataset("detox", "English detox outputs", pairs=_detox(corpora).assign(source_style="toxic",
                                                                                   target_style="neutral"))
    with monkeypatch.context() as before:  # stviz without ParaDetox: the report
        before.setattr(labels, "STYLE_CORPORA", {"yelp-sentiment": labels.STYLE_CORPORA["yelp-sentiment"]})
        measures = measure_set(ds, {"human:non_toxicity": "style"}, None, reporter(None))
        assert "target_style_accuracy" not in measures.raw
        assert any("fewer than 10 human-written texts of neutral" in why for _, why in measures.skipped)
    measures = measure_set(ds, {"human:non_toxicity": "style"}, None, reporter(None))
    raw = measures.raw
    assert {"target_style_accuracy", "target_style_probability", "direction_corrected_emd"} <= set(raw.columns)
    trained = tradeoffs.classifier(ds, tradeoffs.Options())  # the same (cached) classifier the measures used
    assert trained.source == "paradetox" and trained.classes == ["neutral", "toxic"] and trained.accuracy > 0.9
    corpus = labels.StyleTexts.resolve(ds).labelled()
    assert trained.n_train + trained.n_test == len(corpus) - _of_the_sample(corpus, ds.pairs)  # none learned from
    probs = trained.predict_proba(ds.pairs["source"].tolist() + ds.pairs["output"].tolist())
    p, q = probs[:len(ds.pairs), 0], probs[len(ds.pairs):, 0]  # P(neutral) of each input and output
    np.testing.assert_allclose(raw["direction_corrected_emd"], np.abs(q - p) * np.where(q >= p, 1, -1), atol=1e-9)
    means = raw.groupby(ds.pairs["system"])[["target_style_accuracy", "direction_corrected_emd"]].mean()
    assert means.loc["crowd", "target_style_accuracy"] > 0.9 > 0.25 > means.loc["copy", "target_style_accuracy"]
    assert means.loc["copy", "direction_corrected_emd"] == 0  # an output that is its input moved nowhere
    assert means.loc["crowd", "direction_corrected_emd"] > means.loc["delete", "direction_corrected_emd"] > 0


@pytest.mark.slow
def test_english_detox_outputs_on_the_leaderboard_get_style_accuracy_and_j(tmp_path, capsys, corpora):
    import re

    from stviz.data import load_dataset

    path = tmp_path / "detox.csv"
    pairs = _detox(corpora)
    pairs.to_csv(path, index=False)
    assert main(["leaderboard", "--dataset", str(path), "--direction", "toxic>neutral", "--metrics",
                 "accuracy,cosine,perplexity,j", "--n-resamples", "200", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    said = re.search(r"style classifier: TF-IDF logistic regression trained on paradetox \(([\d,]+) sentences\); "
                     r"held-out accuracy ([\d.]+) on ([\d,]+)", err)
    assert said, err
    n_train, accuracy, n_test = int(said[1].replace(",", "")), float(said[2]), int(said[3].replace(",", ""))
    texts = load_dataset("paradetox").texts
    assert accuracy > 0.9 and n_train + n_test == len(texts) - _of_the_sample(texts, pairs)
    assert "style texts: ParaDetox" in err and "fluency: perplexity" in err
    table = pd.read_csv(io.StringIO(out)).set_index(["system", "metric"])["value"]
    assert table["crowd", "accuracy"] > 90 and table["copy", "accuracy"] < 25
    assert table["crowd", "j"] > table["copy", "j"] and table["delete", "j"] > table["copy", "j"]
