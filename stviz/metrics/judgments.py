"""Per-pair judgments of an LLM judge (score and reply), kept in the cache folder as they arrive.

Why per pair, and why a table of its own: LLM calls are slow and may be paid for, so an interrupted run must
resume with the pairs still missing (a cache of the whole array would lose everything), and the reply of a
score that could not be parsed must be kept for people to read. SQLite gives atomic writes shared by the
dashboard's sessions, the command line and local Ray workers. A connection is opened per read or write, so
clearing the cache (the ``judgments`` area) never leaves a session writing into a deleted file.

What is stored: the judge's id (model, aspect and prompt template, hashed), a hash of the pair's two texts,
the score (NaN when unparsed) and the reply. Never the server's URL, never a key.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import sqlite3
from pathlib import Path
from typing import Iterable, Sequence

log = logging.getLogger("stviz.metrics.judgments")
FILE_NAME = "judgments.sqlite"
_CHUNK = 500  # keys per query: well under SQLite's parameter limit


def pair_key(source: str, output: str) -> bytes:
    """16-byte hash of one pair's texts (the per-pair key; the texts themselves are not stored)."""
    h = hashlib.blake2b(digest_size=16)
    for text in (source, output):
        data = str(text).encode("utf-8")
        h.update(len(data).to_bytes(8, "little") + data)  # lengths keep ("ab", "c") and ("a", "bc") apart
    return h.digest()


class JudgmentStore:
    """Scores and replies per (judge, pair) in ``<cache>/judgments.sqlite``; picklable (it holds a path)."""

    def __init__(self, root: str | Path):
        self.path = Path(root) / FILE_NAME

    @contextlib.contextmanager
    def _connect(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS judgments (judge TEXT NOT NULL, pair BLOB NOT NULL, "
                         "score REAL, reply TEXT, PRIMARY KEY (judge, pair))")
            yield conn
        finally:
            conn.close()

    def get(self, judge: str, keys: Sequence[bytes]) -> dict[bytes, tuple[float, str]]:
        """The stored (score, reply) of each key that has one (missing keys are absent)."""
        found: dict[bytes, tuple[float, str]] = {}
        unique = list(dict.fromkeys(keys))
        try:
            with self._connect() as conn:
                for start in range(0, len(unique), _CHUNK):
                    part = unique[start:start + _CHUNK]
                    rows = conn.execute(f"SELECT pair, score, reply FROM judgments WHERE judge = ? AND pair IN "
                                        f"({','.join('?' * len(part))})", [judge, *part])
                    for pair, score, reply in rows:
                        found[bytes(pair)] = (math.nan if score is None else float(score), reply or "")
        except (sqlite3.Error, OSError) as exc:  # a cache that cannot be read: judge again
            log.warning("stored LLM judgments could not be read (%s): they are asked for again", exc)
        return found

    def put(self, judge: str, rows: Iterable[tuple[bytes, float, str]]) -> None:
        """Store (key, score, reply) rows; a folder that cannot be written only costs the resume."""
        rows = [(judge, key, None if math.isnan(score) else float(score), reply) for key, score, reply in rows]
        if not rows:
            return
        try:
            with self._connect() as conn, conn:
                conn.executemany("INSERT OR REPLACE INTO judgments VALUES (?, ?, ?, ?)", rows)
        except (sqlite3.Error, OSError) as exc:
            log.warning("LLM judgments could not be stored (%s): an interrupted run will ask for them again", exc)


__all__ = ["FILE_NAME", "JudgmentStore", "pair_key"]
