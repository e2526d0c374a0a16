"""Building a Dataset from a read file and a confirmed column mapping, reporting every conversion and
every dropped row; :func:`load_pairs_file` does read, detect (or ``--columns``) and build for a file on disk.
"""

from __future__ import annotations

import os
import re
from typing import Iterable, Sequence

import pandas as pd

from stviz.data.intake.cells import missing_words, nfc_columns, score_column
from stviz.data.intake.mapping import (ColumnMapping, as_text, check_mapping, detect_mapping, id_columns, index_columns,
                                       is_list_column, json_list, parse_columns_spec)
from stviz.data.intake.readers import max_upload_bytes, places_text, read_pairs_file, too_large_message
from stviz.data.schema import HUMAN_PREFIX, METRIC_PREFIX, RATER_PREFIX, REFERENCE_PREFIX, DataError, Dataset, higher_is_better_guess

def apply_mapping(frame: pd.DataFrame, mapping: ColumnMapping, name: str = "upload",
                  title: str | None = None) -> Dataset:
    """Build a Dataset from the file and a confirmed mapping, reporting every conversion and dropped row.

    A text with human scores and no output is a set of rated sentences (:mod:`stviz.data.intake.rated_sentences`)."""
    from stviz.data.intake.rated_sentences import is_rated_sentences, rated_sentences

    if is_rated_sentences(mapping):
        return rated_sentences(frame, mapping, apply_mapping, name, title)
    check_mapping(frame, mapping)
    if mapping.outputs:
        frame, mapping, said = wide_to_long(frame, mapping)
        return _with_notes(apply_mapping(frame, mapping, name, title), said)
    notes: list[str] = []
    place = frame.index.name or "row"
    pairs = pd.DataFrame(index=frame.index)
    for role, col in mapping.roles.items():
        pairs[role] = as_text(frame[col]) if role != "language" else _languages(frame[col], col, place, notes)
    for col in [c for r, c in mapping.roles.items() if r != "language"] + list(mapping.references):
        _say_missing_words(frame[col], col, place, notes)
    for i, column in enumerate(_reference_texts(frame, mapping.references, notes)):
        pairs["reference" if i == 0 else f"{REFERENCE_PREFIX}{i + 1}"] = column
    nfc_columns(pairs, list(pairs.columns), place, notes)
    directions: dict[str, bool] = {}
    taken = set(pairs.columns)
    for col in mapping.human:
        target = _unique(HUMAN_PREFIX + _label(col, "human"), HUMAN_PREFIX + col, taken)
        pairs[target] = score_column(frame[col], col, place, notes)
        directions[target] = mapping.higher_is_better(col)
    for col in mapping.metrics:
        pairs[_unique(METRIC_PREFIX + _label(col, "metric"), METRIC_PREFIX + col, taken)] = score_column(frame[col], col, place, notes)
    for col in mapping.raters:
        pairs[RATER_PREFIX + col] = score_column(frame[col], col, place, notes)
    notes += [note[0].upper() + note[1:] + "." for note in mapping.explained(frame)]
    keys = list(dict.fromkeys(mapping.keys + [c for c in index_columns(frame) + id_columns(frame)
                                               if c not in {col for col, _ in mapping.assignments()}]))
    for col in keys:
        notes.append(_key_note(frame, col, mapping.evidence.get(col, "")))
    # Rows with distinct identifiers are distinct records (PT16 rates some sentences twice): never duplicates.
    ids = frame[keys]
    pairs = _drop_unusable_rows(pairs, place, notes, ids)
    ds = Dataset(name=name, title=title or f"Uploaded: {name}", pairs=pairs.reset_index(drop=True), notes=notes,
                 human_direction=directions)
    if mapping.raters:
        _add_rater_means(ds, mapping, taken)
    return ds


def wide_to_long(frame: pd.DataFrame, mapping: ColumnMapping) -> tuple[pd.DataFrame, ColumnMapping, str]:
    """A wide file (one output column per system) as one pair per input and system: the column's name is the system.
    Inputs, references and keys repeat for every system; each pair keeps its line in the file."""
    from dataclasses import replace

    if mapping.roles.get("system"):
        raise DataError(f"the file has a system column ('{mapping.roles['system']}') and one output column per system "
                        f"({', '.join(mapping.outputs)}): map one output column (--columns output=COL) or drop the "
                        "system column's role (--columns system=)")
    keep = [c for c in frame.columns if c not in mapping.outputs]
    blocks = [frame[keep].assign(output=frame[col], system=str(col)) for col in mapping.outputs]
    long = pd.concat(blocks)
    roles = dict(mapping.roles, output="output", system="system")
    said = (f"One output column per system (a wide file): {', '.join(map(str, mapping.outputs))}; read as "
            f"{len(mapping.outputs)} systems x {len(frame):,} inputs = {len(long):,} pairs.")
    return long, replace(mapping, roles=roles, outputs=[], evidence={}), said


def _with_notes(dataset: Dataset, note: str) -> Dataset:
    dataset.notes.insert(0, note)
    return dataset


def _key_note(frame: pd.DataFrame, column: str, why: str) -> str:
    """The note that says a column is a key and what made it one."""
    from stviz.data.intake.cells import numeric_share

    if column in index_columns(frame):
        return f"Column '{column}' holds row numbers (an index saved with the file); it is not used as a score or metric."
    if why in ("", "named as an identifier") and numeric_share(frame[column]) >= 0.95:
        return f"Column '{column}' holds identifiers (numbers); it is not used as a score or metric."
    return f"Column '{column}' is a key ({why or 'named as an identifier'}); it is not used as a score or metric."


def _languages(column: pd.Series, name: str, place: str, notes: list[str]) -> pd.Series:
    """A language column as codes (``uk``, ``Ukrainian``, ``ukr`` -> uk); cells naming no language are '' (those pairs'
    language is detected), said with their lines."""
    from stviz.languages.cards import parse_language

    text = as_text(column)
    codes = text.map(lambda v: parse_language(v) or "" if v else "")
    odd = (codes == "") & (text != "")
    if odd.any():
        found = ", ".join(repr(v) for v in dict.fromkeys(text[odd].tolist()[:5]))
        notes.append(f"Column '{name}': {int(odd.sum()):,} cell(s) name no language ({found}); their pairs' language "
                     f"is detected ({place}s {places_text(list(column.index[odd]))}).")
    return codes


def _say_missing_words(column: pd.Series, name: str, place: str, notes: list[str]) -> None:
    """A note naming the text cells written as a missing value ('None', 'NaN', 'null'): read as empty, not as text."""
    missing = missing_words(column)
    if missing.any():
        notes.append(f"Column '{name}': {int(missing.sum()):,} cell(s) written as a missing value (None, NaN, null) "
                     f"were read as empty, not as text ({place}s {places_text(list(column.index[missing]))}).")


def _unique(wanted: str, fallback: str, taken: set[str]) -> str:
    name = wanted if wanted not in taken else fallback
    k = 2
    while name in taken:
        name, k = f"{fallback} ({k})", k + 1
    taken.add(name)
    return name


def _label(col: str, prefix: str) -> str:
    # "human_fluency" or "human: fluency" becomes "human:fluency", not "human:human_fluency".
    return re.sub(rf"^{prefix}[\s_:.-]+", "", str(col), flags=re.I) or str(col)


def _reference_texts(frame: pd.DataFrame, columns: Sequence[str], notes: list[str]) -> list[pd.Series]:
    out: list[pd.Series] = []
    for col in columns:
        if is_list_column(frame[col]):
            lists = frame[col].map(lambda v: json_list(v) or [])
            width = int(lists.map(len).max()) if len(lists) else 0
            for k in range(width):
                out.append(lists.map(lambda refs, k=k: refs[k].strip() if k < len(refs) else ""))
            notes.append(f"Column '{col}' holds lists of up to {width} references per pair; each is used.")
        else:
            out.append(as_text(frame[col]))
    return out


def _add_rater_means(ds: Dataset, mapping: ColumnMapping, taken: set[str]) -> None:
    by_language = ds.rater_agreement_by_language()  # each language had its own raters: never one alpha over all
    for stem, columns in ds.rater_groups.items():
        measured = {code: agreements[stem] for code, agreements in by_language.items() if stem in agreements}
        if measured:
            said = ", ".join(f"{code + ' ' if code else ''}{a.alpha:.3f} over {a.units:,} pairs"
                             for code, a in measured.items())
            ds.notes.append(f"{len(columns)} raters ({', '.join(c[len(RATER_PREFIX):] for c in columns)}): "
                            f"Krippendorff's alpha (interval) {'= ' if '' in measured else 'per language: '}{said} "
                            "rated by at least two of them.")
        if mapping.rater_mean:
            target = _unique(f"{HUMAN_PREFIX}{stem}_mean", f"{HUMAN_PREFIX}{stem} (mean of raters)", taken | set(ds.pairs))
            ds.pairs[target] = ds.pairs[columns].mean(axis=1, skipna=True)
            ds.human_direction[target] = higher_is_better_guess(stem)
            ds.notes.append(f"'{target[len(HUMAN_PREFIX):]}' is the mean of the {len(columns)} raters' scores, offered as "
                            "a human score; the raters themselves are never ranked as metrics.")


def _drop_unusable_rows(pairs: pd.DataFrame, place: str, notes: list[str], ids: pd.DataFrame) -> pd.DataFrame:
    empty = pairs["source"].eq("") | pairs["output"].eq("")
    if empty.any():
        notes.append(f"Dropped {int(empty.sum()):,} row(s) with an empty source or output "
                     f"({place}s {places_text(list(pairs.index[empty]))}).")
        pairs = pairs[~empty]
    if pairs.empty:
        raise DataError("no row has both a source and an output text")
    keyed = pairs.join(ids.add_prefix("__id__"), how="left") if not ids.empty else pairs
    dupes = keyed.duplicated()
    if dupes.any():
        notes.append(f"Dropped {int(dupes.sum()):,} exact duplicate row(s) ({place}s {places_text(list(pairs.index[dupes]))}: "
                     "same texts, system and scores as an earlier row); the first of each was kept.")
        pairs = pairs[~dupes]
    return pairs


def load_pairs_file(path: str | os.PathLike, columns: str | None = None, sheet: str | None = None,
                    extra_human: Iterable[str] = (), **reading) -> tuple[Dataset, ColumnMapping, list[str]]:
    """Read a pair file from disk with the detected (or ``--columns``-given) mapping: (dataset, mapping, notes).

    ``extra_human`` names columns to use as human scores besides the mapped ones (the CLI's
    ``--human COL``), taken out of any metric or rater role they were detected in; ``reading``
    passes ``header``, ``encoding`` and ``skip_rows`` to :func:`read_pairs_file`.
    """
    from pathlib import Path

    path = Path(path)
    size = path.stat().st_size
    if size > max_upload_bytes():  # said before a huge file is read into memory
        raise DataError(too_large_message(path.name, size))
    return load_pairs_bytes(path.name, path.read_bytes(), columns, sheet, extra_human, **reading)


def load_pairs_bytes(filename: str, data: bytes, columns: str | None = None, sheet: str | None = None,
                     extra_human: Iterable[str] = (), **reading) -> tuple[Dataset, ColumnMapping, list[str]]:
    """:func:`load_pairs_file` on a file's bytes, named ``filename`` (the Python API reads a DataFrame so)."""
    from pathlib import Path

    path = Path(filename)
    frame, notes = read_pairs_file(path.name, data, sheet=sheet, **reading)
    mapping = parse_columns_spec(columns, frame) if columns else detect_mapping(frame)
    derived = [col for col in extra_human if col not in frame.columns]  # a raters' mean ('style_mean') is built
    for col in extra_human:
        if col not in derived:
            mapping = mapping.with_human(col)
    ds = apply_mapping(frame, mapping, name=path.stem, title=path.name)
    for col in derived:
        if HUMAN_PREFIX + col.removeprefix(HUMAN_PREFIX) not in ds.human_columns:
            raise DataError(f"no column '{col}' in '{path.name}'; it has: {', '.join(map(str, frame.columns))}"
                            + (f" (and the raters' means {', '.join(c[len(HUMAN_PREFIX):] for c in ds.human_columns)})"
                               if mapping.raters else ""))
    return ds, mapping, notes
