"""Two-dimensional maps of sentence embeddings: t-SNE, UMAP and PCA of the unit-normalised vectors.

Fitzpatrick et al. (Figures 1-3) show t-SNE of unit-normalised embeddings coloured by style; UMAP
and PCA are offered beside it. Every projection is cached on disk keyed by the vectors and all
parameters (t-SNE of 11,000 sentences takes about a minute). Sampling is never silent: it only
happens when ``max_points`` is given, and the chosen rows are returned with the projection.
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.cache import Cache, default_cache
from stviz.data.schema import HUMAN_PREFIX, METRIC_PREFIX, DataError, Dataset
from stviz.progress import Progress

METHODS = ("tsne", "umap", "pca")
METHOD_LABELS = {"tsne": "t-SNE (openTSNE)", "umap": "UMAP", "pca": "PCA"}
#: Bump when a cached computation below changes, so results of the old code are never served.
CACHE_VERSION = 2


@dataclass
class Projection:
    """2-D coordinates of the rows ``rows`` of the input (all rows unless sampled)."""

    coords: np.ndarray
    rows: np.ndarray
    method: str
    params: dict
    n_total: int
    seconds: float
    info: dict = field(default_factory=dict)

    @property
    def sampled(self) -> bool:
        """Whether only a sample of the input rows was projected."""
        return len(self.rows) < self.n_total


def sample_rows(n: int, max_points: int | None, seed: int = 0, strata: Sequence | None = None) -> np.ndarray:
    """Sorted row indices: all rows, or ``max_points`` of them (stratified by ``strata`` if given)."""
    if max_points is None or max_points >= n:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    if strata is None:
        return np.sort(rng.choice(n, size=max_points, replace=False))
    strata = pd.Series(np.asarray(strata, dtype=object)).astype(str)
    # Proportional allocation, at least one row per stratum, so small styles stay visible.
    chosen = []
    for _, idx in strata.groupby(strata).groups.items():
        take = max(1, round(len(idx) * max_points / n))
        chosen.append(rng.choice(np.asarray(idx), size=min(take, len(idx)), replace=False))
    return np.sort(np.concatenate(chosen))


def project(vectors: np.ndarray, method: str = "tsne", *, max_points: int | None = None,
            strata: Sequence | None = None, seed: int = 0, perplexity: float = 30.0, n_neighbors: int = 15,
            min_dist: float = 0.1, cache: Cache | None = None, progress: Progress | None = None) -> Projection:
    """t-SNE / UMAP / PCA of the unit-normalised ``vectors`` (cached by vectors, rows and parameters)."""
    from stviz.embedders import unit_normalise

    if method not in METHODS:
        raise DataError(f"unknown reduction method '{method}'; choose one of {', '.join(METHODS)}")
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or len(vectors) < 3:
        raise DataError(f"a 2-D map needs at least 3 sentence vectors; got {vectors.shape}")
    rows = sample_rows(len(vectors), max_points, seed, strata)
    params = _method_params(method, len(rows), seed, perplexity, n_neighbors, min_dist)
    cache = cache or default_cache()
    key = _projection_key(vectors, rows, method, params)

    def compute() -> Projection:
        start = time.perf_counter()
        units = unit_normalise(vectors[rows])
        coords, info = _REDUCERS[method](units, params, progress)
        return Projection(np.asarray(coords, dtype=np.float32), rows, method, params, len(vectors),
                          time.perf_counter() - start, info)

    result = cache.memo("projection", key, compute, version=CACHE_VERSION)
    if progress:
        progress(1, 1)
    return result


def _projection_key(vectors: np.ndarray, rows: np.ndarray, method: str, params: dict) -> dict:
    return {"vectors": vectors, "rows": rows, "method": method, "params": params}


def projection_cached(vectors: np.ndarray, method: str = "tsne", *, max_points: int | None = None,
                      strata: Sequence | None = None, seed: int = 0, perplexity: float = 30.0, n_neighbors: int = 15,
                      min_dist: float = 0.1, cache: Cache | None = None) -> bool:
    """Whether :func:`project` with these arguments would read its result from the disk cache."""
    rows = sample_rows(len(vectors), max_points, seed, strata)
    params = _method_params(method, len(rows), seed, perplexity, n_neighbors, min_dist)
    return (cache or default_cache()).has("projection", _projection_key(vectors, rows, method, params),
                                          version=CACHE_VERSION)


def _method_params(method: str, n: int, seed: int, perplexity: float, n_neighbors: int, min_dist: float) -> dict:
    if method == "tsne":
        # Perplexity must stay below n/3 for the neighbour graph; clamp for small corpora.
        return {"perplexity": float(min(perplexity, max(2.0, (n - 1) / 3))), "seed": seed,
                "early_exaggeration_iter": 250, "n_iter": 500}
    if method == "umap":
        # "knn": neighbours found exactly (scikit-learn) rather than by pynndescent, whose kernels recompile per process.
        return {"n_neighbors": int(min(n_neighbors, n - 1)), "min_dist": float(min_dist), "seed": seed, "knn": "exact"}
    return {"seed": seed}


def _tsne(units: np.ndarray, params: dict, progress: Progress | None):
    from openTSNE import TSNE

    total = params["early_exaggeration_iter"] + params["n_iter"]
    done = [0]

    def callback(iteration, error, embedding):  # called every 25 iterations of each phase
        done[0] += 25
        if progress:
            progress(min(done[0], total), total)
        return False

    if progress:
        progress(0, total)
    # One thread: on a 2-core machine shared with other work, n_jobs=2 ran 4-10x slower (measured).
    tsne = TSNE(perplexity=params["perplexity"], early_exaggeration_iter=params["early_exaggeration_iter"],
                n_iter=params["n_iter"], random_state=params["seed"], n_jobs=1,
                callbacks=callback, callbacks_every_iters=25)
    return np.asarray(tsne.fit(units)), {}


def import_umap():
    """umap, imported so that its numba-compiled functions are cached on disk under the stviz cache.

    UMAP's first call in a process compiled for ~40 s: most of umap's (and some of pynndescent's)
    numba functions are declared without ``cache=True``. Importing them with caching on by default
    lets every later process load the machine code instead (docs/benchmarks.md). The cache lives in
    ``<stviz home>/cache/numba`` (site-packages may be read-only); functions numba cannot cache
    are simply compiled as before.
    """
    import sys

    if "umap" in sys.modules:
        return sys.modules["umap"]
    folder = default_cache().root / "numba"
    folder.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("NUMBA_CACHE_DIR", str(folder))
    import numba
    from numba.core import config

    config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]  # numba read it already if imported earlier
    plain = {"njit": numba.njit, "jit": numba.jit}
    numba.njit, numba.jit = _cached(plain["njit"]), _cached(plain["jit"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numba.NumbaWarning)  # "cannot cache ... dynamic globals"
            import umap
    finally:
        numba.njit, numba.jit = plain["njit"], plain["jit"]
    return umap


def _cached(decorator):
    def with_cache(*args, **kwargs):
        kwargs.setdefault("cache", True)
        return decorator(*args, **kwargs)

    return with_cache


def _umap(units: np.ndarray, params: dict, progress: Progress | None):
    umap = import_umap()

    if progress:
        progress(0, 1)
    reducer = umap.UMAP(n_neighbors=params["n_neighbors"], min_dist=params["min_dist"],
                        random_state=params["seed"], precomputed_knn=exact_neighbours(units, params["n_neighbors"]))
    _UMAP_EPOCHS.report = progress
    try:
        with warnings.catch_warnings():
            # A fixed seed makes UMAP single-threaded (it says so on every call); reproducible maps are worth it.
            warnings.filterwarnings("ignore", message="n_jobs value", category=UserWarning)
            warnings.filterwarnings("ignore", message=".*precomputed_knn.*", category=UserWarning)
            _count_umap_epochs()
            return reducer.fit_transform(units), {}
    finally:
        _UMAP_EPOCHS.report = None


#: The progress callback of the UMAP run in this thread (Streamlit runs each session in its own thread).
_UMAP_EPOCHS = threading.local()


def _count_umap_epochs() -> None:
    """Report UMAP's layout epochs as progress: umap-learn loops over them through ``tqdm`` (shown only
    when verbose), so that loop is wrapped once per process to count epochs for the thread's callback."""
    import umap.layouts as layouts

    if getattr(layouts.tqdm, "counts_epochs", False):
        return
    original = layouts.tqdm

    def counted(iterable, **kwargs):
        report = getattr(_UMAP_EPOCHS, "report", None)
        if report is None:
            return original(iterable, **kwargs)
        return _counting(list(iterable), report)

    counted.counts_epochs = True
    layouts.tqdm = counted


def _counting(items: list, report: Progress):
    for done, item in enumerate(items):
        yield item
        report(done + 1, len(items))


def exact_neighbours(units: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, None]:
    """Exact k nearest neighbours (each point first, Euclidean) in UMAP's ``precomputed_knn`` form.

    UMAP's own approximate search (pynndescent) recompiles its parallel numba kernels in every
    process (they take the distance function as an argument and cannot be cached): ~50 s here.
    A brute-force search over unit vectors takes about a second for 11,000 sentences and is exact.
    """
    from sklearn.neighbors import NearestNeighbors

    distances, indices = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(units).kneighbors(units)
    return indices.astype(np.int64), distances.astype(np.float32), None


def _pca(units: np.ndarray, params: dict, progress: Progress | None):
    from sklearn.decomposition import PCA

    pca = PCA(n_components=2, random_state=params["seed"])
    coords = pca.fit_transform(units)
    return coords, {"explained variance": [float(v) for v in pca.explained_variance_ratio_]}


_REDUCERS = {"tsne": _tsne, "umap": _umap, "pca": _pca}


def projection_frame(frame: pd.DataFrame, proj: Projection) -> pd.DataFrame:
    """Mapped rows with their coordinates: ``row`` (index into ``frame``), x, y, then ``frame``'s columns."""
    points = frame.iloc[proj.rows].reset_index(drop=True)
    points.insert(0, "y", proj.coords[:, 1])
    points.insert(0, "x", proj.coords[:, 0])
    points.insert(0, "row", proj.rows)
    return points


def strata_of(frame: pd.DataFrame) -> pd.Series | None:
    """The column a map's sample is stratified by: style, else system, else target style."""
    return next((frame[c] for c in ("style", "system", "target_style") if c in frame), None)


def map_points(frame: pd.DataFrame, embedder: str, method: str = "tsne", *, max_points: int | None = None,
               seed: int = 0, perplexity: float = 30.0, n_neighbors: int = 15, min_dist: float = 0.1,
               cache: Cache | None = None, embed_progress: Progress | None = None,
               progress: Progress | None = None) -> tuple[pd.DataFrame, Projection]:
    """Embed (cached) only the rows to be mapped - a stratified sample if ``max_points`` - and project them.

    Returns the points (``row`` = position in ``frame``, x, y, the frame's columns) and the
    projection, whose ``rows`` / ``n_total`` refer to ``frame`` so that sampling shows.
    """
    from stviz.embedders import embed

    strata = strata_of(frame)
    rows = sample_rows(len(frame), max_points, seed, strata)
    vectors = embed(frame["text"].iloc[rows].astype(str).tolist(), embedder, cache=cache, progress=embed_progress)
    proj = project(vectors, method, seed=seed, perplexity=perplexity, n_neighbors=n_neighbors,
                   min_dist=min_dist, cache=cache, progress=progress)
    proj.rows, proj.n_total = rows[proj.rows], len(frame)
    return projection_frame(frame, proj), proj


# -- what to map ----------------------------------------------------------------------------------
MAP_SOURCES = {
    "texts": "style-labelled sentences",
    "outputs": "system outputs (pairs)",
    "sources": "source sentences (pairs)",
}


def map_sources(dataset: Dataset) -> list[str]:
    """Which sets of sentences of ``dataset`` can be mapped (keys of ``MAP_SOURCES``), the default first.

    A pair-only dataset's style-labelled sentences are its distinct sources with their source
    style: the same points as ``sources``, so they are offered once, as ``sources``.
    """
    out = []
    if dataset.texts is not None:
        out.append("texts")
    if dataset.pairs is not None:
        out += ["outputs", "sources"]
    return out


def map_frame(dataset: Dataset, source: str = "texts") -> pd.DataFrame:
    """Tidy frame of the sentences to map: ``text`` plus every column worth colouring by.

    ``texts``: the style-labelled sentences (``style``). ``outputs``: one row per pair with
    ``pair`` (the pair's index), ``system``, ``setting``, ``source_style``, ``target_style`` and the
    human and metric score columns. ``sources``: the distinct sources with ``style`` (their source
    style) and ``pair`` (the first pair), and the pair's columns only where each source has a single pair.
    """
    if source == "texts":
        return dataset.style_texts().reset_index(drop=True)
    if dataset.pairs is None:
        raise DataError(f"dataset '{dataset.name}' has no pairs; map its style-labelled sentences instead")
    if source not in ("outputs", "sources"):
        raise DataError(f"unknown map source '{source}'; choose one of {', '.join(MAP_SOURCES)}")
    pairs = dataset.pairs
    text_col = "output" if source == "outputs" else "source"
    keep = [c for c in ("system", "setting", "source_style", "target_style") if c in pairs]
    scores = [c for c in pairs.columns if str(c).startswith((HUMAN_PREFIX, METRIC_PREFIX))
              and pd.api.types.is_numeric_dtype(pairs[c])]
    frame = pairs[keep + scores].copy()
    frame.insert(0, "text", pairs[text_col].astype(str))
    # Which pair a point belongs to (for a source mapped once: its first pair), so a click opens its story.
    frame.insert(1, "pair", pairs.index.to_numpy())
    if source == "sources" and "source_style" in frame:
        # A source's style is known; an output's is not (its target style is what a system aimed for),
        # so outputs keep ``target_style`` under its own name.
        frame.insert(1, "style", frame.pop("source_style"))
    if source == "sources" and frame["text"].duplicated().any():
        # A source appears once per system and setting: map it once, without the per-output columns
        # (one output's score would be shown as if it belonged to the source).
        per_output = [c for c in ("system", "setting", "target_style") if c in frame] + scores
        frame = frame.drop_duplicates("text").drop(columns=per_output)
    return frame.reset_index(drop=True)


def colour_columns(frame: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(categorical, numeric) columns of a map frame that can colour the points."""
    categorical = [c for c in ("style", "system", "setting", "source_style", "target_style")
                   if c in frame and 1 < frame[c].nunique() <= 60]
    numeric = [c for c in frame.columns if c not in categorical and c not in ("text", "pair")
               and pd.api.types.is_numeric_dtype(frame[c]) and frame[c].notna().any()]
    return categorical, numeric
