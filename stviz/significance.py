"""Is one system better than another? Every two systems of a board compared per metric on their common inputs, with
paired bootstrap resampling (Koehn 2004; shifted to the null hypothesis) and approximate randomisation (Noreen 1989;
Riezler & Maxwell 2005, as sacrebleu.significance), from the per-sentence statistics of :mod:`stviz.systems`.

Both tests draw their resamples and shuffles once per inputs and seed, and a board makes each system's products
with them once (:class:`Resampled`), shared by every pair the system is in.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from stviz.progress import Progress
from stviz.systems import DEFAULT_RESAMPLES, SystemScores, _counts, resample_indices, scores_from_stats


@functools.lru_cache(maxsize=4)
def _resample_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each item is drawn in each resample: the same draws for every pair of systems on the same inputs.

    A board of 15 systems tests 105 pairs per metric on the same 1,000 inputs: drawing and counting once, not per
    pair. Read-only, since every caller shares it.
    """
    counts = _counts(resample_indices(n, n_resamples, seed), n)
    counts.setflags(write=False)
    return counts


@functools.lru_cache(maxsize=4)
def _swaps(n: int, n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(swapped, kept) 0/1 matrices of approximate randomisation's shuffles, drawn once per inputs and seed."""
    swap = np.random.default_rng(seed).integers(2, size=(n_resamples, n), dtype=bool).astype(float)
    keep = 1 - swap
    swap.setflags(write=False)
    keep.setflags(write=False)
    return swap, keep


def paired_bootstrap_p(name: str, stats_a: np.ndarray, stats_b: np.ndarray, n_resamples: int = DEFAULT_RESAMPLES,
                       seed: int = 0, lowercase: bool = True) -> tuple[float, float]:
    """(observed difference a - b, two-sided p) by paired bootstrap resampling (Koehn 2004).

    Both systems are scored on the same resamples of the inputs; the differences, shifted to mean
    zero, are the distribution of the difference under "no difference" (Efron & Tibshirani 1993,
    section 16.4; Berg-Kirkpatrick et al. 2012), and p = (#{|shifted| >= |observed|} + 1) / (B + 1).
    sacrebleu.significance instead centres the *absolute* differences, which is not calibrated: on
    two systems of equal quality it reports p < 0.05 about twice as often as it should
    (tests/test_systems.py measures this).
    """
    counts = _resample_counts(len(stats_a), n_resamples, seed)
    return _bootstrap_p(name, Resampled.of(stats_a, counts), Resampled.of(stats_b, counts), lowercase)


def _bootstrap_p(name: str, a: "Resampled", b: "Resampled", lowercase: bool) -> tuple[float, float]:
    observed = _observed(name, a, b, lowercase)
    diffs = scores_from_stats(name, a.drawn, lowercase) - scores_from_stats(name, b.drawn, lowercase)
    shifted = np.abs(diffs - np.nanmean(diffs)) if np.isfinite(diffs).any() else diffs
    return observed, _p_value(shifted, abs(observed))


def _observed(name: str, a: "Resampled", b: "Resampled", lowercase: bool) -> float:
    return float(scores_from_stats(name, a.total, lowercase)[0] - scores_from_stats(name, b.total, lowercase)[0])


def randomization_p(name: str, stats_a: np.ndarray, stats_b: np.ndarray, n_resamples: int = DEFAULT_RESAMPLES,
                    seed: int = 0, lowercase: bool = True) -> tuple[float, float]:
    """(observed difference a - b, two-sided p) by approximate randomisation (Noreen 1989).

    Each shuffle swaps the two systems' outputs of a random half of the inputs; p = (#{|shuffled
    difference| >= |observed|} + 1) / (shuffles + 1), so identical systems get p = 1.
    """
    swap, keep = _swaps(len(stats_a), n_resamples, seed)
    return _randomization_p(name, Resampled.of(stats_a, swaps=(swap, keep)), Resampled.of(stats_b, swaps=(swap, keep)),
                            lowercase)


def _randomization_p(name: str, a: "Resampled", b: "Resampled", lowercase: bool) -> tuple[float, float]:
    observed = _observed(name, a, b, lowercase)
    pseudo_a = a.swapped + b.kept
    pseudo_b = a.kept + b.swapped
    diffs = np.abs(scores_from_stats(name, pseudo_a, lowercase) - scores_from_stats(name, pseudo_b, lowercase))
    return observed, _p_value(diffs, abs(observed))


@dataclass(frozen=True)
class Resampled:
    """One system's statistics summed over its inputs, over each bootstrap resample (``drawn``), and over each
    shuffle's swapped and kept inputs: the matrix products both tests need.

    Why apart from the pairs: a board of 15 systems tests 105 pairs per metric, and each pair's products are the
    same two systems' products; made once per system, a pair's tests are a subtraction and its scores.
    """

    total: np.ndarray
    drawn: np.ndarray | None = None
    swapped: np.ndarray | None = None
    kept: np.ndarray | None = None

    @classmethod
    def of(cls, stats: np.ndarray, counts: np.ndarray | None = None,
           swaps: tuple[np.ndarray, np.ndarray] | None = None) -> "Resampled":
        """The products of ``stats`` (n_items, d) with the resample counts and the shuffles given."""
        return cls(stats.sum(0), None if counts is None else counts @ stats,
                   None if swaps is None else swaps[0] @ stats, None if swaps is None else swaps[1] @ stats)


def _p_value(null: np.ndarray, observed: float) -> float:
    null = null[np.isfinite(null)]
    if not np.isfinite(observed) or not len(null):
        return float("nan")
    # A tiny tolerance: a difference equal to the observed one up to rounding counts as "as large".
    return float((np.sum(null >= observed - 1e-9 * max(1.0, abs(observed))) + 1) / (len(null) + 1))


def paired_tests(scores: SystemScores, metrics: Sequence[str] | None = None, n_resamples: int = DEFAULT_RESAMPLES,
                 seed: int = 0, progress: Progress | None = None) -> pd.DataFrame:
    """Every two systems per metric on their common inputs: difference, paired-bootstrap and randomisation p."""
    metrics = [m for m in (metrics or scores.stats) if m in scores.stats]
    systems = scores.systems
    items = {s: scores.items(s) for s in systems}
    rows = []
    total, done = len(metrics) * len(systems) * (len(systems) - 1) // 2, 0
    for metric in metrics:
        resampled: dict[tuple[str, bytes], Resampled] = {}  # per system and rows: made once, shared by its pairs

        def products(system: str, rows: np.ndarray) -> Callable[[], Resampled]:
            def made() -> Resampled:
                key = (system, rows.tobytes())  # the system's rows of the inputs in common, in order
                if key not in resampled:
                    stats = scores.stats[metric][system][rows]
                    resampled[key] = Resampled.of(stats, _resample_counts(len(stats), n_resamples, seed),
                                                  _swaps(len(stats), n_resamples, seed))
                return resampled[key]
            return made

        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                done += 1
                sa, sb = scores.stats[metric].get(a), scores.stats[metric].get(b)
                if sa is None or sb is None:
                    continue
                common, ia, ib = np.intersect1d(items[a], items[b], return_indices=True)
                if len(common) < 2:
                    continue
                diff, p_boot, p_rand = _paired_pair(metric, sa[ia], sb[ib], n_resamples, seed, scores.lowercase,
                                                    products(a, ia), products(b, ib))
                rows.append({"metric": metric, "system_a": a, "system_b": b, "difference": diff,
                             "p_bootstrap": p_boot, "p_randomization": p_rand, "n_common": len(common)})
                if progress:
                    progress(done, total)
    return pd.DataFrame(rows, columns=["metric", "system_a", "system_b", "difference", "p_bootstrap",
                                       "p_randomization", "n_common"])


def _paired_pair(metric: str, a: np.ndarray, b: np.ndarray, n_resamples: int, seed: int, lowercase: bool,
                 products_a: Callable[[], Resampled], products_b: Callable[[], Resampled]) -> tuple[float, float, float]:
    # Cached by the two systems' statistics, not their names: a board with one more system (an upload among a
    # benchmark's published ones) tests only the new pairs, and makes only the products of the systems they pair.
    from stviz.cache import default_cache

    def compute():
        made_a, made_b = products_a(), products_b()
        diff, p_boot = _bootstrap_p(metric, made_a, made_b, lowercase)
        return diff, p_boot, _randomization_p(metric, made_a, made_b, lowercase)[1]

    key = {"metric": metric, "a": a, "b": b, "n": n_resamples, "seed": seed, "lowercase": lowercase}
    return default_cache().memo("paired-test", key, compute)


def significance_matrix(tests: pd.DataFrame, metric: str, systems: Sequence[str], column: str = "p_bootstrap") -> pd.DataFrame:
    """Square matrix of p-values (symmetric; NaN on the diagonal) for one metric."""
    matrix = pd.DataFrame(np.nan, index=list(systems), columns=list(systems))
    for row in tests[tests["metric"] == metric].itertuples():
        matrix.loc[row.system_a, row.system_b] = matrix.loc[row.system_b, row.system_a] = getattr(row, column)
    return matrix


def difference_matrix(tests: pd.DataFrame, metric: str, systems: Sequence[str]) -> pd.DataFrame:
    """Square matrix of differences row − column for one metric (NaN on the diagonal)."""
    matrix = pd.DataFrame(np.nan, index=list(systems), columns=list(systems))
    for row in tests[tests["metric"] == metric].itertuples():
        matrix.loc[row.system_a, row.system_b] = row.difference
        matrix.loc[row.system_b, row.system_a] = -row.difference
    return matrix


__all__ = ["Resampled", "difference_matrix", "paired_bootstrap_p", "paired_tests", "randomization_p",
           "significance_matrix"]
