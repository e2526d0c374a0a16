"""What each entry of the disk cache carries, and how it is checked when read (used by stviz.cache).

A vector row holds its embedder id and text key (the row key), size, dtype and a BLAKE2 checksum
over all of them and the bytes: a blob damaged on disk, or moved to another row, fails. A result
file starts with a header line naming its kind and key (the parameters' fingerprint), its
payload's length and BLAKE2, and an array's shape and dtype: a file cut short, damaged, or copied
under another key fails. Checksums find accidents (disks, copies), not tampering: they are unkeyed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import pickle
import sqlite3
from typing import Any

import numpy as np

#: ``PRAGMA user_version`` of vectors.sqlite. 0: the rows of stviz before checksums (migrated on open).
VECTOR_SCHEMA = 2
_VECTOR_TABLE = ("CREATE TABLE vectors (embedder TEXT NOT NULL, text_key BLOB NOT NULL, dim INTEGER NOT NULL,"
                 " dtype TEXT NOT NULL, checksum BLOB NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (embedder, text_key))"
                 " WITHOUT ROWID")
VECTOR_DTYPE = "float32"


def vector_checksum(embedder_id: str, key: bytes, dim: int, dtype: str, blob: bytes) -> bytes:
    """BLAKE2 of one stored vector with the row key it was stored under (a blob moved to another row fails)."""
    head = f"{embedder_id}\0{dim}\0{dtype}\0".encode() + key
    return hashlib.blake2b(head + blob, digest_size=16).digest()


def ensure_vector_schema(conn: sqlite3.Connection) -> int | None:
    """Create the vector table, or migrate one written before checksums; the rows kept when it migrated, else None.

    Whichever process comes first migrates, once: the version is read again under the write lock.
    """
    if conn.execute("PRAGMA user_version").fetchone()[0] == VECTOR_SCHEMA:
        return None
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == VECTOR_SCHEMA:
            return None
        if version > VECTOR_SCHEMA:
            raise sqlite3.OperationalError(f"vectors.sqlite has schema {version}, written by a newer stviz")
        old = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vectors'").fetchone()
        if old:
            conn.execute("ALTER TABLE vectors RENAME TO vectors_unchecked")
        conn.execute(_VECTOR_TABLE)
        kept = _migrate_rows(conn) if old else None
        conn.execute(f"PRAGMA user_version = {VECTOR_SCHEMA}")
    return kept


def _migrate_rows(conn: sqlite3.Connection) -> int:
    """Copy rows of the unchecked table with their checksum; rows whose length disagrees with their size are dropped."""
    old = conn.execute("SELECT embedder, text_key, dim, vec FROM vectors_unchecked")
    kept = 0
    while batch := old.fetchmany(5000):
        rows = [(e, k, d, VECTOR_DTYPE, vector_checksum(e, k, d, VECTOR_DTYPE, v), v)
                for e, k, d, v in batch if len(v) == d * 4]
        conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?, ?)", rows)
        kept += len(rows)
    conn.execute("DROP TABLE vectors_unchecked")
    return kept


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
