"""The areas of the cache folder, listed with their sizes and cleared by name: one implementation
for ``python -m stviz cache info|clear`` and the sidebar's "Clear cache" (through Cache.areas / Cache.clear).

Uploads are cleared only when named (links to them stop working); files no area owns are listed
as ``other`` and never cleared.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import shutil
from pathlib import Path
from typing import Sequence

OTHER = "other"
#: (name, entries of the cache folder it owns (glob patterns), what it holds and what clearing costs, confirm).
AREAS = (
    ("vectors", ("vectors.sqlite", "vectors.sqlite-wal", "vectors.sqlite-shm"),
     "sentence vectors (SQLite); recomputed when next needed", False),
    ("results", ("results",), "derived results: metric values, projections, similarity tables, classifiers, "
                              "leaderboards, the views' full results; recomputed when next needed", False),
    ("set-aside", ("vectors.corrupt-*", "pairvalues.corrupt-*", "judgments.corrupt-*"),
     "damaged databases moved aside, kept only for inspection", False),
    ("onnx", ("onnx",), "ONNX exports of transformer models; exported again on next use", False),
    ("model2vec", ("model2vec",), "the model2vec model distilled from MiniLM; distilled again on next use", False),
    ("wordvectors", ("wordvectors",), "GloVe saved for memory-mapped loading; saved again on next use", False),
    ("numba", ("numba",), "UMAP's compiled machine code; compiled again on next use", False),
    ("judgments", ("judgments.sqlite", "judgments.sqlite-wal", "judgments.sqlite-shm"),
     "LLM judges' scores and replies per pair; asked for (and paid for) again when next needed", False),
    ("pair-values", ("pairvalues.sqlite", "pairvalues.sqlite-wal", "pairvalues.sqlite-shm"),
     "metric values per pair (what a sampled preview computed, reused by the full run); recomputed when next "
     "needed", False),
    ("shards", ("shards",), "finished parts of Ray jobs, from which an interrupted job resumes", False),
    ("uploads", ("uploads",), "uploaded pair files and system outputs; links to them stop working until uploaded "
     "again", True),
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


def _holds(path: Path, corpora: Path) -> bool:
    """Whether the corpora folder is ``path`` or inside it (a cache folder set oddly): it is never cleared."""
    corpora = corpora.resolve()
    return corpora == path.resolve() or path.resolve() in corpora.parents


def tree_files(root: Path):
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


def list_areas(cache) -> list[Area]:
    """Every area of a Cache's folder with its bytes on disk; files of no area last, as ``other`` (never cleared)."""
    sizes = dict.fromkeys([name for name, *_ in AREAS] + [OTHER], 0)
    for entry in _entries(cache.root):
        sizes[_area_of(entry.name)] += sum(size for _, size in tree_files(entry))
    # A globbed area (set-aside databases) has no one path: it is shown as the cache folder.
    found = [Area(name, cache.root if "*" in patterns[0] else cache.root / patterns[0], sizes[name], what, confirm)
             for name, patterns, what, confirm in AREAS]
    if sizes[OTHER]:
        found.append(Area(OTHER, cache.root, sizes[OTHER], "files stviz's cache did not write: never cleared",
                          clearable=False))
    return found


def clear_areas(cache, areas: Sequence[str] | None, corpora: Path) -> ClearReport:
    """Empty the named areas (default: every area but uploads, which go only when named) and say what happened.

    ``cache`` is a :class:`stviz.cache.Cache`. Only its folder is touched, and never ``corpora`` (data, not
    cache) were that folder set to hold it.
    """
    before = {a.name: a for a in list_areas(cache)}
    names = [a.name for a in before.values() if a.clearable and not a.confirm] if areas is None else list(areas)
    unknown = [n for n in names if n not in before or not before[n].clearable]
    if unknown:
        raise ValueError(f"unknown cache area {', '.join(unknown)}: the areas are "
                         f"{', '.join(name for name, *_ in AREAS)}")
    failed = [name for name in names if not _clear_area(cache, name, corpora)]
    after = {a.name: a for a in list_areas(cache)}
    # An emptied vector database is still a file (other sessions hold it open): kept only if it has rows.
    kept = [a for name, a in after.items() if name not in names and a.bytes
            and (name != "vectors" or cache._count_vectors())]
    return ClearReport([before[n] for n in names], kept, failed, after)


def _entries(root: Path) -> list[Path]:
    try:
        return list(root.iterdir())
    except OSError:
        return []


def _clear_area(cache, name: str, corpora: Path) -> bool:
    """Empty one area; False when something in it could not be removed (a read-only folder)."""
    if name == "vectors":
        return cache._wipe_vectors()
    errors: list[OSError] = []

    def failed(_function, _path, exc_info) -> None:
        if not isinstance(exc_info[1], FileNotFoundError):  # removed meanwhile by another session: fine
            errors.append(exc_info[1])

    for entry in _entries(cache.root):
        if _area_of(entry.name) == name and not _holds(entry, corpora):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, onerror=failed)
            else:
                try:
                    entry.unlink()
                except OSError as exc:
                    failed(None, entry, (type(exc), exc, None))
    # Judged by errors, not by what is there afterwards: another session may already be writing anew.
    return not errors
