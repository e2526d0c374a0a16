"""JSON pair files: a JSON array of objects, or JSON Lines, as a frame of text cells like a CSV's.

JSON Lines are parsed in one vectorised call (pyarrow's reader; pandas when a key holds numbers
on some lines and texts on others); a per-line pass runs only to name the wrong lines, by their
file line numbers. Nested objects (``{"pair": {"source": ..., "output": ...}}``) become columns
named by their path (``pair.source``), said in a note, so their texts are never read as one
JSON text column.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd

from stviz.data.intake.cells import float_text
from stviz.data.intake.json_orients import document_table
from stviz.data.intake.layout import header_names
from stviz.data.schema import DataError


def read_json(text: str, filename: str, notes: list[str]) -> pd.DataFrame:
    """A JSON array of objects, JSON Lines, or one object holding a table (pandas' orients) as a frame of text
    cells; nested objects flattened to dotted names."""
    nested: list[str] = []
    frame = _document(text, filename, notes, nested)
    if frame is None:
        frame = _read_any_json(text, filename, nested)
    if nested:
        notes.append(f"'{filename}' holds nested fields; they were read as columns named by their path: "
                     f"{', '.join(nested[:8])}{' ...' if len(nested) > 8 else ''}.")
    return frame


def _document(text: str, filename: str, notes: list[str], nested: list[str]) -> pd.DataFrame | None:
    """The table one JSON object holds (columnar, pandas' orients), or None for records and JSON Lines."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        return None  # JSON Lines (several objects), or broken: the line reader names the line
    frame = document_table(obj, filename, notes)
    if frame is None:
        return None
    frame.index = pd.Index(np.arange(1, len(frame) + 1), name="item")
    return _json_cells(frame, nested)


def _read_any_json(text: str, filename: str, nested: list[str]) -> pd.DataFrame:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            items = json.loads(text)
        except ValueError as exc:
            raise DataError(f"'{filename}' is not valid JSON: {exc}") from exc
        bad = [i for i, item in enumerate(items, 1) if not isinstance(item, dict)]
        if bad and all(isinstance(item, list) for item in items):
            raise DataError(f"'{filename}' is a list of lists (pandas' orient='values'): it has no column names; "
                            "save it with to_json(orient='records'), or as CSV with a header")
        if bad:
            raise DataError(f"'{filename}' item {bad[0]} is not a JSON object ({{\"source\": ..., \"output\": ...}})")
        frame = pd.DataFrame(items, dtype=object)
        frame.index = pd.Index(np.arange(1, len(items) + 1), name="item")
        return _json_cells(frame, nested)
    return read_jsonl(text, filename, nested)


def read_jsonl(text: str, filename: str, nested: list[str] | None = None) -> pd.DataFrame:
    """JSON Lines, parsed in one vectorised call; a per-line pass runs only to say which line is wrong."""
    line_texts = text.split("\n")
    numbers, wrong = [], []
    for number, line in enumerate(line_texts, 1):
        start = line.lstrip()[:1]
        if start:
            numbers.append(number)
            if start != "{":
                wrong.append(number)
    if wrong:
        raise DataError(_jsonl_message(filename, wrong, line_texts))
    nested = [] if nested is None else nested
    frame = _arrow_jsonl(text, nested)
    if frame is None:  # a column with numbers in some lines and texts in others: pandas takes both
        try:
            frame = _json_cells(pd.read_json(io.StringIO(text), lines=True, dtype=False, precise_float=True), nested)
        except (ValueError, TypeError):
            frame = None
    if frame is None or len(frame) != len(numbers):
        wrong = [n for n in numbers if not _is_json_object(line_texts[n - 1])]
        if wrong:
            raise DataError(_jsonl_message(filename, wrong, line_texts))
        # pandas and Arrow refused what json accepts (e.g. numbers beyond 64 bits): let json build the rows
        frame = _json_cells(pd.DataFrame([json.loads(line_texts[n - 1]) for n in numbers], dtype=object),
                             nested)
    frame.index = pd.Index(np.asarray(numbers, dtype=np.int64), name="line")
    return frame


def _arrow_jsonl(text: str, nested: list[str]) -> pd.DataFrame | None:
    """JSON Lines through pyarrow's C++ reader, every value as text (lists kept); None if Arrow refuses the file."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pa_json

    try:
        table = pa_json.read_json(io.BytesIO(text.encode("utf-8")),
                                  read_options=pa_json.ReadOptions(block_size=1 << 24))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    columns = {}
    for name in table.column_names:
        column = table[name]
        kind = column.type
        if pa.types.is_struct(kind):
            columns[name] = column.to_pylist()  # nested objects, flattened below
        elif pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_boolean(kind):
            columns[name] = [_cell_text(v) for v in column.to_pylist()]  # rare: lists of references, flags
        elif pa.types.is_null(kind):
            columns[name] = [""] * len(column)
        else:  # strings and numbers: Arrow writes numbers back in their shortest exact form ('0.1', '4', '1e-07')
            columns[name] = pc.fill_null(pc.cast(column, pa.string()), "").to_numpy(zero_copy_only=False)
    frame = pd.DataFrame(columns, dtype=object)
    frame.columns = header_names(list(frame.columns), "the JSON file", [])
    flat = _flatten(frame, nested)
    for col in flat.columns.difference(frame.columns):
        flat[col] = flat[col].map(_cell_text)
    return flat


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _jsonl_message(filename: str, wrong: list[int], line_texts: list[str]) -> str:
    first = wrong[0]
    more = f" (and {len(wrong) - 1:,} more line(s): {', '.join(map(str, wrong[1:6]))}{' ...' if len(wrong) > 6 else ''})" \
        if len(wrong) > 1 else ""
    return f"'{filename}' line {first} is not a JSON object: {line_texts[first - 1].strip()[:80]!r}{more}"


def _json_cells(frame: pd.DataFrame, nested: list[str]) -> pd.DataFrame:
    """JSON values as text cells like a CSV's: null -> '', numbers written back exactly, lists kept as lists."""
    frame.columns = header_names(list(frame.columns), "the JSON file", [])
    frame = _flatten(frame, nested)
    return frame.apply(lambda col: col.map(_cell_text)).astype(object)


def _flatten(frame: pd.DataFrame, nested: list[str]) -> pd.DataFrame:
    """Columns whose every value is an object become one column per key, named by path ('pair.source').

    A column that mixes objects with other values stays one column of JSON texts (nothing is guessed).
    """
    while True:
        objects = [c for c in frame.columns if _all_objects(frame[c])]
        if not objects:
            return frame
        parts = []
        for col in frame.columns:
            if col in objects:
                keys = list(dict.fromkeys(k for v in frame[col] if isinstance(v, dict) for k in v))
                leaves = {f"{col}.{k}": frame[col].map(lambda v, k=k: v.get(k) if isinstance(v, dict) else None)
                          for k in keys}
                nested.extend(name for name in leaves if name not in nested)
                parts.append(pd.DataFrame(leaves, index=frame.index, dtype=object))
            else:
                parts.append(frame[[col]])
        frame = pd.concat(parts, axis=1)
        frame.columns = header_names(list(frame.columns), "the JSON file", [])


def _all_objects(series: pd.Series) -> bool:
    present = [v for v in series if not (v is None or (isinstance(v, float) and math.isnan(v)))]
    return bool(present) and all(isinstance(v, dict) for v in present)


def _cell_text(value: object) -> object:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, (list, tuple)):
        return [str(_cell_text(v)) for v in value]
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
