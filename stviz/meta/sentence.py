"""Meta-evaluation: how well does each metric agree with human judgments?

* :func:`correlation_table` - Pearson, Spearman and Kendall correlation of metrics with human
  scores, with 95% percentile-bootstrap confidence intervals (Efron & Tibshirani, 1993), pooled
  over all pairs, per system or per (system, setting), and averaged over groups as Mir et al.
  (NAACL 2019) report: the mean over systems of |r|, each system's settings pooled.
* Distances (WMD) correlate negatively with similarity judgments; their rows show |r| (the
  interval mirrored with it) and are marked ``abs`` so a reader never compares signs.
* :func:`williams_test` / :func:`williams_matrix` - is metric A's correlation with humans
  higher than metric B's on the same pairs? Williams (1959) test for dependent correlations,
  as recommended by Graham & Baldwin (2014) and used by Babakov et al. (2022).
* :func:`ne_table` - Babakov et al.'s Table 4 layout: each metric without / with the
  named-entity merge, the change, and a Williams test of the change.
* :func:`rank_disagreement` - Babakov et al. section 4.2: pairs ranked by the absolute difference
  between their rank under a metric and under the human score; the top is where the metric fails.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import sparse, stats

from stviz.data.schema import DataError
from stviz.formatting import format_p_value  # noqa: F401 - written in stviz.formatting, used here
from stviz.progress import Progress

METHODS = ("pearson", "spearman", "kendall")
DEFAULT_BOOTSTRAP = 1000


# -- point estimates ----------------------------------------------------------------------------
def _complete(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape:
        raise DataError(f"metric and human scores differ in length ({len(x)} vs {len(y)})")
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok]


def correlation(x, y, method: str = "pearson") -> tuple[float, float, int]:
    """(r, two-sided p-value, n) over the pairs where both values are finite."""
    if method not in METHODS:
        raise DataError(f"unknown correlation '{method}'; choose one of {', '.join(METHODS)}")
    x, y = _complete(x, y)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan"), len(x)
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    res = fn(x, y)
    return float(res[0]), float(res[1]), len(x)


# -- bootstrap ------------------------------------------------------------------------------------
def _resample_counts(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot, n) how often each pair is drawn in each bootstrap resample."""
    idx = rng.integers(0, n, size=(n_boot, n))
    offsets = (idx + (np.arange(n_boot) * n)[:, None]).ravel()
    return np.bincount(offsets, minlength=n_boot * n).reshape(n_boot, n).astype(np.float64)


def _weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Row-wise Pearson r of x, y (rows or shared vectors) with weights w (counts), shape (B,)."""
    total = w.sum(axis=1, keepdims=True)
    mx = (w * x).sum(axis=1, keepdims=True) / total
    my = (w * y).sum(axis=1, keepdims=True) / total
    dx, dy = x - mx, y - my
    cov = (w * dx * dy).sum(axis=1)
    var = np.sqrt((w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return cov / var


def _tie_groups(v: np.ndarray) -> tuple[sparse.csr_matrix, np.ndarray]:
    """(n x g indicator of each element's tie group, group index per element); groups ascend by value."""
    uniq, inverse = np.unique(v, return_inverse=True)
    return sparse.csr_matrix((np.ones(len(v)), (np.arange(len(v)), inverse)), shape=(len(v), len(uniq))), inverse


def _resampled_ranks(groups, inverse, counts: np.ndarray) -> np.ndarray:
    """Average (tie-aware) ranks each element would get inside each resample, shape (B, n)."""
    per_group = np.asarray(counts @ groups)  # (B, g) how many drawn elements share each value
    below = np.cumsum(per_group, axis=1) - per_group
    group_rank = below + (per_group + 1) / 2
    return group_rank[:, inverse]


def bootstrap_replicates(x, y, method: str = "pearson", n_boot: int = DEFAULT_BOOTSTRAP,
                         seed: int = 0, chunk: int = 100) -> np.ndarray:
    """Correlations on ``n_boot`` resamples of the pairs (with replacement), NaNs dropped first.

    Pearson and Spearman are computed from resample counts (weighted moments of the original
    values or of tie-aware ranks) without copying the data; Kendall resamples explicitly.
    """
    x, y = _complete(x, y)
    return _bootstrap_columns(x[:, None], y, method, n_boot, seed, chunk)[:, 0]


def _bootstrap_columns(xs: np.ndarray, y: np.ndarray, method: str, n_boot: int, seed: int,
                       chunk: int = 100) -> np.ndarray:
    """(n_boot, k) replicates for k metric columns sharing the same complete pairs and resamples."""
    n, k = xs.shape
    if n < 3:
        return np.full((n_boot, k), np.nan)
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, k))
    if method == "kendall":
        for b in range(n_boot):
            idx = rng.integers(0, n, n)
            out[b] = [stats.kendalltau(xs[idx, j], y[idx])[0] for j in range(k)]
        return out
    if method == "spearman":
        gy, iy = _tie_groups(y)
        gxs = [_tie_groups(xs[:, j]) for j in range(k)]
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        counts = _resample_counts(n, size, rng)  # one set of resamples shared by every metric
        if method == "pearson":
            for j in range(k):
                out[start:start + size, j] = _weighted_pearson(xs[None, :, j], y[None, :], counts)
        else:
            ry = _resampled_ranks(gy, iy, counts)
            for j, (gx, ix) in enumerate(gxs):
                out[start:start + size, j] = _weighted_pearson(_resampled_ranks(gx, ix, counts), ry, counts)
    return out


def percentile_interval(replicates: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the replicates (NaN replicates ignored)."""
    finite = replicates[np.isfinite(replicates)]
    if len(finite) == 0:
        return float("nan"), float("nan")
    alpha = (1 - level) / 2
    lo, hi = np.quantile(finite, [alpha, 1 - alpha])
    return float(lo), float(hi)


# -- tables --------------------------------------------------------------------------------------
def _orient(r: float, lo: float, hi: float, reps: np.ndarray, distance: bool):
    """|r| for a distance, with its interval and replicates mirrored when r < 0."""
    if distance and np.isfinite(r) and r < 0:
        return -r, -hi, -lo, -reps
    return r, lo, hi, reps


def _groups(frame: pd.DataFrame, by: str | None) -> list[tuple[str, np.ndarray]]:
    if by in (None, "none", "all"):
        return [("all pairs", np.ones(len(frame), dtype=bool))]
    if by == "system":
        keys = ["system"]
    elif by in ("setting", "system+setting"):
        keys = [k for k in ("system", "setting") if k in frame]
    else:
        raise DataError(f"unknown grouping '{by}'; choose none, system or setting")
    missing = [k for k in keys if k not in frame]
    if missing or not keys:
        raise DataError(f"grouping by {by} needs the column(s) {', '.join(missing or ['setting'])}")
    labels = frame[keys].astype(str).agg(" / ".join, axis=1).to_numpy()
    return [(g, labels == g) for g in pd.unique(labels)]


def correlation_table(frame: pd.DataFrame, metrics: Sequence[str], humans: Sequence[str],
                      methods: Sequence[str] = ("pearson", "spearman"), by: str | None = None,
                      distances: Mapping[str, bool] | None = None, n_boot: int = DEFAULT_BOOTSTRAP,
                      level: float = 0.95, seed: int = 0,
                      progress: Progress | None = None) -> pd.DataFrame:
    """Tidy correlations: one row per (metric, human column, method, group) with CI and p.

    Every metric is bootstrapped on the same resamples of the pairs (paired bootstrap), so
    intervals of different metrics are comparable. With ``by`` set, a final group per (metric,
    human, method) is the mean over groups of the (|r| for distances) correlations - Mir et al.'s
    average - with a CI from averaging the groups' bootstrap replicates.
    """
    distances = distances or {}
    missing = [m for m in list(metrics) + list(humans) if m not in frame]
    if missing:
        raise DataError(f"no column(s) {', '.join(missing)} to correlate")
    groups = _groups(frame, by)
    rows = []
    steps, done = len(humans) * len(methods) * len(groups), 0
    for human in humans:
        for method in methods:
            if method not in METHODS:
                raise DataError(f"unknown correlation '{method}'; choose one of {', '.join(METHODS)}")
            reps = {m: [] for m in metrics}
            results = {m: [] for m in metrics}
            for g, (label, mask) in enumerate(groups):
                sub = frame.loc[mask]
                for m, rep in _group_replicates(sub, metrics, human, method, n_boot, seed + g).items():
                    x, y = sub[m].to_numpy(float), sub[human].to_numpy(float)
                    r, p, n = correlation(x, y, method)
                    lo, hi = percentile_interval(rep, level)
                    shown, lo, hi, rep = _orient(r, lo, hi, rep, distances.get(m, False))
                    reps[m].append(rep)
                    results[m].append(_row(m, human, method, label, n, shown, lo, hi, p, distances.get(m, False)))
                done += 1
                if progress:
                    progress(done, steps)
            for m in metrics:
                rows += results[m]
                if len(groups) > 1:
                    lo, hi = percentile_interval(np.nanmean(np.vstack(reps[m]), axis=0), level)
                    shown = float(np.nanmean([row["r"] for row in results[m]]))
                    n = int(sum(row["n"] for row in results[m]))
                    rows.append(_row(m, human, method, f"mean over {by}s", n, shown, lo, hi, float("nan"),
                                     distances.get(m, False)))
    order = {m: i for i, m in enumerate(metrics)}
    out = pd.DataFrame(rows)
    return out.sort_values(by=["metric", "human", "method"], key=lambda s: s.map(order) if s.name == "metric" else s,
                           kind="stable").reset_index(drop=True)


#: Bump when the correlation or bootstrap code changes, to invalidate cached tables.
CACHE_VERSION = 2


def _memo_params(frame: pd.DataFrame, columns: Sequence[str], **options) -> dict:
    """Cache key: the columns actually used (values, not names only) and every option."""
    used = [c for c in dict.fromkeys(columns) if c in frame]
    return {"data": frame[used].reset_index(drop=True), **options}


def cached_correlation_table(frame: pd.DataFrame, metrics: Sequence[str], humans: Sequence[str],
                             methods: Sequence[str] = ("pearson", "spearman"), by: str | None = None,
                             distances: Mapping[str, bool] | None = None, n_boot: int = DEFAULT_BOOTSTRAP,
                             level: float = 0.95, seed: int = 0, cache=None,
                             progress: Progress | None = None) -> pd.DataFrame:
    """:func:`correlation_table`, memoised on disk per (values of the columns used, options)."""
    from stviz.cache import default_cache

    cache = cache or default_cache()
    distances = {m: bool((distances or {}).get(m, False)) for m in metrics}
    group_cols = [c for c in ("system", "setting") if by not in (None, "none", "all") and c in frame]
    params = _memo_params(frame, list(metrics) + list(humans) + group_cols, metrics=list(metrics),
                          humans=list(humans), methods=list(methods), by=by, distances=distances,
                          n_boot=int(n_boot), level=level, seed=seed)
    return cache.memo("correlations", params, lambda: correlation_table(
        frame, metrics, humans, methods, by=by, distances=distances, n_boot=n_boot, level=level, seed=seed,
        progress=progress), version=CACHE_VERSION)


def cached_williams_matrix(frame: pd.DataFrame, metrics: Sequence[str], human: str, method: str = "pearson",
                           distances: Mapping[str, bool] | None = None, cache=None) -> pd.DataFrame:
    """:func:`williams_matrix`, memoised on disk per (values of the columns used, options)."""
    from stviz.cache import default_cache

    cache = cache or default_cache()
    distances = {m: bool((distances or {}).get(m, False)) for m in metrics}
    params = _memo_params(frame, list(metrics) + [human], metrics=list(metrics), human=human, method=method,
                          distances=distances)
    return cache.memo("williams", params, lambda: williams_matrix(frame, metrics, human, method, distances),
                      version=CACHE_VERSION)


def cached_ne_table(frame: pd.DataFrame, metrics: Sequence[str], human: str, method: str = "spearman",
                    suffix: str = "+ne", labels: Mapping[str, str] | None = None,
                    distances: Mapping[str, bool] | None = None, cache=None) -> pd.DataFrame:
    """:func:`ne_table`, memoised on disk per (values of the columns used, options)."""
    from stviz.cache import default_cache

    cache = cache or default_cache()
    labels = {m: str((labels or {}).get(m, m)) for m in metrics}
    distances = {m: bool((distances or {}).get(m, False)) for m in metrics}
    params = _memo_params(frame, [c for m in metrics for c in (m, m + suffix)] + [human], metrics=list(metrics),
                          human=human, method=method, suffix=suffix, labels=labels, distances=distances)
    return cache.memo("ne-table", params, lambda: ne_table(frame, metrics, human, method, suffix, labels, distances),
                      version=CACHE_VERSION)


def _group_replicates(sub: pd.DataFrame, metrics: Sequence[str], human: str, method: str, n_boot: int,
                      seed: int) -> dict[str, np.ndarray]:
    """Bootstrap replicates per metric; metrics with the same complete rows share one resampling."""
    y_all = sub[human].to_numpy(float)
    by_mask: dict[bytes, list[str]] = {}
    for m in metrics:
        ok = np.isfinite(sub[m].to_numpy(float)) & np.isfinite(y_all)
        by_mask.setdefault(np.packbits(ok).tobytes(), []).append(m)
    out = {}
    for names in by_mask.values():
        ok = np.isfinite(sub[names[0]].to_numpy(float)) & np.isfinite(y_all)
        xs = sub.loc[ok, names].to_numpy(float)
        reps = _bootstrap_columns(xs, y_all[ok], method, n_boot, seed)
        out.update({m: reps[:, j] for j, m in enumerate(names)})
    return out


def _row(metric, human, method, group, n, r, lo, hi, p, distance) -> dict:
    return {"metric": metric, "human": human, "method": method, "group": group, "n": int(n),
            "r": r, "ci_low": lo, "ci_high": hi, "p_value": p,
            "shown": "|r| (distance)" if distance else "r"}


def mir_average(frame: pd.DataFrame, metric: str, human: str, method: str = "pearson",
                group: str = "system") -> float:
    """Mir et al.'s summary: mean over groups (systems, settings pooled) of |r| with humans."""
    values = []
    for _, sub in frame.groupby(group, sort=False):
        r, _, _ = correlation(sub[metric], sub[human], method)
        values.append(abs(r))
    return float(np.nanmean(values))


# -- significance ---------------------------------------------------------------------------------
def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams (1959) t and one-sided p that corr(human, A)=r12 exceeds corr(human, B)=r13.

    r23 is the correlation of A and B on the same n pairs; df = n - 3 (Graham & Baldwin, 2014).
    """
    if n <= 3 or not all(np.isfinite([r12, r13, r23])) or r23 > 1 - 1e-12:
        return float("nan"), float("nan")  # too few pairs, or two identical metrics: nothing to test
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denominator = np.sqrt(2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3)
    if denominator == 0:
        return float("nan"), float("nan")
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / denominator
    return float(t), float(stats.t.sf(t, df=n - 3))


def _oriented(frame: pd.DataFrame, metric: str, distances: Mapping[str, bool]) -> np.ndarray:
    values = frame[metric].to_numpy(float)
    return -values if distances.get(metric, False) else values


def williams_matrix(frame: pd.DataFrame, metrics: Sequence[str], human: str, method: str = "pearson",
                    distances: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """p-values: row metric correlates more strongly with humans than column metric (Williams test).

    Distances are negated first so every correlation is oriented the same way; Spearman uses
    the rank correlations in the same formula (as Babakov et al.). Correlations are taken over
    pairwise-complete rows (for Spearman, ranks are computed per column before that).
    """
    distances = distances or {}
    if method not in ("pearson", "spearman"):
        raise DataError("the Williams test is defined here for Pearson and Spearman correlations")
    oriented = pd.DataFrame({m: _oriented(frame, m, distances) for m in metrics})
    oriented["__human__"] = frame[human].to_numpy(float)
    oriented = oriented.replace([np.inf, -np.inf], np.nan)
    corr = oriented.corr(method=method)
    valid = oriented.notna().astype(float)
    counts = valid.T @ valid
    out = pd.DataFrame(np.nan, index=list(metrics), columns=list(metrics))
    for a in metrics:
        for b in metrics:
            if a != b:
                n = int(min(counts.loc[a, b], counts.loc[a, "__human__"], counts.loc[b, "__human__"]))
                out.loc[a, b] = williams_test(corr.loc[a, "__human__"], corr.loc[b, "__human__"], corr.loc[a, b], n)[1]
    return out


def williams_against_best(frame: pd.DataFrame, pvalues: pd.DataFrame, human: str, method: str = "pearson",
                          distances: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Each metric against the one that agrees best with humans: r (|r| for distances) and the
    Williams p that the best metric's correlation is higher (a column of :func:`williams_matrix`)."""
    distances = distances or {}
    metrics = list(pvalues.index)
    r = {m: correlation(_oriented(frame, m, distances), frame[human], method)[0] for m in metrics}
    ranked = sorted(metrics, key=lambda m: -np.nan_to_num(r[m], nan=-np.inf))
    best = ranked[0]
    return pd.DataFrame({"metric": ranked, "r": [r[m] for m in ranked],
                         "p (best > metric)": [float("nan") if m == best else pvalues.loc[best, m] for m in ranked]})


def ne_table(frame: pd.DataFrame, metrics: Sequence[str], human: str, method: str = "spearman",
             suffix: str = "+ne", labels: Mapping[str, str] | None = None,
             distances: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Babakov et al. Table 4: correlation without / with the NE merge, change, Williams p.

    The frame needs a column ``M`` and ``M+ne`` per metric. The p-value tests that the better of
    the two correlates more strongly, with r23 = corr(M, M+ne) (the textbook Williams test;
    Babakov et al.'s notebook used corr(M_NE, M) there instead). A distance is negated before
    correlating (its merge uses its similarity form), so both columns read "higher = better".
    """
    labels = labels or {}
    distances = distances or {}
    rows = []
    for m in metrics:
        merged = m + suffix
        if merged not in frame:
            raise DataError(f"no merged column '{merged}' for '{m}'")
        h = frame[human].to_numpy(float)
        a, b = _oriented(frame, m, distances), frame[merged].to_numpy(float)
        ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
        without, with_ne = correlation(a[ok], h[ok], method)[0], correlation(b[ok], h[ok], method)[0]
        r23 = correlation(a[ok], b[ok], method)[0]
        hi, lo = max(without, with_ne), min(without, with_ne)
        rows.append({"metric": labels.get(m, m) + (" (-distance)" if distances.get(m) else ""), "without NE": without, "with NE": with_ne,
                     "change": with_ne - without, "Williams p": williams_test(hi, lo, r23, int(ok.sum()))[1],
                     "n": int(ok.sum())})
    return pd.DataFrame(rows).sort_values("without NE", ascending=False).reset_index(drop=True)


# -- failure cases -------------------------------------------------------------------------------
def rank_disagreement(metric, human, higher_is_better: bool = True) -> pd.DataFrame:
    """Babakov et al. 4.2: |rank under metric - rank under humans| per pair, largest first.

    Ranks are tie-averaged and given as percentiles (0 = least similar, 100 = most similar) so
    the difference reads "the metric puts this pair 80 points higher than the raters did";
    ``metric_over_human`` > 0 means the metric over-rates the pair. NaN pairs are dropped.
    """
    m = pd.Series(np.asarray(metric, dtype=float))
    h = pd.Series(np.asarray(human, dtype=float))
    if not higher_is_better:
        m = -m
    ok = m.notna() & h.notna() & np.isfinite(m) & np.isfinite(h)
    mp = m[ok].rank(pct=True) * 100
    hp = h[ok].rank(pct=True) * 100
    out = pd.DataFrame({"metric_percentile": mp, "human_percentile": hp, "metric_over_human": mp - hp})
    out["rank_difference"] = out["metric_over_human"].abs()
    return out.sort_values("rank_difference", ascending=False)


__all__ = ["CACHE_VERSION", "DEFAULT_BOOTSTRAP", "METHODS", "bootstrap_replicates", "cached_correlation_table",
           "cached_ne_table", "cached_williams_matrix", "correlation", "correlation_table", "format_p_value",
           "mir_average", "ne_table", "percentile_interval", "rank_disagreement", "williams_against_best",
           "williams_matrix", "williams_test"]
