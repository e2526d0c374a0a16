"""A benchmark's files read into pairs: the official inputs, every reference set, every published system's outputs.

Files are read by the readers every released-output folder goes through (:mod:`stviz.data.released.outputs`: any
encoding, ``input<TAB>output`` lines aligned with the official inputs by text), so a published system's
pairs are built exactly as a user's folder would be. A card whose test was released as one table of pairs
(:attr:`~stviz.benchmarks.card.Benchmark.pairs_from`) is read through the built-in dataset that loads it, checked to
hold one row per input and system and one reference per input. The dataset is remembered per benchmark and corpus
state.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import pandas as pd

from stviz.benchmarks.card import Benchmark, Reported
from stviz.data.corpora.sources import corpora_dir, is_installed
from stviz.data.intake.cells import nfc_columns
from stviz.data.released.outputs import SystemFile, build_pairs, read_lines, read_reference_lines, split_columns
from stviz.data.schema import HUMAN_PREFIX, DataError, Dataset


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
    """Direction -> the official test inputs, in file order (a table of pairs: in order of first appearance)."""
    require(benchmark)
    if benchmark.pairs_from:
        inputs, _, _ = _release(benchmark.name, _stamp(benchmark))
        return {_direction(benchmark): list(inputs)}
    return {d: [line.strip() for line in card_lines(rel)[0]] for d, rel in benchmark.inputs.items()}


def published_pairs(benchmark: Benchmark) -> Dataset:
    """Every published system's outputs on the benchmark as pairs, with every reference set (read once per state)."""
    require(benchmark)
    return _read(benchmark.name, _stamp(benchmark))


def reported(benchmark: Benchmark) -> dict[str, tuple[Reported, ...]]:
    """System -> what was published for it: the papers' numbers on the card, then those of the release itself
    (:attr:`~stviz.benchmarks.card.Benchmark.reported_from`: a human column's mean over the system's pairs, computed
    from the release now)."""
    means = {}
    if benchmark.reported_from:
        pairs = published_pairs(benchmark).pairs
        by_system = pairs.groupby("system")
        means = {score: by_system[HUMAN_PREFIX + score.column].mean() for score in benchmark.reported_from}
    return {system.name: system.reported + tuple(
        Reported(score.metric, score.scale * float(mean[system.name]), score.source, score.setup)
        for score, mean in means.items() if system.name in mean.index) for system in benchmark.systems}


def _stamp(benchmark: Benchmark) -> tuple:
    return tuple(_path(c).stat().st_mtime_ns for c in benchmark.corpora)


def _direction(benchmark: Benchmark) -> str:
    """The one direction of a card read from a table of pairs."""
    if len(benchmark.directions) != 1:
        raise DataError(f"{benchmark.name}: a card read from the pairs of {benchmark.pairs_from} has one direction, "
                        f"not {len(benchmark.directions)}")
    return next(iter(benchmark.directions))


@functools.lru_cache(maxsize=4)
def _release(name: str, stamp: tuple) -> tuple[tuple[str, ...], pd.DataFrame, list[str]]:
    """A card's test released as one table of pairs (``Benchmark.pairs_from``), checked: its inputs in order of first
    appearance, its pairs (one per input and published system: the input's line, the card's styles, its one reference,
    the release's human columns), and notes. A DataError when the table is not one row per input and system, or an
    input's rows disagree on its reference: picking one would change the benchmark without a word."""
    from stviz.benchmarks import get
    from stviz.data import load_dataset

    benchmark = get(name)
    released = load_dataset(benchmark.pairs_from)
    what = benchmark.inputs[_direction(benchmark)].split("#", 1)[0]  # "russe2022-humaneval/test_all_...csv"
    rows = released.pairs.copy()
    notes: list[str] = []
    nfc_columns(rows, ["source", "output", "reference"], "pair", notes)  # as every released file is read
    names = benchmark.published_names
    rows = _published_rows(rows, names, what, notes)
    inputs = tuple(pd.unique(rows["source"]))
    line = {text: i for i, text in enumerate(inputs)}
    refs = _one_reference(rows, what)
    d = _direction(benchmark)
    humans = [c for c in released.human_columns if c in rows]
    pairs = pd.DataFrame({"source": rows["source"], "output": rows["output"], "system": rows["system"],
                          "system_file": rows["system"], "direction": d, "line": rows["source"].map(line),
                          "source_style": benchmark.directions[d][0], "target_style": benchmark.directions[d][1],
                          "reference": rows["source"].map(refs), **{c: rows[c] for c in humans}})
    order = pairs["system"].map({s: k for k, s in enumerate(names)})
    pairs = pairs.assign(_order=order).sort_values(["_order", "line"], kind="stable").drop(columns="_order")
    for system, got in pairs.groupby("system", sort=False)["line"].nunique().items():
        if got < len(inputs):
            notes.append(f"{system}: {len(inputs) - got:,} of the {len(inputs):,} inputs have no output in {what}")
    no_ref = pairs.drop_duplicates("line")["reference"].isna().sum()
    notes.append(f"{what}: {len(pairs):,} pairs, one per input and system ({len(inputs):,} inputs, {len(names)} "
                 f"systems), {len(inputs) - no_ref:,} inputs with their one reference; the release's human judgments "
                 f"({', '.join(c[len(HUMAN_PREFIX):] for c in humans) or 'none'}) kept per pair")
    return inputs, pairs.reset_index(drop=True), notes


def _published_rows(rows: pd.DataFrame, names: tuple[str, ...], what: str, notes: list[str]) -> pd.DataFrame:
    """The release's rows of the card's published systems, checked to hold each of them once per input."""
    absent = [s for s in names if s not in set(rows["system"])]
    if absent:
        raise DataError(f"{what} has no outputs of {', '.join(absent)}: the corpus is not as released; import it again")
    others = [s for s in pd.unique(rows["system"]) if s not in names]
    if others:
        notes.append(f"{what}: the outputs of {', '.join(others)} are not on the card's list of published systems and "
                     "are left out")
        rows = rows[rows["system"].isin(names)]
    repeated = rows.duplicated(["system", "source"])
    if repeated.any():
        first = rows[repeated].iloc[0]
        raise DataError(f"{what}: {int(repeated.sum()):,} rows repeat a system's output for the same input (e.g. "
                        f"{first['system']} on {first['source'][:60]!r}): the benchmark needs one row per input and "
                        "system")
    return rows


def _one_reference(rows: pd.DataFrame, what: str) -> pd.Series:
    """Input -> its one reference, from the rows that have one; a DataError when an input's rows disagree."""
    refs = rows.dropna(subset=["reference"]).groupby("source", sort=False)["reference"].unique()
    disagree = refs[refs.map(len) > 1]
    if len(disagree):
        raise DataError(f"{what}: {len(disagree):,} input(s) have rows that disagree on the reference (e.g. "
                        f"{disagree.index[0][:60]!r}: {' | '.join(disagree.iloc[0][:3])}): the card reads one "
                        "reference per input and will not pick one")
    return refs.map(lambda r: r[0])


@functools.lru_cache(maxsize=4)
def _read(name: str, stamp: tuple) -> Dataset:
    from stviz.benchmarks import get

    benchmark = get(name)
    if benchmark.pairs_from:
        _, pairs, notes = _release(name, stamp)
        return Dataset(name=f"benchmark-{name}", title=f"Published systems on {benchmark.title}",
                       description=benchmark.description, pairs=pairs.copy(), notes=list(notes))
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


__all__ = ["card_lines", "content_key", "missing_corpora", "official_inputs", "published_pairs", "reported", "require"]
