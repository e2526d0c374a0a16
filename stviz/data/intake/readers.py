"""Reading users' pair files: bytes of CSV, TSV, JSONL or XLSX -> a frame of text cells with file line numbers.

A file is read exactly as its author meant it, or refused with one line that says where and why:

* text is decoded from its byte-order mark (UTF-8, UTF-16 and UTF-32, as Excel's "Unicode Text"
  export writes), from the NUL-byte pattern of UTF-16 without a mark, as UTF-8, or else as
  Windows-1252 (said in a note);
* the delimiter (comma, tab, semicolon or bar) is detected from the header and the first records,
  the records are split by Python's ``csv`` module (quotes, quoted newlines), and a record with
  the wrong number of fields is refused by its line number: no column is ever taken as an index;
* every cell is kept as text (``NA`` and ``n/a`` stay words; ``None``, ``NaN`` and ``null``, what programs write
  for a missing value, are read as missing when the frame becomes a dataset, and said); numbers are read
  only for the columns mapped to scores, where decimal commas are converted and anything that is
  not a finite number is left empty - each said per column, with its file line numbers;
* XLSX: any sheet can be chosen; formula cells without a stored result are reported.

Each row of the frame :func:`read_pairs_file` returns is labelled by where it is in the file: its
1-based line (CSV, TSV, JSONL), spreadsheet row (XLSX) or item number (JSON array), so notes about
dropped rows or unreadable values point at the right place.

:func:`decode_text` is the one text decoder of every file a user brings (also the released-output
folders of :mod:`stviz.data.released.outputs`). Which column plays which role is
:mod:`stviz.data.intake.mapping`'s job; turning the frame into a dataset, :mod:`stviz.data.intake.build`'s.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from typing import Sequence

import pandas as pd

from stviz.data.decoding import decode_text  # noqa: F401 - the one decoder, imported from here by outputs.py
from stviz.data.intake.cells import float_text
from stviz.data.intake.jsonfiles import read_json
from stviz.data.intake.layout import (DELIMITERS, check_reading_options, generated_names, header_names,
                                      lines_before_table, records_frame, table_for_reading, table_header)
from stviz.data.corpora.releases import released
from stviz.data.schema import DataError

SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".json", ".xlsx")
#: Compressed files are read as the file inside them (``pairs.csv.gz``), unpacked up to the upload limit.
COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}

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
def read_pairs_file(filename: str, data: bytes, sheet: str | None = None, header: str = "auto",
                    encoding: str | None = None, skip_rows: int | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Parse an uploaded file into a frame of text cells, with notes on every conversion made.

    The frame's index holds each row's place in the file (line, spreadsheet row or JSON item);
    ``sheet`` chooses an XLSX sheet (default: the first, named in a note when there are several);
    ``header`` is auto (detected), first or none; ``encoding`` overrides the detected one;
    ``skip_rows`` skips that many lines (rows) above the header (default: title rows detected).
    """
    notes: list[str] = []
    if len(data) > max_upload_bytes():
        raise DataError(too_large_message(filename, len(data)))
    filename, data = decompressed(filename, data, notes)
    suffix = os.path.splitext(filename.lower())[1]
    if suffix not in SUFFIXES:
        raise DataError(f"'{filename}': unsupported file type '{suffix or '(none)'}'; use CSV, TSV, JSONL or XLSX"
                        " (or one of them compressed: .gz, .bz2, .xz)")
    check_reading_options(header, skip_rows)
    if suffix == ".xlsx":
        frame = _read_xlsx(filename, data, sheet, notes, header, skip_rows)
    else:
        frame = _read_text_file(filename, data, suffix, notes, header, encoding, skip_rows)
    if frame.empty:
        raise DataError(f"'{filename}' has a header but no rows")
    notes.append(f"Read {len(frame):,} rows and {len(frame.columns)} columns from '{filename}'.")
    return released(frame, filename, notes), notes


def decompressed(filename: str, data: bytes, notes: list[str]) -> tuple[str, bytes]:
    """(name inside, bytes) of a ``.gz``/``.bz2``/``.xz`` file, unpacked up to the upload limit; else as given."""
    stem, suffix = os.path.splitext(filename)
    if suffix.lower() not in COMPRESSED:
        return filename, data
    import bz2
    import gzip
    import lzma

    module = {"gzip": gzip, "bz2": bz2, "lzma": lzma}[COMPRESSED[suffix.lower()]]
    limit = max_upload_bytes()
    try:
        with module.open(io.BytesIO(data)) as stream:
            inner = stream.read(limit + 1)  # never more than the limit in memory: a small bomb stays small
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise DataError(f"'{filename}' is not a readable {suffix} file ({exc}); compress it again, or upload the "
                        "file itself") from exc
    if len(inner) > limit:
        raise DataError(f"'{filename}' unpacks to more than {size_limit_text()}; set STVIZ_MAX_UPLOAD_MB to raise "
                        "the limit, or split the file")
    notes.append(f"'{filename}' was decompressed ({suffix}) and read as '{stem}'.")
    return stem, inner


def _read_text_file(filename: str, data: bytes, suffix: str, notes: list[str], header: str,
                    encoding: str | None, skip_rows: int | None) -> pd.DataFrame:
    if data[:4] == b"PK\x03\x04":
        raise DataError(f"'{filename}' is a zipped file (an Excel workbook?), not text; save it as .xlsx or CSV")
    text = decode_text(data, filename, notes, encoding=encoding)
    if not text.strip():
        raise DataError(f"'{filename}' is empty")
    if "\x00" in text:
        text = _without_nul_bytes(text, filename, notes)
    stripped = text.lstrip()
    if suffix in (".jsonl", ".json") or (stripped[:1] in "[{" and suffix == ".txt" and _looks_like_json(stripped)):
        return read_json(text, filename, notes)
    return _read_delimited(text, filename, suffix, notes, header, skip_rows)


#: Control characters no text file holds (tab, line ends, form feed and NUL aside): their presence means binary.
_BINARY = re.compile(r"[\x01-\x08\x0e-\x1f]")


def _without_nul_bytes(text: str, filename: str, notes: list[str]) -> str:
    """A few NUL bytes in a text file (a crashed write, a C tool's padding) are dropped and said; binary is refused."""
    if _BINARY.search(text[:65536]) or text.count("\x00") > 0.01 * len(text):
        raise DataError(f"'{filename}' is not a text file (it holds NUL and other control bytes); save it as CSV, TSV "
                        "or JSONL")
    lines = [i for i, line in enumerate(text.split("\n"), 1) if "\x00" in line]
    notes.append(f"'{filename}': {text.count(chr(0)):,} NUL byte(s) (on line(s) {places_text(lines)}) were removed; "
                 "check those lines.")
    return text.replace("\x00", "")


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


csv.field_size_limit(2**31 - 1)  # one long text must not stop the reader (the default limit is 128 KB)


def detect_delimiter(text: str, suffix: str) -> str:
    """The delimiter whose header has at least two fields and that splits the first records alike."""
    sample = text[:65536]
    preferred = "\t" if suffix in (".tsv", ".txt") else ","
    best, best_score = preferred, None
    for delimiter in DELIMITERS:
        counts = _field_counts(sample, delimiter)
        titles = next((k for k in range(min(3, len(counts))) if counts[k] > 1), 0)
        counts = counts[titles:]  # up to three title lines above the header
        if not counts or counts[0] < 2:
            continue
        body = counts[1:-1] if len(counts) > 2 else counts[1:]  # the sample's last record may be cut
        consistent = sum(c == counts[0] for c in body) / len(body) if body else 1.0
        # A delimiter that splits the first line beats one that must skip it as a title ('a;b;4,5' under 'x;y;z').
        score = (consistent, titles == 0, delimiter == preferred, counts[0])
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


def _read_delimited(text: str, filename: str, suffix: str, notes: list[str], header: str = "auto",
                    skip_rows: int | None = None) -> pd.DataFrame:
    text, delimiter = lines_before_table(text, filename, skip_rows or 0, notes)
    text = table_for_reading(text, filename, notes)
    if delimiter is None:
        delimiter = detect_delimiter(text, suffix)
        if delimiter != ("\t" if suffix in (".tsv", ".txt") else ","):
            notes.append(f"'{filename}' is {DELIMITERS[delimiter]}-separated; it was read as such.")
    records = _records(text, filename, delimiter, notes)
    if not records:
        raise DataError(f"'{filename}' is empty")
    names, records = table_header(records, filename, header, "line", notes, titles=skip_rows is None)
    width = len(names if names is not None else records[0][1])
    if width < 2:
        raise DataError(f"'{filename}' has one column only: no comma, tab, semicolon or vertical bar separates "
                        "its header; a pair file needs at least a source and an output column")
    rows, lines, bad = [], [], []
    for line, row in records:
        if len(row) > width and not any(c.strip() for c in row[width:]):
            row = row[:width]  # trailing empty fields ("a,b,"): nothing is lost
        if len(row) == width:
            rows.append(row)
            lines.append(line)
        else:
            bad.append((line, len(row)))
    if bad:
        # No row fits the first line, and the rest agree: that line is likely a title above the header.
        above = len(rows) <= (names is None) and len({n for _, n in bad}) == 1 and bad[0][1] > width
        raise DataError(_field_count_message(filename, bad, width, delimiter, every=above))
    columns = generated_names(width) if names is None else header_names(names, filename, notes)
    return records_frame(rows, lines, columns, "line")


def _records(text: str, filename: str, delimiter: str, notes: list[str]) -> list[tuple[int, list[str]]]:
    """The file's non-blank records with their first file line; a TSV whose quotes do not pair is read unquoted."""
    records, error = _parse(text, delimiter, csv.QUOTE_MINIMAL)
    if delimiter == "\t" and (error or not _consistent(records) or _quote_merged(records)):
        # TSV texts are seldom quoted: a '"' opening a text may never close and swallow lines.
        plain, plain_error = _parse(text, delimiter, csv.QUOTE_NONE)
        if plain_error is None and _consistent(plain):
            quoted = [line for line, cells in plain if any('"' in c for c in cells)]
            notes.append(f"'{filename}': the double quotes on line(s) {places_text(quoted)} do not enclose whole "
                         "texts, so quotes were read as part of the texts (TSV texts are not quoted).")
            return plain
    if error:
        line, exc = error
        raise DataError(f"'{filename}' line {line}: {exc} (a quote opened in a text and never closed?); "
                        "fix the quotes on that line") from exc
    return records


def _parse(text: str, delimiter: str, quoting: int):
    """(records, None) or (records so far, (line, csv.Error)): blank lines skipped, and counted."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True, quoting=quoting)
    records, start = [], 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                records.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        return records, (reader.line_num, exc)
    return records, None


def _consistent(records: list[tuple[int, list[str]]]) -> bool:
    if not records:
        return False
    width = len(records[0][1])
    return all(len(c) == width or (len(c) > width and not any(x.strip() for x in c[width:])) for _, c in records[1:])


def _quote_merged(records: list[tuple[int, list[str]]]) -> bool:
    # A quoted text holding a tab and a line break is most likely two lines swallowed by a stray quote.
    return any("\t" in c and "\n" in c for _, cells in records for c in cells)


def _field_count_message(filename: str, bad: list[tuple[int, int]], expected: int, delimiter: str,
                         every: bool = False) -> str:
    line, fields = bad[0]
    more = f"; so do {len(bad) - 1:,} more line(s): {', '.join(str(b[0]) for b in bad[1:6])}{' ...' if len(bad) > 6 else ''}" \
        if len(bad) > 1 else ""
    if every:  # no row fits the header: the 'header' is more likely a line above it
        return (f"'{filename}' line {line} has {fields} fields but the header has {expected}{more}. If the header "
                "is not the first line, skip the lines above it with --skip-rows N")
    return (f"'{filename}' line {line} has {fields} fields but the header has {expected}{more}. "
            f"Put texts that contain a {DELIMITERS[delimiter]} in double quotes, or fix those lines")


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


def _read_xlsx(filename: str, data: bytes, sheet: str | None, notes: list[str], header: str = "auto",
               skip_rows: int | None = None) -> pd.DataFrame:
    values_wb = _open_workbook(data, filename, data_only=True)
    formulas_wb = _open_workbook(data, filename, data_only=False)
    try:
        sheet = _chosen_sheet(filename, values_wb, sheet, notes)
        records, unsaved = _sheet_records(values_wb[sheet], formulas_wb[sheet], skip_rows or 0)
    finally:
        values_wb.close()
        formulas_wb.close()
    if skip_rows:
        notes.append(f"'{filename}': the first {skip_rows} row(s) of sheet '{sheet}' were skipped (--skip-rows).")
    if not records:
        raise DataError(f"sheet '{sheet}' of '{filename}' is empty")
    width = max(len(cells) for _, cells in records)
    records = [(place, cells + [""] * (width - len(cells))) for place, cells in records]
    names, records = table_header(records, filename, header, "row", notes, titles=skip_rows is None)
    columns = generated_names(width) if names is None else header_names([c or None for c in names], filename, notes)
    for i, numbers in sorted(unsaved.items()):
        notes.append(f"Column '{columns[i]}': {len(numbers)} formula cell(s) have no saved result (rows "
                     f"{places_text(numbers)}) and were read as empty; open and save the file in your spreadsheet "
                     "program to store their results.")
    return records_frame([cells for _, cells in records], [place for place, _ in records], columns, "row")


def _chosen_sheet(filename: str, workbook, sheet: str | None, notes: list[str]) -> str:
    """The sheet named, else the first when it holds a table, else the only one that does (said); else refused."""
    names = list(workbook.sheetnames)
    listed = ", ".join(repr(n) for n in names)
    if sheet is None:
        if len(names) == 1 or _holds_table(workbook[names[0]]):
            if len(names) > 1:
                notes.append(f"'{filename}' has {len(names)} sheets ({listed}); "
                             f"the first, '{names[0]}', was read. Choose another sheet to read it instead.")
            return names[0]
        # A cover or notes sheet first: the data are elsewhere, and only an unambiguous choice is made for the user.
        tables = [n for n in names[1:] if _holds_table(workbook[n])]
        if len(tables) == 1:
            notes.append(f"'{filename}': the first sheet, '{names[0]}', holds no table; sheet '{tables[0]}', the only "
                         f"one that does, was read (sheets: {listed}; --sheet NAME reads another).")
            return tables[0]
        which = (f"sheets {', '.join(repr(n) for n in tables)} do" if tables else "no sheet does")
        raise DataError(f"'{filename}': the first sheet, '{names[0]}', holds no table and {which} (sheets: {listed}); "
                        "choose the sheet with --sheet NAME (on the page: the sheet choice)")
    if sheet not in names:
        raise DataError(f"'{filename}' has no sheet '{sheet}'; its sheets: {', '.join(repr(n) for n in names)}")
    return sheet


def _holds_table(worksheet, rows: int = 200) -> bool:
    """Whether a sheet's first rows hold a table: two rows with at least two filled cells."""
    wide = 0
    for values in worksheet.iter_rows(values_only=True, max_row=rows):
        if sum(1 for v in values if v is not None and str(v).strip()) >= 2:
            wide += 1
            if wide >= 2:
                return True
    return False


def _sheet_records(values_sheet, formulas_sheet, skip_rows: int) -> tuple[list, dict[int, list[int]]]:
    """The sheet's non-empty rows below ``skip_rows`` as (row number, cells), and formula cells without a result."""
    records, unsaved = [], {}
    value_rows = values_sheet.iter_rows(values_only=True)
    formula_rows = formulas_sheet.iter_rows(values_only=True)
    for number, (values, formulas) in enumerate(zip(value_rows, formula_rows), 1):
        if number <= skip_rows:
            continue
        cells = [_xlsx_cell(v) for v in values]
        for i, (v, f) in enumerate(zip(values, formulas)):
            if v is None and isinstance(f, str) and f.startswith("="):
                unsaved.setdefault(i, []).append(number)
        if any(str(c).strip() for c in cells):
            records.append((number, cells))
    return records, unsaved


def _xlsx_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return float_text(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def places_text(numbers: Sequence[int], limit: int = 10) -> str:
    """File places (lines, rows) for a message: the first ``limit``, then how many more."""
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" and {len(numbers) - limit:,} more" if len(numbers) > limit else "")


