"""One computation per result at a time, across the processes and threads that share a cache folder.

Why: the server's two worker processes warm different views of the same corpus at once (Metrics vs humans and
Failure cases on SGDD-TST both score BERTScore), a user's job may ask for the metric a warm job is computing, and the
test suite's processes reach the same corpora's metrics together. Each computed the same result on its own, each
slowed by the other, and the second finished no earlier than had it waited. Now the first to miss a result holds a
lock on its key while computing it; another asking for the same key waits, then reads what was stored.

The lock is ``flock`` on an empty file beside the result (``KEY.lock``), deleted once the result is stored: the kernel
drops the lock when its holder exits or is killed, so a crashed computation never blocks the next one, which computes
it again. A thread that already holds a
key's lock (a computation asking for its own key again) does not wait for itself. Where no lock file can be made (a
read-only folder, another system) the computation runs unlocked, as before.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Iterator

try:
    import fcntl
except ImportError:  # not a POSIX system: every computation runs unlocked
    fcntl = None

#: Kinds computed without the lock: checks made while a model loads (a known answer, a precision's gate), under the
#: loader's own lock (stviz.shared.load_once). Waiting there for a process that waits for that loader would close a
#: circle of waits; they take seconds, and computing one twice costs little.
UNWAITED = frozenset({"known-answer", "int8-gate", "half-gate"})

_held = threading.local()


@contextlib.contextmanager
def computing(result: Path, kind: str) -> Iterator[None]:
    """Hold the lock of the result file ``result`` (of ``kind``) while the block computes it, waiting while another
    process or thread holds it."""
    lock = result.with_suffix(".lock")
    held = _held.__dict__.setdefault("paths", set())
    fd = None if fcntl is None or kind in UNWAITED or lock in held else _open(lock)
    if fd is None:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # each open is its own description: other threads of this process wait too
    except OSError:  # a file system without locks (some network mounts): computed unlocked, as before
        os.close(fd)
        yield
        return
    try:
        held.add(lock)
        yield
    finally:
        held.discard(lock)
        _remove_if_ours(lock, fd)
        os.close(fd)  # releases the lock


def _remove_if_ours(lock: Path, fd: int) -> None:
    """Delete the lock file once its result is stored, so a folder of empty files does not grow with every result.

    Only the file this descriptor holds: one waiting on it reads the stored result once it gets the lock; a new file
    at the same path belongs to a later computation and is left to it.
    """
    with contextlib.suppress(OSError):
        if os.stat(lock).st_ino == os.fstat(fd).st_ino:
            lock.unlink()


def _open(lock: Path) -> int | None:
    """A descriptor of the lock file, made if missing; None where it cannot be made."""
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        return os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None
