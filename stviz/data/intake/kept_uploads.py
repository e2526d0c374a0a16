"""Uploaded files kept on the server under a content hash, so that a reload or a shared link can
reopen them (while the cache holds them).

An upload is stored as its original bytes plus the confirmed column mapping, in
``<cache>/uploads/<key>/``; the key is a hash of both, so the same file mapped the same way is
stored once and a link never points at different data, and reopening checks the kept copy against
it. Clearing the cache removes them only when asked (the uploads box, ``cache clear --uploads``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

from stviz.cache import default_cache, fingerprint
from stviz.data.schema import DataError, Dataset

PREFIX = "upload:"
_KEY = re.compile(r"^[0-9a-f]{40}$")  # a stviz.cache.fingerprint


def uploads_dir() -> Path:
    """Where uploads are kept: the cache's ``uploads`` area, cleared only when asked for by name."""
    return default_cache().root / "uploads"


def upload_key(filename: str, data: bytes, mapping, sheet: str | None = None, reading: dict | None = None,
               direction: str = "") -> str:
    """The content hash naming an upload: its bytes, its file name, sheet, reading options, column mapping and the
    direction confirmed with it."""
    return fingerprint((data, _meta(filename, mapping, sheet, reading, direction)))


def _meta(filename: str, mapping, sheet: str | None, reading: dict | None = None, direction: str = "") -> dict:
    meta = {"filename": filename, "sheet": sheet, "mapping": dataclasses.asdict(mapping)}
    if reading:  # only when given: uploads kept before --header/--encoding/--skip-rows keep their keys
        meta["reading"] = dict(reading)
    if direction:  # likewise: uploads kept before the direction was asked on Home keep their keys
        meta["direction"] = direction
    return meta


def save_upload(filename: str, data: bytes, mapping, sheet: str | None = None, reading: dict | None = None,
                direction: str = "") -> str:
    """Keep an upload (bytes + mapping) and return its dataset name, ``upload:KEY``.

    Storing is best effort: on a read-only or full disk the upload still works in this session,
    only a reload or a link cannot reopen it.
    """
    key = upload_key(filename, data, mapping, sheet, reading, direction)
    cache = default_cache()
    folder = cache.root / "uploads" / key
    if cache.writable and not (folder / "meta.json").is_file():  # named by content: a kept copy is this one
        try:  # atomic, meta.json last: a session opening a link meanwhile never reads half a file
            cache.write_file(folder / "data", data)
            meta = _meta(filename, mapping, sheet, reading, direction)
            cache.write_file(folder / "meta.json", json.dumps(meta).encode())
        except OSError:
            pass
    return PREFIX + key


def is_upload(name: str) -> bool:
    """Whether a dataset name refers to an uploaded file."""
    return name.startswith(PREFIX)


def load_upload(name: str) -> Dataset:
    """Reopen a kept upload by its dataset name; DataError saying what to do when it is gone."""
    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import ColumnMapping
    from stviz.data.intake.readers import read_pairs_file

    key = name[len(PREFIX):]
    folder = uploads_dir() / key
    if not _KEY.match(key) or not (folder / "meta.json").is_file():
        raise DataError("this link points to an uploaded file that is no longer on this server (the cache was "
                        "cleared or the link comes from another server): upload the file again on the Home page")
    meta, data = _read_kept(folder, key)
    mapping = ColumnMapping(**meta["mapping"])
    frame, notes = read_pairs_file(meta["filename"], data, sheet=meta.get("sheet"), **meta.get("reading", {}))
    dataset = apply_mapping(frame, mapping, name=meta["filename"], title=f"Uploaded: {meta['filename']}")
    if meta.get("direction"):  # confirmed on Home with the columns
        from stviz.data.intake.file_direction import apply_direction

        dataset = apply_direction(dataset, meta["direction"])
    dataset.notes = notes + dataset.notes
    return dataset


def _read_kept(folder: Path, key: str) -> tuple[dict, bytes]:
    """The kept meta and bytes, checked against the key that names them (their content hash).

    A copy damaged on disk or moved under another key is deleted (else save_upload, which trusts a
    present copy, would never rewrite it) and refused with what to do.
    """
    try:
        meta, data = json.loads((folder / "meta.json").read_bytes()), (folder / "data").read_bytes()
        sound = fingerprint((data, meta)) == key
    except (OSError, ValueError, TypeError):
        sound = False
    if not sound:
        shutil.rmtree(folder, ignore_errors=True)
        raise DataError("the kept copy of this uploaded file was damaged (its content no longer matches its name) "
                        "and was deleted: upload the file again on the Home page")
    return meta, data


__all__ = ["PREFIX", "is_upload", "load_upload", "save_upload", "upload_key", "uploads_dir"]
