"""Content-addressed disk cache shared by the dashboard and the command line.

Two stores live under one folder:

* sentence vectors in SQLite, keyed by (embedder id, hash of the text), so that any subset of
  texts already embedded by any earlier run, page or process is read instead of recomputed;
* derived results (projections, similarity tables, metric arrays) as pickles named by a hash of
  the inputs and parameters that produced them.

Why SQLite for vectors: it gives atomic, concurrent-safe writes across processes for free (two
app sessions and a CLI run may write at once), and per-text keys let a new dataset reuse every
sentence it shares with an old one. Result files are written to a temporary name and renamed,
so a reader never sees half a file; an unreadable entry is dropped and recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

T = TypeVar("T")

#: Project root (the folder holding the ``stviz`` package).
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def stviz_home() -> Path:
    """Folder for everything stviz writes at run time (cache, corpora): ``$STVIZ_HOME`` or ``.stviz``."""
    return Path(os.environ.get("STVIZ_HOME", PROJECT_ROOT / ".stviz")).expanduser()


def text_key(text: str) -> bytes:
    """16-byte content hash of one text (the cache key of its vector)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def fingerprint(obj: Any) -> str:
    """Stable hex digest of a (nested) parameter object: dicts, lists, strings, numbers, arrays, frames."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, obj)
    return h.hexdigest()


def _feed(h: "hashlib._Hash", obj: Any) -> None:
    # Type tags keep ["a", "b"] and "ab" (or 1 and "1") from colliding.
    if obj is None or isinstance(obj, (bool, int, float, str)):
        h.update(b"j" + json.dumps(obj).encode())
    elif isinstance(obj, bytes):
        h.update(b"b" + len(obj).to_bytes(8, "little") + obj)
    elif isinstance(obj, np.ndarray):
        arr = np.ascontiguousarray(obj)
        if arr.dtype == object:
            _feed(h, arr.tolist())
        else:
            h.update(b"a" + str(arr.dtype).encode() + str(arr.shape).encode() + arr.tobytes())
    elif isinstance(obj, dict):
        h.update(b"d" + len(obj).to_bytes(8, "little"))
        for key in sorted(obj, key=str):
            _feed(h, str(key))
            _feed(h, obj[key])
    elif isinstance(obj, (list, tuple)):
        h.update(b"l" + len(obj).to_bytes(8, "little"))
        for item in obj:
            _feed(h, item)
    elif hasattr(obj, "to_numpy") and hasattr(obj, "columns"):  # pandas DataFrame
        _feed(h, [str(c) for c in obj.columns])
        for col in obj.columns:
            _feed(h, obj[col].to_numpy())
    elif hasattr(obj, "to_numpy"):  # pandas Series / Index
        _feed(h, obj.to_numpy())
    else:
        raise TypeError(f"cannot fingerprint {type(obj).__name__}")


class Cache:
    """Disk cache for sentence vectors (SQLite) and derived results (atomic pickle files)."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else stviz_home() / "cache"
        self.root.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()

    # -- sentence vectors -------------------------------------------------------------------
    @property
    def _db_path(self) -> Path:
        return self.root / "vectors.sqlite"

    def _connect(self) -> sqlite3.Connection:
        # One connection per thread: Streamlit runs each session's script in its own thread.
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open_db()
            self._local.conn = conn
        return conn

    def _open_db(self) -> sqlite3.Connection:
        try:
            return self._init_db()
        except sqlite3.DatabaseError:
            # A damaged database file is a cache miss, not a failure: move it aside, start anew.
            self._db_path.replace(self._db_path.with_suffix(".corrupt"))
            return self._init_db()

    def _init_db(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._db_path, timeout=60, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (embedder TEXT NOT NULL, text_key BLOB NOT NULL,"
            " dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (embedder, text_key)) WITHOUT ROWID"
        )
        return conn

    def get_vectors(self, embedder_id: str, texts: Sequence[str]) -> tuple[np.ndarray | None, np.ndarray]:
        """Cached vectors for ``texts``: (matrix with zero rows where missing, indices of the missing)."""
        keys = [text_key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        conn = self._connect()
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 900):  # SQLite's bound-parameter limit
            chunk = unique[start : start + 900]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT text_key, dim, vec FROM vectors WHERE embedder = ? AND text_key IN ({marks})",
                [embedder_id, *chunk],
            ).fetchall()
            for key, dim, blob in rows:
                if len(blob) == dim * 4:  # a truncated blob is treated as missing and rewritten
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        missing = np.array([i for i, k in enumerate(keys) if k not in found], dtype=np.int64)
        if not found:
            return None, missing
        dim = len(next(iter(found.values())))
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, k in enumerate(keys):
            vec = found.get(k)
            if vec is not None and len(vec) == dim:
                out[i] = vec
        return out, missing

    def put_vectors(self, embedder_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per text (float32), replacing any damaged entry."""
        vectors = np.asarray(vectors, dtype=np.float32)
        rows = [(embedder_id, text_key(t), int(v.shape[0]), v.tobytes()) for t, v in zip(texts, vectors)]
        conn = self._connect()
        with conn:  # one transaction: all or nothing
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)

    # -- derived results ----------------------------------------------------------------------
    def memo(self, kind: str, params: Any, compute: Callable[[], T], version: int = 1) -> T:
        """Return the cached result for (kind, params), computing and storing it on a miss.

        ``version`` is the calling module's ``CACHE_VERSION``: bump it there when a computation
        changes, so that results of the old code are never served.
        """
        path = self._result_path(kind, params, version)
        if path.exists():
            try:
                with path.open("rb") as fh:
                    return pickle.load(fh)
            except Exception:  # noqa: BLE001 - any unreadable entry is simply recomputed
                path.unlink(missing_ok=True)
        value = compute()
        self._atomic_write(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        return value

    def has(self, kind: str, params: Any, version: int = 1) -> bool:
        """Whether a result for (kind, params) is on disk (e.g. to say 'from cache' in the page)."""
        return self._result_path(kind, params, version).exists()

    def _result_path(self, kind: str, params: Any, version: int) -> Path:
        return self.root / "results" / kind / f"{fingerprint({'params': params, 'version': version})}.pkl"

    @staticmethod
    def _atomic_write(path: Path, payload: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    # -- housekeeping ---------------------------------------------------------------------------
    def size_bytes(self) -> int:
        """Total bytes the cache occupies on disk."""
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())

    def summary(self) -> dict[str, int]:
        """Counts for display: vectors stored, result files, bytes on disk."""
        n_vectors = self._connect().execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        n_results = sum(1 for _ in (self.root / "results").rglob("*.pkl")) if (self.root / "results").exists() else 0
        return {"vectors": int(n_vectors), "results": n_results, "bytes": self.size_bytes()}

    def clear(self) -> None:
        """Delete every cached vector and result."""
        conn = self._connect()
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("DELETE FROM vectors")
        conn.execute("VACUUM")
        shutil.rmtree(self.root / "results", ignore_errors=True)


_default: dict[Path, Cache] = {}


def default_cache() -> Cache:
    """The process-wide cache under ``stviz_home()/cache`` (one object per folder)."""
    root = stviz_home() / "cache"
    if root not in _default:
        _default[root] = Cache(root)
    return _default[root]

