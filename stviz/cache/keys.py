"""Content keys of the cache: a text's hash (the key of its vector) and a stable fingerprint of any parameter
object (the key of a derived result, an upload, a job), the same in every process and on every machine."""

from __future__ import annotations

import hashlib
import json
from json.encoder import encode_basestring_ascii  # what json.dumps does with a str (C), without its call overhead
from typing import Any

import numpy as np


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
        if all(type(item) is str for item in obj):  # a column of texts: the bytes fed item by item, in one update
            h.update("".join(["j" + encode_basestring_ascii(item) for item in obj]).encode())
            return
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
