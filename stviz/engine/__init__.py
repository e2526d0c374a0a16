"""Where stviz's heavy batch work runs: on this machine (``local``) or on a Ray cluster (``ray``).

The engine is an execution setting, not an option of any analysis: it never changes a result, only
where it is computed. It runs the work it is handed and imports no embedder or metric module. Two
shapes of work:

* texts, through a :class:`TextEncoder` (every embedder of :mod:`stviz.embedders` is one):
  :func:`cached_vectors` reads what the cache's vector store holds and sends only the missing
  texts to :func:`embed_missing`, which encodes them where the engine says and stores them;
  :func:`style_sums` gives per-style sums of unit vectors, all the exact style x style matrix needs
  (see :mod:`stviz.similarity`), summed per block where the texts are encoded;
* pairs, through a function of a batch: :func:`map_pairs` gives per-pair arrays such as metric
  values (called by :func:`stviz.metrics.compute_metric` and the named-entity scores), which the
  caller then stores under its usual memo key.

So every command and view that embeds or scores pairs follows the engine without code of its own.
The engine is chosen per process (:func:`set_default`, what the CLI's global ``--engine`` flag
does, its defaults read from ``STVIZ_ENGINE`` and ``RAY_ADDRESS``: :func:`from_env`) or per block
of code (``with use(Engine("ray")):``); otherwise work runs locally. The Ray code lives in :mod:`stviz.engine.ray_engine`,
imported only when the Ray engine is asked for: Ray is an optional extra.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from dataclasses import dataclass
from typing import Callable, Iterator, Protocol, Sequence

import numpy as np

from stviz.cache import Cache, MixedDimensionsError, fingerprint
from stviz.data.schema import DataError
from stviz.progress import Progress

ENGINES = ("local", "ray")
#: What to install for the Ray engine, said whenever it is asked for without Ray.
RAY_INSTALL = "pip install -r requirements-ray.txt"


class EngineError(DataError):
    """The engine cannot run (Ray missing, cluster unreachable, workers unlike the driver)."""


@dataclass(frozen=True)
class Engine:
    """Where batch work runs and how it is cut up; ``local`` ignores every field but ``name``."""

    name: str = "local"
    #: Ray cluster to join: ``ray://HOST:10001``, ``HOST:6379``, ``auto``; None = RAY_ADDRESS, else start one here.
    address: str | None = None
    #: Actors in the pool (one model each); None = one per GPU when the cluster has GPUs, else one per CPU.
    workers: int | None = None
    #: Texts or pairs per block: the unit sent to an actor, retried on failure, and reported as progress.
    batch_size: int = 1000
    #: GPUs per actor for model work; None = 1 when the cluster has GPUs, else 0.
    gpus_per_worker: float | None = None
    #: CPUs per actor (its torch threads).
    cpus_per_worker: float = 1.0
    #: Object store size in MB when a Ray is started in this process (None = Ray's default, 30% of memory).
    object_store_mb: int | None = None

    def __post_init__(self) -> None:
        if self.name not in ENGINES:
            raise EngineError(f"unknown engine '{self.name}'; choose one of {', '.join(ENGINES)}")
        if self.batch_size < 1:
            raise EngineError(f"the engine's batch size must be at least 1, got {self.batch_size}")
        if self.workers is not None and self.workers < 1:
            raise EngineError(f"the engine needs at least 1 worker, got {self.workers}")

    @property
    def is_local(self) -> bool:
        """Whether work runs in this process."""
        return self.name == "local"


def from_env() -> Engine:
    """The engine the environment asks for: ``STVIZ_ENGINE`` (local or ray) and ``RAY_ADDRESS``."""
    name = os.environ.get("STVIZ_ENGINE", "local").strip().lower() or "local"
    return Engine(name, address=os.environ.get("RAY_ADDRESS") or None)


LOCAL = Engine()
_default: list[Engine] = []
_current: contextvars.ContextVar[Engine | None] = contextvars.ContextVar("stviz_engine", default=None)


def current() -> Engine:
    """The engine in force: the innermost :func:`use`, else :func:`set_default`'s, else local.

    The environment is read by the command line (its flags' defaults) and by whoever calls
    ``set_default(from_env())``, not here: the dashboard always computes in its own process.
    """
    engine = _current.get()
    if engine is not None:
        return engine
    return _default[0] if _default else LOCAL


def set_default(engine: Engine | None) -> None:
    """Make ``engine`` this process's engine (None: back to the environment's); checks Ray is installed."""
    _default.clear()
    if engine is not None:
        require(engine)
        _default.append(engine)


@contextlib.contextmanager
def use(engine: Engine) -> Iterator[Engine]:
    """Run the block with ``engine`` (a context variable: other threads keep theirs)."""
    require(engine)
    token = _current.set(engine)
    try:
        yield engine
    finally:
        _current.reset(token)


def require(engine: Engine) -> None:
    """Raise EngineError with the install line when ``engine`` needs Ray and Ray is not installed."""
    if engine.is_local:
        return
    try:
        import ray  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError:
        raise EngineError(f"--engine ray needs Ray, which is not installed here: {RAY_INSTALL}") from None


def describe(engine: Engine | None = None) -> str:
    """One line saying where work runs, for the command line's stderr."""
    engine = engine or current()
    if engine.is_local:
        return "engine: local (this process)"
    where = engine.address or os.environ.get("RAY_ADDRESS") or "a Ray started on this machine"
    return f"engine: ray ({where}; blocks of {engine.batch_size:,})"


# -- texts: vectors through the cache -----------------------------------------------------------------
class TextEncoder(Protocol):
    """Text work the engine runs: ``encode`` a batch of texts, stored under ``vector_id`` in the vector store.

    On Ray it is pickled to the workers (a dataclass is rebuilt there, so model paths resolve on
    that machine) and ``encode`` is called once per block.
    """

    vector_id: str
    label: str

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...


def cached_vectors(encoder: TextEncoder, texts: Sequence[str], cache: "Cache",
                   progress: Progress | None = None) -> np.ndarray:
    """Vectors for ``texts`` (float32, one row each): what the cache holds, the rest encoded by the engine and stored.

    Raises MixedDimensionsError when the cache and the encoder disagree on the vectors' size.
    """
    texts = [str(t) for t in texts]
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    cached, missing = cache.get_vectors(encoder.vector_id, texts)
    if len(missing) or cached is None:
        # Encoded once across processes: one asking for the same missing texts meanwhile (the server's other worker
        # warming another view of the same corpus) waits for these vectors, then reads them.
        todo = list(dict.fromkeys(texts[i] for i in missing))
        with cache.computing("vectors", fingerprint([encoder.vector_id, todo])):
            # Only the missing texts are looked up again (reading all 20,574 of SGDD-TST takes 0.66 s); when another
            # process stored some of them while this waited, the whole set is read again.
            _, still = cache.get_vectors(encoder.vector_id, todo)
            if len(still) == len(todo):
                return _encode_missing(encoder, texts, cached, missing, cache, progress)
            cached, missing = cache.get_vectors(encoder.vector_id, texts)
            if len(missing) or cached is None:
                return _encode_missing(encoder, texts, cached, missing, cache, progress)
    if progress:
        progress(len(texts), len(texts))
    return cached


def _encode_missing(encoder: TextEncoder, texts: list[str], cached: np.ndarray | None, missing: np.ndarray,
                    cache: "Cache", progress: Progress | None) -> np.ndarray:
    """The rows ``missing`` of ``texts`` encoded by the engine (each distinct text once) and stored, the rest from
    ``cached``."""
    todo = list(dict.fromkeys(texts[i] for i in missing))
    done_before = len(texts) - len(missing)

    def report(done: int, total: int) -> None:
        if progress:
            progress(done_before + int(done / max(total, 1) * len(missing)), len(texts))

    fresh = embed_missing(encoder, todo, cache, progress=report)
    if cached is not None and cached.shape[1] != fresh.shape[1]:
        # Mixing would leave zero rows that look like vectors; the model must have changed under its name.
        raise MixedDimensionsError(
            f"{encoder.label} now gives {fresh.shape[1]}-dimensional vectors but the cache holds "
            f"{cached.shape[1]}-dimensional ones under the same id: clear the cache, or give the "
            "changed model a new name")
    row = {t: i for i, t in enumerate(todo)}
    out = cached if cached is not None else np.zeros((len(texts), fresh.shape[1]), np.float32)
    for i in missing:
        out[i] = fresh[row[texts[i]]]
    if progress:
        progress(len(texts), len(texts))
    return out


def embed_missing(encoder: TextEncoder, texts: Sequence[str], cache: "Cache",
                  progress: Progress | None = None) -> np.ndarray:
    """Vectors for ``texts`` (all missing from the cache), computed by the engine and stored in ``cache``."""
    engine = current()
    if engine.is_local:
        vectors = encoder.encode(texts, progress=progress)
        cache.put_vectors(encoder.vector_id, texts, vectors)
        return vectors
    from stviz.engine import ray_engine

    return ray_engine.embed_texts(engine, encoder, list(texts), cache, progress)


# -- pairs: a function of a batch ------------------------------------------------------------------------
def map_pairs(fn: Callable, sources: Sequence[str], outputs: Sequence[str], *, job: str, cache: "Cache",
              progress: Progress | None = None, needs_model: bool = False):
    """``fn(sources, outputs, progress)`` computed by the engine: an array (or tuple of arrays), one value per pair.

    ``fn`` must compute each pair on its own (any split into blocks gives the same values) and be
    picklable (a module-level function or a ``functools.partial`` of one). ``job`` names the
    computation (the caller's cache key): on Ray, finished blocks are kept under it as Parquet
    shards, so an interrupted run sends only the pairs still missing. ``needs_model``: give the
    actors GPUs when the cluster has them.
    """
    engine = current()
    if engine.is_local:
        return fn(list(sources), list(outputs), progress)
    from stviz.engine import ray_engine

    return ray_engine.map_pairs(engine, fn, list(sources), list(outputs), job, cache, progress, needs_model)


# -- texts: per-style sums of their unit vectors ----------------------------------------------------------
@dataclass
class StyleSums:
    """Per-style sums of unit vectors (k x d, float64), of their squared norms, and sentence counts."""

    sums: np.ndarray
    sumsq: np.ndarray
    counts: np.ndarray

    def __add__(self, other: "StyleSums") -> "StyleSums":
        return StyleSums(self.sums + other.sums, self.sumsq + other.sumsq, self.counts + other.counts)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows as float64 unit vectors (a zero vector stays zero: its cosine with anything is 0)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def sum_by_style(vectors: np.ndarray, codes: np.ndarray, k: int) -> StyleSums:
    """StyleSums of some vectors whose styles are ``codes`` (0..k-1)."""
    units = unit_rows(vectors)
    sums = np.zeros((k, units.shape[1]))
    np.add.at(sums, codes, units)
    sumsq = np.bincount(codes, weights=np.einsum("ij,ij->i", units, units), minlength=k)
    return StyleSums(sums, sumsq, np.bincount(codes, minlength=k).astype(np.int64))


def style_sums(encoder: TextEncoder, texts: Sequence[str], codes: np.ndarray, k: int, cache: "Cache",
               progress: Progress | None = None, chunk: int = 50_000) -> StyleSums:
    """Per-style sums of the unit vectors of ``texts`` (style ``codes[i]`` of ``k``), never holding all vectors.

    Vectors the cache has are summed here, a chunk at a time. The others are embedded by the
    engine: locally through the cache (so they are kept), on Ray summed per block on the workers,
    so that only k x d numbers per block come back, never the vectors.
    """
    engine = current()
    texts = [str(t) for t in texts]
    codes = np.asarray(codes, dtype=np.int64)
    total: StyleSums | None = None
    missing: list[int] = []
    summed = 0  # texts whose vectors are in ``total`` so far
    for start in range(0, len(texts), chunk):
        part = texts[start:start + chunk]
        if engine.is_local:
            # Read what is cached, encode (and cache) the rest.
            vectors = cached_vectors(encoder, part, cache,
                                     progress=(lambda d, t, s=start: progress(s + d, len(texts))) if progress else None)
            have = np.arange(len(part))
        else:
            vectors, gaps = cache.get_vectors(encoder.vector_id, part)
            missing += (gaps + start).tolist()
            have = np.setdiff1d(np.arange(len(part)), gaps)
        if vectors is not None and len(have):
            part_sums = sum_by_style(vectors[have], codes[start + have], k)
            total = part_sums if total is None else total + part_sums
            summed += len(have)
        if progress and not engine.is_local:
            progress(summed, len(texts))
    if missing:
        from stviz.engine import ray_engine

        report = (lambda d, t: progress(summed + d, len(texts))) if progress else None
        remote = ray_engine.style_sums(engine, encoder, [texts[i] for i in missing], codes[missing], k, report)
        total = remote if total is None else total + remote
    if total is None:
        raise DataError("no texts to sum")
    return total


__all__ = ["ENGINES", "LOCAL", "Engine", "EngineError", "RAY_INSTALL", "StyleSums", "TextEncoder", "cached_vectors",
           "current", "describe", "embed_missing", "from_env", "map_pairs", "require", "set_default", "style_sums",
           "sum_by_style", "unit_rows", "use"]
