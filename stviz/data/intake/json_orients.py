"""One JSON document that holds a whole table: the shapes pandas' ``to_json`` and notebooks write.

A records array (``[{...}, ...]``) and JSON Lines are read by :mod:`stviz.data.intake.jsonfiles`. These are
the others, each a table of rows, never one pair whose texts are printed lists:

* columnar ``{"source": [...], "output": [...]}`` (a dict of lists, as ``json.dump(dict_of_columns)``);
* ``to_json()``'s default ``orient='columns'``: ``{"source": {"0": ..., "1": ...}, ...}``;
* ``orient='index'``: ``{"0": {"source": ..., ...}, "1": {...}}``;
* ``orient='split'``: ``{"columns": [...], "index": [...], "data": [[...], ...]}``;
* ``orient='table'``: ``{"schema": {"fields": [...], "primaryKey": [...]}, "data": [{...}, ...]}``.

pandas' saved index (``"0"``, ``"1"``, or a ``primaryKey``) gives the row order, not a column; the
shape read is said in a note. A shape that cannot be told apart is refused, naming ``orient='records'``.
"""

from __future__ import annotations

import pandas as pd

from stviz.data.schema import DataError

_FIX = "save it with pandas' to_json(orient='records') or as JSON Lines"


def document_table(obj: object, filename: str, notes: list[str]) -> pd.DataFrame | None:
    """The table one JSON object holds (raw values, rows in order), or None when it is one record."""
    if not isinstance(obj, dict) or not obj:
        return None
    keys = set(obj)
    if {"columns", "data"} <= keys <= {"columns", "index", "data", "name"} and isinstance(obj["data"], list):
        return _split(obj, filename, notes)
    if keys == {"schema", "data"} and isinstance(obj["schema"], dict) and isinstance(obj["data"], list):
        return _table(obj, filename, notes)
    values = list(obj.values())
    if all(isinstance(v, dict) for v in values):
        return _object_of_objects(obj, filename, notes)
    lists = [k for k, v in obj.items() if isinstance(v, list)]
    if len(lists) >= 2 and not any(isinstance(v, dict) for v in values):
        return _columnar(obj, lists, filename, notes)
    return None


def _columnar(obj: dict, lists: list[str], filename: str, notes: list[str]) -> pd.DataFrame:
    lengths = {k: len(obj[k]) for k in lists}
    single = [k for k in obj if k not in lengths]
    if len(set(lengths.values())) > 1 or single:
        shown = ", ".join(f"'{k}': {n}" for k, n in list(lengths.items())[:6])
        extra = f"; {', '.join(repr(k) for k in single[:4])} hold(s) a single value" if single else ""
        raise DataError(f"'{filename}' holds one object of columns (lists) of different lengths ({shown}){extra}: "
                        f"its rows cannot be lined up; give every column one value per row, or {_FIX}")
    notes.append(f"'{filename}' holds one object of columns ({len(lists)} lists of {next(iter(lengths.values())):,} "
                 "values); it was read as a table, one row per position.")
    return pd.DataFrame({k: obj[k] for k in lists}, dtype=object)


def _split(obj: dict, filename: str, notes: list[str]) -> pd.DataFrame:
    columns, data = obj["columns"], obj["data"]
    wrong = next((i for i, row in enumerate(data, 1) if not isinstance(row, list) or len(row) != len(columns)), None)
    if not isinstance(columns, list) or wrong is not None:
        raise DataError(f"'{filename}' looks like pandas' orient='split' but data row {wrong} does not have one value "
                        f"per column; {_FIX}")
    notes.append(f"'{filename}' is pandas' orient='split' (columns, index, data); its {len(data):,} data rows were "
                 "read in order, the saved index left out.")
    return pd.DataFrame(data, columns=[str(c) for c in columns], dtype=object)


def _table(obj: dict, filename: str, notes: list[str]) -> pd.DataFrame:
    schema, data = obj["schema"], obj["data"]
    fields = [f.get("name") for f in schema.get("fields", []) if isinstance(f, dict)]
    key = [k for k in schema.get("primaryKey", []) or [] if k in fields]
    if not all(isinstance(row, dict) for row in data):
        raise DataError(f"'{filename}' looks like pandas' orient='table' but its data are not objects; {_FIX}")
    columns = [f for f in fields if f not in key] or list(dict.fromkeys(k for row in data for k in row))
    notes.append(f"'{filename}' is pandas' orient='table' (schema, data); its {len(data):,} rows were read"
                 + (f", the index ({', '.join(key)}) left out." if key else "."))
    return pd.DataFrame([[row.get(c) for c in columns] for row in data], columns=columns, dtype=object)


def _object_of_objects(obj: dict, filename: str, notes: list[str]) -> pd.DataFrame | None:
    outer = list(obj)
    inner = list(dict.fromkeys(k for v in obj.values() for k in v))
    if _index_labels(inner) and not _index_labels(outer):  # to_json()'s default: column -> {row: value}
        notes.append(f"'{filename}' is pandas' to_json() layout (orient='columns': each column an object of rows "
                     f"'0', '1', ...); it was read as a table of {len(inner):,} rows and {len(outer)} columns.")
        return pd.DataFrame({c: [obj[c].get(r) for r in inner] for c in outer}, dtype=object)
    if _index_labels(outer) and not _index_labels(inner):  # orient='index': row -> {column: value}
        notes.append(f"'{filename}' is pandas' orient='index' (each row an object under its index "
                     f"'{outer[0]}', ...); it was read as a table of {len(outer):,} rows.")
        return pd.DataFrame([[obj[r].get(c) for c in inner] for r in outer], columns=inner, dtype=object)
    if len(outer) == 1 or len(set(map(frozenset, obj.values()))) > 1:
        return None  # one record with nested fields ({"pair": {...}, "scores": {...}}): flattened by the reader
    raise DataError(f"'{filename}' holds one object of objects whose keys could be rows or columns "
                    f"('{outer[0]}' -> '{inner[0]}'); {_FIX}")


def _index_labels(keys: list) -> bool:
    """Whether keys are a saved pandas index: whole numbers ('0', '1', ...)."""
    return bool(keys) and all(str(k).lstrip("-").isdigit() for k in keys)


__all__ = ["document_table"]
