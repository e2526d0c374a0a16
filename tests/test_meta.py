"""Correlations with bootstrap intervals, Williams test, NE table, rank disagreement."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stviz.meta import sentence as meta
from stviz.data.schema import DataError


def _data(n=400, seed=3):
    rng = np.random.default_rng(seed)
    human = np.round(rng.uniform(1, 5, n) * 3) / 3  # ties, like averaged votes
    good = human + rng.normal(0, 1.0, n)
    weak = human + rng.normal(0, 3.0, n)
    return pd.DataFrame({"human:score": human, "good": good, "weak": weak, "dist": -good,
                         "system": np.where(np.arange(n) % 2, "A", "B")})


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_count_based_bootstrap_equals_explicit_resampling(method):
    df = _data()
    x, y = df["good"].to_numpy(), df["human:score"].to_numpy()
    counts = meta._resample_counts(len(x), 3, np.random.default_rng(0))
    if method == "pearson":
        fast = meta._weighted_pearson(x[None], y[None], counts)
    else:
        gx, ix = meta._tie_groups(x)
        gy, iy = meta._tie_groups(y)
        fast = meta._weighted_pearson(meta._resampled_ranks(gx, ix, counts), meta._resampled_ranks(gy, iy, counts), counts)
    fn = stats.pearsonr if method == "pearson" else stats.spearmanr
    for b in range(3):
        idx = np.repeat(np.arange(len(x)), counts[b].astype(int))
        assert fast[b] == pytest.approx(fn(x[idx], y[idx])[0], abs=1e-10)


@pytest.mark.parametrize("method", meta.METHODS)
def test_interval_brackets_the_estimate(method):
    df = _data()
    r, p, n = meta.correlation(df["good"], df["human:score"], method)
    lo, hi = meta.percentile_interval(meta.bootstrap_replicates(df["good"], df["human:score"], method, 300))
    assert lo < r < hi and hi - lo < 0.3 and p < 1e-6 and n == 400


def test_nan_pairs_are_dropped():
    r, _, n = meta.correlation([1, 2, np.nan, 4, 5], [1, 2, 3, np.inf, 6], "pearson")
    assert n == 3 and r == pytest.approx(stats.pearsonr([1, 2, 5], [1, 2, 6])[0])


def test_table_marks_distances_and_averages_groups_like_mir():
    df = _data()
    table = meta.correlation_table(df, ["good", "dist"], ["human:score"], ["pearson"], by="system",
                                   distances={"dist": True}, n_boot=200)
    dist = table[table.metric == "dist"]
    good = table[table.metric == "good"]
    assert (dist["shown"] == "|r| (distance)").all() and (dist["r"] > 0).all()
    np.testing.assert_allclose(dist["r"].to_numpy(), good["r"].to_numpy())
    mean_row = good[good.group == "mean over systems"].iloc[0]
    per_group = good[good.group != "mean over systems"]["r"]
    assert mean_row["r"] == pytest.approx(per_group.mean())
    assert mean_row["ci_low"] < mean_row["r"] < mean_row["ci_high"]
    assert meta.mir_average(df.assign(neg=-df["good"]), "neg", "human:score") == pytest.approx(per_group.mean())
    with pytest.raises(DataError, match="grouping"):
        meta.correlation_table(df, ["good"], ["human:score"], by="planet")


def test_williams_test():
    t, p = meta.williams_test(0.5, 0.5, 0.7, 1000)
    assert t == 0 and p == pytest.approx(0.5)
    _, p_big = meta.williams_test(0.6, 0.4, 0.5, 1000)
    _, p_small_n = meta.williams_test(0.6, 0.4, 0.5, 20)
    assert p_big < 1e-6 < p_small_n
    df = _data()
    mat = meta.williams_matrix(df, ["good", "weak", "dist"], "human:score", "pearson", {"dist": True})
    assert mat.loc["good", "weak"] < 0.001 and mat.loc["weak", "good"] > 0.999
    assert mat.loc["good", "weak"] + mat.loc["weak", "good"] == pytest.approx(1.0)
    assert np.isnan(mat.loc["good", "dist"])  # identical oriented values: no test possible


def test_ne_table_layout():
    df = _data()
    df["weak+ne"] = df["weak"] + df["good"]
    table = meta.ne_table(df, ["weak"], "human:score", "spearman")
    row = table.iloc[0]
    assert row["with NE"] > row["without NE"] and row["change"] == pytest.approx(row["with NE"] - row["without NE"])
    assert row["Williams p"] < 0.05


def test_rank_disagreement_puts_the_contradiction_first():
    human = np.array([1.0, 2, 3, 4, 5, 6])
    metric = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.0])  # the best pair by humans is the worst by metric
    ranks = meta.rank_disagreement(metric, human)
    assert ranks.index[0] == 5 and ranks.iloc[0]["metric_over_human"] < 0
    dist = meta.rank_disagreement(-metric, human, higher_is_better=False)
    pd.testing.assert_frame_equal(ranks, dist)


def test_cached_tables_are_keyed_by_values_and_options(tmp_path):
    from stviz.cache import Cache

    cache = Cache(tmp_path / "cache")
    df = _data()
    steps = []
    args = dict(metrics=["good", "dist"], humans=["human:score"], methods=["pearson", "spearman"], by="system",
                distances={"dist": True}, n_boot=50, cache=cache)
    first = meta.cached_correlation_table(df, progress=lambda d, t: steps.append((d, t)), **args)
    assert steps and steps[-1] == (4, 4)  # 2 methods x 2 systems, reported as they finish
    direct = meta.correlation_table(df, ["good", "dist"], ["human:score"], ["pearson", "spearman"], by="system",
                                    distances={"dist": True}, n_boot=50)
    pd.testing.assert_frame_equal(first, direct)
    steps.clear()
    again = meta.cached_correlation_table(df, progress=lambda d, t: steps.append((d, t)), **args)
    pd.testing.assert_frame_equal(first, again)
    assert not steps  # served from the disk cache, nothing recomputed
    more = meta.cached_correlation_table(df, **{**args, "n_boot": 80})
    changed = meta.cached_correlation_table(df.assign(good=df["weak"]), **args)
    assert not more[["ci_low", "ci_high"]].equals(first[["ci_low", "ci_high"]])
    assert not changed["r"].equals(first["r"])  # other values, other key
    w1 = meta.cached_williams_matrix(df, ["good", "weak"], "human:score", cache=cache)
    pd.testing.assert_frame_equal(w1, meta.williams_matrix(df, ["good", "weak"], "human:score"))


def test_williams_against_the_best_metric():
    df = _data()
    mat = meta.williams_matrix(df, ["weak", "good", "dist"], "human:score", "pearson", {"dist": True})
    best = meta.williams_against_best(df, mat, "human:score", "pearson", {"dist": True})
    assert best["metric"].iloc[0] in ("good", "dist") and np.isnan(best["p (best > metric)"].iloc[0])
    weak = best.set_index("metric").loc["weak"]
    assert weak["p (best > metric)"] < 0.001 and 0 < weak["r"] < best["r"].iloc[0]
    assert best["r"].is_monotonic_decreasing
