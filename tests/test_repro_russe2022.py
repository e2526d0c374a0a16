"""Protasov, Babakov, Dementieva, Panchenko (LREC 2026) on RUSSE 2022's human evaluation, reproduced: every published
measure and LLM judge against every human aspect, each Spearman equal to an independent scipy computation on the
released files, and the values the paper's notebook (``vizualize/plot_russe2022.ipynb``) gives.

Read two ways: as the built-in ``russe2022-humaneval`` dataset, and as a user would bring it, the main file with the
two judges' files joined as columns (the notebook's ``model_{judge}_{column}`` names, ``idx`` and ``id`` kept), with
``--direction toxic>neutral``.
"""

from __future__ import annotations

from io import StringIO

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from stviz.cli import main

HUMAN = ("fluency", "non-toxicity", "content", "J")
ASPECT = {"fluency": "fluency", "non-toxicity": "style", "content": "content", "J": "overall"}
JUDGES = ("gpt-4.1-mini_few_shot", "meta-llama_Llama-3.3-70B-Instruct-Turbo")
JUDGE_COLUMNS = ("content_score", "toxic_pairwise_score", "fluency_score")
#: Spearman rho as the paper's notebook computes it (rounded to four decimals), per (human aspect, column).
PUBLISHED = {("non-toxicity", "CLS_NEW_GEN"): 0.4848, ("non-toxicity", "CLS_OLD_GEN"): 0.4053,
             ("non-toxicity", "gpt-4.1-mini_few_shot_toxic_pairwise_score"): 0.2263,
             ("non-toxicity", "meta-llama_Llama-3.3-70B-Instruct-Turbo_toxic_pairwise_score"): 0.2410,
             ("content", "XCOMET-LITE"): 0.4562, ("content", "gpt-4.1-mini_few_shot_content_score"): 0.3975,
             ("content", "chrf"): 0.2965}


@pytest.fixture(scope="module")
def released(corpora) -> pd.DataFrame:
    """The main file with both judges' columns joined row by row, as the notebook joins them."""
    folder = corpora / "russe2022-humaneval"
    frame = pd.read_csv(folder / "test_all_metrics_russe2022.csv")
    for judge in JUDGES:
        scores = pd.read_csv(folder / "llm_judges" / f"{judge}.csv")
        for column in JUDGE_COLUMNS:
            frame[f"{judge}_{column}"] = scores[column].to_numpy()
        frame[["idx", "id"]] = scores[["idx", "id"]].to_numpy()
    return frame


def published_columns(frame: pd.DataFrame) -> list[str]:
    """Every automatic measure and judge column of the released data."""
    texts = {"original", "method_output", "participant_name", "neutral_sentence_reference", "idx", "id"}
    return [c for c in frame.columns if c not in texts and c not in HUMAN]


def scipy_rho(frame: pd.DataFrame, column: str, human: str) -> float:
    return float(spearmanr(frame[column], frame[human], nan_policy="omit")[0])


def _meta_csv(capsys, *argv) -> tuple[pd.DataFrame, str]:
    assert main(["meta-eval", *argv, "--level", "sentence", "--method", "spearman", "--bootstrap", "20",
                 "--format", "csv"]) == 0
    out = capsys.readouterr()
    return pd.read_csv(StringIO(out.out)), out.err


def _check(table: pd.DataFrame, released: pd.DataFrame, name_of) -> None:
    """Every published column on every aspect, equal to scipy; the style table's order; the paper's values."""
    for human in HUMAN:
        rows = table[table["human"] == human].set_index("measure")
        assert set(rows["aspect"]) == {ASPECT[human]}
        for column in published_columns(released):
            assert rows.loc[name_of(column), "r"] == pytest.approx(scipy_rho(released, column, human), abs=5e-4)
    for (human, column), value in PUBLISHED.items():
        assert scipy_rho(released, column, human) == pytest.approx(value, abs=5e-5)
    style = table[table["human"] == "non-toxicity"].sort_values("r", ascending=False)
    order = list(style["measure"])
    assert order[:2] == [name_of("CLS_NEW_GEN"), name_of("CLS_OLD_GEN")]
    assert style["best group"].iloc[0] == "yes"  # the best of style is the authors' classifier, not a judge
    for judge in JUDGES:
        assert order.index(name_of(f"{judge}_toxic_pairwise_score")) > 1


def test_the_built_in_set_compares_every_published_measure_on_every_aspect(released, capsys):
    from stviz.analyses import meta_evaluation

    table, err = _meta_csv(capsys, "--datasets", "russe2022-humaneval")
    labels = lambda column: "chrF (precomputed, 0-100)" if column == "chrf" else f"{column} (precomputed)"  # noqa: E731
    _check(table, released, labels)
    assert "flag:" not in err  # chrf is chrF against the reference: checked, not accused
    assert "'chrf' ranks the pairs as stviz's chrf against the references does" in err
    # The table says how each measure's axis was assigned: the classifiers' names say none.
    axes = table.drop_duplicates("measure").set_index("measure")["measure's axis"]
    assert axes["CLS_NEW_GEN (precomputed)"] == "none said: compared on every aspect"
    assert axes["XCOMET-LITE (precomputed)"] == "none said: compared on every aspect"
    assert axes["chrF (precomputed, 0-100)"] == "content (by name)"
    assert "russe2022-humaneval" in meta_evaluation.HUMAN_RATED
    # stviz's own chrF against the reference is the authors' 'chrf' (issue 68): the paper's .2965 with content.
    content = table[table["human"] == "content"].set_index("measure")["r"]
    assert content["chrF (0-100) against the reference"] == pytest.approx(scipy_rho(released, "chrf", "content"),
                                                                           abs=5e-4)
    assert "chrF (0-100) against the source" in content.index


def test_stvizs_chrf_against_the_reference_is_the_authors_chrf(released):
    from stviz.data import load_dataset
    from stviz.metrics import metric_frame

    pairs = load_dataset("russe2022-humaneval").pairs
    ours = metric_frame(pairs, ["ref:chrf"])["ref:chrf"].to_numpy()
    # The same values: the authors' are on 0-1 (stviz's tables show them x100, as its own).
    assert ours / 100 == pytest.approx(pairs["metric:chrf"].astype(float).to_numpy(), abs=1e-9)
    rho = float(spearmanr(ours, pairs["human:content"], nan_policy="omit")[0])
    assert rho == pytest.approx(PUBLISHED[("content", "chrf")], abs=5e-5)


def test_a_users_joined_file_with_a_direction_reads_the_same(released, tmp_path, capsys):
    path = tmp_path / "russe2022_judges.csv"
    released.to_csv(path, index=False)
    table, err = _meta_csv(capsys, "--datasets", str(path), "--direction", "toxic>neutral")
    _check(table, released, lambda c: "chrF (precomputed, 0-100)" if c == "chrf" else f"{c} (precomputed)")
    mapping = next(line for line in err.splitlines() if line.startswith("columns: "))
    assert "human=J" in mapping and "key=idx" in mapping and "key=id" in mapping
    assert "human=non-toxicity" in mapping and "system=participant_name" in mapping
    assert "'J' is read as a human score: its values are the product of the ratings" in err
    assert "flag:" not in err


def test_without_a_direction_what_needs_none_is_shown_and_the_direction_is_asked_for(released, tmp_path, capsys):
    path = tmp_path / "russe2022_judges.csv"
    released.to_csv(path, index=False)
    table, err = _meta_csv(capsys, "--datasets", str(path))
    assert set(table["aspect"]) == {"content", "style", "fluency", "overall"}
    assert "stviz's style and fluency measures need each pair's target style" in err
    best = table[table["human"] == "non-toxicity"].sort_values("r", ascending=False)["measure"].iloc[0]
    assert best == "CLS_NEW_GEN (precomputed)"


def test_a_declared_axis_makes_a_measure_a_candidate_of_that_aspect_only(released, capsys):
    table, _ = _meta_csv(capsys, "--datasets", "russe2022-humaneval", "--axes", "CLS_NEW_GEN=fluency")
    rows = table[table["measure"] == "CLS_NEW_GEN (precomputed)"]
    assert set(rows["measure's axis"]) == {"fluency (declared)"}
    style = table[(table["human"] == "non-toxicity") & (table["best group"] == "yes")]["measure"]
    assert "CLS_NEW_GEN (precomputed)" not in set(style)  # shown on style, no longer its best
    assert np.isfinite(rows[rows["human"] == "non-toxicity"]["r"]).all()
