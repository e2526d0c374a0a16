"""Where the table of a user's file starts and which line is its header.

Spreadsheets and scripts put more than a table in a file: Excel's ``sep=;`` hint, ``# exported
by ...`` comment lines, a title row above the header, no header at all, or the header again
half-way down when two exports were joined. Each is handled here and said in a note with its
file lines, so that no such line is ever read as a pair or a pair as column names; the user can
say what the reader could not guess (``--skip-rows N``, ``--header first|none``).

Records are ``(place, cells)``: the file line (CSV, TSV) or spreadsheet row (XLSX) and the cells.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.intake.cells import numeric_share
from stviz.data.intake.mapping import REFERENCE_NAMES, SYNONYMS, is_human_name, is_metric_name
from stviz.data.schema import DataError

#: ``--header``: detect it (auto), the first line is the header (first), or there is none (none).
HEADER_CHOICES = ("auto", "first", "none")
_SEP_LINE = re.compile(r"^\ufeff?sep=(.)\s*$", re.I)
DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}
#: Generic column names that are not roles but are never sentences either.
_GENERIC_NAMES = {"id", "idx", "text", "texts", "sentence", "sentences", "pair", "pairs", "lang", "language",
                  "domain", "split", "category", "comment", "comments", "note", "notes", "index", "item", "name"}

Record = tuple[int, list[str]]


def check_reading_options(header: str, skip_rows: int | None) -> None:
    """Refuse a ``--header`` or ``--skip-rows`` value the reader does not know."""
    if header not in HEADER_CHOICES:
        raise DataError(f"--header: '{header}' is not one of {', '.join(HEADER_CHOICES)}")
    if skip_rows is not None and skip_rows < 0:
        raise DataError(f"--skip-rows: {skip_rows} is negative; give the number of lines above the header")


# -- lines before the table (CSV, TSV) ---------------------------------------------------------------
def lines_before_table(text: str, filename: str, skip_rows: int, notes: list[str]) -> tuple[str, str | None]:
    """Blank the lines above the table (``skip_rows``, a ``sep=X`` line, ``#`` comments): (text, delimiter or None).

    Lines are blanked, not removed, so every later line keeps its file number.
    """
    lines = text.split("\n", skip_rows + 200)  # the head is enough: what comes above a header is short
    for i in range(min(skip_rows, len(lines))):
        lines[i] = ""
    if skip_rows:
        notes.append(f"'{filename}': the first {skip_rows} line(s) were skipped (--skip-rows).")
    start = _first_filled(lines, skip_rows)
    delimiter = None
    if start is not None and _SEP_LINE.match(lines[start].rstrip("\r")):
        delimiter = _SEP_LINE.match(lines[start].rstrip("\r")).group(1)
        notes.append(f"'{filename}' line {start + 1} is {lines[start].strip()!r} (a hint spreadsheets write): "
                     f"the file was read as {DELIMITERS.get(delimiter, repr(delimiter))}-separated.")
        lines[start] = ""
    comments = _comment_lines(lines, _first_filled(lines, start or 0))
    for i in comments:
        lines[i] = ""
    if comments:
        notes.append(f"'{filename}': {len(comments)} comment line(s) above the header (line(s) "
                     f"{', '.join(str(i + 1) for i in comments)}, starting with '#') were skipped.")
    return "\n".join(lines), delimiter


def _first_filled(lines: list[str], start: int) -> int | None:
    return next((i for i in range(start, len(lines) - 1) if lines[i].strip()), None)


def _comment_lines(lines: list[str], start: int | None) -> list[int]:
    """Leading lines that start with '#': comments unless they look like a header ('#id,source,output')."""
    if start is None:
        return []
    found = []
    i = start
    while i < len(lines) - 1 and (lines[i].lstrip("\ufeff").startswith("#") or not lines[i].strip()):
        if lines[i].strip():
            found.append(i)
        i += 1
    following = lines[i].split("\n", 1)[0] if i < len(lines) else ""
    # '# exported by ...' is a comment; '#id,source,output' (as wide as the line below) is a header.
    return [j for j in found if re.match(r"#(\W|$)", lines[j].lstrip("\ufeff")) or _width(lines[j]) != _width(following)]


def _width(line: str) -> int:
    return max(line.count(d) for d in DELIMITERS)


# -- tables written for reading, not for programs (Markdown, LaTeX) --------------------------------------
_MD_RULE = re.compile(r"^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-{0,}:?\s*\|?\s*$")
_LATEX_ROW = re.compile(r"&.*\\\\\s*(\\hline)?\s*$")


def table_for_reading(text: str, filename: str, notes: list[str]) -> str:
    """A Markdown table (``| a | b |`` over ``|---|---|``) as bar-separated rows; a LaTeX table refused.

    The rule under a Markdown header is not a pair and the outer bars are not empty columns; LaTeX cells
    hold escapes (``\\&``, ``\\%``, ``{\\em x}``) that cannot be read back exactly, so it is refused.
    """
    lines = text.split("\n", 60)
    filled = [(i, line.strip()) for i, line in enumerate(lines[:60]) if line.strip()]
    if sum(bool(_LATEX_ROW.search(line)) for _, line in filled[:10]) >= 2:
        first = next(i for i, line in filled if _LATEX_ROW.search(line)) + 1
        raise DataError(f"'{filename}' is a LaTeX table (cells separated by '&', rows ending in '\\\\', line {first}); "
                        "its escapes cannot be read back exactly: export the table as CSV or TSV instead")
    if len(filled) < 2 or not filled[0][1].startswith("|") or not _MD_RULE.match(filled[1][1]):
        return text
    all_lines = text.split("\n")
    escaped = [i + 1 for i, line in enumerate(all_lines) if "\\|" in line]
    if escaped:
        raise DataError(f"'{filename}' is a Markdown table with '\\|' inside a cell (line {escaped[0]}); export the "
                        "table as CSV or TSV instead")
    rule = filled[1][0]
    for i, line in enumerate(all_lines):
        stripped = line.strip()
        if i == rule:
            all_lines[i] = ""  # blanked, not removed: every later line keeps its number
        elif stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
            all_lines[i] = stripped[1:-1]
    notes.append(f"'{filename}' is a Markdown table: its rule (line {rule + 1}) and outer bars were left out.")
    return "\n".join(all_lines)


# -- the header -------------------------------------------------------------------------------------
def table_header(records: list[Record], filename: str, header: str, place: str, notes: list[str],
                 titles: bool) -> tuple[list[object] | None, list[Record]]:
    """The header's cells (None for none) and the records below it, after title rows and repeated headers.

    ``titles``: look for title rows above the header (not when ``--skip-rows`` said where it starts).
    """
    if titles and header == "auto":
        records = _skip_titles(records, filename, place, notes)
    if header == "none" or (header == "auto" and _first_row_is_data(records, filename, place, notes)):
        return None, records
    first, body = records[0], records[1:]
    if header == "auto" and not any(_is_name(c) for c in first[1]):
        notes.append(f"'{filename}': none of the names in the header ({place} {first[0]}: "
                     f"{', '.join(repr(str(c)) for c in first[1][:4])}) is a column name stviz knows; if that "
                     f"{place} is a pair rather than column names, read the file with --header none.")
    return first[1], _drop_repeated_headers(first[1], body, filename, place, notes)


def _skip_titles(records: list[Record], filename: str, place: str, notes: list[str]) -> list[Record]:
    """Leading rows with one filled cell above a wider row: a title (often merged across the table)."""
    k = 0
    while k + 1 < len(records) and _filled(records[k][1]) == 1:
        k += 1
    if k and _filled(records[k][1]) >= 2:
        titles = "; ".join(f"{place} {p}: {next(c for c in cells if str(c).strip())!r}" for p, cells in records[:k])
        notes.append(f"'{filename}': {k} title {place}(s) above the header were skipped ({titles}); the header is "
                     f"{place} {records[k][0]}. Use --skip-rows N to choose another.")
        return records[k:]
    return records


def _filled(cells: Sequence[object]) -> int:
    return sum(1 for c in cells if str(c).strip())


def _is_name(cell: object) -> bool:
    """Whether a cell reads as a column name stviz knows (a role, a score, a metric, a generic name)."""
    text = str(cell).strip().lstrip("\ufeff#")
    if not text or len(text.split()) > 3:
        return False
    leaf = re.sub(r"[^a-z0-9]", "", text.lower().rsplit(".", 1)[-1])
    return (any(leaf in names for names in SYNONYMS.values()) or bool(REFERENCE_NAMES.match(leaf))
            or leaf in _GENERIC_NAMES or is_human_name(text) or is_metric_name(text))


def _is_sentence(cell: object) -> bool:
    """A text no header names a column with: four words or more, or a sentence's end."""
    text = str(cell).strip()
    return len(text.split()) >= 4 or bool(re.search(r"\w[.!?…]$", text) and len(text.split()) >= 2)


def _first_row_is_data(records: list[Record], filename: str, place: str, notes: list[str]) -> bool:
    """A first row with no known name but a sentence, or a number over a column of numbers, is a pair."""
    (line, first), body = records[0], records[1:]
    if any(_is_name(c) for c in first):
        return False
    sentence = next((c for c in first if _is_sentence(c)), None)
    number = next((c for i, c in enumerate(first) if _number_over_numbers(c, i, body)), None)
    example = sentence if sentence is not None else number
    if example is None:
        return False
    why = "a sentence" if sentence is not None else "a number above a column of numbers"
    notes.append(f"'{filename}' has no header: {place} {line} holds {why} ({str(example)[:40]!r}), not column "
                 f"names, so it was read as a pair and the columns named column 1..{len(first)}. Name their roles "
                 "with --columns; if that line is the header, read the file with --header first.")
    return True


def _number_over_numbers(cell: object, i: int, body: list[Record]) -> bool:
    if not body or numeric_share(pd.Series([cell], dtype=object)) < 1:
        return False
    return numeric_share(pd.Series([cells[i] if i < len(cells) else "" for _, cells in body], dtype=object)) >= 0.95


def _drop_repeated_headers(header: list[object], body: list[Record], filename: str, place: str,
                           notes: list[str]) -> list[Record]:
    """Rows equal to the header (two exports joined into one file) are dropped and said."""
    names = _key(header)
    repeats = [p for p, cells in body if _key(cells) == names]
    if not repeats:
        return body
    notes.append(f"'{filename}': {place}(s) {', '.join(map(str, repeats[:10]))}{' ...' if len(repeats) > 10 else ''} "
                 "repeat the header (files joined together?) and were skipped.")
    return [(p, cells) for p, cells in body if _key(cells) != names]


def _key(cells: Sequence[object]) -> tuple[str, ...]:
    stripped = [str(c).strip().lstrip("\ufeff") for c in cells]
    while stripped and not stripped[-1]:
        stripped.pop()  # trailing empty fields ("a,b,") change nothing
    return tuple(stripped)


def generated_names(width: int) -> list[str]:
    """Column names of a file without a header: 'column 1', 'column 2', ..."""
    return [f"column {i}" for i in range(1, width + 1)]


def header_names(header: Sequence[object], filename: str, notes: list[str]) -> list[str]:
    """Names of the header's cells: an empty one is called 'column N' (said); repeated names are refused."""
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


def records_frame(rows: list[list[object]], places: list[int], columns: list[str], place: str) -> pd.DataFrame:
    """A frame of text cells indexed by each row's place in the file ('line', 'row', 'item')."""
    frame = pd.DataFrame(rows, columns=columns, dtype=object) if rows else pd.DataFrame(columns=columns, dtype=object)
    frame.index = pd.Index(np.asarray(places, dtype=np.int64), name=place)
    return frame
