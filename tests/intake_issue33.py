"""Issue 33's pair files: how researchers export from pandas, Excel, Google Sheets, R, notebooks and papers.

Each is read exactly (the intended table, pairs in order, scores as written) or refused with one
line naming the cause and the fix. Folders and zips of released outputs are in tests/test_outputs_intake.py.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import unicodedata

import pandas as pd

from intake_cases import NAN, Case, xlsx

TABLE = pd.DataFrame({"source": ["the food was bad", "service is slow", "i hate it"],
                      "output": ["the food was good", "service is quick", "i love it"],
                      "human_rating": [4.0, 3.5, 5.0]})
PAIRS = [{"source": s, "output": o, "human:rating": h} for s, o, h in TABLE.itertuples(index=False)]
CSV = TABLE.to_csv(index=False).encode()


def pandas_cases() -> list[Case]:
    """One JSON document holding a whole table, as pandas and notebooks write it."""
    cat = "pandas and JSON documents (issue 33)"
    columnar = json.dumps({c: TABLE[c].tolist() for c in TABLE}).encode()
    labelled = TABLE.set_axis(["r1", "r2", "r3"])
    return [
        Case(cat, "columnar JSON {source: [...], output: [...]} (was: one pair of printed lists)", "p.json", columnar,
             rows=PAIRS, notes=["'p.json' holds one object of columns (3 lists of 3 values); it was read as a table, "
                                "one row per position."]),
        Case(cat, "columnar JSON named .jsonl", "p.jsonl", columnar, rows=PAIRS),
        Case(cat, "pandas to_json() default, orient='columns' (was: one pair, human.0..2 averaged as raters)",
             "p.json", TABLE.to_json().encode(), rows=PAIRS,
             notes=["'p.json' is pandas' to_json() layout (orient='columns': each column an object of rows '0', '1', "
                    "...); it was read as a table of 3 rows and 3 columns."]),
        Case(cat, "pandas orient='split'", "p.json", TABLE.to_json(orient="split").encode(), rows=PAIRS,
             notes=["'p.json' is pandas' orient='split' (columns, index, data); its 3 data rows were read in order, "
                    "the saved index left out."]),
        Case(cat, "pandas orient='index'", "p.json", TABLE.to_json(orient="index").encode(), rows=PAIRS),
        Case(cat, "pandas orient='table'", "p.json", TABLE.to_json(orient="table").encode(), rows=PAIRS,
             notes=["'p.json' is pandas' orient='table' (schema, data); its 3 rows were read, the index (index) left "
                    "out."]),
        Case(cat, "pandas orient='records'", "p.json", TABLE.to_json(orient="records").encode(), rows=PAIRS),
        Case(cat, "pandas orient='records', lines=True", "p.jsonl",
             TABLE.to_json(orient="records", lines=True).encode(), rows=PAIRS),
        Case(cat, "pandas orient='values' has no column names: refused", "p.json",
             TABLE.to_json(orient="values").encode(),
             error="'p.json' is a list of lists (pandas' orient='values'): it has no column names; save it with "
                   "to_json(orient='records'), or as CSV with a header"),
        Case(cat, "to_json() of a frame indexed by names: rows or columns cannot be told, refused", "p.json",
             labelled.to_json().encode(),
             error="'p.json' holds one object of objects whose keys could be rows or columns ('source' -> 'r1'); "
                   "save it with pandas' to_json(orient='records') or as JSON Lines"),
        Case(cat, "columnar JSON with columns of different lengths: refused", "p.json",
             b'{"source": ["a", "b"], "output": ["x"]}',
             error="'p.json' holds one object of columns (lists) of different lengths ('source': 2, 'output': 1): "
                   "its rows cannot be lined up; give every column one value per row, or save it with pandas' "
                   "to_json(orient='records') or as JSON Lines"),
        Case(cat, "df.to_markdown() (a notebook's table): the rule line is not a pair", "p.txt",
             TABLE.to_markdown(index=False).encode(), rows=PAIRS,
             notes=["'p.txt' is a Markdown table: its rule (line 2) and outer bars were left out."]),
        Case(cat, "df.to_csv() with its index", "p.csv", TABLE.to_csv().encode(), rows=PAIRS,
             notes=["Column 'column 1' holds row numbers (an index saved with the file); it is not used as a score "
                    "or metric."]),
        Case(cat, "a LaTeX table (a & b \\\\): refused, naming the export to use", "p.txt",
             TABLE.to_latex(index=False).encode(),
             error="'p.txt' is a LaTeX table (cells separated by '&', rows ending in '\\\\', line 3); its escapes "
                   "cannot be read back exactly: export the table as CSV or TSV instead"),
    ]


def number_cases() -> list[Case]:
    """Scores as spreadsheets and papers print them."""
    cat = "numbers as printed (issue 33)"
    return [
        Case(cat, "Unicode minus U+2212 (was: emptied)", "p.csv", "source,output,score\na,b,−3\nc,d,2\n".encode(),
             rows=[{"source": "a", "output": "b", "human:score": -3.0}, {"source": "c", "output": "d", "human:score": 2.0}],
             notes=["Column 'score': 1 value(s) written with a typeset minus sign (U+2212 or a dash) were read as "
                    "negative numbers (lines 2 ('−3' read as -3))."]),
        Case(cat, "thousands separators with a two-group value (was: 1.0, 2.5 and empty)", "p.csv",
             b'source,output,votes\na,b,"1,000"\nc,d,"2,500"\ne,f,"1,250,000"\ng,h,750\n',
             rows=[{"source": s, "output": o, "human:votes": v} for s, o, v in
                   [("a", "b", 1000.0), ("c", "d", 2500.0), ("e", "f", 1250000.0), ("g", "h", 750.0)]],
             notes=["Column 'votes': 3 value(s) with thousands separators were read as whole numbers (lines 2 "
                    "('1,000' read as 1000), 3 ('2,500' read as 2500), 4 ('1,250,000' read as 1250000))."]),
        Case(cat, "thousands separators beside decimal points", "p.csv",
             b'source,output,votes\na,b,"1,000.5"\nc,d,2.5\n',
             rows=[{"source": "a", "output": "b", "human:votes": 1000.5}, {"source": "c", "output": "d", "human:votes": 2.5}]),
        Case(cat, "'1,000' and '2,500' alone: thousands or decimals? refused", "p.csv",
             b'source,output,votes\na,b,"1,000"\nc,d,"2,500"\ne,f,750\n',
             error="column 'votes' has '1,000' (line 2): a thousands separator (1000) or a decimal comma (1.000)? "
                   "Write the column's numbers without thousands separators (or every decimal with a point), or "
                   "leave it out with --columns"),
        Case(cat, "'2,500' beside decimal commas: refused naming both", "p.csv",
             "source;output;score\na;b;4,5\nc;d;2,500\n".encode(),
             error="column 'score' has '2,500' (line 3) beside decimal commas (line 2: '4,5'): a thousands separator "
                   "(2500) or a decimal comma (2.500)? Write the column's numbers without thousands separators (or "
                   "every decimal with a point), or leave it out with --columns"),
        Case(cat, "semicolon file with decimal commas and no comma in its texts (Excel in Europe)", "p.csv",
             "source;output;score\na;b;4,5\nc;d;2,25\n".encode(),
             rows=[{"source": "a", "output": "b", "human:score": 4.5}, {"source": "c", "output": "d", "human:score": 2.25}],
             notes=["'p.csv' is semicolon-separated; it was read as such."]),
        Case(cat, "decimal commas that cannot be thousands ('0,125') stay decimals", "p.csv",
             "source;output;score\na;b;0,125\nc;d;1,5\n".encode(),
             rows=[{"source": "a", "output": "b", "human:score": 0.125}, {"source": "c", "output": "d", "human:score": 1.5}]),
    ]


def _compressed(module, data: bytes) -> bytes:
    return module.compress(data)


def export_cases() -> list[Case]:
    """R, Excel, Google Sheets, compressed files, stray bytes, Unicode forms, odd column names."""
    cat = "R, spreadsheets, compression and text forms (issue 33)"
    cover = [["Results of the study"], ["see sheet 2"]]
    data = [list(TABLE.columns)] + TABLE.values.tolist()
    nfd = unicodedata.normalize("NFD", "café naïve")
    return [
        Case(cat, "R write.csv: row names under an empty first header cell, NA", "p.csv",
             b'"","source","output","score"\n"1","a","b",NA\n"2","c","d",3\n',
             rows=[{"source": "a", "output": "b", "human:score": NAN}, {"source": "c", "output": "d", "human:score": 3.0}],
             notes=["Column 'score': 1 value(s) are not finite numbers and were left empty (lines 2 ('NA')).",
                    "Column 'column 1' holds row numbers (an index saved with the file); it is not used as a score "
                    "or metric."]),
        Case(cat, "Google Sheets CSV with empty trailing columns", "p.csv",
             b"source,output,human_rating,,\nthe food was bad,the food was good,4,,\nservice is slow,service is quick,"
             b"3.5,,\ni hate it,i love it,5,,\n", rows=PAIRS),
        Case(cat, ".csv.gz (was: unsupported file type '.gz')", "p.csv.gz", _compressed(gzip, CSV), rows=PAIRS,
             notes=["'p.csv.gz' was decompressed (.gz) and read as 'p.csv'."]),
        Case(cat, ".tsv.gz", "p.tsv.gz", _compressed(gzip, TABLE.to_csv(index=False, sep="\t").encode()), rows=PAIRS),
        Case(cat, ".jsonl.gz", "p.jsonl.gz", _compressed(gzip, TABLE.to_json(orient="records", lines=True).encode()),
             rows=PAIRS),
        Case(cat, ".csv.bz2", "p.csv.bz2", _compressed(bz2, CSV), rows=PAIRS),
        Case(cat, ".csv.xz", "p.csv.xz", _compressed(lzma, CSV), rows=PAIRS),
        Case(cat, "a damaged .gz: refused", "p.csv.gz", b"\x1f\x8b\x08\x00garbage",
             error="'p.csv.gz' is not a readable .gz file (Compressed file ended before the end-of-stream marker was "
                   "reached); compress it again, or upload the file itself"),
        Case(cat, "a .gz of a PDF: the inner type refused", "p.pdf.gz", _compressed(gzip, b"%PDF-1.4"),
             error="'p.pdf': unsupported file type '.pdf'; use CSV, TSV, JSONL or XLSX (or one of them compressed: "
                   ".gz, .bz2, .xz)"),
        Case(cat, "one NUL byte in a text (was: the whole file refused)", "p.csv",
             b"source,output,human_rating\nthe food was bad,the food was good,4\nservice is slow\x00,service is quick,"
             b"3.5\ni hate it,i love it,5\n", rows=PAIRS,
             notes=["'p.csv': 1 NUL byte(s) (on line(s) 3) were removed; check those lines."]),
        Case(cat, "XLSX: a cover sheet first, the table on the second (said)", "w.xlsx",
             xlsx({"Cover": cover, "Data": data}), rows=PAIRS,
             notes=["'w.xlsx': the first sheet, 'Cover', holds no table; sheet 'Data', the only one that does, was "
                    "read (sheets: 'Cover', 'Data'; --sheet NAME reads another)."]),
        Case(cat, "XLSX: an empty first sheet and two tables: refused naming the sheets and --sheet", "w.xlsx",
             xlsx({"Notes": [], "Yelp": data, "Amazon": data}),
             error="'w.xlsx': the first sheet, 'Notes', holds no table and sheets 'Yelp', 'Amazon' do (sheets: "
                   "'Notes', 'Yelp', 'Amazon'); choose the sheet with --sheet NAME (on the page: the sheet choice)"),
        Case(cat, "XLSX: the table on the second sheet named with --sheet", "w.xlsx",
             xlsx({"Notes": [], "Yelp": data, "Amazon": data}), sheet="Amazon", rows=PAIRS),
        Case(cat, "NFD and NFC forms of one text are made one (was: sentence BLEU 0-27 instead of 100)", "p.csv",
             f"source,output\n{nfd},café naïve\nplain,text\n".encode(),
             rows=[{"source": "café naïve", "output": "café naïve"}, {"source": "plain", "output": "text"}],
             notes=["Texts of 1 row(s) were normalised to Unicode NFC (lines 2): characters written decomposed (a "
                    "letter and a combining accent) now equal their composed form for every measure."]),
        Case(cat, "texts that are all numbers under an unknown name: refused with the --columns fix", "p.csv",
             b"question,answer\nwhat is six times seven,42\nhow many legs has a cat,4\n",
             error="no column is mapped to 'output'; the file has: question, answer; column 'answer' holds numbers "
                   "only and was taken as a metric: if it holds the output texts, say --columns output=answer (on "
                   "the page: its role)"),
        Case(cat, "the same file with --columns output=answer", "p.csv",
             b"question,answer\nwhat is six times seven,42\nhow many legs has a cat,4\n", columns="output=answer",
             rows=[{"source": "what is six times seven", "output": "42"}, {"source": "how many legs has a cat", "output": "4"}]),
        Case(cat, "an id column of numbers is never a metric", "p.csv",
             b"pair_id,source,output,bleu\n17,a,b,0.5\n23,c,d,0.25\n",
             mapping="source=source,output=output,metric=bleu,key=pair_id",
             rows=[{"source": "a", "output": "b", "metric:bleu": 0.5}, {"source": "c", "output": "d", "metric:bleu": 0.25}],
             notes=["Column 'pair_id' holds identifiers (numbers); it is not used as a score or metric."]),
    ]


def issue33_cases() -> list[Case]:
    """Every pair file of issue 33."""
    return pandas_cases() + number_cases() + export_cases()
