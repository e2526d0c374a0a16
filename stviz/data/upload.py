"""Users' own pair files: CSV, TSV, JSONL and XLSX, with column detection and a confirmed mapping.

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
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import re
import warnings
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import (HUMAN_PREFIX, METRIC_PREFIX, RATER_PREFIX, REFERENCE_PREFIX, DataError, Dataset,
                               higher_is_better_guess, rater_stem)

SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".json", ".xlsx")
#: Roles one column at most can play (references, human scores, metrics and raters may be many).
ROLES = ("source", "output", "system", "setting", "source_style", "target_style")
#: Every role a column can be given, as the page and ``--columns`` name them.
ALL_ROLES = ROLES + ("reference", "human", "human-lower", "metric", "rater")
DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}

#: The one upload size limit (1 MB = 1,048,576 bytes, as Streamlit counts), unless
#: ``$STVIZ_MAX_UPLOAD_MB`` says otherwise; the page, the CLI and the README state it alike.
DEFAULT_MAX_UPLOAD_MB = 200
MB = 1024 * 1024

# Column names people use for each role, compared case- and punctuation-insensitively.
SYNONYMS = {
    "source": ("source", "src", "input", "original", "text1", "textfirst", "inputtextfirst", "sentence1", "sourcetext", "inputtext"),
    "output": ("output", "transferred", "prediction", "pred", "hypothesis", "hyp", "generated", "text2", "textsecond",
               "inputtextsecond", "sentence2", "outputtext", "rewrite", "transfer"),
    "system": ("system", "model", "method", "systemname"),
    "setting": ("setting", "config", "configuration", "param", "parameter", "hyperparameter"),
    "source_style": ("sourcestyle", "srcstyle", "fromstyle", "style", "label", "inputstyle"),
    "target_style": ("targetstyle", "tgtstyle", "tostyle", "outputstyle"),
}
REFERENCE_NAMES = re.compile(r"^(reference|references|ref|refs|gold|goldreference|referenceoutput|target|human_?rewrite)(\d*)$")
#: Words that make a numeric column a human judgement ("human_fluency", "avg_score", "rating", "MOS").
HUMAN_WORDS = {"human", "humans", "rating", "ratings", "rated", "judgment", "judgement", "judgments", "judgements",
               "annotation", "annotations", "annotator", "likert", "mos", "crowd", "vote", "votes", "manual"}
#: A name made only of these words is a human score too ("score", "avg_score", "mean score", "overall").
SCORE_WORDS = {"score", "scores", "avg", "average", "mean", "median", "overall", "final", "total", "gold", "human"}
#: Words of automatic metrics: "bleu_score" or "bert_score" are metrics, never human scores.
METRIC_WORDS = ("bleu", "chrf", "meteor", "rouge", "bertscore", "bert", "bleurt", "comet", "ter", "wmd", "cosine",
                "cossim", "sim", "similarity", "ppl", "perplexity", "accuracy", "acc", "prob", "logprob", "ner",
                "gleu", "sari", "mover", "bartscore", "metric", "auto", "automatic", "classifier")
#: Stems of per-annotator columns ("label_1", "rater2", "annotator_3", "score_a1").
RATER_WORDS = ("rater", "annotator", "judge", "worker", "coder", "assessor", "label", "rating", "score", "vote",
               "annotation", "human", "crowd", "turker", "participant", "evaluator")
NA_WORDS = ("na", "n/a", "nan", "none", "null", "-", "--", "?", "missing")


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
        raise DataError(_too_large(filename, len(data)))
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


def _too_large(filename: str, size: int) -> str:
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
                     f"{_places(numbers)}) and were read as empty; open and save the file in your spreadsheet "
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


def _places(numbers: Sequence[int], limit: int = 10) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" and {len(numbers) - limit:,} more" if len(numbers) > limit else "")


# -- mapping ----------------------------------------------------------------------------------------
@dataclass
class ColumnMapping:
    """Which file column plays which role.

    ``roles``: the one-column roles (:data:`ROLES`); ``references``: reference columns in order
    (they become ``reference``, ``reference:2``, ...); ``human``: human-score columns, with
    ``directions[column]`` True when higher is better; ``metrics``: precomputed metric columns;
    ``raters``: per-annotator scores (kept as ``rater:`` columns, never metrics), whose mean is
    added as a human score when ``rater_mean``.
    """

    roles: dict[str, str] = field(default_factory=dict)
    human: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    raters: list[str] = field(default_factory=list)
    directions: dict[str, bool] = field(default_factory=dict)
    rater_mean: bool = True

    def __post_init__(self) -> None:
        if "reference" in self.roles:  # the older one-reference form
            ref = self.roles.pop("reference")
            if ref and ref not in self.references:
                self.references.insert(0, ref)

    def higher_is_better(self, column: str) -> bool:
        """Direction of a human column: as confirmed, else guessed from its name."""
        return self.directions.get(column, higher_is_better_guess(column))

    def with_human(self, column: str, higher_is_better: bool | None = None) -> "ColumnMapping":
        """A copy where ``column`` is a human score (taken from the metric or rater columns if there)."""
        taken = [role for role, col in self.roles.items() if col == column] + (["reference"] if column in self.references else [])
        if taken:
            raise DataError(f"column '{column}' is mapped to '{taken[0]}'; it cannot also be a human score")
        directions = dict(self.directions)
        if higher_is_better is not None:
            directions[column] = higher_is_better
        return replace(self, human=self.human + ([column] if column not in self.human else []),
                       metrics=[c for c in self.metrics if c != column], raters=[c for c in self.raters if c != column],
                       roles=dict(self.roles), references=list(self.references), directions=directions)

    def assignments(self) -> list[tuple[str, str]]:
        """(column, role) for every mapped column, in role order."""
        out = [(self.roles[role], role) for role in ROLES if self.roles.get(role)]
        out += [(col, "reference") for col in self.references]
        out += [(col, "human") for col in self.human]
        out += [(col, "metric") for col in self.metrics]
        out += [(col, "rater") for col in self.raters]
        return out

    def describe(self) -> str:
        """One line naming every mapped column, as ``--columns`` takes it."""
        parts = [f"{role}={self.roles[role]}" for role in ROLES if self.roles.get(role)]
        parts += [f"reference={col}" for col in self.references]
        parts += [f"{'human' if self.higher_is_better(c) else 'human-lower'}={c}" for c in self.human]
        parts += [f"metric={col}" for col in self.metrics]
        parts += [f"rater={col}" for col in self.raters]
        return ",".join(parts)


def _norm(name: object) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _words(name: object) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+|(?<=[a-z])(?=[0-9])", str(name).lower()) if w]


def is_human_name(name: str) -> bool:
    """Whether a column's name says it holds human judgements ('human_fluency', 'avg_score', 'rating')."""
    words = _words(name)
    if not words or is_metric_name(name):
        return False
    return bool(HUMAN_WORDS & set(words)) or (set(words) <= SCORE_WORDS and bool({"score", "scores"} & set(words) or
                                                                           len(words) == 1))


def is_metric_name(name: str) -> bool:
    """Whether a column's name is that of an automatic metric ('bleu_score', 'bertscore_f1')."""
    norm, words = _norm(name), set(_words(name))
    return any(w in words for w in METRIC_WORDS) or any(norm.startswith(m) for m in ("bleu", "chrf", "bertscore",
                                                                                     "bleurt", "meteor", "rouge"))


def detect_mapping(frame: pd.DataFrame) -> ColumnMapping:
    """Guess each column's role from its name and content; the user confirms or changes it."""
    mapping = ColumnMapping()
    used: set[str] = set()
    for role in ROLES:
        for col in frame.columns:
            if col not in used and _norm(col) in SYNONYMS[role]:
                mapping.roles[role] = col
                used.add(col)
                break
    mapping.references = _reference_columns(frame, used)
    used.update(mapping.references)
    numeric = {c: numeric_share(frame[c]) for c in frame.columns if c not in used}
    text_cols = [c for c in frame.columns if c not in used and numeric[c] < 0.95 and not _is_list_column(frame[c])]
    # Files with unnamed text columns: the first two text columns are source and output.
    for role in ("source", "output"):
        if role not in mapping.roles and text_cols:
            mapping.roles[role] = text_cols.pop(0)
            used.add(mapping.roles[role])
    mapping.raters = _rater_columns([c for c in frame.columns if c not in used and numeric[c] >= 0.5])
    used.update(mapping.raters)
    for col in frame.columns:
        if col in used:
            continue
        # A column named like a human score is taken even with some unreadable cells (reported later).
        if is_human_name(col) and numeric[col] >= 0.5:
            mapping.human.append(col)
            mapping.directions[col] = higher_is_better_guess(col)
        elif numeric[col] >= 0.95:
            mapping.metrics.append(col)
    if mapping.raters:
        mean = rater_means(frame, mapping.raters)
        # A column that already holds the raters' mean (avg_score beside label_1..3) needs no second copy.
        mapping.rater_mean = not any(np.allclose(parse_numbers(frame[c])[0], mean, equal_nan=True, atol=1e-6)
                                     for c in mapping.human)
    return mapping


def _reference_columns(frame: pd.DataFrame, used: set[str]) -> list[str]:
    found = []
    for col in frame.columns:
        match = REFERENCE_NAMES.match(_norm(col))
        if col not in used and match and numeric_share(frame[col]) < 0.5:
            found.append((int(match.group(2) or 0), list(frame.columns).index(col), col))
    return [col for _, _, col in sorted(found)]


def _rater_columns(candidates: Sequence[str]) -> list[str]:
    """Columns named STEM + number that share a rater-like stem with another: one annotator each."""
    groups: dict[str, list[str]] = {}
    for col in candidates:
        stem = rater_stem(col)
        if stem is not None and any(w in RATER_WORDS for w in _words(stem) or [stem]) and not is_metric_name(stem):
            groups.setdefault(stem, []).append(col)
    return [c for cols in groups.values() if len(cols) >= 2 for c in cols]


def numeric_share(series: pd.Series) -> float:
    """Share of the non-empty cells that read as numbers (decimal commas included)."""
    text = _as_text(series)
    present = text.ne("") & ~text.str.lower().isin(NA_WORDS)
    if not present.any():
        return 0.0
    values, _ = parse_numbers(series)
    return float(np.isfinite(values[present.to_numpy()]).mean())


def _as_text(series: pd.Series) -> pd.Series:
    return series.map(lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)).str.strip()


_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")


def parse_numbers(series: pd.Series) -> tuple[np.ndarray, dict]:
    """A text column as floats (NaN where empty or unreadable) and what was done: decimal commas, unreadable cells.

    Decimal commas ('4,5') are read as decimals when no cell of the column uses a decimal point;
    infinities and NaN written out are not scores, so they count as unreadable.
    """
    text = _as_text(series)
    comma = text.str.match(_DECIMAL_COMMA)
    converted = int(comma.sum()) if comma.any() and not text.str.contains(".", regex=False).any() else 0
    if converted:
        text = text.where(~comma, text.str.replace(",", ".", regex=False))
    values = pd.to_numeric(text.where(text.ne("")), errors="coerce").to_numpy(dtype=float, copy=True)
    bad = text.ne("").to_numpy() & ~np.isfinite(values)
    values[bad] = np.nan
    return values, {"decimal_commas": converted, "unreadable": bad,
                    "example_comma": series[comma.to_numpy()].iloc[0] if converted else None}


def rater_means(frame: pd.DataFrame, raters: Sequence[str]) -> np.ndarray:
    """Per row, the mean of the raters' scores that could be read (NaN when none)."""
    matrix = np.column_stack([parse_numbers(frame[c])[0] for c in raters])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows stay NaN
        return np.nanmean(matrix, axis=1)


def _is_list_column(series: pd.Series) -> bool:
    """Whether every non-empty cell holds a list (a JSON list, or a list from JSONL)."""
    present = [v for v in series if not (isinstance(v, str) and not v.strip())]
    return bool(present) and all(isinstance(v, list) or _json_list(v) is not None for v in present)


def _json_list(value: object) -> list[str] | None:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        if isinstance(parsed, list) and all(isinstance(v, str) for v in parsed):
            return parsed
    return None


# "source-style" and "source_style", "human_lower" and "human-lower" name the same role.
_ROLE_ALIASES = {alias: role for role in ALL_ROLES for alias in (role, role.replace("_", "-"), role.replace("-", "_"))}


# -- --columns ------------------------------------------------------------------------------------
def parse_columns_spec(spec: str, frame: pd.DataFrame, detected: ColumnMapping | None = None) -> ColumnMapping:
    """Apply ``role=COL,role=COL,...`` (the CLI's ``--columns``) over the detected mapping.

    Roles are those of the upload page (:data:`ALL_ROLES`); list roles (reference, human,
    human-lower, metric, rater) may repeat. A role named replaces what was detected for it;
    ``role=`` with no column clears it.
    """
    mapping = detected or detect_mapping(frame)
    given: dict[str, list[str]] = {}
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        role, sep, column = part.partition("=")
        role, column = _ROLE_ALIASES.get(role.strip().lower(), role.strip()), column.strip()
        if not sep or role not in ALL_ROLES:
            raise DataError(f"--columns: '{part}' is not ROLE=COLUMN; roles: {', '.join(ALL_ROLES)}")
        if column and column not in frame.columns:
            raise DataError(f"--columns: no column '{column}' in the file; it has: {', '.join(map(str, frame.columns))}")
        given.setdefault(role, [])
        if column:
            given[role].append(column)
    roles = dict(mapping.roles)
    for role in ROLES:
        if role in given:
            if len(given[role]) > 1:
                raise DataError(f"--columns: '{role}' is given {len(given[role])} columns; it takes one")
            roles.pop(role, None)
            if given[role]:
                roles[role] = given[role][0]
    directions = dict(mapping.directions)
    human = mapping.human
    if "human" in given or "human-lower" in given:
        human = given.get("human", []) + given.get("human-lower", [])
        directions.update({c: True for c in given.get("human", [])})
        directions.update({c: False for c in given.get("human-lower", [])})
    chosen = ColumnMapping(
        roles=roles, human=human, directions=directions,
        metrics=given.get("metric", mapping.metrics), references=given.get("reference", mapping.references),
        raters=given.get("rater", mapping.raters), rater_mean=mapping.rater_mean,
    )
    # A column named for one role leaves the detected role it had (e.g. a detected metric made a human score).
    named = {c for cols in given.values() for c in cols}
    for role, cols in (("metric", "metrics"), ("reference", "references"), ("rater", "raters")):
        if role not in given:
            setattr(chosen, cols, [c for c in getattr(chosen, cols) if c not in named])
    if "human" not in given and "human-lower" not in given:
        chosen.human = [c for c in chosen.human if c not in named]
    for role in ROLES:
        if role not in given and chosen.roles.get(role) in named:
            chosen.roles.pop(role)
    return chosen


# -- building the dataset ---------------------------------------------------------------------------
ROLE_NAMES = {"source": "source", "output": "output", "system": "system", "setting": "setting",
              "source_style": "source style", "target_style": "target style", "reference": "reference",
              "human": "human score", "metric": "metric", "rater": "rater"}


def check_mapping(frame: pd.DataFrame, mapping: ColumnMapping) -> None:
    """Refuse a mapping with a missing source/output, an unknown column, or a column in two roles."""
    for role in ("source", "output"):
        if not mapping.roles.get(role):
            raise DataError(f"no column is mapped to '{role}'; the file has: {', '.join(map(str, frame.columns))}")
    seen: dict[str, str] = {}
    for col, role in mapping.assignments():
        if col not in frame.columns:
            raise DataError(f"column '{col}' (mapped to '{ROLE_NAMES[role]}') is not in the file")
        if col in seen:
            roles = (ROLE_NAMES[seen[col]], ROLE_NAMES[role])
            raise DataError(f"column '{col}' is mapped twice ({roles[0]} and {roles[1]}): "
                            "give each column one role")
        seen[col] = role


def apply_mapping(frame: pd.DataFrame, mapping: ColumnMapping, name: str = "upload",
                  title: str | None = None) -> Dataset:
    """Build a Dataset from the file and a confirmed mapping, reporting every conversion and dropped row."""
    check_mapping(frame, mapping)
    notes: list[str] = []
    place = frame.index.name or "row"
    pairs = pd.DataFrame(index=frame.index)
    for role, col in mapping.roles.items():
        pairs[role] = _as_text(frame[col])
    for i, column in enumerate(_reference_texts(frame, mapping.references, notes)):
        pairs["reference" if i == 0 else f"{REFERENCE_PREFIX}{i + 1}"] = column
    directions: dict[str, bool] = {}
    taken = set(pairs.columns)
    for col in mapping.human:
        target = _unique(HUMAN_PREFIX + _label(col, "human"), HUMAN_PREFIX + col, taken)
        pairs[target] = _scores(frame[col], col, place, notes)
        directions[target] = mapping.higher_is_better(col)
    for col in mapping.metrics:
        pairs[_unique(METRIC_PREFIX + _label(col, "metric"), METRIC_PREFIX + col, taken)] = _scores(frame[col], col, place, notes)
    for col in mapping.raters:
        pairs[RATER_PREFIX + col] = _scores(frame[col], col, place, notes)
    pairs = _drop_unusable_rows(pairs, place, notes)
    ds = Dataset(name=name, title=title or f"Uploaded: {name}", pairs=pairs.reset_index(drop=True), notes=notes,
                 human_direction=directions)
    if mapping.raters:
        _add_rater_means(ds, mapping, taken)
    return ds


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


def _scores(series: pd.Series, col: str, place: str, notes: list[str]) -> np.ndarray:
    values, done = parse_numbers(series)
    if done["decimal_commas"]:
        notes.append(f"Column '{col}': {done['decimal_commas']:,} value(s) with a decimal comma (e.g. "
                     f"'{done['example_comma']}') were read as decimal numbers.")
    bad = done["unreadable"]
    if bad.any():
        where = series.index[bad]
        shown = ", ".join(f"{n} ({str(series.loc[n]).strip()[:20]!r})" for n in where[:5])
        notes.append(f"Column '{col}': {int(bad.sum()):,} value(s) are not finite numbers and were left empty "
                     f"({place}s {shown}{' ...' if bad.sum() > 5 else ''}).")
    return values


def _reference_texts(frame: pd.DataFrame, columns: Sequence[str], notes: list[str]) -> list[pd.Series]:
    out: list[pd.Series] = []
    for col in columns:
        if _is_list_column(frame[col]):
            lists = frame[col].map(lambda v: _json_list(v) or [])
            width = int(lists.map(len).max()) if len(lists) else 0
            for k in range(width):
                out.append(lists.map(lambda refs, k=k: refs[k].strip() if k < len(refs) else ""))
            notes.append(f"Column '{col}' holds lists of up to {width} references per pair; each is used.")
        else:
            out.append(_as_text(frame[col]))
    return out


def _add_rater_means(ds: Dataset, mapping: ColumnMapping, taken: set[str]) -> None:
    agreements = ds.rater_agreement()
    for stem, columns in ds.rater_groups.items():
        agreement = agreements.get(stem)
        if agreement is not None:
            ds.notes.append(f"{len(columns)} raters ({', '.join(c[len(RATER_PREFIX):] for c in columns)}): "
                            f"Krippendorff's alpha (interval) = {agreement.alpha:.3f} over {agreement.units:,} pairs "
                            "rated by at least two of them.")
        if mapping.rater_mean:
            target = _unique(f"{HUMAN_PREFIX}{stem}_mean", f"{HUMAN_PREFIX}{stem} (mean of raters)", taken | set(ds.pairs))
            ds.pairs[target] = ds.pairs[columns].mean(axis=1, skipna=True)
            ds.human_direction[target] = higher_is_better_guess(stem)
            ds.notes.append(f"'{target[len(HUMAN_PREFIX):]}' is the mean of the {len(columns)} raters' scores, offered as "
                            "a human score; the raters themselves are never ranked as metrics.")


def _drop_unusable_rows(pairs: pd.DataFrame, place: str, notes: list[str]) -> pd.DataFrame:
    empty = pairs["source"].eq("") | pairs["output"].eq("")
    if empty.any():
        notes.append(f"Dropped {int(empty.sum()):,} row(s) with an empty source or output "
                     f"({place}s {_places(list(pairs.index[empty]))}).")
        pairs = pairs[~empty]
    if pairs.empty:
        raise DataError("no row has both a source and an output text")
    dupes = pairs.duplicated()
    if dupes.any():
        notes.append(f"Dropped {int(dupes.sum()):,} exact duplicate row(s) ({place}s {_places(list(pairs.index[dupes]))}: "
                     "same texts, system and scores as an earlier row); the first of each was kept.")
        pairs = pairs[~dupes]
    return pairs


def load_pairs_file(path: str | os.PathLike, columns: str | None = None, sheet: str | None = None,
                    extra_human: Iterable[str] = ()) -> tuple[Dataset, ColumnMapping, list[str]]:
    """Read a pair file from disk with the detected (or ``--columns``-given) mapping: (dataset, mapping, notes).

    ``extra_human`` names columns to use as human scores besides the mapped ones (the CLI's
    ``--human COL``), taken out of any metric or rater role they were detected in.
    """
    from pathlib import Path

    path = Path(path)
    size = path.stat().st_size
    if size > max_upload_bytes():  # said before a huge file is read into memory
        raise DataError(_too_large(path.name, size))
    frame, notes = read_pairs_file(path.name, path.read_bytes(), sheet=sheet)
    mapping = parse_columns_spec(columns, frame) if columns else detect_mapping(frame)
    for col in extra_human:
        if col not in frame.columns:
            raise DataError(f"no column '{col}' in '{path.name}'; it has: {', '.join(map(str, frame.columns))}")
        mapping = mapping.with_human(col)
    ds = apply_mapping(frame, mapping, name=path.stem, title=path.name)
    return ds, mapping, notes
