"""How stable a preview's answer is: each view's ranking (metrics by correlation with people, systems by the
leaderboard's first joint score, styles by self-similarity), and how often its top-3 order held in bootstrap
resamples of the sample."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pandas as pd

from stviz.analyses.preview import short_name

#: Bootstrap resamples of the sample for the stability figure (cheap: the values are in memory).
STABILITY_RESAMPLES = 200


def top_order_held(replicates: np.ndarray, observed=None, top: int = 3) -> float:
    """Share of bootstrap replicates (rows of a (B, k) array, higher = better) whose top-``top`` order, best
    first, is ``observed``'s (column indices, best first; default: the column means' order). NaN values rank
    last; 1.0 means the order always held."""
    replicates = np.asarray(replicates, dtype=float)
    if replicates.ndim != 2 or not len(replicates):
        return float("nan")
    top = min(top, replicates.shape[1])
    filled = np.where(np.isfinite(replicates), replicates, -np.inf)
    if observed is None:
        observed = np.argsort(-np.nanmean(replicates, axis=0), kind="stable")
    observed = np.asarray(observed, dtype=int)[:top]
    orders = np.argsort(-filled, axis=1, kind="stable")[:, :top]
    return float((orders == observed).all(axis=1).mean())


@dataclass
class Ranking:
    """A view's answer as a ranking, best first, and how often its top-3 order held in resamples of the sample."""

    what: str  # "metrics by Pearson correlation with human:average"
    order: list[str]
    held: float | None = None  # share of resamples keeping the top-3 order (None: not computed)

    def describe(self) -> str:
        """'Top 3 metrics by ...: A > B > C; this order held in 87% of 200 resamples of the preview.'"""
        line = f"Top {min(3, len(self.order))} {self.what}: {' > '.join(self.order[:3])}"
        if self.held is not None and np.isfinite(self.held):
            line += (f"; this order held in {100 * self.held:.0f}% of {STABILITY_RESAMPLES} bootstrap resamples "
                     "of the sample")
        return line


def ranking(analysis: ModuleType | str, result, dataset=None, stability: bool = True, seed: int = 0) -> Ranking | None:
    """The view's ranking from its result (None when the view has none), with its stability when asked."""
    name = short_name(analysis)
    function = {"metrics_vs_humans": _metrics, "leaderboard": _systems, "similarity": _styles}.get(name)
    if function is None:
        return None
    try:
        return function(result, stability, seed)
    except (KeyError, ValueError, IndexError, AttributeError, TypeError):
        return None  # a result without the parts a ranking needs (no human score, no metric values)


def _resamples(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(STABILITY_RESAMPLES, n))


def _metrics(result, stability: bool, seed: int) -> Ranking | None:
    """Metrics by their pooled correlation (the first method; |r| for distances, as the table shows)."""
    table = result.correlations
    if table is None or table.empty:
        return None
    method = table["method"].iloc[0]
    pooled = table[(table["method"] == method) & (table["group"] == table["group"].iloc[0])]
    pooled = pooled.sort_values("r", ascending=False, kind="stable")
    order = [result.labels.get(m, m) for m in pooled["metric"]]
    what = f"metrics by {method} correlation with {result.human_label}"
    if not stability:
        return Ranking(what, order)
    names = list(pooled["metric"])
    values = result.values[names].to_numpy(dtype=float) * np.array([-1.0 if result.distances.get(m) else 1.0
                                                                     for m in names])
    human = np.asarray(result.human_values, dtype=float)
    keep = np.isfinite(human)
    values, human = values[keep], human[keep]
    if method != "pearson":  # Spearman (and Kendall, approximated by it): correlation of ranks
        values = pd.DataFrame(values).rank().to_numpy()
        human = pd.Series(human).rank().to_numpy()
    reps = np.array([_columns_r(values[idx], human[idx]) for idx in _resamples(len(human), seed)])
    return Ranking(what, order, top_order_held(reps, np.arange(len(names))))  # names are best first


def _columns_r(values: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Pearson r of each column with ``human`` (NaN rows of a column left out)."""
    out = np.full(values.shape[1], np.nan)
    for j in range(values.shape[1]):
        ok = np.isfinite(values[:, j])
        if ok.sum() > 2 and values[ok, j].std() > 0 and human[ok].std() > 0:
            out[j] = np.corrcoef(values[ok, j], human[ok])[0, 1]
    return out


def ranking_metric(result) -> str:
    """The leaderboard measure a preview's system ranking uses: G2 when computed, else the first metric."""
    computed = set(result.scores["metric"])
    return "g2" if "g2" in computed else next(m for m in result.metrics if m in computed)


def _systems(result, stability: bool, seed: int) -> Ranking | None:
    """Systems by the leaderboard's G2 (else its first metric), best first."""
    from stviz.systems import leaderboard_table, metric_card

    metric = ranking_metric(result)
    higher = metric_card(metric).higher_is_better
    rows = result.scores[result.scores["metric"] == metric].dropna(subset=["value"])
    order = list(rows.sort_values("value", ascending=not higher, kind="stable")["system"])
    what = f"systems by {metric_card(metric).label}"
    stats = getattr(result, "system_scores", None)
    if not stability or stats is None:
        return Ranking(what, order)
    _, replicates = leaderboard_table(stats, [metric], STABILITY_RESAMPLES, 0.95, seed)
    systems = [s for s in result.systems if s in replicates[metric]]
    reps = np.column_stack([replicates[metric][s] for s in systems]) * (1.0 if higher else -1.0)
    observed = [systems.index(s) for s in order if s in systems]
    return Ranking(what, order, top_order_held(reps, observed))


def _styles(result, stability: bool, seed: int) -> Ranking | None:
    """Styles by self-similarity margin (diagonal minus the row's largest other cell) of the first embedder."""
    spec, report = next(iter(result.reports.items()))
    matrix = report.matrix.to_numpy(dtype=float)
    styles = [str(s) for s in report.matrix.index]
    margin = _margins(matrix)
    order = [styles[i] for i in np.argsort(-margin, kind="stable")]
    what = f"styles by self-similarity margin ({result.labels.get(spec, spec)})"
    if not stability:
        return Ranking(what, order)
    from stviz.embedders import embed
    from stviz.engine import unit_rows

    texts = result.texts["text"].astype(str).tolist()
    codes = pd.Categorical(result.texts["style"].astype(str), categories=styles).codes
    vectors = unit_rows(embed(texts, spec))  # cached per text: the run embedded them
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(codes == k) for k in range(len(styles))]
    reps = np.array([_margins(_style_matrix(vectors, [rng.choice(m, len(m)) for m in members]))
                     for _ in range(STABILITY_RESAMPLES)])
    return Ranking(what, order, top_order_held(reps, np.argsort(-margin, kind="stable")))


def _margins(matrix: np.ndarray) -> np.ndarray:
    """Each style's diagonal cell minus the largest other cell of its row."""
    others = matrix.copy()
    np.fill_diagonal(others, -np.inf)
    return np.diag(matrix) - others.max(axis=1)


def _style_matrix(vectors: np.ndarray, members: list[np.ndarray]) -> np.ndarray:
    """Mean cosine between styles from unit vectors (diagonal without each sentence's pair with itself)."""
    sums = np.array([vectors[m].sum(0) for m in members])
    sizes = np.array([len(m) for m in members], dtype=float)
    matrix = sums @ sums.T / np.outer(sizes, sizes)
    diag = (np.einsum("ij,ij->i", sums, sums) - sizes) / np.maximum(sizes * (sizes - 1), 1)
    np.fill_diagonal(matrix, diag)
    return matrix


__all__ = ["Ranking", "STABILITY_RESAMPLES", "ranking", "ranking_metric", "top_order_held"]
