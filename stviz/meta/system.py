"""Meta-evaluation across levels: how well each metric agrees with people, per sentence and per system.

* :func:`sentence_level` - Pearson / Spearman / Kendall over rated outputs with percentile-bootstrap
  intervals (:func:`stviz.meta.bootstrap_replicates`: every metric on the same resamples of the items).
* :func:`system_level` - correlation of system means (Lai et al. 2022 report it beside the sentence
  level) and **pairwise accuracy**, the share of system pairs a metric orders as the raters do (Kocmi
  et al. 2021, "To Ship or Not to Ship"); intervals resample the items within each system and recompute
  every system mean (Deutsch et al. 2021, "A Statistical Analysis of Summarization Evaluation Metrics").
* :func:`paired_test` / :func:`best_group` - a paired resampling test of "metric A agrees better than
  B" on the same resamples, and the metrics not significantly worse than the best (the WMT "cluster").
* :func:`aggregate` - over many human-rated sets: mean rank, wins and how often each metric is in the
  best group.

Every metric column must already read "higher = better" (distances negated) and the human column
likewise, so every statistic reads "higher = agrees more with people".
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from stviz.meta.sentence import bootstrap_replicates, correlation, percentile_interval

METHODS = ("pearson", "spearman", "kendall")
#: The system-level statistics: the correlations of system means, then pairwise accuracy.
SYSTEM_STATISTICS = METHODS + ("pairwise_accuracy",)
STATISTIC_LABELS = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ",
                    "pairwise_accuracy": "pairwise accuracy"}
#: Fewest systems for a system-level correlation (with two, every correlation is ±1).
MIN_SYSTEMS = 3


# -- sentence level ---------------------------------------------------------------------------------------
def sentence_level(frame: pd.DataFrame, metrics: Sequence[str], human: str, methods: Sequence[str] = METHODS,
                   n_boot: int = 200, level: float = 0.95, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """Tidy rows (metric, statistic, n, r, ci_low, ci_high, p_value) and the replicates per (statistic, metric)."""
    rows, replicates = [], {}
    y = frame[human].to_numpy(float)
    for method in methods:
        for metric in metrics:
            x = frame[metric].to_numpy(float)
            r, p, n = correlation(x, y, method)
            # The same seed and the same complete items give every metric the same resamples (a paired bootstrap).
            reps = bootstrap_replicates(x, y, method, n_boot=n_boot, seed=seed)
            replicates[(method, metric)] = reps
            lo, hi = percentile_interval(reps, level)
            rows.append({"metric": metric, "statistic": method, "n": n, "r": r, "ci_low": lo, "ci_high": hi,
                         "p_value": p})
    return pd.DataFrame(rows), replicates


# -- system level -----------------------------------------------------------------------------------------
def _pair_signs(values: np.ndarray) -> np.ndarray:
    """sign(v_i - v_j) for every system pair i < j along the last axis but one: (..., pairs)."""
    i, j = np.triu_indices(values.shape[-1], k=1)
    return np.sign(values[..., i] - values[..., j])


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r along the last axis of x and y (broadcast), NaN where either is constant."""
    dx, dy = x - x.mean(-1, keepdims=True), y - y.mean(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (dx * dy).sum(-1) / np.sqrt((dx * dx).sum(-1) * (dy * dy).sum(-1))


def system_statistics(metric_means: np.ndarray, human_means: np.ndarray) -> dict[str, np.ndarray]:
    """Each system-level statistic of metric means (..., systems) against human means (same leading shape)."""
    sx, sy = _pair_signs(metric_means), _pair_signs(human_means)
    with np.errstate(invalid="ignore", divide="ignore"):
        kendall = (sx * sy).sum(-1) / np.sqrt((sx * sx).sum(-1) * (sy * sy).sum(-1))  # tau-b
        decided = (sy != 0).sum(-1)  # pairs the raters tell apart; a metric tie there counts as wrong (Kocmi)
        accuracy = ((sx == sy) & (sy != 0)).sum(-1) / decided
    ranks_x = stats.rankdata(metric_means, axis=-1)
    ranks_y = stats.rankdata(human_means, axis=-1)
    return {"pearson": _pearson_rows(metric_means, human_means), "spearman": _pearson_rows(ranks_x, ranks_y),
            "kendall": kendall, "pairwise_accuracy": accuracy}


def _system_means(frame: pd.DataFrame, columns: Sequence[str], system: str) -> pd.DataFrame:
    return frame.groupby(system, sort=True)[list(columns)].mean()


def _resampled_means(frame: pd.DataFrame, columns: Sequence[str], system: str, n_boot: int,
                     seed: int) -> np.ndarray:
    """(n_boot, systems, columns) means after resampling each system's items with replacement."""
    rng = np.random.default_rng(seed)
    out = []
    for _, rows in frame.groupby(system, sort=True):
        values = rows[list(columns)].to_numpy(float)
        counts = np.zeros((n_boot, len(values)))
        picks = rng.integers(0, len(values), size=(n_boot, len(values)))
        np.add.at(counts, (np.arange(n_boot)[:, None], picks), 1)
        finite = np.isfinite(values)
        # A mean over the finite values drawn (a metric may lack a value for an item).
        totals = counts @ np.where(finite, values, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(totals / (counts @ finite.astype(float)))
    return np.stack(out, axis=1)


def system_level(frame: pd.DataFrame, metrics: Sequence[str], human: str, system: str = "system",
                 n_boot: int = 200, level: float = 0.95, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """Tidy rows (metric, statistic, n systems, r, interval, p) over system means, and the replicates.

    Only items with a human score count, so metric and human means describe the same outputs.
    """
    rated = frame[np.isfinite(frame[human].to_numpy(float))]
    means = _system_means(rated, list(metrics) + [human], system)
    if len(means) < MIN_SYSTEMS:
        return pd.DataFrame(columns=["metric", "statistic", "n", "r", "ci_low", "ci_high", "p_value"]), {}
    boot = _resampled_means(rated, list(metrics) + [human], system, n_boot, seed)
    human_boot, human_point = boot[:, :, -1], means[human].to_numpy(float)
    rows, replicates = [], {}
    for k, metric in enumerate(metrics):
        point = system_statistics(means[metric].to_numpy(float), human_point)
        reps = system_statistics(boot[:, :, k], human_boot)
        for statistic in SYSTEM_STATISTICS:
            lo, hi = percentile_interval(reps[statistic], level)
            p = correlation(means[metric], human_point, statistic)[1] if statistic in METHODS else float("nan")
            rows.append({"metric": metric, "statistic": statistic, "n": len(means), "r": float(point[statistic]),
                         "ci_low": lo, "ci_high": hi, "p_value": p})
            replicates[(statistic, metric)] = reps[statistic]
    return pd.DataFrame(rows), replicates


def system_units(pairs: pd.DataFrame) -> np.ndarray | None:
    """Each pair's system (system / setting where settings are separate models, as Mir et al.'s), or None when
    there are fewer than :data:`MIN_SYSTEMS`."""
    if "system" not in pairs:
        return None
    keys = [c for c in ("system", "setting") if c in pairs]
    units = pairs[keys].astype(str).agg(" / ".join, axis=1).to_numpy()
    return units if len(set(units)) >= MIN_SYSTEMS else None


# -- significance between metrics -------------------------------------------------------------------------
def paired_test(replicates_a: np.ndarray, replicates_b: np.ndarray) -> float:
    """One-sided p that metric A agrees better than B: the share of shared resamples where A does not beat B.

    The replicates must come from the same resamples (as :func:`sentence_level` and
    :func:`system_level` produce them), so the test is paired (Koehn 2004; Deutsch et al. 2021).
    """
    a, b = np.asarray(replicates_a, float), np.asarray(replicates_b, float)
    if a.shape != b.shape:
        return float("nan")  # different items resampled: no paired test
    ok = np.isfinite(a) & np.isfinite(b)
    if not ok.any():
        return float("nan")
    return float(((a[ok] - b[ok]) <= 0).mean())


def best_group(table: pd.DataFrame, replicates: dict, alpha: float = 0.05,
               eligible: set[str] | None = None) -> pd.DataFrame:
    """``table`` with, per statistic, the paired p (best > metric) and whether the metric is in the best group.

    The best group holds the best metric and every metric it does not beat significantly at ``alpha``. Only the
    ``eligible`` metrics (default: all; the ``candidate`` column) may be the best or in its group: a meta-evaluation
    shows a content measure beside the style ones, never as the best of style.
    """
    out = []
    eligible = set(table["metric"]) if eligible is None else set(eligible)
    for statistic, rows in table.groupby("statistic", sort=False):
        rows = rows.copy()
        rows["candidate"] = rows["metric"].isin(eligible)
        finite = rows[np.isfinite(rows["r"].to_numpy(float)) & rows["candidate"]]
        if finite.empty:
            rows["p_vs_best"], rows["best_group"] = np.nan, False
            out.append(rows)
            continue
        best = finite.loc[finite["r"].idxmax(), "metric"]
        rows["p_vs_best"] = [np.nan if m == best else paired_test(replicates[(statistic, best)],
                                                                  replicates[(statistic, m)])
                             for m in rows["metric"]]
        rows["best_group"] = [bool(c) and ((m == best) or (np.isfinite(p) and p >= alpha) and np.isfinite(r))
                              for m, p, r, c in zip(rows["metric"], rows["p_vs_best"], rows["r"], rows["candidate"])]
        out.append(rows)
    return pd.concat(out).loc[table.index] if out else table.assign(p_vs_best=np.nan, best_group=False, candidate=True)


# -- across sets ------------------------------------------------------------------------------------------
def aggregate(table: pd.DataFrame, task: Sequence[str] = ("set", "human")) -> pd.DataFrame:
    """Per (aspect, level, statistic, metric): mean rank over tasks (1 = best), wins, best-group share, coverage.

    A task is one human column of one set. Sets offer different measures, so a measure found in one task
    only could "win" on a mean rank of 1.0 against measures tested in seven. Measures present in every task
    of their aspect, level and statistic are ranked among themselves (``common``: the ranking to read); the
    others are ranked within their own tasks and listed after them with their coverage, never above.
    """
    keys = ["aspect", "level", "statistic"]
    columns = keys + ["metric", "mean_rank", "wins", "in_best_group", "tasks", "of_tasks", "common"]
    scored = table[np.isfinite(table["r"].to_numpy(float))].copy()
    if scored.empty:
        return pd.DataFrame(columns=columns)
    scored["task"] = scored[list(task)].astype(str).agg(" · ".join, axis=1)
    parts = []
    for _, part in scored.groupby(keys, sort=False):
        n_tasks = part["task"].nunique()
        coverage = part.groupby("metric")["task"].nunique()
        common = part["metric"].map(coverage).eq(n_tasks)
        for is_common, rows in ((True, part[common]), (False, part[~common])):
            if rows.empty:
                continue
            # Common measures are ranked only against each other; a partial one against what its tasks had.
            ranks = (rows if is_common else part).groupby(["task"])["r"].rank(ascending=False, method="min")
            rows = rows.assign(rank=ranks.loc[rows.index], of_tasks=n_tasks, common=is_common)
            parts.append(rows)
    scored = pd.concat(parts)
    grouped = scored.groupby(keys + ["metric", "common", "of_tasks"], sort=False)
    out = grouped.agg(mean_rank=("rank", "mean"), wins=("rank", lambda r: int((r == 1).sum())),
                      in_best_group=("best_group", "mean"), tasks=("rank", "size")).reset_index()
    out = out.assign(order=~out["common"]).sort_values(keys + ["order", "tasks", "mean_rank"],
                                                       ascending=[True] * len(keys) + [True, False, True], kind="stable")
    return out[columns].reset_index(drop=True)


__all__ = ["METHODS", "MIN_SYSTEMS", "STATISTIC_LABELS", "SYSTEM_STATISTICS", "aggregate", "best_group",
           "paired_test", "sentence_level", "system_level", "system_statistics", "system_units"]
