"""Content-addressed disk cache shared by the dashboard and the command line.

Two stores live under one folder:

* sentence vectors in SQLite, keyed by (embedder id, hash of the text), so that any subset of
  texts already embedded by any earlier run, page or process is read instead of recomputed;
* derived results (projections, similarity tables, metric arrays) as pickles named by a hash of
  the inputs and parameters that produced them.

Why SQLite for vectors: it gives atomic, concurrent-safe writes across processes for free (two
app sessions and a CLI run may write at once), and per-text keys let a new dataset reuse every
sentence it shares with an old one. Result files are written to a temporary name and renamed,
so a reader never sees half a file.

Every entry carries what it is and a checksum written with it, checked on every read: a vector
row's BLAKE2 covers its embedder id, text key, size, dtype and bytes (so a blob damaged on disk,
or moved to another row, fails); a result file's header names its kind, its key, its length and
its payload's BLAKE2 (so a truncated file, or one copied under another key, fails). A failing
entry is never served: it is deleted, said once (:meth:`Cache.take_notices`), and recomputed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fnmatch
import hashlib
import json
import logging
import os
import pickle
import shutil
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

T = TypeVar("T")
log = logging.getLogger("stviz.cache")

#: Project root (the folder holding the ``stviz`` package): a checkout, or site-packages when installed.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def is_checkout() -> bool:
    """Whether stviz runs from its source folder (app.py beside the package), not from an installed wheel."""
    return (PROJECT_ROOT / "app.py").is_file()


def app_root() -> Path:
    """The dashboard's folder (app.py, pages, demo data): the checkout, or the copy a wheel carries (setup.py)."""
    return PROJECT_ROOT if is_checkout() else Path(__file__).resolve().parent / "_app"


def stviz_home() -> Path:
    """Folder for everything stviz writes at run time (cache, corpora): ``$STVIZ_HOME``, else ``.stviz``
    in the checkout, or ``~/.stviz`` for an installed stviz (never inside site-packages)."""
    default = PROJECT_ROOT / ".stviz" if is_checkout() else Path.home() / ".stviz"
    return Path(os.environ.get("STVIZ_HOME", default)).expanduser()


def text_key(text: str) -> bytes:
    """16-byte content hash of one text (the cache key of its vector)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


#: ``PRAGMA user_version`` of vectors.sqlite. 0: the rows of stviz before checksums (migrated on open).
VECTOR_SCHEMA = 2
_VECTOR_TABLE = ("CREATE TABLE vectors (embedder TEXT NOT NULL, text_key BLOB NOT NULL, dim INTEGER NOT NULL,"
                 " dtype TEXT NOT NULL, checksum BLOB NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (embedder, text_key))"
                 " WITHOUT ROWID")
_VECTOR_DTYPE = "float32"


def vector_checksum(embedder_id: str, key: bytes, dim: int, dtype: str, blob: bytes) -> bytes:
    """BLAKE2 of one stored vector with the row key it was stored under (a blob moved to another row fails)."""
    head = f"{embedder_id}\0{dim}\0{dtype}\0".encode() + key
    return hashlib.blake2b(head + blob, digest_size=16).digest()


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
        self._generation = 0  # bumped when the database is set aside: every thread then reopens
        self._said: set[str] = set()
        self._pending: list[str] = []
        self.writable = True
        self._checked = False  # the database is checked for damage once per process
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
            if _is_corruption(exc) and self._set_aside(generation):
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
            self._ensure_schema(conn)
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

    def _ensure_schema(self, conn: sqlite3.Connection) -> None:
        """Create the vector table, or migrate one written before checksums (once, whichever process comes first)."""
        if conn.execute("PRAGMA user_version").fetchone()[0] == VECTOR_SCHEMA:
            return
        with conn:
            conn.execute("BEGIN IMMEDIATE")  # the version is read again under the write lock: one process migrates
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == VECTOR_SCHEMA:
                return
            if version > VECTOR_SCHEMA:
                raise sqlite3.OperationalError(f"vectors.sqlite has schema {version}, written by a newer stviz")
            old = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vectors'").fetchone()
            if old:
                conn.execute("ALTER TABLE vectors RENAME TO vectors_unchecked")
            conn.execute(_VECTOR_TABLE)
            kept = self._migrate_rows(conn) if old else 0
            conn.execute(f"PRAGMA user_version = {VECTOR_SCHEMA}")
        if old:
            self._notice(f"The vector cache {self._db_path} was upgraded to checksummed rows ({kept:,} vectors kept; "
                         "rows of a wrong length dropped). Later damage to a row is found when it is read.")

    @staticmethod
    def _migrate_rows(conn: sqlite3.Connection) -> int:
        """Copy rows of the unchecked table with their checksum; rows whose length disagrees with their size are dropped."""
        old = conn.execute("SELECT embedder, text_key, dim, vec FROM vectors_unchecked")
        kept = 0
        while batch := old.fetchmany(5000):
            rows = [(e, k, d, _VECTOR_DTYPE, vector_checksum(e, k, d, _VECTOR_DTYPE, v), v)
                    for e, k, d, v in batch if len(v) == d * 4]
            conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?, ?)", rows)
            kept += len(rows)
        conn.execute("DROP TABLE vectors_unchecked")
        return kept

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
        database aside since, the new one is not touched.
        """
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        with self._lock:
            if self._generation != generation or not self._db_path.exists():  # another thread did it already
                return True
            aside = self._db_path.with_name(f"vectors.corrupt-{time.strftime('%Y%m%d-%H%M%S')}.sqlite")
            try:
                for suffix in ("", "-wal", "-shm"):
                    src = Path(str(self._db_path) + suffix)
                    if src.exists():
                        src.replace(Path(str(aside) + suffix))
                moved = True
            except OSError:
                moved = False
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
                if _is_corruption(exc):
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
                    if dtype == _VECTOR_DTYPE and len(blob) == dim * 4 and \
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
            rows.append((embedder_id, key, dim, _VECTOR_DTYPE, vector_checksum(embedder_id, key, dim, _VECTOR_DTYPE,
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
        (another key's, truncated, damaged) is deleted, said once, and computed again.
        """
        key = self._result_key(params, version)
        path = self.root / "results" / kind / f"{key}.pkl"
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
        return _tree_files(self.root)

    def size_bytes(self) -> int:
        """Total bytes the cache occupies on disk."""
        return sum(size for _, size in self._files())

    def summary(self) -> dict[str, int]:
        """Counts for display: vectors stored, result files, bytes on disk (never raises for a damaged cache)."""
        n_vectors = self._count_vectors()
        results, total, n_results = self.root / "results", 0, 0
        for p, size in self._files():  # one walk for both counts: the sidebar asks on every rerun
            total += size
            n_results += p.suffix == ".pkl" and results in p.parents
        return {"vectors": n_vectors, "results": n_results, "bytes": total}

    def _count_vectors(self) -> int:
        return int(self._run(lambda conn: conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0], 0))

    def areas(self) -> list[Area]:
        """Every area of the cache folder with its bytes on disk; files of no area last, as ``other`` (never cleared)."""
        sizes = dict.fromkeys([name for name, *_ in AREAS] + [OTHER], 0)
        for entry in self._entries():
            sizes[_area_of(entry.name)] += sum(size for _, size in _tree_files(entry))
        # A globbed area (set-aside databases) has no one path: it is shown as the cache folder.
        found = [Area(name, self.root if "*" in patterns[0] else self.root / patterns[0], sizes[name], what, confirm)
                 for name, patterns, what, confirm in AREAS]
        if sizes[OTHER]:
            found.append(Area(OTHER, self.root, sizes[OTHER], "files stviz's cache did not write: never cleared",
                              clearable=False))
        return found

    def clear(self, areas: Sequence[str] | None = None) -> ClearReport:
        """Empty the named areas (default: every area but uploads, which go only when named) and say what happened.

        Only the cache folder is touched: the corpora beside it in the stviz home are data, not cache.
        """
        before = {a.name: a for a in self.areas()}
        names = [a.name for a in before.values() if a.clearable and not a.confirm] if areas is None else list(areas)
        unknown = [n for n in names if n not in before or not before[n].clearable]
        if unknown:
            raise ValueError(f"unknown cache area {', '.join(unknown)}: the areas are "
                             f"{', '.join(name for name, *_ in AREAS)}")
        failed = [name for name in names if not self._clear_area(name)]
        after = {a.name: a for a in self.areas()}
        # An emptied vector database is still a file (other sessions hold it open): kept only if it has rows.
        kept = [a for name, a in after.items() if name not in names and a.bytes
                and (name != "vectors" or self._count_vectors())]
        return ClearReport([before[n] for n in names], kept, failed, after)

    def _entries(self) -> list[Path]:
        try:
            return list(self.root.iterdir())
        except OSError:
            return []

    def _clear_area(self, name: str) -> bool:
        """Empty one area; False when something in it could not be removed (a read-only folder)."""
        if name == "vectors":
            return self._wipe_vectors()
        errors: list[OSError] = []

        def failed(_function, _path, exc_info) -> None:
            if not isinstance(exc_info[1], FileNotFoundError):  # removed meanwhile by another session: fine
                errors.append(exc_info[1])

        for entry in self._entries():
            if _area_of(entry.name) == name and not _holds_corpora(entry):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, onerror=failed)
                else:
                    try:
                        entry.unlink()
                    except OSError as exc:
                        failed(None, entry, (type(exc), exc, None))
        # Judged by errors, not by what is there afterwards: another session may already be writing anew.
        return not errors

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


# -- areas of the cache folder, for `cache info`, `cache clear` and the sidebar's "Clear cache" ----------
OTHER = "other"
#: (name, entries of the cache folder it owns (glob patterns), what it holds and what clearing costs, confirm).
AREAS = (
    ("vectors", ("vectors.sqlite", "vectors.sqlite-wal", "vectors.sqlite-shm"),
     "sentence vectors (SQLite); recomputed when next needed", False),
    ("results", ("results",), "derived results: metric values, projections, similarity tables, classifiers, "
                              "leaderboards; recomputed when next needed", False),
    ("set-aside", ("vectors.corrupt-*",), "damaged vector databases moved aside, kept only for inspection", False),
    ("onnx", ("onnx",), "ONNX exports of transformer models; exported again on next use", False),
    ("model2vec", ("model2vec",), "the model2vec model distilled from MiniLM; distilled again on next use", False),
    ("wordvectors", ("wordvectors",), "GloVe saved for memory-mapped loading; saved again on next use", False),
    ("numba", ("numba",), "UMAP's compiled machine code; compiled again on next use", False),
    ("shards", ("shards",), "finished parts of Ray jobs, from which an interrupted job resumes", False),
    ("uploads", ("uploads",), "uploaded pair files; links to them stop working until uploaded again", True),
)


@dataclasses.dataclass(frozen=True)
class Area:
    """One area of the cache folder: its name, where it is, its bytes on disk and what it holds."""

    name: str
    path: Path
    bytes: int
    description: str
    confirm: bool = False  # cleared only when named (uploads: links to them stop working)
    clearable: bool = True


@dataclasses.dataclass(frozen=True)
class ClearReport:
    """What :meth:`Cache.clear` did: the areas cleared (their bytes before), the areas kept, what failed."""

    cleared: list[Area]
    kept: list[Area]
    failed: list[str]
    after: dict[str, Area]

    def message(self) -> str:
        """One paragraph for the page and the command line: cleared, kept, and anything that could not be cleared."""
        done = [a for a in self.cleared if a.name not in self.failed]
        parts = ["Cleared " + (", ".join(f"{a.name} ({format_bytes(a.bytes)})" for a in done) or "nothing") + "."]
        if self.kept:
            parts.append("Kept " + ", ".join(f"{a.name} ({format_bytes(a.bytes)}"
                                             f"{': asked for separately' if a.confirm else ''}"
                                             f"{': not made by the cache' if not a.clearable else ''})"
                                             for a in self.kept) + ".")
        if self.failed:
            parts.append("Could not clear " + ", ".join(f"{n} ({format_bytes(self.after[n].bytes)} left)"
                                                        for n in self.failed)
                         + ": the cache folder cannot be written.")
        return " ".join(parts)


def format_bytes(n: int) -> str:
    """Bytes for people: 0 B, 12.3 KB, 4.5 MB, 1.2 GB (powers of 1,000)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n} B"


def _area_of(entry_name: str) -> str:
    for name, patterns, *_ in AREAS:
        if any(fnmatch.fnmatchcase(entry_name, p) for p in patterns):
            return name
    return OTHER


def _holds_corpora(path: Path) -> bool:
    """Whether the corpora folder is ``path`` or inside it (a cache folder set oddly): it is never cleared."""
    corpora = (stviz_home() / "corpora").resolve()
    return corpora == path.resolve() or path.resolve() in corpora.parents


def _tree_files(root: Path):
    """(path, bytes) of every file at or under ``root``, skipping one removed meanwhile by another session."""
    if root.is_file():
        with contextlib.suppress(OSError):
            yield root, root.stat().st_size
        return
    for p in root.rglob("*"):
        try:
            size = p.stat().st_size if p.is_file() else None
        except OSError:
            continue
        if size is not None:
            yield p, size


# -- result entries: a header line saying what the entry is, then its pickle -----------------------
RESULT_MAGIC = b"stviz-result 2\n"
OLD_FORMAT = "it was written by an older stviz, without a header"


class BadEntry(ValueError):
    """A result file that is not the entry asked for, or not whole: never served."""


def encode_result(kind: str, key: str, value: Any) -> bytes:
    """A result file's bytes: magic, a JSON header (kind, key, length, BLAKE2 of the payload, shape), the pickle."""
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    header = {"kind": kind, "key": key, "bytes": len(payload), "blake2b": _digest(payload), "type": type(value).__name__}
    header.update(_shape(value))
    return RESULT_MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload


def decode_result(data: bytes, kind: str, key: str) -> Any:
    """The value in a result file's bytes, after checking it is (kind, key) and whole; BadEntry saying why not."""
    if not data.startswith(RESULT_MAGIC):
        raise BadEntry(OLD_FORMAT if data[:1] == b"\x80" else "it is not a stviz result entry")
    end = data.find(b"\n", len(RESULT_MAGIC))
    if end < 0:
        raise BadEntry("its header is cut short")
    try:
        header = json.loads(data[len(RESULT_MAGIC):end])
        said_kind, said_key, size, digest = header["kind"], header["key"], header["bytes"], header["blake2b"]
    except (ValueError, KeyError, TypeError):
        raise BadEntry("its header is damaged") from None
    if (said_kind, said_key) != (kind, key):  # e.g. another metric's file copied or renamed under this key
        raise BadEntry(f"it holds another entry ({said_kind} {said_key[:12]}…)")
    payload = data[end + 1:]
    if len(payload) != size:
        raise BadEntry(f"it is cut short or padded ({len(payload):,} bytes where {size:,} were written)")
    if _digest(payload) != digest:
        raise BadEntry("its checksum does not match (damaged on disk)")
    try:
        value = pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 - sound bytes that this code cannot load (a class renamed since)
        raise BadEntry(f"this stviz cannot load it ({type(exc).__name__})") from None
    if _shape(value) != {k: header[k] for k in ("shape", "dtype", "length") if k in header}:
        raise BadEntry("its shape differs from its header")  # unreachable unless pickling itself changed
    return value


def _digest(payload: bytes) -> str:
    return hashlib.blake2b(payload, digest_size=20).hexdigest()


def _shape(value: Any) -> dict:
    """What a reader can check of a value besides its bytes: shape and dtype of arrays, length of sequences."""
    if isinstance(value, np.ndarray):
        return {"shape": list(value.shape), "dtype": str(value.dtype)}
    if isinstance(value, (list, tuple, dict)) or type(value).__module__.startswith("pandas"):
        with contextlib.suppress(TypeError):
            return {"length": len(value)}
    return {}


class MixedDimensionsError(RuntimeError):
    """Vectors of different sizes under one embedder id: the model changed but its id did not."""


def _is_corruption(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(s in text for s in ("malformed", "not a database", "file is encrypted", "corrupt"))


_default: dict[Path, Cache] = {}


_default_lock = threading.Lock()


def default_cache() -> Cache:
    """The process-wide cache under ``stviz_home()/cache`` (one object per folder, shared by all sessions)."""
    root = stviz_home() / "cache"
    with _default_lock:
        if root not in _default:
            _default[root] = Cache(root)
        return _default[root]

