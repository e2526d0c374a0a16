"""Where a study and its answers live: an embedded SQLite database in ``STVIZ_HOME`` (WAL: many raters write at
once, readers never block them), or a PostgreSQL server named by a ``postgresql://`` URL for a team.

Both go through the same SQL and the same code; only the connection and the placeholder differ. Every answer is
one committed row the moment the rater gives it (an upsert: answering again replaces it), so a killed server or a
reloaded page loses at most the answer being given. The schema carries its version and is migrated forward on open.
Tokens are secrets: they are stored here to open links, and never written to a log or an error message.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from stviz.data.schema import DataError
from stviz.studies.protocol import Protocol

#: Each version's statements, applied in order to bring an older database forward (never edited once shipped).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: studies, raters, answers
        "CREATE TABLE studies (id TEXT PRIMARY KEY, title TEXT NOT NULL, dataset TEXT NOT NULL, "
        "protocol TEXT NOT NULL, items TEXT NOT NULL, owner_token TEXT NOT NULL UNIQUE, created REAL NOT NULL, "
        "closed REAL)",
        "CREATE TABLE raters (id TEXT PRIMARY KEY, study_id TEXT NOT NULL REFERENCES studies(id), name TEXT NOT NULL, "
        "token TEXT NOT NULL UNIQUE, sequence TEXT NOT NULL, created REAL NOT NULL)",
        "CREATE TABLE answers (rater_id TEXT NOT NULL REFERENCES raters(id), position INTEGER NOT NULL, "
        "item INTEGER NOT NULL, aspect TEXT NOT NULL, value REAL, status TEXT NOT NULL, answered REAL NOT NULL, "
        "PRIMARY KEY (rater_id, position, aspect))",
    ),
    (  # 2: the seconds a rater spent on the screen, to spot answers given without reading
        "ALTER TABLE answers ADD COLUMN seconds REAL",
    ),
    (  # 3: machine raters (an LLM judge's metric spec; NULL for a person)
        "ALTER TABLE raters ADD COLUMN judge TEXT",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
#: Answer statuses: a value given, or the whole item skipped or flagged as unreadable (aspect ``*``).
RATED, SKIPPED, FLAGGED = "rated", "skipped", "flagged"
WHOLE_ITEM = "*"


def default_url() -> str:
    """The database studies use unless told otherwise: ``STVIZ_STUDIES_DB``, else SQLite in ``STVIZ_HOME``."""
    from stviz.cache.paths import stviz_home

    return os.environ.get("STVIZ_STUDIES_DB") or f"sqlite:///{stviz_home() / 'studies.sqlite3'}"


def open_store(url: str | None = None) -> "StudyStore":
    """The study database at ``url`` (``sqlite:///PATH`` or ``postgresql://...``), created or migrated as needed."""
    url = url or default_url()
    if url.startswith("sqlite:///"):
        return StudyStore(_SQLite(Path(url[len("sqlite:///"):])))
    if url.startswith(("postgresql://", "postgres://")):
        return StudyStore(_Postgres(url))
    raise DataError("a studies database is 'sqlite:///PATH' or 'postgresql://USER@HOST/NAME'")


@dataclass(frozen=True)
class Study:
    """A study as stored: its items and protocol, who owns it (by token) and whether it is closed."""

    id: str
    title: str
    dataset: str
    protocol: Protocol
    items: list[dict]
    owner_token: str
    created: float
    closed: float | None

    @property
    def is_open(self) -> bool:
        """Whether raters may still answer."""
        return self.closed is None


@dataclass(frozen=True)
class Rater:
    """One rater of a study: a display name the owner chose, the link token, and the order items are shown."""

    id: str
    study_id: str
    name: str
    token: str
    sequence: list[int]
    #: A machine rater's judge (``llm:MODEL[:ASPECT]``); '' for a person. A judge never counts among the raters.
    judge: str = ""


#: Who a query reads: people (the raters every tally counts), machine raters (LLM judges), or one rater.
PEOPLE, MACHINES = "r.judge IS NULL", "r.judge IS NOT NULL"


class StudyStore:
    """Studies, raters and answers in one database (see the module docstring)."""

    def __init__(self, backend) -> None:
        self.backend = backend
        with self._errors():
            self.backend.migrate()

    @property
    def kind(self) -> str:
        """'sqlite' or 'postgresql'."""
        return self.backend.kind

    # -- studies -----------------------------------------------------------------------------------
    def create_study(self, title: str, dataset: str, protocol: Protocol, items: list[dict]) -> Study:
        """Store a new study; its owner token opens the owner's view."""
        if not items:
            raise DataError("a study needs at least one item")
        study = Study(secrets.token_hex(4), title.strip() or "Rating study", dataset, protocol, items,
                      secrets.token_urlsafe(18), time.time(), None)
        self._run("INSERT INTO studies (id, title, dataset, protocol, items, owner_token, created) VALUES "
                  "(?, ?, ?, ?, ?, ?, ?)", (study.id, study.title, dataset, json.dumps(protocol.to_dict()),
                                            json.dumps(items), study.owner_token, study.created))
        return study

    def study(self, study_id: str) -> Study:
        """A study by its id; DataError when there is none."""
        rows = self._rows("SELECT * FROM studies WHERE id = ?", (study_id,))
        if not rows:
            raise DataError(f"no study '{study_id}' in this database")
        return _study(rows[0])

    def study_for_owner(self, token: str) -> Study | None:
        """The study an owner link opens (None for an unknown token)."""
        rows = self._rows("SELECT * FROM studies WHERE owner_token = ?", (token,))
        return _study(rows[0]) if rows else None

    def studies(self) -> list[Study]:
        """Every study, newest first."""
        return [_study(r) for r in self._rows("SELECT * FROM studies ORDER BY created DESC", ())]

    def close_study(self, study_id: str) -> None:
        """Stop accepting answers (the answers given stay)."""
        self._run("UPDATE studies SET closed = ? WHERE id = ? AND closed IS NULL", (time.time(), study_id))

    # -- raters ------------------------------------------------------------------------------------
    def add_rater(self, study: Study, name: str = "") -> Rater:
        """A new rater with an unguessable link token and their own order of the items, repeats included."""
        rng = np.random.default_rng(secrets.randbits(64))
        count = len(self.raters(study.id))
        rater = Rater(secrets.token_hex(4), study.id, name.strip() or f"rater {count + 1}", secrets.token_urlsafe(18),
                      rater_sequence(len(study.items), study.protocol.repeats, rng))
        self._run("INSERT INTO raters (id, study_id, name, token, sequence, created) VALUES (?, ?, ?, ?, ?, ?)",
                  (rater.id, study.id, rater.name, rater.token, json.dumps(rater.sequence), time.time()))
        return rater

    def raters(self, study_id: str) -> list[Rater]:
        """A study's raters (people; judges are :meth:`judges`), in the order they were added."""
        return [_rater(r) for r in self._rows("SELECT * FROM raters WHERE study_id = ? AND judge IS NULL "
                                              "ORDER BY created", (study_id,))]

    def judges(self, study_id: str) -> list[Rater]:
        """A study's machine raters (LLM judges), in the order they were added."""
        return [_rater(r) for r in self._rows("SELECT * FROM raters WHERE study_id = ? AND judge IS NOT NULL "
                                              "ORDER BY created", (study_id,))]

    def add_judge(self, study: Study, judge: str) -> Rater:
        """The machine rater of ``judge`` (an ``llm:`` spec): the one added before, else a new one answering every
        item once in order (no repeats: a judge at temperature 0 answers the same)."""
        known = next((r for r in self.judges(study.id) if r.judge == judge), None)
        if known is not None:
            return known
        rater = Rater(secrets.token_hex(4), study.id, judge, secrets.token_urlsafe(18), list(range(len(study.items))),
                      judge)
        self._run("INSERT INTO raters (id, study_id, name, token, sequence, created, judge) VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (rater.id, study.id, rater.name, rater.token, json.dumps(rater.sequence), time.time(), judge))
        return rater

    def rater_for_token(self, token: str) -> Rater | None:
        """The rater a link opens (None for an unknown token, or a judge's: no link opens a machine rater)."""
        rows = self._rows("SELECT * FROM raters WHERE token = ? AND judge IS NULL", (token,))
        return _rater(rows[0]) if rows else None

    # -- answers -----------------------------------------------------------------------------------
    def record(self, rater: Rater, position: int, aspect: str, value: float | None, status: str = RATED,
               seconds: float | None = None) -> None:
        """Write one answer now (replacing the rater's earlier answer to the same screen and aspect)."""
        if not 0 <= position < len(rater.sequence):
            raise DataError(f"no item {position + 1} in this rater's list")
        with self._connection() as con:  # one connection for the check and the write: a save is one round trip less
            (closed,) = con.execute(self.backend.sql("SELECT closed FROM studies WHERE id = ?"),
                                    (rater.study_id,)).fetchone()
            if closed is not None:
                raise DataError("this study is closed: its owner no longer collects answers")
            con.execute(self.backend.sql(
                "INSERT INTO answers (rater_id, position, item, aspect, value, status, answered, seconds) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rater_id, position, aspect) DO UPDATE SET "
                "value = excluded.value, status = excluded.status, answered = excluded.answered, "
                "seconds = excluded.seconds"),
                (rater.id, position, rater.sequence[position], aspect, value, status, time.time(), seconds))

    def record_judged(self, rater: Rater, rows: list[tuple[int, str, float | None, str]]) -> None:
        """Write a judge's answers (position, aspect, value, status) in one transaction; a closed study takes them
        too (closing stops people; a judge added afterwards answers the same items)."""
        if not rater.judge:
            raise DataError("only a machine rater's answers are written in a batch")
        now = time.time()
        upsert = self.backend.sql(
            "INSERT INTO answers (rater_id, position, item, aspect, value, status, answered) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (rater_id, position, aspect) DO UPDATE SET value = excluded.value, status = excluded.status, "
            "answered = excluded.answered")
        with self._connection() as con:
            con.execute("BEGIN")  # one commit per block of judged items: none half written
            try:
                for position, aspect, value, status in rows:
                    con.execute(upsert, (rater.id, position, rater.sequence[position], aspect, value, status, now))
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise

    def record_once(self, rater: Rater, position: int, aspect: str, value: float | None, status: str = RATED,
                    seconds: float | None = None, asked: str | None = None) -> bool:
        """Write one answer unless the question ``asked`` (default ``aspect``) of that screen is answered or the
        item skipped or flagged already, checked and written in one statement; whether it was written. A second key
        or click for one question never replaces the first, nor moves on to the next, however the two race."""
        if not 0 <= position < len(rater.sequence):
            raise DataError(f"no item {position + 1} in this rater's list")
        with self._connection() as con:
            (closed,) = con.execute(self.backend.sql("SELECT closed FROM studies WHERE id = ?"),
                                    (rater.study_id,)).fetchone()
            if closed is not None:
                raise DataError("this study is closed: its owner no longer collects answers")
            cursor = con.execute(self.backend.sql(
                "INSERT INTO answers (rater_id, position, item, aspect, value, status, answered, seconds) "
                "SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM answers WHERE rater_id = ? AND "
                "position = ? AND aspect IN (?, ?)) ON CONFLICT (rater_id, position, aspect) DO NOTHING"),
                (rater.id, position, rater.sequence[position], aspect, value, status, time.time(), seconds,
                 rater.id, position, asked or aspect, WHOLE_ITEM))
            return cursor.rowcount == 1

    def answers(self, study_id: str, rater: Rater | None = None, who: str = PEOPLE) -> pd.DataFrame:
        """Every answer of a study's people (``who=MACHINES``: of its judges), or of one rater: rater, rater_name,
        position, item, aspect, value, status, answered, seconds."""
        mine = " AND a.rater_id = ?" if rater is not None else f" AND {who}"
        rows = self._rows("SELECT a.rater_id, r.name, a.position, a.item, a.aspect, a.value, a.status, a.answered, "
                          f"a.seconds FROM answers a JOIN raters r ON r.id = a.rater_id WHERE r.study_id = ?{mine} "
                          "ORDER BY r.created, a.position", (study_id,) + ((rater.id,) if rater is not None else ()))
        return pd.DataFrame(rows, columns=["rater", "rater_name", "position", "item", "aspect", "value", "status",
                                           "answered", "seconds"])

    def rater_answers(self, rater: Rater) -> dict[int, dict[str, tuple[float | None, str]]]:
        """One rater's answers by screen: position -> aspect -> (value, status)."""
        out: dict[int, dict[str, tuple[float | None, str]]] = {}
        for position, aspect, value, status in self._rows(
                "SELECT position, aspect, value, status FROM answers WHERE rater_id = ?", (rater.id,)):
            out.setdefault(int(position), {})[aspect] = (value, status)
        return out

    # -- plumbing ----------------------------------------------------------------------------------
    def _run(self, sql: str, params: tuple) -> None:
        with self._connection() as con:
            con.execute(self.backend.sql(sql), params)

    def _rows(self, sql: str, params: tuple) -> list[tuple]:
        with self._connection() as con:
            return list(con.execute(self.backend.sql(sql), params).fetchall())

    @contextmanager
    def _connection(self):
        """A connection; a database error (busy past its timeout, a server gone, a damaged file) becomes one clear
        DataError."""
        with self._errors(), self.backend.connect() as con:
            yield con

    @contextmanager
    def _errors(self):
        try:
            yield
        except self.backend.errors as exc:
            raise self.backend.failure(exc) from exc


def _unanswered(exc: Exception) -> DataError:
    """What a database error that may pass (busy past its timeout, a server gone) says."""
    return DataError(f"the studies database did not answer ({type(exc).__name__}): nothing was lost, try again in a "
                     "moment")


def rater_sequence(items: int, repeats: int, rng: np.random.Generator) -> list[int]:
    """The order one rater sees: every item once, shuffled, then ``repeats`` of the first half shown again late.

    A repeat comes after at least half the list so the rater does not remember the first answer.
    """
    order = [int(i) for i in rng.permutation(items)]
    repeats = min(repeats, items // 2)
    if repeats:
        again = rng.choice(order[: max(1, items // 2)], size=repeats, replace=False)
        for item in again:
            order.insert(int(rng.integers(items // 2 + 1, len(order) + 1)), int(item))
    return order


def _study(row: tuple) -> Study:
    id_, title, dataset, protocol, items, owner, created, closed = row
    return Study(id_, title, dataset, Protocol.from_dict(json.loads(protocol)), json.loads(items), owner,
                 float(created), None if closed is None else float(closed))


def _rater(row: tuple) -> Rater:
    id_, study_id, name, token, sequence, _created, judge = row
    return Rater(id_, study_id, name, token, json.loads(sequence), judge or "")


class _SQLite:
    """An SQLite file in WAL mode; a connection per call (Streamlit runs each session in its own thread).

    ``synchronous = NORMAL``: in WAL mode a commit is still durable when the process is killed (it is in the
    write-ahead log the moment it returns); only a power cut can take the last commits. With the default FULL, each
    commit waited for an fsync and twenty raters queued behind each other: 1.4-7 s for the slowest save, against
    about 0.2 s (benchmarks/studies.py, docs/benchmarks.md). One connection stays open for the store's life, so
    that closing the last working one does not checkpoint and delete the log on every answer.
    """

    kind = "sqlite"
    errors = (sqlite3.Error,)

    def __init__(self, path: Path) -> None:
        self.path = path
        _private_file(path)
        self._anchor: sqlite3.Connection | None = None

    def failure(self, exc: sqlite3.Error) -> DataError:
        """A damaged file (truncated, overwritten) named, with what to do; any other error is one to try again."""
        if not getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
            return _unanswered(exc)
        return DataError(f"the studies database {self.path} is damaged ({exc}): stviz cannot read it, and never "
                         "deletes it. Stop the servers using it, move it aside (with its -wal file, if any), and "
                         "restore a backup to that path, or leave none there for a new, empty database "
                         f"(`sqlite3 {self.path.name} .recover` may save the answers of the damaged one)")

    def sql(self, statement: str) -> str:
        return statement

    @contextmanager
    def connect(self):
        con = sqlite3.connect(self.path, timeout=30, isolation_level=None)  # autocommit: a row is saved when written
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("PRAGMA synchronous = NORMAL")
            yield con
        finally:
            con.close()

    def migrate(self) -> None:
        with self.connect() as con:
            con.execute("PRAGMA journal_mode = WAL")  # kept by the file: readers never block a rater's write
            if self._anchor is None:
                self._anchor = sqlite3.connect(self.path, check_same_thread=False)
            con.execute("BEGIN IMMEDIATE")  # one process migrates; the others wait, then find it done
            try:
                _apply(con, self.sql, lambda c: c.execute("SELECT version FROM stviz_schema").fetchone())
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise


def _private_file(path: Path) -> None:
    """Create the database file owner-only (0600; SQLite gives its -wal and -shm files the same mode), in folders
    owner-only (0700) where they are made here: it holds the raters' tokens. An existing file is left as it is."""
    missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)  # whatever the umask
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # an empty file is an empty database
    except FileExistsError:
        return
    os.chmod(path, 0o600)


class _Postgres:
    """A PostgreSQL server (psycopg 3), for a team; a connection per call, each statement committed."""

    kind = "postgresql"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:
            raise DataError("a PostgreSQL studies database needs psycopg: pip install 'stviz[postgres]'") from exc
        self.psycopg, self.url = psycopg, url
        self.errors = (psycopg.Error,)

    def failure(self, exc: Exception) -> DataError:
        """A server error is one to try again (a damaged server database is its administrator's)."""
        return _unanswered(exc)

    def sql(self, statement: str) -> str:
        return statement.replace("?", "%s")

    @contextmanager
    def connect(self):
        try:
            con = self.psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except self.psycopg.OperationalError as exc:  # the message names host and port, never a password
            raise DataError(f"cannot reach the studies database: {str(exc).strip().splitlines()[0]}") from None
        try:
            yield con
        finally:
            con.close()

    def migrate(self) -> None:
        with self.connect() as con, con.transaction():
            con.execute("SELECT pg_advisory_xact_lock(7474)")  # one process migrates at a time
            _apply(con, self.sql, lambda c: c.execute(
                "SELECT version FROM stviz_schema" if _pg_has_schema(c) else "SELECT NULL WHERE FALSE").fetchone())


def _pg_has_schema(con) -> bool:
    return con.execute("SELECT to_regclass('stviz_schema') IS NOT NULL").fetchone()[0]


def _apply(con, sql, read_version) -> None:
    """Bring the schema from its stored version to :data:`SCHEMA_VERSION`, one migration at a time."""
    try:
        row = read_version(con)
    except sqlite3.OperationalError:  # a new SQLite file: no version table yet
        row = None
    if row is None:
        con.execute("CREATE TABLE IF NOT EXISTS stviz_schema (version INTEGER NOT NULL)")
        con.execute("INSERT INTO stviz_schema (version) VALUES (0)")
        version = 0
    else:
        version = int(row[0])
    if version > SCHEMA_VERSION:
        raise DataError(f"this studies database was written by a newer stviz (schema {version}, this one reads "
                        f"{SCHEMA_VERSION}): upgrade stviz")
    for number in range(version, SCHEMA_VERSION):
        for statement in MIGRATIONS[number]:
            con.execute(sql(statement))
        con.execute(sql("UPDATE stviz_schema SET version = ?"), (number + 1,))


__all__ = ["FLAGGED", "MACHINES", "MIGRATIONS", "PEOPLE", "RATED", "SCHEMA_VERSION", "SKIPPED", "WHOLE_ITEM", "Rater", "Study",
           "StudyStore", "default_url", "open_store", "rater_sequence"]
