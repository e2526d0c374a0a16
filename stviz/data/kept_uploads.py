"""Uploaded files kept on the server under a content hash, so that a reload or a shared link can
reopen them (while the cache holds them).

An upload is stored as its original bytes plus the confirmed column mapping, in
``<cache>/uploads/<key>/``; the key is a hash of both, so the same file mapped the same way is
stored once and a link never points at different data. Clearing the cache removes them.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from stviz.cache import default_cache, fingerprint
from stviz.data.schema import DataError, Dataset

PREFIX = "upload:"
_KEY = re.compile(r"^[0-9a-f]{40}$")  # a stviz.cache.fingerprint


def uploads_dir() -> Path:
    """Where uploads are kept: inside the disk cache, so that clearing the cache removes them too."""
    return default_cache().root / "uploads"


def upload_key(filename: str, data: bytes, mapping, sheet: str | None = None) -> str:
    """The content hash naming an upload: its bytes, its file name, sheet and column mapping."""
    return fingerprint((data, _meta(filename, mapping, sheet)))


def _meta(filename: str, mapping, sheet: str | None) -> dict:
    return {"filename": filename, "sheet": sheet, "mapping": dataclasses.asdict(mapping)}


def save_upload(filename: str, data: bytes, mapping, sheet: str | None = None) -> str:
    """Keep an upload (bytes + mapping) and return its dataset name, ``upload:KEY``.

    Storing is best effort: on a read-only or full disk the upload still works in this session,
    only a reload or a link cannot reopen it.
    """
    key = upload_key(filename, data, mapping, sheet)
    cache = default_cache()
    folder = cache.root / "uploads" / key
    if cache.writable and not (folder / "meta.json").is_file():  # named by content: a kept copy is this one
        try:  # atomic, meta.json last: a session opening a link meanwhile never reads half a file
            cache.write_file(folder / "data", data)
            cache.write_file(folder / "meta.json", json.dumps(_meta(filename, mapping, sheet)).encode())
        except OSError:
            pass
    return PREFIX + key


def is_upload(name: str) -> bool:
    """Whether a dataset name refers to an uploaded file."""
    return name.startswith(PREFIX)


def load_upload(name: str) -> Dataset:
    """Reopen a kept upload by its dataset name; DataError saying what to do when it is gone."""
    from stviz.data.build import apply_mapping
    from stviz.data.mapping import ColumnMapping
    from stviz.data.readers import read_pairs_file

    key = name[len(PREFIX):]
    folder = uploads_dir() / key
    if not _KEY.match(key) or not (folder / "meta.json").is_file():
        raise DataError("this link points to an uploaded file that is no longer on this server (the cache was "
                        "cleared or the link comes from another server): upload the file again on the Home page")
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    mapping = ColumnMapping(**meta["mapping"])
    frame, notes = read_pairs_file(meta["filename"], (folder / "data").read_bytes(), sheet=meta.get("sheet"))
    dataset = apply_mapping(frame, mapping, name=meta["filename"], title=f"Uploaded: {meta['filename']}")
    dataset.notes = notes + dataset.notes
    return dataset


__all__ = ["PREFIX", "is_upload", "load_upload", "save_upload", "upload_key", "uploads_dir"]
