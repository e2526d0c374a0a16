"""Released system outputs uploaded as a .zip (or several files) and kept under a content hash, so that a
reload or a shared link reopens them (while the cache holds them).

The uploaded files are kept as sent in ``<cache>/uploads/outputs-<key>/files/`` (the key is a hash of their
names and bytes, checked again on reopening) and unpacked beside them into ``tree/``, the folder
:func:`stviz.data.released.inventory.survey` reads as the command line reads ``--dataset FOLDER``; loose reference files
(``reference.0``) are kept apart and given as ``--references`` are. A zip is unpacked only when every name in
it stays inside the folder (no absolute names, no ``..``) and the whole fits the upload size limit; the
``__MACOSX/`` shadows and dotfiles archivers add are left out. The dataset name, ``outputs:KEY``, also
carries the choices the command takes as flags (``;domain=yelp;humans=reference;directions=0=a>b``), so a
link reopens the same comparison. Being in the cache's ``uploads`` area, they are cleared only when asked for.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import struct
import tempfile
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Sequence
from urllib.parse import quote, unquote

from stviz.cache import default_cache, fingerprint
from stviz.data.intake.readers import MB, max_upload_bytes, size_limit_text
from stviz.data.released.inventory import HUMANS, Inventory, survey
from stviz.data.released.output_layouts import is_reference_file, past_wrappers
from stviz.data.released.repository import Subset
from stviz.data.schema import DataError, Dataset

PREFIX = "outputs:"
#: More members than any release ships (Li et al.'s four domains hold ~150 files): a zip of tiny files is refused.
MAX_FILES = 5000
_KEY = re.compile(r"^[0-9a-f]{40}$")  # a stviz.cache.fingerprint
_CHOICES = ("domain", "humans", "directions")
_TEMPORARY: dict[str, tuple[Path, dict]] = {}  # key -> unpacked copy and meta, when the cache cannot store


# -- the name -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OutputsChoice:
    """What a link to uploaded outputs says: the upload's key and the command line's choices for reading it."""

    key: str
    domain: str | None = None  # for a repository or a folder of domain folders: which dataset (None: the first)
    humans: str = "system"  # human rewrites as a system or as references (--humans)
    directions: str = ""  # styles of numeric directions, as --directions takes them

    @property
    def name(self) -> str:
        """The dataset name: ``outputs:KEY`` and the choices that differ from the defaults."""
        parts = [f"{k}={quote(str(getattr(self, k)), safe='=>,')}" for k in _CHOICES
                 if getattr(self, k) not in (None, "", "system")]
        return PREFIX + ";".join([self.key, *parts])

    @classmethod
    def from_name(cls, name: str) -> "OutputsChoice":
        """Read a dataset name written by :attr:`name`; DataError for one no upload could have given."""
        key, *parts = name[len(PREFIX):].split(";")
        values = {}
        for part in parts:
            k, _, v = part.partition("=")
            if k not in _CHOICES:
                raise DataError(f"this link's dataset has an unknown part '{k}' (known: {', '.join(_CHOICES)})")
            values[k] = unquote(v)
        if values.get("humans", "system") not in HUMANS:
            raise DataError(f"this link's humans= must be one of {', '.join(HUMANS)}")
        return cls(key, **values)

    def changed(self, **changes) -> "OutputsChoice":
        """A copy with some choices changed."""
        return replace(self, **changes)


def is_outputs(name: str) -> bool:
    """Whether a dataset name refers to uploaded system outputs."""
    return name.startswith(PREFIX)


# -- unpacking ------------------------------------------------------------------------------------------
def extract_zip(data: bytes, dest: Path, *, filename: str = "upload.zip", limit: int | None = None) -> list[str]:
    """Unpack a zip into ``dest`` and return the names written; DataError (nothing written) when unsafe or too big.

    Refused: a name that is absolute or climbs out with ``..`` (it would write outside the folder), more than
    ``limit`` bytes unpacked (default: the upload limit), more than :data:`MAX_FILES` files. Left out: folders,
    ``__MACOSX/``, dotfiles and links.
    """
    limit = max_upload_bytes() if limit is None else limit
    _check_directory(data, filename)  # from the zip's last bytes: a zip of 100,000 entries is refused unread
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"'{filename}' is not a readable zip file ({exc})") from exc
    with archive:
        members = _safe_members(archive, filename)
        declared = sum(m.file_size for m, _ in members)
        if declared > limit:
            raise DataError(_too_big(filename, declared, limit))
        written = 0
        try:
            for member, parts in members:
                target = dest.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                written = _copy(archive, member, target, written, limit, filename)
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)  # never half a folder
            raise
    return ["/".join(parts) for _, parts in members]


def _check_directory(data: bytes, filename: str) -> None:
    """Refuse a zip whose central directory declares more than :data:`MAX_FILES` entries, before it is parsed."""
    tail = data[-(65535 + 22):]
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        return  # not a zip: ZipFile says so
    entries = struct.unpack("<H", tail[at + 10:at + 12])[0]
    if entries == 0xFFFF:  # ZIP64: the count is in the ZIP64 end record
        at64 = tail.rfind(b"PK\x06\x06", 0, at)
        if at64 >= 0 and len(tail) >= at64 + 40:
            entries = struct.unpack("<Q", tail[at64 + 32:at64 + 40])[0]
    if entries > MAX_FILES:
        raise DataError(f"'{filename}' holds {entries:,} entries; at most {MAX_FILES:,} files are unpacked "
                        "(refused before unpacking anything)")


def _safe_members(archive: zipfile.ZipFile, filename: str) -> list[tuple[zipfile.ZipInfo, tuple[str, ...]]]:
    """The members to unpack with their path parts, checked before anything is written."""
    members = []
    for info in archive.infolist():
        name = info.filename.replace("\\", "/")  # zips made on Windows may separate with backslashes
        parts = tuple(p for p in name.split("/") if p not in ("", "."))
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or ".." in parts:
            raise DataError(f"'{filename}' holds '{info.filename}', a name outside the zip's folder (absolute or "
                            "with '..'): refused, nothing was unpacked")
        if info.is_dir() or not parts or _left_out(parts) or _is_link(info):
            continue
        if info.flag_bits & 0x1:  # an encrypted member: Python's message would show its ZipInfo
            raise DataError(f"'{filename}': the zip is password-protected; unzip it and upload the files")
        members.append((info, parts))
    if len(members) > MAX_FILES:
        raise DataError(f"'{filename}' holds {len(members):,} files; at most {MAX_FILES:,} are unpacked")
    return members


def _left_out(parts: tuple[str, ...]) -> bool:
    # macOS's resource-fork shadows and hidden files (.DS_Store, .git/) are never outputs.
    return parts[0] == "__MACOSX" or any(p.startswith(".") for p in parts)


def _is_link(info: zipfile.ZipInfo) -> bool:
    return (info.external_attr >> 16) & 0o170000 == 0o120000


def _copy(archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, written: int, limit: int,
          filename: str) -> int:
    """Copy one member, counting the bytes really unpacked (a zip can understate its sizes)."""
    try:
        with archive.open(member) as src, open(target, "wb") as out:
            while chunk := src.read(1 << 20):
                written += len(chunk)
                if written > limit:
                    raise DataError(_too_big(filename, written, limit))
                out.write(chunk)
    except (zipfile.BadZipFile, RuntimeError, OSError, EOFError) as exc:  # damaged, encrypted
        raise DataError(f"'{filename}': {member.filename} cannot be unpacked ({exc})") from exc
    return written


def _too_big(filename: str, size: int, limit: int) -> str:
    return (f"'{filename}' unpacks to at least {size / MB:,.1f} MB; the limit is {limit / MB:,.0f} MB "
            f"({size_limit_text()}; set STVIZ_MAX_UPLOAD_MB to raise it)")


# -- keeping -------------------------------------------------------------------------------------------
def outputs_key(files: Sequence[tuple[str, bytes]]) -> str:
    """The content hash naming an upload of outputs: its files' names and bytes, in any order."""
    return fingerprint(sorted((str(n), bytes(d)) for n, d in files))


def save_outputs(files: Sequence[tuple[str, bytes]]) -> str:
    """Keep uploaded files (zips and loose files), unpacked, and return their dataset name, ``outputs:KEY``.

    DataError for an unsafe or too large upload. Storing is best effort: when the cache cannot store, the
    files are unpacked into a temporary folder that serves this process only (a link cannot reopen them).
    """
    _check_upload(files)
    key = outputs_key(files)
    cache = default_cache()
    entry = cache.root / "uploads" / f"outputs-{key}"
    if cache.writable and (entry / "meta.json").is_file():  # named by content: a kept copy is this one
        return PREFIX + key
    staging = Path(tempfile.mkdtemp(prefix="stviz-outputs-"))
    try:
        meta = _unpack(files, staging)
        if not cache.writable or not _store(cache, entry, staging, files, meta):
            _TEMPORARY[key] = (staging, meta)
            staging = None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return PREFIX + key


def _check_upload(files: Sequence[tuple[str, bytes]]) -> None:
    if not files:
        raise DataError("no files were uploaded")
    total = sum(len(d) for _, d in files)
    if total > max_upload_bytes():
        raise DataError(f"the uploaded files hold {total / MB:,.1f} MB together; the limit is {size_limit_text()} "
                        "(set STVIZ_MAX_UPLOAD_MB to raise it)")
    for name, _ in files:
        if not _plain_name(name):
            raise DataError(f"'{name}' is not a plain file name: upload files, or a .zip of a folder")
    if len({n for n, _ in files}) < len(files):
        raise DataError("two uploaded files have the same name: upload each once")


def _plain_name(name: str) -> bool:
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".") and name != ".."


def _unpack(files: Sequence[tuple[str, bytes]], staging: Path) -> dict:
    """Lay the upload out as the command line would read it: ``tree/FOLDER`` and the loose references apart."""
    zips = [(n, d) for n, d in files if n.lower().endswith(".zip")]
    loose = [(n, d) for n, d in files if not n.lower().endswith(".zip")]
    # One zip gives a folder named after it (a zipped DualRL/ or flat DualRL.zip names its one system);
    # several zips, or loose files, sit side by side in 'outputs' (domains, or systems).
    root = staging / "tree" / (_stem(zips[0][0]) if len(zips) == 1 else "outputs")
    root.mkdir(parents=True)
    for name, data in zips:
        extract_zip(data, root if len(zips) == 1 else root / _stem(name), filename=name)
    folder = past_wrappers(root)  # as the command line steps into a wrapper folder
    references = []
    for name, data in loose:
        if is_reference_file(name):  # beside the zip, as --references: a domain folder keeps no loose files
            references.append(name)
            _write(staging / "references" / name, data)
        else:
            _write(folder / name, data)
    return {"files": sorted(n for n, _ in files), "folder": folder.relative_to(staging).as_posix(),
            "references": sorted(references)}


def _stem(filename: str) -> str:
    stem = Path(filename).stem
    return stem if _plain_name(stem) else "outputs"


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _store(cache, entry: Path, staging: Path, files: Sequence[tuple[str, bytes]], meta: dict) -> bool:
    """Move the unpacked copy into the cache with the original files; meta.json last (a reader never sees half)."""
    try:
        shutil.rmtree(entry, ignore_errors=True)  # a copy without meta.json was interrupted
        for name, data in files:
            cache.write_file(entry / "files" / name, data)
        for part in ("tree", "references"):
            if (staging / part).is_dir():
                shutil.move(str(staging / part), str(entry / part))
        cache.write_file(entry / "meta.json", json.dumps(meta).encode())
        return True
    except OSError:
        shutil.rmtree(entry, ignore_errors=True)
        return False


# -- reopening ------------------------------------------------------------------------------------------
@dataclass
class KeptOutputs:
    """Uploaded outputs reopened: the folder to compare (the chosen domain), its references, its survey."""

    choice: OutputsChoice
    uploaded: list[str]  # the file names as uploaded
    folder: Path  # what was unpacked (a folder of systems, of domains, or a repository)
    domains: list[Subset] = field(default_factory=list)  # its datasets (one: the folder itself)
    references: list[Path] = field(default_factory=list)
    inventory: Inventory | None = None

    @property
    def compared(self) -> Subset:
        """The dataset the leaderboard compares: the chosen one, else the first."""
        return next((d for d in self.domains if self.choice.domain in d.names), self.domains[0])


def open_outputs(name: str) -> KeptOutputs:
    """Reopen uploaded outputs by their dataset name and survey them (nothing computed; see ``inventory``)."""
    from stviz.data.directions import parse_direction_styles
    from stviz.data.released.repository import find_subsets

    choice = OutputsChoice.from_name(name)
    entry, meta = _entry(choice.key)
    kept = KeptOutputs(choice, meta["files"], entry / meta["folder"],
                       references=[entry / "references" / n for n in meta["references"]])
    kept.domains = find_subsets(kept.folder)
    if choice.domain is not None and not any(choice.domain in d.names for d in kept.domains):
        raise DataError(f"this link's dataset '{choice.domain}' is not among the uploaded folder's datasets")
    compared = kept.compared
    kept.inventory = survey(compared.folder, reference_files=kept.references, humans=choice.humans,
                            styles=parse_direction_styles(choice.directions), subset=compared)
    return kept


def load_outputs(name: str, kept: KeptOutputs | None = None) -> Dataset:
    """The dataset of uploaded outputs (DataError, one line, when they cannot be compared); ``kept``: already opened."""
    from stviz.data.released.output_folders import load_outputs_folder

    kept = kept or open_outputs(name)
    compared = kept.compared
    dataset = load_outputs_folder(compared.folder, name=compared.name, inventory=kept.inventory)
    dataset.title = f"Uploaded outputs: {compared.name}"
    return dataset


def unpacked_zip(path: Path) -> Path:
    """A zip on disk unpacked as the page unpacks an upload (kept under its hash): the folder to survey."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_upload_bytes():
        raise DataError(f"'{path.name}' is {size / MB:,.1f} MB; the limit is {size_limit_text()} "
                        "(set STVIZ_MAX_UPLOAD_MB to raise it)")
    name = save_outputs([(path.name, path.read_bytes())])
    entry, meta = _entry(OutputsChoice.from_name(name).key)
    return entry / meta["folder"]


def _entry(key: str) -> tuple[Path, dict]:
    """The kept folder and its meta; DataError saying what to do when it is gone or damaged."""
    if key in _TEMPORARY:
        return _TEMPORARY[key]
    entry = default_cache().root / "uploads" / f"outputs-{key}"
    if not _KEY.match(key) or not (entry / "meta.json").is_file():
        raise DataError("this link points to uploaded system outputs that are no longer on this server (the cache "
                        "was cleared or the link comes from another server): upload them again on the Leaderboard page")
    return entry, _read_meta(entry, key)


def _read_meta(entry: Path, key: str) -> dict:
    """The meta, with the kept originals checked against the key that names them; a damaged copy is deleted."""
    try:
        meta = json.loads((entry / "meta.json").read_bytes())
        sound = outputs_key([(n, (entry / "files" / n).read_bytes()) for n in meta["files"]]) == key
        sound = sound and (entry / meta["folder"]).is_dir()
    except (OSError, ValueError, TypeError, KeyError):
        sound = False
    if not sound:
        shutil.rmtree(entry, ignore_errors=True)
        raise DataError("the kept copy of these uploaded outputs was damaged (its content no longer matches its "
                        "name) and was deleted: upload them again on the Leaderboard page")
    return meta


__all__ = ["KeptOutputs", "MAX_FILES", "OutputsChoice", "PREFIX", "extract_zip", "is_outputs", "load_outputs",
           "open_outputs", "outputs_key", "save_outputs", "unpacked_zip"]
