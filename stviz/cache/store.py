"""Content-addressed disk cache shared by the dashboard and the command line.

Two stores live under one folder:
* sentence vectors in SQLite, keyed by (embedder id, hash of the text), so that any subset of
  texts already embedded by any earlier run, page or process is read instead of recomputed;
* derived results (projections, similarity tables, metric arrays) as pickles named by a hash of
  the inputs and parameters that produced them.

Why SQLite for vectors: it gives atomic, concurrent-safe writes across processes for free (two
app sessions and a CLI run may write at once), and per-text keys let a new dataset reuse every
sentence it shares with an old one. Result files are written to a temporary name and renamed,
so a reader never sees half a file. Every entry carries what it is and a checksum written with it, checked on every read: a vector
row's BLAKE2 covers its embedder id, text key, size, dtype and bytes (so a blob damaged on disk,
or moved to another row, fails); a result file's header names its kind, its key, its length and
its payload's BLAKE2 (so a truncated file, or one copied under another key, fails). A failing
entry is never served: it is deleted, said once (:meth:`Cache.take_notices`), and recomputed.
The entry formats are in :mod:`stviz.cache.entries`; the folder's areas (listing, clearing) in
:mod:`stviz.cache.areas`; the keys (:func:`~stviz.cache.keys.fingerprint`, :func:`~stviz.cache.keys.text_key`) in
:mod:`stviz.cache.keys`; where the folder is in :mod:`stviz.cache.paths`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

from stviz.cache.areas import Area, ClearReport, clear_areas, list_areas, tree_files
from stviz.cache.computing import computing
from stviz.cache.entries import (OLD_FORMAT, VECTOR_DTYPE, VECTOR_SCHEMA, BadEntry, decode_result, encode_result,
                                 ensure_vector_schema, vector_checksum)
from stviz.cache.keys import fingerprint, text_key
from stviz.cache.paths import stviz_home
from stviz.cache.sqlite_files import is_corruption, move_aside

T = TypeVar("T")
log = logging.getLogger("stviz.cache")


class Cache:
    """Disk cache for sentence vectors (SQLite) and derived results (atomic pickle files).

    It never stops a computation: a damaged vector database is set aside and rebuilt; a folder
    that cannot be written (read-only, full disk) turns storing off and results are computed
    without it. Each such event is said once (:meth:`take_notices`, and a log warning, which the
    command line prints on stderr).
    """

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else stviz_home() / "cache"
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open_lock = threading.RLock()  # opening vs setting aside: never open between the file moves
        self._generation = 0  # bumped when the database is set aside: every thread then reopens
        self._said: set[str] = set()
        self._pending: list[str] = []
        self.writable = True
        self._checked = False  # the database is checked for damage once per process
        self._recent: dict[str, tuple[float, Any]] = {}  # (when, what) of the last summary and listing of the areas
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.storing_failed(exc)

    # -- notices ------------------------------------------------------------------------------
    def _notice(self, message: str) -> None:
        with self._lock:
            if message in self._said:
                return
            self._said.add(message)
            self._pending.append(message)
        log.warning(message)

    def take_notices(self) -> list[str]:
        """What happened to the cache since the last call (damage repaired, storing turned off), once each."""
        with self._lock:
            out, self._pending = self._pending, []
        return out

    def storing_failed(self, exc: BaseException) -> None:
        """Turn storing off after a write failed (read-only folder, full disk), and say why once."""
        self.writable = False
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT) or "full" in str(exc):
            why = "the disk holding it is full"
        elif isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) or "readonly" in str(exc):
            why = "it is read-only"
        else:
            why = f"it cannot be written ({type(exc).__name__}: {str(exc)[:120]})"
        self._notice(f"The cache folder {self.root} is not used for storing because {why}: results are computed "
                     "without being cached. Free space, or set STVIZ_HOME to a writable folder.")

    # -- sentence vectors -------------------------------------------------------------------
    @property
    def _db_path(self) -> Path:
        return self.root / "vectors.sqlite"

    def _connect(self) -> sqlite3.Connection | None:
        # One connection per thread: Streamlit runs each session's script in its own thread.
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.generation == self._generation:
            return conn
        if conn is not None:
            conn.close()
            self._local.conn = None
        with self._open_lock:
            conn = self._open_db()
            self._local.conn, self._local.generation = conn, self._generation  # after opening: it may have set one aside
        return conn

    def _open_db(self) -> sqlite3.Connection | None:
        """Open (and on first use, check) the vector database; None when it can be neither read nor written."""
        if not self.writable:
            return self._open_read_only()
        generation = self._generation
        try:
            return self._init_db(check=not self._checked)
        except sqlite3.DatabaseError as exc:
            if is_corruption(exc) and self._set_aside(generation):
                return self._open_db()
            self.storing_failed(exc)
        except OSError as exc:
            self.storing_failed(exc)
        return self._open_read_only()

    def _init_db(self, check: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(self._db_path, timeout=60, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            kept = ensure_vector_schema(conn)
            if kept is not None:
                self._notice(f"The vector cache {self._db_path} was upgraded to checksummed rows ({kept:,} vectors "
                             "kept; rows of a wrong length dropped). Later damage to a row is found when it is read.")
            if check:
                # A damaged page is found now, once per process, not in the middle of a page's work.
                result = conn.execute("PRAGMA quick_check").fetchone()[0]
                self._checked = True
                if result != "ok":
                    raise sqlite3.DatabaseError(f"database disk image is malformed: {result[:200]}")
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_read_only(self) -> sqlite3.Connection | None:
        if not self._db_path.exists():
            return None
        try:
            conn = sqlite3.connect(f"file:{self._db_path}?mode=ro", uri=True, timeout=60, isolation_level=None,
                                   check_same_thread=False)
            if conn.execute("PRAGMA user_version").fetchone()[0] != VECTOR_SCHEMA:
                conn.close()  # rows without checksums cannot be checked, and cannot be migrated here: not read
                return None
            conn.execute("SELECT COUNT(*) FROM vectors LIMIT 1").fetchone()
            return conn
        except sqlite3.DatabaseError:
            return None  # e.g. a WAL database whose side files cannot be created: no vectors, computed afresh

    def _set_aside(self, generation: int) -> bool:
        """Move a damaged database (and its WAL side files) aside so a new one can start; False if it cannot be moved.

        ``generation`` is the one the failing connection was opened in: if another thread has set the
        database aside since, the new one is not touched. No thread opens the path meanwhile (a new
        file beside the old WAL would replay it), nor records an old-file connection as new.
        """
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        with self._open_lock, self._lock:
            if self._generation != generation or not self._db_path.exists():  # another thread did it already
                return True
            aside = move_aside(self._db_path)
            moved = aside is not None
            if moved:
                self._generation += 1
                self._checked = True  # the new database is empty: nothing to check
        if not moved:  # said outside the lock: _notice takes it too
            self._notice(f"The vector cache {self._db_path} is damaged and cannot be moved aside: embeddings are "
                         "computed without it. Delete the file to start a new one.")
            return False
        self._notice(f"The vector cache {self._db_path} was damaged (database disk image is malformed); it was set "
                     f"aside as {aside.name} and a new one started: embeddings are recomputed when needed.")
        return True

    def _run(self, operation: Callable[[sqlite3.Connection], T], default: T) -> T:
        """Run a database operation; repair a damaged database once, and carry on without it if it cannot be used."""
        for attempt in range(2):
            conn = self._connect()
            if conn is None:
                return default
            generation = self._local.generation
            try:
                return operation(conn)
            except sqlite3.DatabaseError as exc:
                if is_corruption(exc):
                    if attempt == 0 and self._set_aside(generation):
                        continue
                    return default
                if "locked" in str(exc) or "busy" in str(exc):
                    # Another process held the database past the 60 s timeout: skip this one write, keep caching.
                    self._notice(f"The vector cache {self._db_path} was busy; some vectors were not stored this time.")
                    return default
                self.storing_failed(exc)
                return default
        return default  # pragma: no cover

    def get_vectors(self, embedder_id: str, texts: Sequence[str]) -> tuple[np.ndarray | None, np.ndarray]:
        """Cached vectors for ``texts``: (matrix with zero rows where missing, indices of the missing).

        Vectors of another dimension than the first found (left by a model that changed under the
        same id) raise :class:`MixedDimensionsError`: silently zero-filled rows would look like data.
        """
        keys = [text_key(t) for t in texts]
        unique = list(dict.fromkeys(keys))

        def read(conn: sqlite3.Connection) -> tuple[dict[bytes, np.ndarray], list[bytes]]:
            found: dict[bytes, np.ndarray] = {}
            bad: list[bytes] = []
            for start in range(0, len(unique), 900):  # SQLite's bound-parameter limit
                chunk = unique[start : start + 900]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT text_key, dim, dtype, checksum, vec FROM vectors WHERE embedder = ? AND text_key IN ({marks})",
                    [embedder_id, *chunk],
                ).fetchall()
                for key, dim, dtype, checksum, blob in rows:
                    if dtype == VECTOR_DTYPE and len(blob) == dim * 4 and \
                            vector_checksum(embedder_id, key, dim, dtype, blob) == checksum:
                        found[key] = np.frombuffer(blob, dtype=np.float32)
                    else:
                        bad.append(key)
            return found, bad

        found, bad = self._run(read, ({}, []))
        if bad:  # treated as missing: the caller computes them again and put_vectors replaces the rows
            self._drop_vectors(embedder_id, bad)
        missing = np.array([i for i, k in enumerate(keys) if k not in found], dtype=np.int64)
        if not found:
            return None, missing
        dims = {len(v) for v in found.values()}
        if len(dims) > 1:
            raise MixedDimensionsError(
                f"the cache holds vectors of {len(dims)} different sizes ({', '.join(map(str, sorted(dims)))}) for "
                f"'{embedder_id}': the model changed without changing its name. Clear the cache, or give the new "
                "model another file name")
        dim = dims.pop()
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, k in enumerate(keys):
            vec = found.get(k)
            if vec is not None:
                out[i] = vec
        return out, missing

    def put_vectors(self, embedder_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per text (float32), replacing any damaged entry; skipped when the cache cannot be written."""
        if not self.writable:
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        rows = []
        for t, v in zip(texts, vectors):
            key, dim, blob = text_key(t), int(v.shape[0]), v.tobytes()
            rows.append((embedder_id, key, dim, VECTOR_DTYPE, vector_checksum(embedder_id, key, dim, VECTOR_DTYPE,
                                                                               blob), blob))

        def write(conn: sqlite3.Connection) -> None:
            with conn:  # one transaction: all or nothing
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?, ?)", rows)

        self._run(write, None)

    def _drop_vectors(self, embedder_id: str, keys: list[bytes]) -> None:
        """Delete rows that failed their checksum (when the cache can be written) and say so once."""
        if self.writable:
            def delete(conn: sqlite3.Connection) -> None:
                with conn:
                    conn.execute("BEGIN IMMEDIATE")
                    conn.executemany("DELETE FROM vectors WHERE embedder = ? AND text_key = ?",
                                     [(embedder_id, k) for k in keys])

            self._run(delete, None)
        self._notice(f"{len(keys):,} cached vectors for '{embedder_id}' in {self._db_path} failed their checksum "
                     "(damaged on disk, or moved from another row); they were not used"
                     f"{', and were deleted' if self.writable else ''}: they are recomputed.")

    # -- derived results ----------------------------------------------------------------------
    def memo(self, kind: str, params: Any, compute: Callable[[], T], version: int = 1) -> T:
        """Return the cached result for (kind, params), computing and storing it on a miss.

        ``version`` is the calling module's ``CACHE_VERSION``: bump it there when a computation
        changes, so that results of the old code are never served. An entry that fails its check
        (another key's, truncated, damaged) is deleted, said once, and computed again. A result another
        process or thread is computing is waited for and read, not computed twice (:mod:`stviz.cache.computing`).
        """
        key = self._result_key(params, version)
        path = self.root / "results" / kind / f"{key}.pkl"
        found, value = self._load_result(path, kind, key)
        if found:
            return value
        with self.computing(kind, key):  # another process or thread computing this result: wait, then read it
            found, value = self._load_result(path, kind, key)
            if found:
                return value
            value = compute()
            if self.writable:
                try:
                    self.write_file(path, encode_result(kind, key, value))
                except OSError as exc:
                    self.storing_failed(exc)
        return value

    def computing(self, kind: str, key: str):
        """A context holding the lock of (``kind``, ``key``) across processes and threads while its block computes it
        (:mod:`stviz.cache.computing`): who asks for the same key meanwhile waits, then reads it from the cache."""
        return computing(self.root / "results" / kind / f"{key}.pkl", kind)

    def peek(self, kind: str, params: Any, version: int = 1) -> tuple[bool, Any]:
        """``(True, value)`` when a sound result for (kind, params) is on disk, else ``(False, None)``: a read that
        never computes (a damaged entry is refused as :meth:`memo` refuses it)."""
        key = self._result_key(params, version)
        return self._load_result(self.root / "results" / kind / f"{key}.pkl", kind, key)

    def _load_result(self, path: Path, kind: str, key: str) -> tuple[bool, Any]:
        """(True, value) for a sound entry; (False, None) when there is none or it was refused."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return False, None
        except OSError as exc:
            return self._refuse(path, kind, f"it cannot be read ({type(exc).__name__})")
        try:
            return True, decode_result(data, kind, key)
        except BadEntry as exc:
            return self._refuse(path, kind, str(exc))

    def _refuse(self, path: Path, kind: str, why: str) -> tuple[bool, None]:
        """Delete a result file that failed its check, so the next run does not meet it again, and say so once."""
        deleted = False
        if self.writable:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
                deleted = True
        if why == OLD_FORMAT:  # not damage: one notice for all of them
            self._notice("Cached results written by an older stviz (without checksums) are recomputed once each.")
        else:
            self._notice(f"The cached result {path} was not used: {why}. It was "
                         f"{'deleted' if deleted else 'left in place (the cache is read-only)'} and is recomputed.")
        return False, None

    def has(self, kind: str, params: Any, version: int = 1) -> bool:
        """Whether a result for (kind, params) is on disk (e.g. to say 'from cache' in the page)."""
        return (self.root / "results" / kind / f"{self._result_key(params, version)}.pkl").exists()

    @staticmethod
    def _result_key(params: Any, version: int) -> str:
        return fingerprint({"params": params, "version": version})

    @staticmethod
    def write_file(path: Path, payload: bytes) -> None:
        """Write a file inside the cache atomically (a temporary file, then a rename); OSError when it cannot."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)  # a full disk or a kill leaves no half-written file behind
            raise

    # -- housekeeping ---------------------------------------------------------------------------
    def _files(self):
        """(path, bytes) of every file in the cache, skipping one removed meanwhile by another session."""
        return tree_files(self.root)

    def size_bytes(self) -> int:
        """Total bytes the cache occupies on disk."""
        return sum(size for _, size in self._files())

    def summary(self, max_age: float = 0.0) -> dict[str, int]:
        """Counts for display: vectors stored, result files, bytes on disk (never raises for a damaged cache).

        ``max_age``: counts made by this process within that many seconds are reused. The sidebar asks on every page
        run, and counting the vectors scans their table: 0.29 s for 105,774 vectors here, paid by every visitor's
        every click on a server whose cache holds the built-in corpora.
        """
        return dict(self._reused("summary", max_age, self._count))

    def _count(self) -> dict[str, int]:
        n_vectors = self._count_vectors()
        results, total, n_results = self.root / "results", 0, 0
        for p, size in self._files():  # one walk for both counts
            total += size
            n_results += p.suffix == ".pkl" and results in p.parents
        return {"vectors": n_vectors, "results": n_results, "bytes": total}

    def _reused(self, name: str, max_age: float, make: Callable[[], T]) -> T:
        """``make()``, or what it gave this process within the last ``max_age`` seconds."""
        when, value = self._recent.get(name, (None, None))
        if when is None or time.monotonic() - when > max_age:
            when, value = self._recent[name] = (time.monotonic(), make())
        return value

    def _count_vectors(self) -> int:
        return int(self._run(lambda conn: conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0], 0))

    def areas(self, max_age: float = 0.0) -> list[Area]:
        """Every area of the cache folder with its bytes on disk; files of no area last, as ``other`` (never cleared).

        ``max_age`` as for :meth:`summary`: the sidebar's "Clear cache" lists the areas on every page run, a walk of
        every file of the cache (30 ms for 1,851 files here, more as results pile up).
        """
        return list(self._reused("areas", max_age, lambda: list_areas(self)))

    def clear(self, areas: Sequence[str] | None = None) -> ClearReport:
        """Empty the named areas (default: every area but uploads, which go only when named) and say what happened."""
        self._recent.clear()  # the next summary and listing count again
        return clear_areas(self, areas, corpora=stviz_home() / "corpora")  # the corpora are data, never cleared

    def _wipe_vectors(self) -> bool:
        """Delete every row, keeping the file: other sessions and processes hold it open and go on using it."""
        def wipe(conn: sqlite3.Connection) -> bool:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("DELETE FROM vectors")
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # give the bytes back now, not at the next checkpoint
            return True

        if not self._db_path.exists():
            return True
        return self._run(wipe, False)


class MixedDimensionsError(RuntimeError):
    """Vectors of different sizes under one embedder id: the model changed but its id did not."""


_default: dict[Path, Cache] = {}


_default_lock = threading.Lock()


def default_cache() -> Cache:
    """The process-wide cache under ``stviz_home()/cache`` (one object per folder, shared by all sessions)."""
    root = stviz_home() / "cache"
    with _default_lock:
        if root not in _default:
            _default[root] = Cache(root)
        return _default[root]

