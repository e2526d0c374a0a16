"""SQLite files of the cache folder that can be damaged (a disk full mid-write, a copy cut short): telling damage
from other errors, and setting a damaged file aside so a new one starts. One implementation for the vector
database (:class:`stviz.cache.Cache`) and the per-pair stores (:mod:`stviz.cache.pair_values`, LLM judgments)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

SIDE_FILES = ("", "-wal", "-shm")  # a WAL database is these three files: moved together, or the new one replays the old


def is_corruption(exc: BaseException) -> bool:
    """Whether a SQLite error says the file is damaged (not busy, not read-only)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and any(
        s in text for s in ("malformed", "not a database", "file is encrypted", "corrupt"))


def move_aside(path: Path) -> Path | None:
    """Move a damaged database and its side files to ``NAME.corrupt-TIME.sqlite`` beside it (kept for inspection,
    listed by ``cache info`` as 'set-aside'); the new name, or None when it cannot be moved."""
    stamp = time.strftime('%Y%m%d-%H%M%S')
    aside = path.with_name(f"{path.stem}.corrupt-{stamp}{path.suffix}")
    for again in range(2, 1000):  # a second damage within the same second must not replace the first copy
        if not aside.exists():
            break
        aside = path.with_name(f"{path.stem}.corrupt-{stamp}-{again}{path.suffix}")
    try:
        for suffix in SIDE_FILES:
            src = Path(str(path) + suffix)
            if src.exists():
                src.replace(Path(str(aside) + suffix))
    except OSError:
        return None
    return aside


__all__ = ["SIDE_FILES", "is_corruption", "move_aside"]
