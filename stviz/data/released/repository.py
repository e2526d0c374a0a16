"""A repository as researchers download it (a checkout, or GitHub's "Download ZIP" of it wrapped in ``NAME-master/``):
one dataset per folder of outputs, each with the test inputs and references of its data folders.

Released repositories keep outputs and data apart, one folder per dataset in each:

* Style Transformer (Dai et al. 2019): ``outputs/yelp/output.0.ours_cond`` beside ``data/yelp/{train,dev,test,
  reference}.{neg,pos}``, and ``outputs/imbd/`` (sic) beside ``data/imdb/``;
* DualRL (Luo et al. 2019): ``outputs/yelp/SYSTEM/test.0.tsf``, ``references/yelp/reference0.0``, ``data/yelp/test.0``;
* Li et al. 2018: ``evaluation/outputs/yelp/sentiment.test.0.SYSTEM`` beside ``data/yelp/sentiment.test.0``.

A repository is told by a folder named as outputs (``outputs/``, ``output/``, ``predictions/``, ...; at most two
levels down). Each of its sub-folders holding outputs is a dataset (or it is the only one). A dataset's data folders
are the folders of the same name inside folders named as data (``data/``, ``references/``, ...); a data folder of
another name is taken only when its test inputs are what the outputs rewrite (``imbd`` -> ``imdb``), said with the
share of words they have in common. In a data folder, test inputs and references are read by their names
(``test.neg``, ``sentiment.test.0``, ``reference.pos``); training and development files, vocabularies and code are
listed as ignored with why (:func:`stviz.data.released.output_layouts.not_outputs`), never read as a system or as
inputs, and so is every file outside the datasets' folders. :func:`find_subsets` says what any folder holds to compare: a
repository's datasets, its domain folders, or itself.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from stviz.data.released.output_layouts import (Found, classify_flat, find_domains, find_files, ignored_files,
                                                not_outputs, past_wrappers, sub_folders, visible_files)
from stviz.data.released.outputs import read_lines, split_columns
from stviz.data.released.style_files import text_lines, word_overlap

#: Folder names that hold a repository's outputs, one sub-folder per dataset.
OUTPUT_ROOTS = {"outputs", "output", "predictions", "preds", "generated", "generations", "transferred",
                "tmp"}  # Shen et al. (language-style-transfer) write their transfers to tmp/
#: Folder names that hold a repository's data (test inputs, references, training files), one sub-folder per dataset.
DATA_ROOTS = {"data", "dataset", "datasets", "references", "reference", "refs", "corpus", "corpora"}
#: Files outside every dataset's folders listed one by one in the inventory; the rest are counted in a note.
LISTED = 200
#: A data folder of another name is a dataset's when the outputs share this much of their words with its test inputs,
#: line by line, and clearly more than with any other data folder's.
MIN_OVERLAP, MARGIN = 0.3, 0.15


@dataclass(frozen=True)
class Layout:
    """A dataset's files found beforehand: what they are, problems as (path, message, line), ignored ones, notes."""

    found: list[Found]
    problems: list[tuple[str, str, None]]
    ignored: list[tuple[Path, str]]
    notes: list[str]


@dataclass(frozen=True)
class RepoDataset:
    """One dataset of a repository: its outputs folder, its data folders, and the repository's other files."""

    name: str
    outputs: Path
    data: tuple[Path, ...] = ()
    notes: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    elsewhere: tuple[tuple[Path, str], ...] = ()

    def layout(self, known_styles: Sequence[str] = ()) -> Layout:
        """Its outputs (any layout of stviz.data.released.output_layouts), test inputs and references, and what is
        ignored."""
        found, problems = find_files(self.outputs, known_styles)
        ignored = list(ignored_files(self.outputs))
        for folder in self.data:
            inputs, left_out = data_folder_files(folder, known_styles)
            found, ignored = found + inputs, ignored + left_out
        return Layout(found, problems, ignored + list(self.elsewhere), list(self.notes))


@dataclass(frozen=True)
class Subset:
    """One dataset to compare: a folder of outputs, or a repository's dataset whose files lie in several folders."""

    name: str
    folder: Path  # files are named relative to it (a repository's root for its datasets)
    repository: RepoDataset | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The names ``--subset`` takes for it (a repository's outputs folder may spell it otherwise: imbd)."""
        return (self.name, *(self.repository.aliases if self.repository else ()))

    def layout(self, known_styles: Sequence[str] = ()) -> Layout | None:
        """The files found beforehand for a repository's dataset; None: the survey finds them in :attr:`folder`."""
        return self.repository.layout(known_styles) if self.repository else None

    def where(self, top: str) -> str:
        """Where its files are, as said to the user: ``top/yelp``, or ``outputs/yelp, data/yelp`` in a repository."""
        if self.repository is None:
            return f"{top}/{self.folder.name}"
        folders = [self.repository.outputs, *self.repository.data]
        return ", ".join(p.relative_to(self.folder).as_posix() for p in folders)


def find_subsets(folder: Path) -> list[Subset]:
    """What a folder holds to compare: a repository's datasets, else its domain folders, else itself."""
    folder = Path(folder)
    folder = past_wrappers(folder) if folder.is_dir() else folder
    datasets = find_repository(folder) if folder.is_dir() else None
    if datasets:
        return [Subset(d.name, folder, d) for d in datasets]
    return [Subset(d.name, d) for d in find_domains(folder)] or [Subset(folder.name, folder)]


# -- the repository -------------------------------------------------------------------------------------------
def find_repository(root: Path) -> list[RepoDataset] | None:
    """The datasets of a repository (see the module docstring), or None when ``root`` is no repository."""
    out_roots = _role_folders(root, OUTPUT_ROOTS)
    outputs: list[tuple[str, Path]] = []
    for folder in out_roots:
        domains = find_domains(folder)
        if domains:
            outputs += [(d.name, d) for d in domains]
        elif any(f.role == "outputs" for f in find_files(folder)[0]):
            outputs.append((root.name, folder))  # the repository's one dataset
    if not outputs:
        return None
    data = _data_folders(root, out_roots)
    datasets = _match(root, outputs, data)
    used = [d.outputs for d in datasets] + [f for d in datasets for f in d.data]
    unused = {folder: name for name, folder in data if folder not in used}
    elsewhere, more = _elsewhere(root, used, unused)
    notes = [f"{more:,} more files outside the datasets' folders are not listed"] if more else []
    return [dataclasses.replace(d, elsewhere=tuple(elsewhere), notes=d.notes + tuple(notes)) for d in datasets]


def _role_folders(root: Path, names: set[str]) -> list[Path]:
    """Folders named as a role (outputs/, data/) one or two levels under the root (evaluation/outputs/)."""
    found = [s for s in sub_folders(root) if s.name.lower() in names]
    for sub in sub_folders(root):
        if sub.name.lower() not in OUTPUT_ROOTS | DATA_ROOTS:
            found += [s for s in sub_folders(sub) if s.name.lower() in names]
    return found


def _data_folders(root: Path, out_roots: Sequence[Path]) -> list[tuple[str | None, Path]]:
    """(dataset name, folder) of every data folder: the sub-folders of data/, references/, ...; (None, data/)
    when such a folder holds files itself."""
    found: list[tuple[str | None, Path]] = []
    for folder in _role_folders(root, DATA_ROOTS):
        found += [(s.name, s) for s in sub_folders(folder) if s not in out_roots]
        if visible_files(folder):
            found.append((None, folder))
    return found


def data_folder_files(folder: Path, known_styles: Sequence[str] = ()) -> tuple[list[Found], list[tuple[Path, str]]]:
    """A data folder's test inputs and references, and every other file of it (and below it) with why it is left out."""
    found, ignored = [], []
    for path in visible_files(folder):
        if why := not_outputs(path):
            ignored.append((path, why))
            continue
        item = classify_flat(path, folder.name, known_styles)
        if item.role in ("inputs", "reference"):
            found.append(item)
        else:
            ignored.append((path, "in a data folder, but not named as test inputs or references (test.*, "
                                  "reference*): not read"))
    for sub in sub_folders(folder):
        ignored += [(p, "in a sub-folder of a data folder: not read") for p in sorted(sub.rglob("*"))
                    if _visible(p, sub)]
    return found, ignored


def _match(root: Path, outputs: list[tuple[str, Path]], data: list[tuple[str | None, Path]]) -> list[RepoDataset]:
    """Each outputs folder with its data folders: those of its name, else the one whose test inputs it rewrites."""
    datasets = []
    for name, folder in outputs:
        same = tuple(f for n, f in data if n is not None and n.lower() == name.lower())
        datasets.append(RepoDataset(name, folder, same))
    taken = {f for d in datasets for f in d.data}
    for i, dataset in enumerate(datasets):
        if dataset.data:
            continue
        free = [(n, f) for n, f in data if f not in taken]
        if len(outputs) == 1 and any(n is None for n, _ in free):  # data/ holding files itself: the one dataset's
            datasets[i] = dataclasses.replace(dataset, data=tuple(f for n, f in free if n is None))
            continue
        chosen = _rewritten(root, dataset.outputs, free)
        if chosen is not None:
            (other, folder), note = chosen
            taken.add(folder)
            datasets[i] = RepoDataset(other or dataset.name, dataset.outputs, (folder,), (note,),
                                      (dataset.name,) if other and other != dataset.name else ())
    return datasets


def _rewritten(root: Path, outputs: Path, candidates: list[tuple[str | None, Path]]):
    """((name, folder), note) of the data folder whose test inputs the outputs clearly rewrite, else None."""
    sample = _sample_outputs(outputs)
    if sample is None:
        return None
    name, lines = sample
    scored = []
    for data_name, folder in candidates:
        inputs = [f.path for f in data_folder_files(folder)[0] if f.role == "inputs"]
        best = max(((word_overlap(lines, text_lines(p)), p) for p in inputs), default=(-1.0, None))
        scored.append((best[0], data_name, folder, best[1]))
    scored.sort(key=lambda s: s[0], reverse=True)
    if not scored or scored[0][0] < MIN_OVERLAP or (len(scored) > 1 and scored[0][0] - scored[1][0] < MARGIN):
        return None
    score, data_name, folder, inputs = scored[0]
    note = (f"{_rel(outputs, root)} is read with {_rel(folder, root)}: {name} shares {score:.2f} of its words with "
            f"{inputs.name}, line by line (the folders' names differ)")
    return (data_name, folder), note


def _sample_outputs(folder: Path) -> tuple[str, list[str]] | None:
    """(file name, lines) of one system's outputs in a folder (bare lines, or the outputs of input<TAB>output lines)."""
    item = next((f for f in find_files(folder)[0] if f.role == "outputs" and f.direction is not None), None)
    if item is None:
        return None
    lines = read_lines(item.path)[0]
    inputs, outputs, _ = split_columns(lines, item.path.name)
    return item.path.name, [t.strip() for t in (inputs if inputs is not None else outputs)]


def _elsewhere(root: Path, used: list[Path], unused: dict[Path, str | None]) -> tuple[list[tuple[Path, str]], int]:
    """Every file of the repository outside the datasets' folders, with why (at most LISTED), and how many more."""
    listed, more = [], 0
    for path in sorted(p for p in root.rglob("*") if _visible(p, root)):
        if any(folder in path.parents for folder in used):
            continue
        data = next((f for f in unused if f in path.parents), None)
        why = not_outputs(path) or (f"the data of '{unused[data] or data.name}', a dataset with no outputs in the "
                                    "repository" if data is not None else "outside the datasets' folders: not read")
        if len(listed) < LISTED:
            listed.append((path, why))
        else:
            more += 1
    return listed, more


def _visible(path: Path, root: Path) -> bool:
    # As visible_files: names starting with '.' or '_' (.git/, __MACOSX/, __pycache__/) are left out, at any depth.
    return path.is_file() and not any(p.startswith((".", "_")) for p in path.relative_to(root).parts)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


__all__ = ["DATA_ROOTS", "Layout", "OUTPUT_ROOTS", "RepoDataset", "Subset", "data_folder_files", "find_repository",
           "find_subsets"]
