"""Meta-evaluation (issue 21): system-level statistics, sanity flags on precomputed columns, the view on an
upload whose columns lie about their names (analysis, page and command), and the built-in sets in one run."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from pagetest import run_page, shown

from stviz.cli import main
from stviz.meta.system import best_group, paired_test, system_level, system_statistics


# -- statistics -------------------------------------------------------------------------------------------
def test_pairwise_accuracy_counts_the_pairs_ordered_as_the_raters_do():
    human = np.array([1.0, 2.0, 3.0, 4.0])
    stats = system_statistics(np.array([10.0, 20.0, 40.0, 30.0]), human)  # one of six pairs swapped
    assert stats["pairwise_accuracy"] == pytest.approx(5 / 6)
    assert stats["kendall"] == pytest.approx(4 / 6)
    assert system_statistics(np.array([1.0, 1.0, 3.0, 4.0]), human)["pairwise_accuracy"] == pytest.approx(5 / 6)


def _systems_frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    quality = np.repeat(np.arange(5, dtype=float), 40)  # five systems, 40 items each
    human = quality + rng.normal(0, 1, len(quality))
    return pd.DataFrame({"system": np.repeat(list("abcde"), 40), "human": human,
                         "good": quality + rng.normal(0, 0.5, len(quality)), "noise": rng.normal(0, 1, len(quality))})


def test_system_level_intervals_resample_items_within_systems():
    table, reps = system_level(_systems_frame(), ["good", "noise"], "human", n_boot=300)
    good = table[(table["metric"] == "good")].set_index("statistic")
    assert good.loc["pearson", "r"] > 0.95 and good.loc["pairwise_accuracy", "r"] == 1.0
    assert good.loc["pearson", "ci_low"] <= good.loc["pearson", "r"] <= good.loc["pearson", "ci_high"]
    assert (good["n"] == 5).all()
    assert paired_test(reps[("pearson", "good")], reps[("pearson", "noise")]) < 0.05
    grouped = best_group(table, reps).set_index(["statistic", "metric"])
    assert grouped.loc[("pearson", "good"), "best_group"] and not grouped.loc[("pearson", "noise"), "best_group"]


# -- an upload whose metric columns lie about their names ----------------------------------------------------
def _lying_upload(tmp_path) -> str:
    """Demo pairs with their content rating, a 'chrF' that is the negated chrF and a 'W2V' that is chrF copied."""
    from stviz.data import load_dataset
    from stviz.metrics import compute_metric

    pairs = load_dataset("demo").pairs
    chrf = compute_metric("chrf", pairs["source"].tolist(), pairs["output"].tolist())
    path = tmp_path / "lying.csv"
    pd.DataFrame({"source": pairs["source"], "output": pairs["output"], "system": pairs["system"],
                  "human_content": pairs["human:content_preservation"], "chrF": -chrf, "W2V": chrf}).to_csv(path,
                                                                                                       index=False)
    return str(path)


def _upload(path: str):
    from stviz.data.intake.build import load_pairs_file

    return load_pairs_file(path)[0]


def test_lying_columns_are_flagged_in_the_result(tmp_path):
    from stviz.analyses import meta_evaluation

    dataset = _upload(_lying_upload(tmp_path))
    result = meta_evaluation.run(dataset, meta_evaluation.Options(datasets=(dataset.name,), bootstrap=50))
    flags = result.flags.set_index(["column", "kind"])
    assert flags.loc[("metric:chrF", "disagrees"), "rho"] == pytest.approx(-1.0)
    assert "negated" in flags.loc[("metric:chrF", "disagrees"), "reason"]
    copy = result.flags[(result.flags["column"] == "metric:W2V") & (result.flags["other"] == "chrf")]
    assert copy["kind"].tolist() == ["identical"] and copy["rho"].iloc[0] == pytest.approx(1.0)
    assert set(result.table["level"]) == {"sentence", "system"}


def test_lying_columns_are_flagged_on_the_page(tmp_path):
    dataset = _upload(_lying_upload(tmp_path))
    at = run_page("8_Meta_evaluation.py", upload=dataset, state={"meta-sets": [dataset.name], "meta-boot": 100})
    assert not at.exception, at.exception
    warnings = shown(at.warning)
    assert "'chrF' is named like stviz's chrF" in warnings and "-1.000" in warnings
    assert "'W2V' ranks every pair in the same order as chrF" in warnings


def test_lying_columns_are_flagged_by_the_command(tmp_path, capsys):
    assert main(["meta-eval", "--datasets", _lying_upload(tmp_path), "--bootstrap", "100", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "flag: lying: 'chrF' is named like stviz's chrF" in err
    assert "'W2V' ranks every pair in the same order as chrF" in err
    table = pd.read_csv(io.StringIO(out))
    assert {"sentence", "system"} <= set(table["level"])


def test_the_same_flags_on_metrics_vs_humans_and_in_correlate(tmp_path, capsys):
    path = _lying_upload(tmp_path)
    at = run_page("3_Metrics_vs_humans.py", upload=_upload(path),
                  state={"mvh-metrics": ["chrf", "cosine:glove-mean", "metric:chrF", "metric:W2V"]})
    assert not at.exception, at.exception
    assert "'chrF' is named like stviz's chrF" in shown(at.warning) + shown(at.markdown)
    assert main(["correlate", "--dataset", path, "--metrics", "chrf,cosine:glove-mean,metric:chrF,metric:W2V",
                 "--format", "csv"]) == 0
    assert "flag: 'W2V' ranks every pair in the same order as chrF" in capsys.readouterr().err


# -- the built-in sets ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_every_built_in_set_in_one_run(sgdd, capsys):
    sets = "sgdd-tst,mir-yelp,li2018-yelp,li2018-amazon,li2018-captions"
    # A seeded sample of 1,000 pairs per set (whole inputs, stratified by system): what this test holds is that every
    # set goes through one run with its levels, intervals and flags; the full sets' numbers are the reproductions'.
    assert main(["meta-eval", "--datasets", sets, "--max-pairs", "1000", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out))
    for name in sets.split(","):
        rows = table[table["set"] == name]
        assert rows["95% CI low"].notna().any(), name
        assert "sentence" in set(rows["level"]), name
        if name != "sgdd-tst":  # SGDD-TST has no systems
            assert "system" in set(rows["level"]), name
    # SGDD-TST's 'bleu' is character-level NLTK BLEU (tests/test_repro_babakov.py): said, with its evidence.
    assert "flag: sgdd-tst: 'bleu' is named like stviz's BLEU" in err and "over characters" in err
