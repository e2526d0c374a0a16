"""Per-pair values of a computation, kept in the cache folder, so that any subset of pairs computed once
(a sampled preview, an earlier dataset sharing pairs) is read instead of recomputed.

Why: metric arrays are also cached whole (``Cache.memo``), keyed by every pair's texts; a run on a
sample and the run on the full data then share nothing. Here each value is keyed by (the
computation's id, a hash of the pair's two texts), in SQLite (``<cache>/pairvalues.sqlite``): atomic
writes shared by the dashboard's sessions, background runs and the command line. Each row carries a
BLAKE2 checksum over its job, key and bytes; a row that fails it is treated as missing and recomputed; a
damaged file (cut short, malformed) is set aside and a new one started, said once.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from stviz.progress import Progress
from stviz.cache.sqlite_files import is_corruption, move_aside

log = logging.getLogger("stviz.cache.pair_values")
FILE_NAME = "pairvalues.sqlite"
_CHUNK = 500  # keys per query: well under SQLite's parameter limit
_repair_lock = threading.Lock()  # one damaged file is set aside once, whichever thread finds it


def pair_key(source: str, output: str) -> bytes:
    """16-byte hash of one pair's texts (lengths included, so ("ab", "c") and ("a", "bc") differ)."""
    h = hashlib.blake2b(digest_size=16)
    for text in (source, output):
        data = str(text).encode("utf-8")
        h.update(len(data).to_bytes(8, "little") + data)
    return h.digest()


def _checksum(job: str, key: bytes, blob: bytes) -> bytes:
    return hashlib.blake2b(job.encode() + b"\0" + key + blob, digest_size=16).digest()


class PairStore:
    """Entries per (job, pair) in one SQLite file of the cache folder, each row checksummed over its job, key
    and bytes (a damaged or moved row reads as missing); a connection per call, so clearing is safe.

    Subclasses say what one entry is (:meth:`encode` / :meth:`decode`) and where it lives.
    """

    file_name = FILE_NAME
    table = "pairvalues"
    what = "per-pair values"

    def __init__(self, root: str | Path):
        self.path = Path(root) / self.file_name

    def encode(self, value) -> bytes:
        """One entry as stored."""
        raise NotImplementedError

    def decode(self, blob: bytes):
        """One entry as read."""
        raise NotImplementedError

    @contextlib.contextmanager
    def _connect(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=60)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (job TEXT NOT NULL, pair BLOB NOT NULL, "
                         "vals BLOB NOT NULL, checksum BLOB NOT NULL, PRIMARY KEY (job, pair))")
            yield conn
        finally:
            conn.close()

    def _guarded(self, operation: Callable[[sqlite3.Connection], object], failed: str):
        """``operation(conn)``, or None when the store cannot be used (said in a log warning: ``failed``). A damaged
        file is set aside and a new one started, once (:mod:`stviz.cache.sqlite_files`, as the vector database is)."""
        for attempt in range(2):
            opened = _identity(self.path)  # the file this attempt opens: only it may be set aside
            try:
                with self._connect() as conn:
                    return operation(conn)
            except (sqlite3.Error, OSError) as exc:
                if attempt == 0 and is_corruption(exc) and self._set_aside(opened, exc):
                    continue
                log.warning(failed, self.what, exc)
                return None
        return None  # pragma: no cover

    def _set_aside(self, opened, exc: BaseException) -> bool:
        """Move the damaged file aside unless another call has already (then: True, retry on the new one)."""
        with _repair_lock:
            if opened is None or _identity(self.path) != opened:
                return True
            aside = move_aside(self.path)
        if aside is None:
            return False
        log.warning("stored %s in %s were damaged (%s); the file was set aside as %s and a new one started: they are "
                    "computed again when needed", self.what, self.path, exc, aside.name)
        return True

    def get(self, job: str, keys: Sequence[bytes]) -> dict:
        """The stored entry of each key that has a sound one (missing or damaged keys are absent)."""
        found = {}
        unique = list(dict.fromkeys(keys))

        def read(conn: sqlite3.Connection) -> None:
            found.clear()  # a retry on a new file starts again
            for start in range(0, len(unique), _CHUNK):
                part = unique[start:start + _CHUNK]
                rows = conn.execute(f"SELECT pair, vals, checksum FROM {self.table} WHERE job = ? AND pair IN "
                                    f"({','.join('?' * len(part))})", [job, *part])
                for pair, blob, checksum in rows:
                    if bytes(checksum) == _checksum(job, bytes(pair), bytes(blob)):
                        found[bytes(pair)] = self.decode(bytes(blob))

        # A store that cannot be read: computed again.
        self._guarded(read, "stored %s could not be read (%s): they are computed again")
        return found

    def put_entries(self, job: str, entries: Iterable[tuple[bytes, object]]) -> None:
        """Store (key, entry) pairs; a folder that cannot be written only costs the reuse."""
        rows = [(job, key, blob, _checksum(job, key, blob)) for key, blob in
                ((key, self.encode(value)) for key, value in entries)]
        if not rows:
            return

        def write(conn: sqlite3.Connection) -> None:
            with conn:
                conn.executemany(f"INSERT OR REPLACE INTO {self.table} VALUES (?, ?, ?, ?)", rows)

        self._guarded(write, "%s could not be stored (%s): a later run computes them again")


def _identity(path: Path):
    """Which file ``path`` is now (device and inode), or None when there is none."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


class PairValueStore(PairStore):
    """float64 values per (job, pair) in ``<root>/pairvalues.sqlite``."""

    def encode(self, value) -> bytes:
        """A row of float64 values as bytes."""
        return np.asarray(value, dtype=np.float64).tobytes()

    def decode(self, blob: bytes) -> np.ndarray:
        """The float64 values of a row."""
        return np.frombuffer(blob, dtype=np.float64)

    def put(self, job: str, keys: Sequence[bytes], values: np.ndarray) -> None:
        """Store one row of values per key."""
        self.put_entries(job, zip(keys, np.asarray(values, dtype=np.float64).reshape(len(keys), -1)))


def per_pair(job: str, sources: Sequence[str], outputs: Sequence[str], compute: Callable, root: str | Path,
             progress: Progress | None = None):
    """``compute(sources, outputs, progress)`` (an array, or a tuple of arrays, one value per pair) for the
    distinct pairs the store lacks only; the rest is read. Returns what ``compute`` would on all pairs.

    ``compute`` must score each pair on its own (any subset gives the same values): the contract of
    :func:`stviz.engine.map_pairs`.
    """
    store = PairValueStore(root)
    keys = [pair_key(s, o) for s, o in zip(sources, outputs)]
    found = store.get(job, keys)
    todo = {k: i for i, k in enumerate(keys) if k not in found}  # first occurrence of each missing pair
    if todo:
        rows = list(todo.values())
        fresh = compute([sources[i] for i in rows], [outputs[i] for i in rows], progress)
        columns = np.column_stack(fresh if isinstance(fresh, tuple) else [fresh]).astype(np.float64)
        store.put(job, list(todo), columns)
        found.update(zip(todo, columns))
    elif progress:
        progress(len(keys), len(keys))
    if not keys:
        return compute([], [], None)
    matrix = np.vstack([found[k] for k in keys])
    return matrix[:, 0].copy() if matrix.shape[1] == 1 else tuple(matrix[:, j].copy() for j in range(matrix.shape[1]))


__all__ = ["FILE_NAME", "PairStore", "PairValueStore", "pair_key", "per_pair"]
