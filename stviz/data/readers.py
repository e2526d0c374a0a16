"""Reading users' pair files: bytes of CSV, TSV, JSONL or XLSX -> a frame of text cells with file line numbers.

A file is read exactly as its author meant it, or refused with one line that says where and why:

* text is decoded from its byte-order mark (UTF-8, UTF-16 and UTF-32, as Excel's "Unicode Text"
  export writes), from the NUL-byte pattern of UTF-16 without a mark, as UTF-8, or else as
  Windows-1252 (said in a note);
* the delimiter (comma, tab, semicolon or bar) is detected from the header and the first records,
  the records are split by Python's ``csv`` module (quotes, quoted newlines), and a record with
  the wrong number of fields is refused by its line number: no column is ever taken as an index;
* every cell is kept as text (``NA``, ``None``, ``null`` and ``n/a`` stay words); numbers are read
  only for the columns mapped to scores, where decimal commas are converted and anything that is
  not a finite number is left empty - each said per column, with its file line numbers;
* XLSX: any sheet can be chosen; formula cells without a stored result are reported.

Each row of the frame :func:`read_pairs_file` returns is labelled by where it is in the file: its
1-based line (CSV, TSV, JSONL), spreadsheet row (XLSX) or item number (JSON array), so notes about
dropped rows or unreadable values point at the right place.

:func:`decode_text` is the one text decoder of every file a user brings (also the released-output
folders of :mod:`stviz.data.outputs`). Which column plays which role is
:mod:`stviz.data.mapping`'s job; turning the frame into a dataset, :mod:`stviz.data.build`'s.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import re
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import DataError

SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".json", ".xlsx")
DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}

#: The one upload size limit (1 MB = 1,048,576 bytes, as Streamlit counts), unless
#: ``$STVIZ_MAX_UPLOAD_MB`` says otherwise; the page, the CLI and the README state it alike.
DEFAULT_MAX_UPLOAD_MB = 200
MB = 1024 * 1024


# -- size limit -------------------------------------------------------------------------------------
def max_upload_mb() -> int:
    """The upload size limit in whole MB (1 MB = 1,048,576 bytes): ``$STVIZ_MAX_UPLOAD_MB`` or 200."""
    raw = os.environ.get("STVIZ_MAX_UPLOAD_MB", str(DEFAULT_MAX_UPLOAD_MB)).strip()
    if not raw.isdigit() or int(raw) == 0:
        raise DataError(f"STVIZ_MAX_UPLOAD_MB must be a positive whole number of megabytes, not {raw!r}")
    return int(raw)


def max_upload_bytes() -> int:
    """Largest accepted file, in bytes."""
    return int(max_upload_mb() * MB)


def size_limit_text() -> str:
    """The limit as every surface states it, e.g. '200 MB per file'."""
    return f"{max_upload_mb()} MB per file"


# -- reading ----------------------------------------------------------------------------------------
def read_pairs_file(filename: str, data: bytes, sheet: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Parse an uploaded file into a frame of text cells, with notes on every conversion made.

    The frame's index holds each row's place in the file (line, spreadsheet row or JSON item);
    ``sheet`` chooses an XLSX sheet (default: the first, named in a note when there are several).
    """
    suffix = os.path.splitext(filename.lower())[1]
    if suffix not in SUFFIXES:
        raise DataError(f"'{filename}': unsupported file type '{suffix or '(none)'}'; use CSV, TSV, JSONL or XLSX")
    if len(data) > max_upload_bytes():
        raise DataError(too_large_message(filename, len(data)))
    notes: list[str] = []
    if suffix == ".xlsx":
        frame = _read_xlsx(filename, data, sheet, notes)
    else:
        if data[:4] == b"PK\x03\x04":
            raise DataError(f"'{filename}' is a zipped file (an Excel workbook?), not text; save it as .xlsx or CSV")
        text = decode_text(data, filename, notes)
        if not text.strip():
            raise DataError(f"'{filename}' is empty")
        if "\x00" in text:
            raise DataError(f"'{filename}' is not a text file (it holds NUL bytes); save it as CSV, TSV or JSONL")
        stripped = text.lstrip()
        if suffix in (".jsonl", ".json") or (stripped[:1] in "[{" and suffix == ".txt" and _looks_like_json(stripped)):
            frame = _read_json(text, filename)
        else:
            frame = _read_delimited(text, filename, suffix, notes)
    if frame.empty:
        raise DataError(f"'{filename}' has a header but no rows")
    notes.append(f"Read {len(frame):,} rows and {len(frame.columns)} columns from '{filename}'.")
    return frame, notes


def too_large_message(filename: str, size: int) -> str:
    """The refusal of a file over the size limit, with how to get past it."""
    return (f"'{filename}' is {size / MB:,.1f} MB; the limit is {size_limit_text()} "
            "(set STVIZ_MAX_UPLOAD_MB to raise it, or split the file)")


def _looks_like_json(text: str) -> bool:
    first = text.split("\n", 1)[0].strip()
    try:
        return isinstance(json.loads(first), (dict, list))
    except ValueError:
        return False


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"), (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
         (codecs.BOM_UTF8, "utf-8", "UTF-8"), (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
         (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"))


def decode_text(data: bytes, filename: str, notes: list[str]) -> str:
    """Bytes to text: by byte-order mark, UTF-16 without one, UTF-8, else Windows-1252 (with a note)."""
    for bom, encoding, name in _BOMS:  # UTF-32 LE starts like UTF-16 LE, so it is tried first
        if data.startswith(bom):
            return _strict_decode(data[len(bom):], encoding, name, filename, notes)
    utf16 = _utf16_without_bom(data)
    if utf16:
        return _strict_decode(data, utf16, "UTF-16", filename, notes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        for encoding in ("cp1252", "latin-1"):  # latin-1 decodes any byte
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                continue
            notes.append(f"'{filename}' is not UTF-8 (line {line} has the byte 0x{data[exc.start]:02X}); it was decoded as "
                         f"{'Windows-1252' if encoding == 'cp1252' else 'Latin-1'}. Check accented characters, or re-save as UTF-8.")
            return text
        raise  # pragma: no cover - latin-1 cannot fail


def _strict_decode(data: bytes, encoding: str, name: str, filename: str, notes: list[str]) -> str:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DataError(f"'{filename}' looks like {name} text but byte {exc.start} cannot be decoded as {name}; "
                        "re-save it as UTF-8") from exc
    if name != "UTF-8":
        notes.append(f"'{filename}' is {name} text ({encoding[-2:].upper()}); it was decoded as such.")
    return text


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when most characters of the start are ASCII with a NUL byte beside them."""
    sample = data[:4096]
    sample = sample[: len(sample) - len(sample) % 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    zeros_even, zeros_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if zeros_odd > 0.4 and zeros_even < 0.05:
        return "utf-16-le"
    if zeros_even > 0.4 and zeros_odd < 0.05:
        return "utf-16-be"
    return None


csv.field_size_limit(2**31 - 1)  # one long text must not stop the reader (the default limit is 128 KB)


def detect_delimiter(text: str, suffix: str) -> str:
    """The delimiter whose header has at least two fields and that splits the first records alike."""
    sample = text[:65536]
    preferred = "\t" if suffix in (".tsv", ".txt") else ","
    best, best_score = preferred, None
    for delimiter in DELIMITERS:
        counts = _field_counts(sample, delimiter)
        if not counts or counts[0] < 2:
            continue
        body = counts[1:-1] if len(counts) > 2 else counts[1:]  # the sample's last record may be cut
        consistent = sum(c == counts[0] for c in body) / len(body) if body else 1.0
        score = (consistent, delimiter == preferred, counts[0])
        if best_score is None or score > best_score:
            best, best_score = delimiter, score
    return best


def _field_counts(sample: str, delimiter: str, records: int = 200) -> list[int]:
    counts = []
    try:
        for row in csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter):
            if any(cell.strip() for cell in row):
                counts.append(len(row))
            if len(counts) >= records:
                break
    except csv.Error:
        pass  # a sample cut inside a quoted text
    return counts


def _read_delimited(text: str, filename: str, suffix: str, notes: list[str]) -> pd.DataFrame:
    delimiter = detect_delimiter(text, suffix)
    if delimiter != ("\t" if suffix in (".tsv", ".txt") else ","):
        notes.append(f"'{filename}' is {DELIMITERS[delimiter]}-separated; it was read as such.")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[list[str]] = []
    lines: list[int] = []
    bad: list[tuple[int, int]] = []
    header: list[str] | None = None
    start = 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):  # blank lines are skipped, and counted
                if header is None:
                    header = row
                elif len(row) == len(header):
                    rows.append(row)
                    lines.append(start)
                elif len(row) > len(header) and not any(c.strip() for c in row[len(header):]):
                    rows.append(row[: len(header)])  # trailing empty fields ("a,b,"): nothing is lost
                    lines.append(start)
                else:
                    bad.append((start, len(row)))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise DataError(f"'{filename}' line {reader.line_num}: {exc} (a quote opened in a text and never closed?); "
                        "fix the quotes on that line") from exc
    if header is None:
        raise DataError(f"'{filename}' is empty")
    if len(header) < 2:
        raise DataError(f"'{filename}' has one column only: no comma, tab, semicolon or vertical bar separates "
                        "its header; a pair file needs at least a source and an output column")
    if bad:
        raise DataError(_field_count_message(filename, bad, len(header), delimiter))
    return _frame(rows, lines, _header_names(header, filename, notes), "line")


def _field_count_message(filename: str, bad: list[tuple[int, int]], expected: int, delimiter: str) -> str:
    line, fields = bad[0]
    more = f"; so do {len(bad) - 1:,} more line(s): {', '.join(str(b[0]) for b in bad[1:6])}{' ...' if len(bad) > 6 else ''}" \
        if len(bad) > 1 else ""
    return (f"'{filename}' line {line} has {fields} fields but the header has {expected}{more}. "
            f"Put texts that contain a {DELIMITERS[delimiter]} in double quotes, or fix those lines")


def _header_names(header: Sequence[object], filename: str, notes: list[str]) -> list[str]:
    names = []
    for i, raw in enumerate(header, 1):
        name = "" if raw is None else str(raw).strip()
        if not name:
            name = f"column {i}"
            notes.append(f"'{filename}': column {i} has no name in the header; it is called '{name}'.")
        names.append(name)
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DataError(f"'{filename}' has repeated column names: {', '.join(repeated)}; rename them")
    return names


def _frame(rows: list[list[object]], places: list[int], columns: list[str], place: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=columns, dtype=object) if rows else pd.DataFrame(columns=columns, dtype=object)
    frame.index = pd.Index(np.asarray(places, dtype=np.int64), name=place)
    return frame


def _read_json(text: str, filename: str) -> pd.DataFrame:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            items = json.loads(text)
        except ValueError as exc:
            raise DataError(f"'{filename}' is not valid JSON: {exc}") from exc
        bad = [i for i, item in enumerate(items, 1) if not isinstance(item, dict)]
        if bad:
            raise DataError(f"'{filename}' item {bad[0]} is not a JSON object ({{\"source\": ..., \"output\": ...}})")
        frame = pd.DataFrame(items, dtype=object)
        frame.index = pd.Index(np.arange(1, len(items) + 1), name="item")
        return _json_cells(frame)
    return read_jsonl(text, filename)


def read_jsonl(text: str, filename: str) -> pd.DataFrame:
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
    frame = _arrow_jsonl(text)
    if frame is None:  # a column with numbers in some lines and texts in others: pandas takes both
        try:
            frame = _json_cells(pd.read_json(io.StringIO(text), lines=True, dtype=False, precise_float=True))
        except (ValueError, TypeError):
            frame = None
    if frame is None or len(frame) != len(numbers):
        wrong = [n for n in numbers if not _is_json_object(line_texts[n - 1])]
        if wrong:
            raise DataError(_jsonl_message(filename, wrong, line_texts))
        # pandas and Arrow refused what json accepts (e.g. numbers beyond 64 bits): let json build the rows
        frame = _json_cells(pd.DataFrame([json.loads(line_texts[n - 1]) for n in numbers], dtype=object))
    frame.index = pd.Index(np.asarray(numbers, dtype=np.int64), name="line")
    return frame


def _arrow_jsonl(text: str) -> pd.DataFrame | None:
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
        if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_struct(kind) or pa.types.is_boolean(kind):
            columns[name] = [_cell_text(v) for v in column.to_pylist()]  # rare: lists of references, flags
        elif pa.types.is_null(kind):
            columns[name] = [""] * len(column)
        else:  # strings and numbers: Arrow writes numbers back in their shortest exact form ('0.1', '4', '1e-07')
            columns[name] = pc.fill_null(pc.cast(column, pa.string()), "").to_numpy(zero_copy_only=False)
    frame = pd.DataFrame(columns, dtype=object)
    frame.columns = _header_names(list(frame.columns), "the JSON file", [])
    return frame


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


def _json_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """JSON values as text cells like a CSV's: null -> '', numbers written back exactly, lists kept as lists."""
    frame.columns = _header_names(list(frame.columns), "the JSON file", [])
    return frame.apply(lambda col: col.map(_cell_text)).astype(object)


def _cell_text(value: object) -> object:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, (list, tuple)):
        return [str(_cell_text(v)) for v in value]
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _float_text(value: float) -> str:
    """A number as the shortest text that reads back exactly ('4' for 4.0, '0.1', '1e-07')."""
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def list_sheets(data: bytes) -> list[str]:
    """Sheet names of an XLSX workbook, in order."""
    wb = _open_workbook(data, "workbook", data_only=True)
    try:
        return list(wb.sheetnames)
    finally:
        wb.close()


def _open_workbook(data: bytes, filename: str, data_only: bool):
    import openpyxl

    try:
        return openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=data_only)
    except Exception as exc:  # noqa: BLE001 - any unreadable workbook gets the same one line
        raise DataError(f"'{filename}' could not be read as XLSX ({type(exc).__name__}: {str(exc)[:200]}); "
                        "re-save it from your spreadsheet program") from exc


def _read_xlsx(filename: str, data: bytes, sheet: str | None, notes: list[str]) -> pd.DataFrame:
    values_wb = _open_workbook(data, filename, data_only=True)
    formulas_wb = _open_workbook(data, filename, data_only=False)
    try:
        names = list(values_wb.sheetnames)
        if sheet is None:
            sheet = names[0]
            if len(names) > 1:
                notes.append(f"'{filename}' has {len(names)} sheets ({', '.join(repr(n) for n in names)}); "
                             f"the first, '{sheet}', was read. Choose another sheet to read it instead.")
        elif sheet not in names:
            raise DataError(f"'{filename}' has no sheet '{sheet}'; its sheets: {', '.join(repr(n) for n in names)}")
        rows, places, unsaved = [], [], {}
        width = 0
        value_rows = values_wb[sheet].iter_rows(values_only=True)
        formula_rows = formulas_wb[sheet].iter_rows(values_only=True)
        for number, (values, formulas) in enumerate(zip(value_rows, formula_rows), 1):
            cells = [_xlsx_cell(v) for v in values]
            for i, (v, f) in enumerate(zip(values, formulas)):
                if v is None and isinstance(f, str) and f.startswith("="):
                    unsaved.setdefault(i, []).append(number)
            if any(str(c).strip() for c in cells):
                rows.append(cells)
                places.append(number)
                width = max(width, len(cells))
    finally:
        values_wb.close()
        formulas_wb.close()
    if not rows:
        raise DataError(f"sheet '{sheet}' of '{filename}' is empty")
    rows = [r + [""] * (width - len(r)) for r in rows]
    header = _header_names([c or None for c in rows[0]], filename, notes)
    for i, numbers in sorted(unsaved.items()):
        notes.append(f"Column '{header[i]}': {len(numbers)} formula cell(s) have no saved result (rows "
                     f"{places_text(numbers)}) and were read as empty; open and save the file in your spreadsheet "
                     "program to store their results.")
    return _frame(rows[1:], places[1:], header, "row")


def _xlsx_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return _float_text(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def places_text(numbers: Sequence[int], limit: int = 10) -> str:
    """File places (lines, rows) for a message: the first ``limit``, then how many more."""
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" and {len(numbers) - limit:,} more" if len(numbers) > limit else "")


