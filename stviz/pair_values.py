"""Per-pair values of a computation, kept in the cache folder, so that any subset of pairs computed once
(a sampled preview, an earlier dataset sharing pairs) is read instead of recomputed.

Why: metric arrays are also cached whole (``Cache.memo``), keyed by every pair's texts; a run on a
sample and the run on the full data then share nothing. Here each value is keyed by (the
computation's id, a hash of the pair's two texts), in SQLite (``<cache>/pairvalues.sqlite``): atomic
writes shared by the dashboard's sessions, background runs and the command line. Each row carries a
BLAKE2 checksum over its job, key and bytes; a row that fails it is treated as missing and recomputed.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from stviz.progress import Progress

log = logging.getLogger("stviz.pair_values")
FILE_NAME = "pairvalues.sqlite"
_CHUNK = 500  # keys per query: well under SQLite's parameter limit


def pair_key(source: str, output: str) -> bytes:
    """16-byte hash of one pair's texts (lengths included, so ("ab", "c") and ("a", "bc") differ)."""
    h = hashlib.blake2b(digest_size=16)
    for text in (source, output):
        data = str(text).encode("utf-8")
        h.update(len(data).to_bytes(8, "little") + data)
    return h.digest()


def _checksum(job: str, key: bytes, blob: bytes) -> bytes:
    return hashlib.blake2b(job.encode() + b"\0" + key + blob, digest_size=16).digest()


class PairValueStore:
    """float64 values per (job, pair) in ``<root>/pairvalues.sqlite``; a connection per call (clearing is safe)."""

    def __init__(self, root: str | Path):
        self.path = Path(root) / FILE_NAME

    @contextlib.contextmanager
    def _connect(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=60)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS pairvalues (job TEXT NOT NULL, pair BLOB NOT NULL, "
                         "vals BLOB NOT NULL, checksum BLOB NOT NULL, PRIMARY KEY (job, pair))")
            yield conn
        finally:
            conn.close()

    def get(self, job: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The stored values of each key that has sound ones (missing or damaged keys are absent)."""
        found: dict[bytes, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        try:
            with self._connect() as conn:
                for start in range(0, len(unique), _CHUNK):
                    part = unique[start:start + _CHUNK]
                    rows = conn.execute(f"SELECT pair, vals, checksum FROM pairvalues WHERE job = ? AND pair IN "
                                        f"({','.join('?' * len(part))})", [job, *part])
                    for pair, blob, checksum in rows:
                        if bytes(checksum) == _checksum(job, bytes(pair), bytes(blob)):
                            found[bytes(pair)] = np.frombuffer(blob, dtype=np.float64)
        except (sqlite3.Error, OSError) as exc:  # a store that cannot be read: compute again
            log.warning("stored per-pair values could not be read (%s): they are computed again", exc)
        return found

    def put(self, job: str, keys: Sequence[bytes], values: np.ndarray) -> None:
        """Store one row of values per key; a folder that cannot be written only costs the reuse."""
        values = np.asarray(values, dtype=np.float64).reshape(len(keys), -1)
        rows = [(job, key, row.tobytes(), _checksum(job, key, row.tobytes())) for key, row in zip(keys, values)]
        if not rows:
            return
        try:
            with self._connect() as conn, conn:
                conn.executemany("INSERT OR REPLACE INTO pairvalues VALUES (?, ?, ?, ?)", rows)
        except (sqlite3.Error, OSError) as exc:
            log.warning("per-pair values could not be stored (%s): a later run computes them again", exc)


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


__all__ = ["FILE_NAME", "PairValueStore", "pair_key", "per_pair"]
