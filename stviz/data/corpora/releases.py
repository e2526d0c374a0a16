"""A file a built-in corpus releases, given as a file (``--dataset PATH``, the page's upload): read as the built-in
corpus reads it, said in a note.

Why: InFormal's ``hi_annotations.jsonl`` uploaded was refused ("no human-score columns": its ratings are nested in
an ``annotations`` list of worded labels) while the built-in ``informal`` read the very same file. Recognised by its
columns (and its language by its name, ``hi_annotations.jsonl``), the records go through the built-in's own reading
(:func:`stviz.data.corpora.informal.release_pairs`); the frame returned holds plain columns that the column detection
maps as the built-in does (the workers as raters, their mean ``similarity_mean`` and ``formality_gain`` human ratings,
``labse`` a metric).
"""

from __future__ import annotations

import json
import re

import pandas as pd

from stviz.data.schema import HUMAN_PREFIX, METRIC_PREFIX, RATER_PREFIX, DataError

#: The columns of an InFormal release file (``{hi,bn,te,kn}_annotations.jsonl``).
INFORMAL_COLUMNS = frozenset({"candidate_0", "candidate_1", "annotations"})
#: The frame's attribute holding the roles its release gives its columns (read by ``detect_mapping``).
MAPPING_ATTR = "release-mapping"


def released(frame: pd.DataFrame, filename: str, notes: list[str]) -> pd.DataFrame:
    """The frame as the built-in corpus reads it when it is a file the corpus releases, else the frame as it is."""
    if not INFORMAL_COLUMNS <= set(map(str, frame.columns)):
        return frame
    from stviz.data.corpora.informal import LANGUAGES, RATERS, release_pairs

    code = _language_of(filename, LANGUAGES)
    rows = [{**row, "annotations": _annotations(row["annotations"], place)} for place, row in
            zip(frame.index, frame.to_dict("records"))]
    pairs = release_pairs(rows, code)
    if code is None:
        pairs = pairs.drop(columns=["language"])  # detected per pair, as any file's
    pairs.index = frame.index
    pairs.columns = [_plain(c) for c in pairs.columns]
    pairs.attrs[MAPPING_ATTR] = _informal_roles(pairs)
    notes.append(f"'{filename}' is laid out as InFormal releases its files (candidate_0, candidate_1, annotations"
                 f"{', labse' if 'labse' in pairs else ''}): read as the built-in 'informal' reads it: candidate_0 the "
                 f"source, candidate_1 the output, the {RATERS} workers' similarity (1 / 0.5 / 0) as raters and their mean "
                 "'similarity_mean', "
                 "'formality_gain' (+1 output more formal, 0 equal, -1 input) a relative style rating"
                 + (", 'labse' the authors' LaBSE cosine" if "labse" in pairs else "")
                 + (f"; its language, {code}, from its name" if code else "") + ".")
    return pairs


def _informal_roles(pairs: pd.DataFrame) -> dict:
    """The roles the built-in gives InFormal's columns (a ColumnMapping's fields): the workers as raters (their mean
    the content rating), the formality votes a human rating, LaBSE a metric."""
    raters = [c for c in pairs.columns if c.startswith("similarity_") and c != "similarity_mean"]
    human = ["similarity_mean", "formality_gain"]  # the built-in's order: the content rating first
    return {"roles": {r: r for r in ("source", "output", "system", "language") if r in pairs}, "human": human,
            "metrics": [c for c in ("labse",) if c in pairs], "raters": raters,
            "directions": {c: True for c in human}, "rater_mean": False}


def release_roles(frame: pd.DataFrame) -> dict | None:
    """The roles a release file's frame came with (a copy of a ColumnMapping's fields: the user may change them)."""
    import copy

    given = frame.attrs.get(MAPPING_ATTR)
    return copy.deepcopy(given) if given is not None else None


def _language_of(filename: str, languages: tuple[str, ...]) -> str | None:
    """'hi' for 'hi_annotations.jsonl' (the release's names), else None."""
    found = re.match(r"([a-z]{2})_annotations\b", filename.lower().rsplit("/", 1)[-1])
    return found.group(1) if found and found.group(1) in languages else None


def _annotations(cell, place) -> list[dict]:
    """A record's workers' labels: a list of objects, however the JSON reader left them (objects or their text)."""
    items = json.loads(cell) if isinstance(cell, str) else list(cell) if cell is not None else []
    try:
        return [json.loads(item) if isinstance(item, str) else dict(item) for item in items]
    except (TypeError, ValueError) as exc:
        raise DataError(f"line {place}: 'annotations' is not a list of the workers' labels ({exc})") from exc


def _plain(column: str) -> str:
    """The built-in's column name without its role's prefix ('rater:similarity_1' -> 'similarity_1')."""
    for prefix in (HUMAN_PREFIX, METRIC_PREFIX, RATER_PREFIX):
        column = column.removeprefix(prefix)
    return column


__all__ = ["INFORMAL_COLUMNS", "MAPPING_ATTR", "release_roles", "released"]
