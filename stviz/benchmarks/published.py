"""A benchmark's files read into pairs: the official inputs, every reference set, every published system's outputs.

Files are read by the readers every released-output folder goes through (:mod:`stviz.data.outputs`: any
encoding, ``input<TAB>output`` lines aligned with the official inputs by text), so a published system's
pairs are built exactly as a user's folder would be. The dataset is remembered per benchmark and corpus state.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import pandas as pd

from stviz.benchmarks.card import Benchmark
from stviz.data.outputs import SystemFile, build_pairs, read_lines, read_reference_lines, split_columns
from stviz.data.schema import DataError, Dataset
from stviz.data.sources import corpora_dir, is_installed


def missing_corpora(benchmark: Benchmark) -> list[str]:
    """The corpora the benchmark needs that are not installed here."""
    return [c for c in benchmark.corpora if not is_installed(c)]


def require(benchmark: Benchmark) -> None:
    """Raise a DataError saying how to get the benchmark's data when it is not all here (or cannot be fetched)."""
    if benchmark.obtain:
        raise DataError(f"{benchmark.name}: {benchmark.obtain}")
    missing = missing_corpora(benchmark)
    if missing:
        raise DataError(f"benchmark '{benchmark.name}' needs the corpora {', '.join(missing)}: get them with "
                        f"'python -m stviz data fetch {benchmark.name}' (needs internet) or "
                        "'python -m stviz data import DIR' (a folder holding them, e.g. ../shared/corpora)")


def _path(rel: str) -> Path:
    return corpora_dir() / rel.split("#", 1)[0]


def card_lines(rel: str) -> tuple[list[str], list[str]]:
    """The lines of a card's file (and notes): a file's lines, or ``path.tsv#COLUMN``'s cells of one column.

    A column is read as released, line by line and split at tabs (no quoting: comments hold quotes as text); a
    line with another number of cells than the header is refused, since every later row would be misread.
    """
    path, _, column = rel.partition("#")
    lines, notes = read_lines(_path(path))
    if not column:
        return lines, notes
    header, rows = lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
    if column not in header:
        raise DataError(f"{path}: no column '{column}' (columns: {', '.join(header)})")
    wrong = next((i for i, row in enumerate(rows, 2) if len(row) != len(header)), None)
    if wrong is not None:
        raise DataError(f"{path} line {wrong}: {len(rows[wrong - 2])} tab-separated cells, the header has "
                        f"{len(header)}; the file is not the released one")
    return [row[header.index(column)] for row in rows], notes


def official_inputs(benchmark: Benchmark) -> dict[str, list[str]]:
    """Direction -> the official test inputs, in file order."""
    require(benchmark)
    return {d: [line.strip() for line in card_lines(rel)[0]] for d, rel in benchmark.inputs.items()}


def published_pairs(benchmark: Benchmark) -> Dataset:
    """Every published system's outputs on the benchmark as pairs, with every reference set (read once per state)."""
    require(benchmark)
    stamp = tuple(_path(c).stat().st_mtime_ns for c in benchmark.corpora)
    return _read(benchmark.name, stamp)


@functools.lru_cache(maxsize=4)
def _read(name: str, stamp: tuple) -> Dataset:
    from stviz.benchmarks import get

    benchmark = get(name)
    inputs = official_inputs(benchmark)
    notes: list[str] = []
    references: dict[str, list[list[str | None]]] = {d: [[] for _ in inputs[d]] for d in inputs}
    for k, ref_set in enumerate(benchmark.references):
        for d, rel in ref_set.items():
            lines, file_notes = card_lines(rel)
            per_input, align_notes = read_reference_lines(lines, inputs[d], Path(rel).name)
            notes += file_notes + align_notes
            for i, refs in enumerate(per_input):
                # A missing reference keeps its place (None), so reference k stays in column k.
                references[d][i].append(refs[0] if refs else None)
    files = []
    for system in benchmark.systems:
        for d, rel in system.files.items():
            lines, file_notes = card_lines(rel)
            given, outputs, _ = split_columns(lines, Path(rel).name)
            files.append(SystemFile(system.name, d, rel, outputs, given, notes=file_notes))
    pairs, pair_notes = build_pairs(files, inputs, benchmark.directions, references)
    texts = None
    if benchmark.texts_from:
        from stviz.data import load_dataset

        texts = load_dataset(benchmark.texts_from).texts  # the labelled sentences Li et al. ship beside the tests
    return Dataset(name=f"benchmark-{name}", title=f"Published systems on {benchmark.title}",
                   description=benchmark.description, pairs=pairs, texts=texts, notes=notes + pair_notes)


def content_key(benchmark: Benchmark) -> str:
    """SHA-256 of everything the benchmark's scores depend on (inputs, references, outputs), for the disk cache."""
    pairs = published_pairs(benchmark).pairs
    digest = hashlib.sha256(pd.util.hash_pandas_object(pairs.astype(str), index=False).to_numpy().tobytes())
    return digest.hexdigest()


__all__ = ["card_lines", "content_key", "missing_corpora", "official_inputs", "published_pairs", "require"]
