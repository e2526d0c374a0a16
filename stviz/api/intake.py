"""``stviz.open``: a dataset from a built-in name, a pair file, a folder (or zip) of released outputs, or a pandas
DataFrame in memory, read by the same intake as the command line's ``--dataset`` and the upload page.

A DataFrame is read as the CSV file it would be written to (its column names the header line), so that every rule
of a file applies to it alike: the column roles detected (or ``columns``), every conversion and dropped row said.
The frame itself is never modified. What the command line says on stderr while reading is kept with the dataset and
handed to each table's ``attrs["notes"]``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping, Sequence, Union

import pandas as pd

from stviz.data.schema import DataError, Dataset

#: Where a dataset opened here keeps the notes said while reading it (the command line prints them on stderr).
NOTES_ATTRIBUTE = "_api_intake_notes"
#: The file name a DataFrame is read under (its notes and errors name it, as a file's name them).
FRAME_NAME = "dataframe"

Columns = Union[str, Mapping[str, Union[str, Sequence[str]]], None]
#: What every function of the API takes as its data: a built-in name, a path, a DataFrame, or an opened dataset.
Data = Union[str, os.PathLike, pd.DataFrame, Dataset]


def open(data: Data, columns: Columns = None, direction: str | None = None,
         language: str | None = None, *, name: str = FRAME_NAME, sheet: str | None = None, header: str | None = None,
         encoding: str | None = None, skip_rows: int | None = None, domain: str | None = None,
         extra_human: Iterable[str] = ()) -> Dataset:
    """A dataset from a built-in name, a pair file, a folder or .zip of system outputs, or a pandas DataFrame."""
    if isinstance(data, Dataset):
        dataset, notes = data, list(intake_notes(data))
    else:
        reading = {"sheet": sheet, "header": header, "encoding": encoding, "skip_rows": skip_rows}
        dataset, notes = _read(data, columns_spec(columns), name, domain, list(extra_human), reading)
    if direction:
        from stviz.data.intake.file_direction import apply_direction

        dataset = apply_direction(dataset, direction)
        notes.append(dataset.direction)
    if language:
        from stviz.languages import with_language

        dataset = with_language(dataset, language)
    dataset.__dict__[NOTES_ATTRIBUTE] = notes
    return dataset


def intake_notes(dataset: Dataset) -> list[str]:
    """What reading the dataset said (the column mapping, conversions, dropped rows): [] for a built-in set."""
    return list(dataset.__dict__.get(NOTES_ATTRIBUTE, []))


def columns_spec(columns: Columns) -> str | None:
    """``columns`` as the command line's ``--columns`` text: a mapping {role: column or [columns]} joined."""
    if columns is None or isinstance(columns, str):
        return columns
    parts = []
    for role, value in columns.items():
        for column in [value] if isinstance(value, str) or value is None else value:
            parts.append(f"{role}={column or ''}")
    return ",".join(parts)


def _read(data, columns: str | None, name: str, domain: str | None, extra_human: list[str],
          reading: dict) -> tuple[Dataset, list[str]]:
    if isinstance(data, pd.DataFrame):
        return _frame_dataset(data, columns, name, extra_human, reading)
    if not isinstance(data, (str, os.PathLike)):
        raise DataError(f"stviz.open takes a dataset name, a path or a pandas DataFrame, not {type(data).__name__}")
    return _named_dataset(os.fspath(data), columns, domain, extra_human, reading)


def _frame_dataset(frame: pd.DataFrame, columns: str | None, name: str, extra_human: list[str],
                   reading: dict) -> tuple[Dataset, list[str]]:
    """A DataFrame read as the CSV file ``NAME.csv`` holding it (a named index kept as columns)."""
    from stviz.data.intake.build import load_pairs_bytes

    if any(level is not None for level in frame.index.names):
        frame = frame.reset_index()  # a new frame: the caller's is left as it was
    # Not stviz.export's formula-safe writer: these bytes are read straight back by stviz, never opened in a
    # spreadsheet, and a guarded cell ("'=1+1") would change the user's text.
    data = frame.to_csv(index=False).encode("utf-8")
    reading = {key: value for key, value in reading.items() if value is not None and key != "sheet"}
    reading.setdefault("header", "first")  # the frame's column names are its header, never guessed
    dataset, mapping, notes = load_pairs_bytes(f"{name}.csv", data, columns=columns, extra_human=extra_human,
                                               **reading)
    return dataset, _mapping_line(mapping) + notes + dataset.notes


def _named_dataset(value: str, columns: str | None, domain: str | None, extra_human: list[str],
                   reading: dict) -> tuple[Dataset, list[str]]:
    """A built-in name, a study, a folder or zip of outputs, or a pair file, as ``--dataset`` reads it."""
    from stviz.data import DATASET_NAMES, load_dataset
    from stviz.data.released.outputs_intake import outputs_path, require_existing

    if value in DATASET_NAMES or value.startswith("study:"):
        return load_dataset(value), []
    if (folder := outputs_path(value)) is not None:
        return _outputs_dataset(folder, domain)
    if Path(value).is_file():
        from stviz.data.intake.build import load_pairs_file

        reading = {key: val for key, val in reading.items() if val is not None}
        dataset, mapping, notes = load_pairs_file(value, columns=columns, extra_human=extra_human, **reading)
        return dataset, _mapping_line(mapping) + notes + dataset.notes
    require_existing(value)
    return load_dataset(value), []  # a DataError naming the known datasets


def _outputs_dataset(folder: Path, domain: str | None) -> tuple[Dataset, list[str]]:
    """Released outputs: one domain's dataset (refused, as on the command line, when the folder holds several)."""
    from stviz.data.released.outputs_intake import load_surveyed, survey_outputs

    surveyed = survey_outputs(folder, domain=domain)
    datasets = load_surveyed(surveyed)
    if len(datasets) > 1:
        raise DataError(f"{folder.name} holds {len(datasets)} domains ({', '.join(d.name for d in datasets)}); "
                        "give one domain's folder as --dataset, or compare them all with leaderboard")
    problems = [f"problem: {problem}" for each in surveyed for problem in each.inventory.problems]
    return datasets[0], problems + list(datasets[0].notes)


def _mapping_line(mapping) -> list[str]:
    return [f"columns: {mapping.describe()} (change with columns='ROLE=COL,...')"]


__all__ = ["FRAME_NAME", "NOTES_ATTRIBUTE", "Columns", "Data", "columns_spec", "intake_notes", "open"]
