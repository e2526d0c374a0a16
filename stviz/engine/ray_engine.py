"""The Ray engine: stviz's batch work as Ray Data pipelines on a pool of actors.

Every job has the same shape. The driver (the process running the command or the dashboard) cuts
the items still missing from the cache into blocks of ``Engine.batch_size`` rows and hands them to
Ray Data (``from_pandas``); ``map_batches`` runs them through a fixed pool of actors, each of which
loads its model once (GPUs requested when the cluster has them); the driver consumes the results
as they finish (``iter_batches``) and merges them into the content-addressed cache:

* vectors go into the cache's vector store block by block (keyed per text, so an interrupted run
  resumes with the texts still missing);
* per-pair values are kept as one Parquet shard per finished block under
  ``<cache>/shards/<job>/`` until every pair is done, then returned to the caller, which stores the
  whole array under its memo key (the shards are deleted): an interrupted run resumes from them;
* per-style sums are added up as they come: the vectors never leave the workers.

Results are placed by row index, so the number of workers and the order in which blocks finish
cannot change them. Ray restarts an actor that dies and retries its block (Ray Data's defaults for
actor pools: unlimited restarts and task retries).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import shutil
import sys
import threading
import uuid
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from stviz.data.schema import DataError
from stviz.engine import RAY_INSTALL, Engine, EngineError, StyleSums, TextEncoder, sum_by_style
from stviz.progress import Progress

_connect_lock = threading.Lock()
#: A stviz error's last traceback line, as a worker's failure reaches the driver: "stviz.x.y.DataError: message".
_WORKER_ERROR = re.compile(r"^(stviz\.[\w.]+)\.(DataError|EngineError|NotApplicable|EmbedderError|KnownAnswerError|"
                           r"ModelLoadError): (.+)$", re.M)
PACKAGE_DIR = Path(__file__).resolve().parents[1]


# -- the cluster ---------------------------------------------------------------------------------------
def connect(engine: Engine) -> None:
    """Join the engine's Ray cluster (or start one on this machine) once per process."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise EngineError(f"--engine ray needs Ray, which is not installed here: {RAY_INSTALL}") from None
    with _connect_lock:
        if not ray.is_initialized():
            _start(ray, engine)
        logging.getLogger("ray.data").setLevel(logging.ERROR)
        ray.data.DataContext.get_current().enable_progress_bars = False


def ray_client_installed() -> bool:
    """Whether Ray Client's extra (gRPC) is installed: ``ray://`` addresses need it, ``ray[data]`` lacks it."""
    import importlib.util

    return importlib.util.find_spec("grpc") is not None


def _start(ray, engine: Engine) -> None:
    """ray.init for the engine: a new Ray on this machine, or the cluster at its address."""
    address = engine.address or os.environ.get("RAY_ADDRESS") or None
    # Quiet: stviz reports progress itself, and workers' logs stay in Ray's session folder.
    kwargs: dict = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
    if address is None:
        # A Ray of our own, on this machine: its workers import stviz from the driver's path.
        if engine.object_store_mb:
            kwargs["object_store_memory"] = int(engine.object_store_mb) * 2**20
        from stviz.threads import thread_budget

        kwargs["num_cpus"] = thread_budget()  # the cores this process is given, not the machine's
    else:
        # An existing cluster: ship this stviz with the job, so workers run the driver's code
        # (a different version on the nodes could store different values under the same keys).
        kwargs["runtime_env"] = {"py_modules": [str(PACKAGE_DIR)],
                                 "excludes": ["__pycache__"]}
    if str(address or "").startswith("ray://") and not ray_client_installed():
        raise EngineError(f"joining {address} goes through Ray Client, which needs its extra: "
                          'pip install "ray[client]==2.60.0" (or run stviz on a cluster node with --address auto)')
    try:
        ray.init(address=address, **kwargs)
    except Exception as exc:  # noqa: BLE001 - connection failures come in many types
        where = address or "this machine"
        hint = ("; a cluster with token authentication (Ray's default) also needs RAY_AUTH_MODE=token and its "
                "token in ~/.ray/auth_token (see docs/scale.md)" if address else "")
        raise EngineError(f"could not start or reach Ray at {where}: {type(exc).__name__}: "
                          f"{str(exc).splitlines()[0][:300] if str(exc) else ''}{hint}") from exc


def _pool(engine: Engine, n_blocks: int, model: bool) -> dict:
    """map_batches arguments for the actor pool: size, CPUs and GPUs per actor."""
    import ray

    resources = ray.cluster_resources()
    gpus = float(resources.get("GPU", 0))
    per_gpu = engine.gpus_per_worker if engine.gpus_per_worker is not None else (1.0 if gpus and model else 0.0)
    if engine.workers:
        size = engine.workers
    elif per_gpu:
        size = max(1, int(gpus // per_gpu))
    else:
        size = max(1, int(float(resources.get("CPU", 1)) // engine.cpus_per_worker))
    size = max(1, min(size, n_blocks))  # an actor without a block only costs a model load
    return {"compute": ray.data.ActorPoolStrategy(size=size), "num_cpus": engine.cpus_per_worker,
            "num_gpus": per_gpu}


def _blocks(frame: pd.DataFrame, size: int) -> list[pd.DataFrame]:
    return [frame.iloc[start:start + size].reset_index(drop=True) for start in range(0, len(frame), size)]


def _run(engine: Engine, frame: pd.DataFrame, actor: type, args: tuple, model: bool,
         on_batch: Callable[[dict], None]) -> None:
    """Send ``frame`` in blocks through a pool of ``actor(*args)``; call ``on_batch`` with each result."""
    connect(engine)
    import ray

    blocks = _blocks(frame, engine.batch_size)
    dataset = ray.data.from_pandas(blocks).map_batches(
        actor, fn_constructor_args=args, batch_size=None, batch_format="numpy", zero_copy_batch=True,
        **_pool(engine, len(blocks), model))
    try:
        for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
            on_batch(batch)
    except Exception as exc:  # noqa: BLE001 - unwrap Ray's wrappers into the user's message
        raise _cause(exc) from exc


def _cause(exc: BaseException) -> BaseException:
    """The error to show for a failed Ray job: the stviz error inside (DataError, EmbedderError, ...) if there is one."""
    chain: BaseException | None = exc
    while chain is not None:  # raised here, on the driver (e.g. while merging a block)
        if _is_stviz_error(chain) and "RayTaskError" not in type(chain).__name__:
            return chain
        chain = chain.__cause__ or chain.__context__
    # Raised on a worker: Ray Data passes on only its traceback text, whose last stviz error line says it.
    found = _WORKER_ERROR.findall(str(exc))
    if found:
        module, name, message = found[-1]
        return _driver_error(module, name)(message)
    first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    return EngineError(f"the Ray job failed: {type(exc).__name__}: {first}")


#: Errors of the work itself that reach the user as they are, besides DataError: known by name, since
#: the engine never imports the modules that define them (the embedders', a model refused by stviz.models).
_WORK_ERRORS = ("EmbedderError", "KnownAnswerError", "ModelLoadError")


def _is_stviz_error(exc: BaseException) -> bool:
    return isinstance(exc, DataError) or (type(exc).__name__ in _WORK_ERRORS
                                          and type(exc).__module__.startswith("stviz."))


def _driver_error(module: str, name: str) -> type:
    """A worker's error class as the driver knows it (the driver built the work, so its module is loaded here)."""
    cls = getattr(sys.modules.get(module), name, None) if name in _WORK_ERRORS else None
    return cls if isinstance(cls, type) and issubclass(cls, Exception) else DataError


def _on_worker(encoder: TextEncoder) -> TextEncoder:
    """The encoder rebuilt on the worker, so model paths resolve on that machine."""
    return dataclasses.replace(encoder) if dataclasses.is_dataclass(encoder) else encoder


# -- actors (each a worker process that keeps its model loaded from its first block to the end) -----------
class EmbedActor:
    """Encodes blocks of texts with one encoder."""

    def __init__(self, encoder: TextEncoder):
        self.encoder = _on_worker(encoder)

    def __call__(self, batch: dict) -> dict:
        vectors = self.encoder.encode([str(t) for t in batch["text"]])
        return {"index": batch["index"], "vector": np.asarray(vectors, dtype=np.float32)}


class PairActor:
    """Computes ``fn(sources, outputs, progress)`` on blocks of pairs."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, batch: dict) -> dict:
        values = self.fn([str(t) for t in batch["source"]], [str(t) for t in batch["output"]], None)
        out = {"index": batch["index"]}
        for j, column in enumerate(values if isinstance(values, tuple) else (values,)):
            out[f"value{j}"] = _column(column)
        return out


def _column(values) -> np.ndarray:
    """A per-pair result column as float64, or as text when it holds text (an LLM judge's replies)."""
    array = np.asarray(values)
    return array.astype(object) if array.dtype.kind in "OUS" else array.astype(np.float64)


class StyleSumActor:
    """Encodes a block and returns only its per-style sums (one row per block)."""

    def __init__(self, encoder: TextEncoder, k: int):
        self.encoder = _on_worker(encoder)
        self.k = k

    def __call__(self, batch: dict) -> dict:
        vectors = self.encoder.encode([str(t) for t in batch["text"]])
        sums = sum_by_style(vectors, np.asarray(batch["code"], dtype=np.int64), self.k)
        return {"sums": sums.sums[None], "sumsq": sums.sumsq[None], "counts": sums.counts[None]}


# -- the jobs -----------------------------------------------------------------------------------------
def embed_texts(engine: Engine, encoder: TextEncoder, texts: list[str], cache, progress: Progress | None) -> np.ndarray:
    """Vectors of ``texts`` computed on the cluster, stored in ``cache`` block by block as they arrive."""
    frame = pd.DataFrame({"index": np.arange(len(texts)), "text": texts})
    state: dict = {"out": None, "done": 0}

    def merge(batch: dict) -> None:
        index, vectors = batch["index"], np.asarray(batch["vector"], dtype=np.float32)
        cache.put_vectors(encoder.vector_id, [texts[i] for i in index], vectors)
        if state["out"] is None:
            state["out"] = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        state["out"][index] = vectors
        state["done"] += len(index)
        if progress:
            progress(state["done"], len(texts))

    _run(engine, frame, EmbedActor, (encoder,), True, merge)
    return state["out"] if state["out"] is not None else np.zeros((0, 0), dtype=np.float32)


def map_pairs(engine: Engine, fn: Callable, sources: list[str], outputs: list[str], job: str, cache,
              progress: Progress | None, needs_model: bool):
    """Per-pair values of ``fn`` computed on the cluster, resuming from the job's Parquet shards."""
    n = len(sources)
    if n == 0:
        return fn([], [], None)
    folder = Path(cache.root) / "shards" / job
    columns: list[np.ndarray] = []
    done = np.zeros(n, dtype=bool)

    def merge(frame: pd.DataFrame) -> None:
        index = frame["index"].to_numpy()
        values = [_column(frame[c].to_numpy()) for c in sorted(c for c in frame if c.startswith("value"))]
        if not columns:
            columns.extend(np.full(n, np.nan) if v.dtype != object else np.full(n, "", dtype=object) for v in values)
        for column, value in zip(columns, values):
            column[index] = value
        done[index] = True
        if progress:
            progress(int(done.sum()), n)

    for shard in sorted(folder.glob("*.parquet")) if folder.is_dir() else []:
        try:
            merge(pd.read_parquet(shard))
        except Exception:  # noqa: BLE001 - a damaged shard is recomputed
            shard.unlink(missing_ok=True)
    todo = np.flatnonzero(~done)
    if len(todo):
        frame = pd.DataFrame({"index": todo, "source": [sources[i] for i in todo],
                              "output": [outputs[i] for i in todo]})

        def keep(batch: dict) -> None:
            result = pd.DataFrame({k: v for k, v in batch.items()})
            _write_shard(folder, result)
            merge(result)

        _run(engine, frame, PairActor, (fn,), needs_model, keep)
    if not done.all():  # pragma: no cover - Ray returned fewer rows than it was given
        raise EngineError(f"the Ray job returned {int(done.sum())} of {n} pairs")
    shutil.rmtree(folder, ignore_errors=True)
    return columns[0] if len(columns) == 1 else tuple(columns)


def _write_shard(folder: Path, frame: pd.DataFrame) -> None:
    """One finished block as a Parquet file, written under a temporary name then renamed (never half a file)."""
    folder.mkdir(parents=True, exist_ok=True)
    name = f"part-{uuid.uuid4().hex}.parquet"
    tmp = folder / f".tmp-{name}"
    frame.to_parquet(tmp, index=False)
    os.replace(tmp, folder / name)


def style_sums(engine: Engine, encoder: TextEncoder, texts: list[str], codes: np.ndarray, k: int,
               progress: Progress | None) -> StyleSums:
    """Per-style sums of ``texts``' unit vectors, summed per block on the workers (no vector comes back)."""
    frame = pd.DataFrame({"index": np.arange(len(texts)), "text": texts, "code": np.asarray(codes, dtype=np.int64)})
    state: dict = {"total": None, "done": 0}

    def add(batch: dict) -> None:
        for sums, sumsq, counts in zip(batch["sums"], batch["sumsq"], batch["counts"]):
            part = StyleSums(np.asarray(sums, dtype=np.float64), np.asarray(sumsq, dtype=np.float64),
                             np.asarray(counts, dtype=np.int64))
            state["total"] = part if state["total"] is None else state["total"] + part
            state["done"] += int(part.counts.sum())
        if progress:
            progress(state["done"], len(texts))

    _run(engine, frame, StyleSumActor, (encoder, k), True, add)
    return state["total"]


__all__ = ["EmbedActor", "PairActor", "StyleSumActor", "connect", "embed_texts", "map_pairs", "style_sums"]
