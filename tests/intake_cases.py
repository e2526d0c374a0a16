"""Generated pair files, well-formed and malformed, each with exactly what reading it must give.

Every :class:`Case` is a file (name and bytes) plus either the exact pairs the dataset must hold,
or the exact one-line message it must be refused with; some also name notes that must be said
word for word, or the mapping that must be detected. ``tests/test_intake_fuzz.py`` checks them
all; ``python tests/intake_cases.py`` reads them all and prints the summary table of
docs/reliability.md.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # intake_malformed, when run as a script

NAN = float("nan")


@dataclass
class Case:
    """A file and what reading it must give: ``rows`` (exact pairs) or ``error`` (exact message)."""

    category: str
    name: str
    filename: str
    data: bytes
    rows: list[dict] | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    mapping: str | None = None  # ColumnMapping.describe() of the detected mapping
    columns: str | None = None  # a --columns spec
    sheet: str | None = None
    header: str = "auto"  # reading options, as --header, --encoding and --skip-rows give them
    encoding: str | None = None
    skip_rows: int | None = None
    directions: dict[str, bool] | None = None


# -- the logical table every format must read back exactly --------------------------------------
HEADER = ["source", "output", "system", "human_rating"]
ROWS = [
    ["Well, the food was great", "The food was bad.", "a", "4"],
    ['He said "hi"', 'She said "hello"', "a", "3.5"],
    ["line one\nline two", "one line", "b", "2"],
    ["NA", "N/A", "b", "1"],
    ["na", "n/a", "c", "5"],
    ["Café – naïve ☕", "Cafe - naive", "c", "0.25"],
    ["=1+1", "@SUM(A1)", "d", "-1"],
    ["semi;colon|bar", "tab\tinside", "d", "3"],
]


def expected(rows=ROWS, score="human:rating") -> list[dict]:
    """The pairs a file holding ``rows`` must give."""
    return [{"source": r[0].strip(), "output": r[1].strip(), "system": r[2], score: float(r[3])} for r in rows]


def delimited(rows=ROWS, header=HEADER, delimiter=",", terminator="\r\n", encoding="utf-8", bom=b"",
              quoting=csv.QUOTE_MINIMAL) -> bytes:
    """Rows written by Python's csv module (as spreadsheets write them)."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator=terminator, quoting=quoting)
    writer.writerow(header)
    writer.writerows(rows)
    return bom + buf.getvalue().encode(encoding)


def jsonl(rows=ROWS, header=HEADER, blank_every: int = 0, numbers: bool = True) -> bytes:
    """JSON Lines; scores as JSON numbers when ``numbers``; a blank line after every ``blank_every`` rows."""
    lines = []
    for i, row in enumerate(rows, 1):
        obj = dict(zip(header, row))
        if numbers:
            obj[header[-1]] = json.loads(row[-1])
        lines.append(json.dumps(obj, ensure_ascii=False))
        if blank_every and i % blank_every == 0:
            lines.append("")
    return ("\n".join(lines) + "\n").encode()


def xlsx(sheets: dict[str, list[list]], formulas: dict[tuple[str, str], str] | None = None,
         merge: str | None = None) -> bytes:
    """A workbook with the given sheets (first row = header); ``formulas`` puts formulas (no saved result) in cells;
    ``merge`` merges a range of the first sheet (a title across the table)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
            for cell in ws[ws.max_row]:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    cell.data_type = "s"  # a text such as "=1+1", not a formula (openpyxl guesses one)
    for (title, cell), formula in (formulas or {}).items():
        wb[title][cell] = formula
    if merge:
        wb.worksheets[0].merge_cells(merge)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _numeric_rows(rows=ROWS) -> list[list]:
    return [r[:3] + [float(r[3])] for r in rows]


def format_cases() -> list[Case]:
    """The same table in every format, encoding and delimiter: read back exactly."""
    cat = "formats, encodings and delimiters"
    out = [
        Case(cat, "CSV, Excel line ends", "pairs.csv", delimited()),
        Case(cat, "CSV, Unix line ends", "pairs.csv", delimited(terminator="\n")),
        Case(cat, "CSV, every cell quoted", "pairs.csv", delimited(quoting=csv.QUOTE_ALL)),
        Case(cat, "CSV with a UTF-8 byte-order mark", "pairs.csv", delimited(bom=codecs.BOM_UTF8)),
        Case(cat, "TSV", "pairs.tsv", delimited(delimiter="\t")),
        Case(cat, "TSV named .txt", "pairs.txt", delimited(delimiter="\t")),
        Case(cat, "semicolon-separated .csv", "pairs.csv", delimited(delimiter=";"),
             notes=["'pairs.csv' is semicolon-separated; it was read as such."]),
        Case(cat, "bar-separated .csv", "pairs.csv", delimited(delimiter="|"),
             notes=["'pairs.csv' is vertical bar-separated; it was read as such."]),
        Case(cat, "tab-separated .csv", "pairs.csv", delimited(delimiter="\t"),
             notes=["'pairs.csv' is tab-separated; it was read as such."]),
        Case(cat, "comma-separated .tsv", "pairs.tsv", delimited(),
             notes=["'pairs.tsv' is comma-separated; it was read as such."]),
        Case(cat, "UTF-16 LE with BOM, tabs (Excel 'Unicode Text')", "pairs.txt",
             delimited(delimiter="\t", encoding="utf-16-le", bom=codecs.BOM_UTF16_LE),
             notes=["'pairs.txt' is UTF-16 text (LE); it was decoded as such."]),
        Case(cat, "UTF-16 LE without BOM", "pairs.txt", delimited(delimiter="\t", encoding="utf-16-le"),
             notes=["'pairs.txt' is UTF-16 text (LE); it was decoded as such."]),
        Case(cat, "UTF-16 BE with BOM", "pairs.tsv", delimited(delimiter="\t", encoding="utf-16-be", bom=codecs.BOM_UTF16_BE),
             notes=["'pairs.tsv' is UTF-16 text (BE); it was decoded as such."]),
        Case(cat, "UTF-16 BE without BOM", "pairs.csv", delimited(encoding="utf-16-be"),
             notes=["'pairs.csv' is UTF-16 text (BE); it was decoded as such."]),
        Case(cat, "UTF-32 with BOM", "pairs.csv", delimited(encoding="utf-32-le", bom=codecs.BOM_UTF32_LE),
             notes=["'pairs.csv' is UTF-32 text (LE); it was decoded as such."]),
        Case(cat, "JSON Lines, numbers as numbers", "pairs.jsonl", jsonl()),
        Case(cat, "JSON Lines, numbers as strings", "pairs.jsonl", jsonl(numbers=False)),
        Case(cat, "JSON array", "pairs.json",
             json.dumps([dict(zip(HEADER, r[:3] + [float(r[3])])) for r in ROWS], ensure_ascii=False).encode()),
        Case(cat, "XLSX", "pairs.xlsx", xlsx({"Sheet1": [HEADER] + _numeric_rows()})),
        Case(cat, "XLSX, scores typed as text", "pairs.xlsx", xlsx({"Sheet1": [HEADER] + ROWS})),
    ]
    cp1252_rows = [["café crème", "Café, s'il vous plaît", "a", "4"], ["naïve", "Naive – dash", "a", "2"]]
    out.append(Case(cat, "Windows-1252 CSV", "pairs.csv", delimited(cp1252_rows, encoding="cp1252"),
                    rows=expected(cp1252_rows),
                    notes=["'pairs.csv' is not UTF-8 (line 2 has the byte 0xE9); it was decoded as Windows-1252. "
                           "Check accented characters, or re-save as UTF-8."]))
    for case in out:
        if case.rows is None:
            case.rows = expected()
    return out


def structure_cases() -> list[Case]:
    """Records that do not line up with the header, and files that are not pair files at all."""
    cat = "malformed structure"
    first_row_comma = b"source,output,human_rating\nWell, the food was great,the food was bad,4\nok,fine,3\n"
    later_rows = b"source,output\na,b\nc,d,e\nf,g\nh\n"
    return [
        Case(cat, "unquoted comma in the first data row (was: silently shifted by a guessed index)", "p.csv",
             first_row_comma,
             error="'p.csv' line 2 has 4 fields but the header has 3. Put texts that contain a comma in double "
                   "quotes, or fix those lines"),
        Case(cat, "rows with too many and too few fields", "p.csv", later_rows,
             error="'p.csv' line 3 has 3 fields but the header has 2; so do 1 more line(s): 5. Put texts that "
                   "contain a comma in double quotes, or fix those lines"),
        Case(cat, "wrong field count after a quoted newline: the file line is named", "p.csv",
             b'source,output\n"two\nlines",b\nc,d,e\n',
             error="'p.csv' line 4 has 3 fields but the header has 2. Put texts that contain a comma in double "
                   "quotes, or fix those lines"),
        Case(cat, "wrong field count after blank lines", "p.tsv", b"source\toutput\n\n\na\tb\n\nc\td\te\n",
             error="'p.tsv' line 6 has 3 fields but the header has 2. Put texts that contain a tab in double "
                   "quotes, or fix those lines"),
        Case(cat, "trailing empty fields are harmless", "p.csv", b"source,output,\na,b,\nc,d,,\n",
             rows=[{"source": "a", "output": "b"}, {"source": "c", "output": "d"}],
             notes=["'p.csv': column 3 has no name in the header; it is called 'column 3'."]),
        Case(cat, "quote never closed", "p.csv", b'source,output\n"a,b\nc,d\n',
             error="'p.csv' line 3: unexpected end of data (a quote opened in a text and never closed?); fix the "
                   "quotes on that line"),
        Case(cat, "empty file", "p.csv", b"", error="'p.csv' is empty"),
        Case(cat, "blank lines only", "p.csv", b"  \n\n \r\n", error="'p.csv' is empty"),
        Case(cat, "header only", "p.csv", b"source,output\n", error="'p.csv' has a header but no rows"),
        Case(cat, "one column only", "p.csv", b"just text\nmore text\n",
             error="'p.csv' has one column only: no comma, tab, semicolon or vertical bar separates its header; "
                   "a pair file needs at least a source and an output column"),
        Case(cat, "repeated column names", "p.csv", b"source,output,output\na,b,c\n",
             error="'p.csv' has repeated column names: output; rename them"),
        Case(cat, "a workbook renamed .csv", "p.csv", xlsx({"S": [["source", "output"], ["a", "b"]]}),
             error="'p.csv' is a zipped file (an Excel workbook?), not text; save it as .xlsx or CSV"),
        Case(cat, "binary bytes named .tsv", "p.tsv", b"source\toutput\n\x00\x01\x02\tx\n",
             error="'p.tsv' is not a text file (it holds NUL and other control bytes); save it as CSV, TSV or JSONL"),
        Case(cat, "unsupported type", "pairs.pdf", b"%PDF-1.4",
             error="'pairs.pdf': unsupported file type '.pdf'; use CSV, TSV, JSONL or XLSX (or one of them compressed: .gz, .bz2, .xz)"),
        Case(cat, "no suffix", "pairs", b"source,output\na,b\n",
             error="'pairs': unsupported file type '(none)'; use CSV, TSV, JSONL or XLSX (or one of them compressed: .gz, .bz2, .xz)"),
    ]


def json_cases() -> list[Case]:
    """JSON Lines and JSON arrays: per-line errors by their real line numbers."""
    cat = "JSON and JSON Lines"
    good = '{"source": "a", "output": "b"}'
    return [
        Case(cat, "line that is not JSON", "p.jsonl", f"{good}\nnot json\n".encode(),
             error="'p.jsonl' line 2 is not a JSON object: 'not json'"),
        Case(cat, "broken line after blank lines: the file line is named", "p.jsonl",
             f"{good}\n\n\n{good}\n{{\"source\": \"x\", \"output\": }}\n".encode(),
             error="'p.jsonl' line 5 is not a JSON object: '{\"source\": \"x\", \"output\": }'"),
        Case(cat, "a JSON array on one line of a .jsonl", "p.jsonl", f"{good}\n[1, 2]\n{good}\n[3]\n".encode(),
             error="'p.jsonl' line 2 is not a JSON object: '[1, 2]' (and 1 more line(s): 4)"),
        Case(cat, "blank lines keep line numbers right", "p.jsonl",
             b'{"source": "a", "output": "b"}\n\n{"source": "", "output": "d"}\n\n{"source": "e", "output": "f"}\n',
             rows=[{"source": "a", "output": "b"}, {"source": "e", "output": "f"}],
             notes=["Dropped 1 row(s) with an empty source or output (lines 3)."]),
        Case(cat, "null, true and nested values", "p.jsonl",
             b'{"source": "a", "output": null, "flag": true}\n{"source": "c", "output": "d", "flag": false, "x": {"k": 1}}\n',
             rows=[{"source": "c", "output": "d"}],
             notes=["Dropped 1 row(s) with an empty source or output (lines 1)."]),
        Case(cat, "a number in one line, a text in another (same key)", "p.jsonl",
             b'{"source": "a", "output": "b", "system": 1}\n{"source": "c", "output": "d", "system": "two"}\n',
             rows=[{"source": "a", "output": "b", "system": "1"}, {"source": "c", "output": "d", "system": "two"}]),
        Case(cat, "keys that differ between lines", "p.jsonl",
             b'{"source": "a", "output": "b", "score": 3}\n{"output": "d", "source": "c"}\n',
             rows=[{"source": "a", "output": "b", "human:score": 3.0}, {"source": "c", "output": "d", "human:score": NAN}]),
        Case(cat, "JSON array with a non-object item", "p.json", b'[{"source": "a", "output": "b"}, 3]',
             error="'p.json' item 2 is not a JSON object ({\"source\": ..., \"output\": ...})"),
        Case(cat, "invalid JSON array", "p.json", b'[{"source": "a", "output": "b"},',
             error="'p.json' is not valid JSON: Expecting value: line 1 column 33 (char 32)"),
        Case(cat, "NA and n/a stay texts; the words null and None are missing values", "p.jsonl",
             b'{"source": "NA", "output": "null"}\n{"source": "None", "output": "n/a"}\n{"source": "a", "output": "n/a"}\n',
             rows=[{"source": "a", "output": "n/a"}],
             notes=["Column 'source': 1 cell(s) written as a missing value (None, NaN, null) were read as empty, not "
                    "as text (lines 2).",
                    "Column 'output': 1 cell(s) written as a missing value (None, NaN, null) were read as empty, not "
                    "as text (lines 1).",
                    "Dropped 2 row(s) with an empty source or output (lines 1, 2)."]),
    ]


def value_cases() -> list[Case]:
    """Scores: decimal commas, infinities, unreadable cells, missing-value words, all said per column."""
    cat = "scores and values"
    return [
        Case(cat, "decimal commas in a semicolon file", "p.csv", "source;output;avg_score\nHallo, du;Hello;4,5\nx;y;2,25\n".encode(),
             rows=[{"source": "Hallo, du", "output": "Hello", "human:avg_score": 4.5},
                   {"source": "x", "output": "y", "human:avg_score": 2.25}],
             notes=["'p.csv' is semicolon-separated; it was read as such.",
                    "Column 'avg_score': 2 value(s) with a decimal comma (e.g. '4,5') were read as decimal numbers."]),
        Case(cat, "inf, nan and words in a score column", "p.csv",
             b"source,output,score\na,b,inf\nc,d,nan\ne,f,n/a\ng,h,3\ni,j,\n",
             rows=[{"source": s, "output": o, "human:score": v} for s, o, v in
                   [("a", "b", NAN), ("c", "d", NAN), ("e", "f", NAN), ("g", "h", 3.0), ("i", "j", NAN)]],
             notes=["Column 'score': 1 cell(s) written as a missing value (None, NaN, null) were read as missing "
                    "(lines 3 ('nan')).",
                    "Column 'score': 2 value(s) are not finite numbers and were left empty (lines 2 ('inf'), "
                    "4 ('n/a'))."]),
        Case(cat, "NA and n/a stay texts; None, NaN and null are missing, said", "p.csv",
             b"source,output\nNA,None\nnull,n/a\nna,n/a\nNaN,x\n",
             rows=[{"source": "na", "output": "n/a"}],
             notes=["Column 'source': 2 cell(s) written as a missing value (None, NaN, null) were read as empty, not "
                    "as text (lines 3, 5).",
                    "Column 'output': 1 cell(s) written as a missing value (None, NaN, null) were read as empty, not "
                    "as text (lines 2).",
                    "Dropped 3 row(s) with an empty source or output (lines 2, 3, 5)."]),
        Case(cat, "empty source or output: dropped and said, with file lines after a quoted newline", "p.csv",
             b'source,output\n"a\nb",c\n,d\ne,\nf,g\n',
             rows=[{"source": "a\nb", "output": "c"}, {"source": "f", "output": "g"}],
             notes=["Dropped 2 row(s) with an empty source or output (lines 4, 5)."]),
        Case(cat, "exact duplicates dropped and said", "p.csv", b"source,output\na,b\na,b\nc,d\n",
             rows=[{"source": "a", "output": "b"}, {"source": "c", "output": "d"}],
             notes=["Dropped 1 exact duplicate row(s) (lines 3: same texts, system and scores as an earlier row); "
                    "the first of each was kept."]),
        Case(cat, "no usable row", "p.csv", b"source,output\na,\n,b\n",
             error="no row has both a source and an output text"),
        Case(cat, "a number column with a few texts stays a metric only when clean", "p.csv",
             b"source,output,bleu,notes\na,b,0.5,1\nc,d,0.25,fine\ne,f,0.125,2\n",
             rows=[{"source": "a", "output": "b", "metric:bleu": 0.5}, {"source": "c", "output": "d", "metric:bleu": 0.25},
                   {"source": "e", "output": "f", "metric:bleu": 0.125}],
             mapping="source=source,output=output,metric=bleu"),
        Case(cat, "formula-like and padded texts read literally", "p.csv",
             b"source,output\n=1+1,  +cmd|' /C calc'!A0  \n-2,@x\n",
             rows=[{"source": "=1+1", "output": "+cmd|' /C calc'!A0"}, {"source": "-2", "output": "@x"}]),
        Case(cat, "very long text", "p.csv", b"source,output\n" + b"x" * 300_000 + b",short\n",
             rows=[{"source": "x" * 300_000, "output": "short"}]),
    ]


def xlsx_cases() -> list[Case]:
    """Workbooks: sheets, formulas without a saved result, empty cells, unreadable bytes."""
    cat = "XLSX workbooks"
    two = {"Pairs": [["source", "output"], ["a", "b"]], "Other": [["source", "output"], ["c", "d"], ["e", "f"]]}
    return [
        Case(cat, "first of two sheets, said", "w.xlsx", xlsx(two), rows=[{"source": "a", "output": "b"}],
             notes=["'w.xlsx' has 2 sheets ('Pairs', 'Other'); the first, 'Pairs', was read. Choose another sheet to "
                    "read it instead."]),
        Case(cat, "another sheet chosen", "w.xlsx", xlsx(two), sheet="Other",
             rows=[{"source": "c", "output": "d"}, {"source": "e", "output": "f"}]),
        Case(cat, "a sheet that does not exist", "w.xlsx", xlsx(two), sheet="Nope",
             error="'w.xlsx' has no sheet 'Nope'; its sheets: 'Pairs', 'Other'"),
        Case(cat, "formula cells without a saved result", "w.xlsx",
             xlsx({"S": [["source", "output", "score"], ["a", "b", None], ["c", "d", 2], ["e", "f", None]]},
                  {("S", "C2"): "=1+1", ("S", "C4"): "=C3*2"}),
             rows=[{"source": "a", "output": "b", "human:score": NAN}, {"source": "c", "output": "d", "human:score": 2.0},
                   {"source": "e", "output": "f", "human:score": NAN}],
             notes=["Column 'score': 2 formula cell(s) have no saved result (rows 2, 4) and were read as empty; open and "
                    "save the file in your spreadsheet program to store their results."]),
        Case(cat, "NA stays a text, None and null are missing; empty rows skipped with row numbers kept", "w.xlsx",
             xlsx({"S": [["source", "output"], ["NA", "None"], [None, None], ["null", ""], ["n/a", "x"], ["NA", "y"]]}),
             rows=[{"source": "n/a", "output": "x"}, {"source": "NA", "output": "y"}],
             notes=["Column 'source': 1 cell(s) written as a missing value (None, NaN, null) were read as empty, not "
                    "as text (rows 4).",
                    "Column 'output': 1 cell(s) written as a missing value (None, NaN, null) were read as empty, not "
                    "as text (rows 2).",
                    "Dropped 2 row(s) with an empty source or output (rows 2, 4)."]),
        Case(cat, "an empty sheet", "w.xlsx", xlsx({"S": []}), error="sheet 'S' of 'w.xlsx' is empty"),
        Case(cat, "not a workbook", "w.xlsx", b"PK\x03\x04 not really a zip",
             error="'w.xlsx' could not be read as XLSX (BadZipFile: File is not a zip file); re-save it from your "
                   "spreadsheet program"),
    ]


def mapping_cases() -> list[Case]:
    """Which column plays which role: human-score headers, raters, references, directions, refusals."""
    cat = "column mapping"
    raters = (b"text_1,text_2,label_1,label_2,label_3\n"
              b"a,b,1,2,2\nc,d,3,3,4\ne,f,5,4,5\n")
    return [
        Case(cat, "avg_score, score, mean_score and rating are human scores", "p.csv",
             b"source,output,avg_score,score,mean_score,rating,bleu_score\na,b,1,2,3,4,0.5\n",
             mapping="source=source,output=output,human=avg_score,human=score,human=mean_score,human=rating,"
                     "metric=bleu_score",
             rows=[{"source": "a", "output": "b", "human:avg_score": 1.0, "human:score": 2.0, "human:mean_score": 3.0,
                    "human:rating": 4.0, "metric:bleu_score": 0.5}]),
        Case(cat, "annotator columns are raters, never metrics; their mean is a human score", "p.csv", raters,
             mapping="source=text_1,output=text_2,rater=label_1,rater=label_2,rater=label_3",
             rows=[{"source": "a", "output": "b", "rater:label_1": 1.0, "human:label_mean": 5 / 3},
                   {"source": "c", "output": "d", "rater:label_1": 3.0, "human:label_mean": 10 / 3},
                   {"source": "e", "output": "f", "rater:label_1": 5.0, "human:label_mean": 14 / 3}],
             notes=["3 raters (label_1, label_2, label_3): Krippendorff's alpha (interval) = 0.829 over 3 pairs rated "
                    "by at least two of them.",
                    "'label_mean' is the mean of the 3 raters' scores, offered as a human score; the raters themselves "
                    "are never ranked as metrics."]),
        Case(cat, "rater1, annotator_2 style names; an existing mean is not doubled", "p.csv",
             b"source,output,rater1,rater2,avg_score\na,b,1,3,2\nc,d,4,4,4\n",
             mapping="source=source,output=output,human=avg_score,rater=rater1,rater=rater2",
             rows=[{"source": "a", "output": "b", "human:avg_score": 2.0, "rater:rater1": 1.0, "rater:rater2": 3.0},
                   {"source": "c", "output": "d", "human:avg_score": 4.0, "rater:rater1": 4.0, "rater:rater2": 4.0}]),
        Case(cat, "lower-is-better human column detected by its name", "p.csv",
             b"source,output,vote_different\na,b,0.25\n",
             mapping="source=source,output=output,human-lower=vote_different",
             rows=[{"source": "a", "output": "b", "human:vote_different": 0.25}],
             directions={"human:vote_different": False}),
        Case(cat, "several reference columns", "p.csv",
             b"source,output,reference_1,reference_2,reference_3\na,b,r1,r2,\nc,d,r3,r4,r5\n",
             mapping="source=source,output=output,reference=reference_1,reference=reference_2,reference=reference_3",
             rows=[{"source": "a", "output": "b", "reference": "r1", "reference:2": "r2", "reference:3": ""},
                   {"source": "c", "output": "d", "reference": "r3", "reference:2": "r4", "reference:3": "r5"}]),
        Case(cat, "a list column of references (JSON Lines)", "p.jsonl",
             b'{"source": "a", "output": "b", "references": ["r1", "r2"]}\n{"source": "c", "output": "d", "references": ["r3"]}\n',
             rows=[{"source": "a", "output": "b", "reference": "r1", "reference:2": "r2"},
                   {"source": "c", "output": "d", "reference": "r3", "reference:2": ""}],
             notes=["Column 'references' holds lists of up to 2 references per pair; each is used."]),
        Case(cat, "--columns chooses and re-roles columns", "p.csv",
             b"text_a,text_b,avg,bleu\nx,y,3,0.5\n", columns="source=text_b,output=text_a,human-lower=avg,metric=",
             rows=[{"source": "y", "output": "x", "human:avg": 3.0}], directions={"human:avg": False}),
        Case(cat, "a column mapped to two roles is refused", "p.csv", b"source,output,score\na,b,1\n",
             columns="source=source,output=source",
             error="column 'source' is mapped twice (source and output): give each column one role"),
        Case(cat, "a score column also given as a text role is refused", "p.csv", b"a,b,score\nx,y,1\n",
             columns="source=a,output=b,system=score,human=score",
             error="column 'score' is mapped twice (system and human score): give each column one role"),
        Case(cat, "--columns with an unknown role", "p.csv", b"source,output\na,b\n", columns="sauce=source",
             error="--columns: 'sauce=source' is not ROLE=COLUMN; roles: source, output, system, setting, "
                   "source_style, target_style, language, reference, human, human-lower, metric, rater, key"),
        Case(cat, "--columns with an unknown column", "p.csv", b"source,output\na,b\n", columns="output=target",
             error="--columns: no column 'target' in the file; it has: source, output"),
        Case(cat, "no text columns at all", "p.csv", b"score,bleu\n1,0.5\n",
             error="no column is mapped to 'source'; the file has: score, bleu"),
        Case(cat, "unnamed text columns become source and output", "p.csv", b"first,second,model\na,b,m1\n",
             mapping="source=first,output=second,system=model",
             rows=[{"source": "a", "output": "b", "system": "m1"}]),
    ]


def existing_cases() -> list[Case]:
    """The upload cases tests/ held before issue 9, kept in the suite."""
    cat = "earlier tests"
    table = [["hi there", "Hello.", "a", "4", "0.1"], ["gimme that", "Please give me that.", "a", "5", "0.2"],
             ["see u", "Goodbye.", "b", "3", "0.3"], ["see u", "Goodbye.", "b", "3", "0.3"]]
    header = ["input", "prediction", "model", "human_fluency", "bleu"]
    rows = [{"source": r[0], "output": r[1], "system": r[2], "human:fluency": float(r[3]), "metric:bleu": float(r[4])}
            for r in table[:3]]
    dup = "Dropped 1 exact duplicate row(s) (lines 5: same texts, system and scores as an earlier row); the first of each was kept."
    numeric = [r[:3] + [float(r[3]), float(r[4])] for r in table]
    return [
        Case(cat, "CSV with synonyms and a duplicate", "pairs.csv", delimited(table, header), rows=rows, notes=[dup]),
        Case(cat, "TSV with synonyms and a duplicate", "pairs.tsv", delimited(table, header, "\t"), rows=rows, notes=[dup]),
        Case(cat, "JSONL with synonyms and a duplicate", "pairs.jsonl", jsonl(table, header), rows=rows,
             notes=[dup.replace("lines 5", "lines 4")]),
        Case(cat, "XLSX with synonyms and a duplicate", "pairs.xlsx", xlsx({"Sheet1": [header] + numeric}), rows=rows,
             notes=[dup.replace("lines 5", "rows 5")]),
        Case(cat, "TSV with an empty source (CLI test)", "mine.tsv", b"source\toutput\nhey there\tHello.\n\tempty source\n",
             rows=[{"source": "hey there", "output": "Hello."}],
             notes=["Dropped 1 row(s) with an empty source or output (lines 3)."]),
    ]


def all_cases() -> list[Case]:
    """Every generated file."""
    from intake_issue33 import issue33_cases
    from intake_malformed import issue20_cases

    return (format_cases() + structure_cases() + json_cases() + value_cases() + xlsx_cases() + mapping_cases()
            + existing_cases() + issue20_cases() + issue33_cases())


def read_case(case: Case):
    """Read a case's file the way the CLI and the page do: (dataset, mapping, notes) or a DataError."""
    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import detect_mapping, parse_columns_spec
    from stviz.data.intake.readers import read_pairs_file

    frame, notes = read_pairs_file(case.filename, case.data, sheet=case.sheet, header=case.header,
                                   encoding=case.encoding, skip_rows=case.skip_rows)
    mapping = parse_columns_spec(case.columns, frame) if case.columns else detect_mapping(frame)
    return apply_mapping(frame, mapping, name="case"), mapping, notes


def same(value, wanted) -> bool:
    """Equality where NaN equals NaN and floats compare exactly up to float rounding of the mean."""
    if isinstance(wanted, float) and math.isnan(wanted):
        return isinstance(value, float) and math.isnan(value)
    if isinstance(wanted, float):
        return isinstance(value, float) and abs(value - wanted) <= 1e-12 * max(1.0, abs(wanted))
    return value == wanted


def check(case: Case) -> str | None:
    """None when reading the case gives exactly what it must; else what differed."""
    from stviz.data.schema import DataError

    try:
        ds, mapping, notes = read_case(case)
    except DataError as exc:
        if case.error is None:
            return f"refused: {exc}"
        return None if str(exc) == case.error and "\n" not in str(exc) else f"message: {exc}"
    if case.error is not None:
        return "read, but should have been refused"
    return check_read(case, ds, mapping, notes)


def check_read(case: Case, ds, mapping, notes: list[str]) -> str | None:
    """None when a dataset read from a case's file holds exactly its pairs, mapping and notes; else what differed."""
    said = notes + ds.notes
    missing = [n for n in case.notes if n not in said]
    if missing:
        return f"notes missing: {missing}; said: {said}"
    if case.mapping is not None and mapping.describe() != case.mapping:
        return f"mapping {mapping.describe()}"
    for column, wanted in (case.directions or {}).items():
        if ds.human_higher_is_better(column) != wanted:
            return f"direction of {column}"
    records = ds.pairs.to_dict("records")
    if len(records) != len(case.rows):
        return f"{len(records)} rows instead of {len(case.rows)}"
    for got, wanted in zip(records, case.rows):
        for column, value in wanted.items():
            if column not in got or not same(got[column], value):
                return f"{column}: {got.get(column)!r} instead of {value!r}"
    return None


def summary_table(cases: list[Case]) -> str:
    """The docs/reliability.md table: per category, cases, refused with the exact message, read exactly."""
    lines = ["| category | files | refused with one clear line | read exactly | failing |", "|---|---|---|---|---|"]
    totals = [0, 0, 0, 0]
    for category in dict.fromkeys(c.category for c in cases):
        group = [c for c in cases if c.category == category]
        results = [(c, check(c)) for c in group]
        refused = sum(1 for c, r in results if r is None and c.error is not None)
        exact = sum(1 for c, r in results if r is None and c.error is None)
        failing = sum(1 for _, r in results if r is not None)
        for i, v in enumerate((len(group), refused, exact, failing)):
            totals[i] += v
        lines.append(f"| {category} | {len(group)} | {refused} | {exact} | {failing} |")
    lines.append(f"| **all** | **{totals[0]}** | **{totals[1]}** | **{totals[2]}** | **{totals[3]}** |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary_table(all_cases()))
