"""Issue 20's malformed pair files: each class the probe read silently wrong, now read exactly or refused.

Declared like every case of ``tests/intake_cases.py`` (which adds them to ``all_cases``): the file,
and the exact pairs (sources, outputs, scores) it must give with the notes that say what was done,
or the exact one-line refusal.
"""

from __future__ import annotations

import codecs

from intake_cases import NAN, Case, xlsx

TITLE = "Results of the fluency study, March 2024"
PAIRS = [{"source": "The food was great.", "output": "The food was bad."},
         {"source": "He said hi to me.", "output": "She said hello to me."}]


def _scored(values, column="human:rating", pairs=PAIRS) -> list[dict]:
    return [dict(p, **{column: v}) for p, v in zip(pairs, values)]


def header_cases() -> list[Case]:
    """Headerless files, repeated headers, sep= lines, comments and title rows."""
    cat = "header and lines above it (issue 20)"
    headerless = b"The food was great.,The food was bad.,4\nHe said hi to me.,She said hello to me.,3\n"
    said = ("'p.csv' has no header: line 1 holds a sentence ('The food was great.'), not column names, so it was "
            "read as a pair and the columns named column 1..3. Name their roles with --columns; if that line is the "
            "header, read the file with --header first.")
    return [
        Case(cat, "headerless CSV: read with generated names, every pair kept", "p.csv", headerless,
             rows=_scored([4.0, 3.0], "metric:column 3"), notes=[said],
             mapping="source=column 1,output=column 2,metric=column 3"),
        Case(cat, "headerless CSV, names given with --columns", "p.csv", headerless,
             columns="human=column 3", rows=_scored([4.0, 3.0], "human:column 3")),
        Case(cat, "headerless TSV of short texts and numbers: the number row is data", "p.tsv",
             b"hi\tHello\t0.5\nbye\tGoodbye\t0.25\nok\tOkay\t1\n",
             rows=[{"source": "hi", "output": "Hello", "metric:column 3": 0.5},
                   {"source": "bye", "output": "Goodbye", "metric:column 3": 0.25},
                   {"source": "ok", "output": "Okay", "metric:column 3": 1.0}],
             notes=["'p.tsv' has no header: line 1 holds a number above a column of numbers ('0.5'), not column "
                    "names, so it was read as a pair and the columns named column 1..3. Name their roles with "
                    "--columns; if that line is the header, read the file with --header first."]),
        Case(cat, "two exports joined: the repeated header line is dropped and said", "p.csv",
             b"source,output,rating\nThe food was great.,The food was bad.,4\n"
             b"source,output,rating\nHe said hi to me.,She said hello to me.,3\n",
             rows=_scored([4.0, 3.0]),
             notes=["'p.csv': line(s) 3 repeat the header (files joined together?) and were skipped."]),
        Case(cat, "two exports joined, the second with its byte-order mark", "p.csv",
             codecs.BOM_UTF8 + b"source,output,rating\r\nThe food was great.,The food was bad.,4\r\n" + codecs.BOM_UTF8
             + b"source,output,rating\r\nHe said hi to me.,She said hello to me.,3\r\n",
             rows=_scored([4.0, 3.0]),
             notes=["'p.csv': line(s) 3 repeat the header (files joined together?) and were skipped."]),
        Case(cat, "Excel's sep=; first line is honoured", "p.csv",
             "sep=;\nsource;output;rating\nThe food was great.;The food was bad.;4,5\nHe said hi to me.;"
             "She said hello to me.;3\n".encode(),
             rows=_scored([4.5, 3.0]),
             notes=["'p.csv' line 1 is 'sep=;' (a hint spreadsheets write): the file was read as "
                    "semicolon-separated."]),
        Case(cat, "# comment lines above the header are skipped and said", "p.csv",
             b"# exported by annotate-tool 2.1\n# 2 pairs, one rater\nsource,output,rating\n"
             b"The food was great.,The food was bad.,4\n#1 He said hi to me.,She said hello to me.,3\n",
             rows=_scored([4.0, 3.0], pairs=[PAIRS[0], {"source": "#1 He said hi to me.",
                                                        "output": "She said hello to me."}]),
             notes=["'p.csv': 2 comment line(s) above the header (line(s) 1, 2, starting with '#') were skipped."]),
        Case(cat, "a '#' header name is a header, not a comment", "p.csv",
             b"#id,source,output\n7,a,b\n9,c,d\n",
             rows=[{"source": "a", "output": "b"}, {"source": "c", "output": "d"}],
             mapping="source=source,output=output,metric=#id"),
        Case(cat, "a title line above a CSV header is skipped and said", "p.csv",
             f'"{TITLE}",,\nsource,output,rating\nThe food was great.,The food was bad.,4\n'.encode(),
             rows=_scored([4.0])[:1],
             notes=[f"'p.csv': 1 title line(s) above the header were skipped (line 1: '{TITLE}'); the header is "
                    "line 2. Use --skip-rows N to choose another."]),
        Case(cat, "a title line with a comma, not written by a spreadsheet: refused naming --skip-rows", "p.csv",
             f"{TITLE}\nsource,output,rating\nThe food was great.,The food was bad.,4\n".encode(),
             error="'p.csv' line 2 has 3 fields but the header has 2; so do 1 more line(s): 3. If the header is not "
                   "the first line, skip the lines above it with --skip-rows N"),
        Case(cat, "--skip-rows skips lines above the header", "p.csv",
             b"made by: lab, 2024\nversion: 3, final\nsource,output,rating\nThe food was great.,The food was bad.,4\n",
             rows=_scored([4.0])[:1], skip_rows=2,
             notes=["'p.csv': the first 2 line(s) were skipped (--skip-rows)."]),
        Case(cat, "--header first keeps a sentence-like first line as the header", "p.csv",
             b"What was said first.,What was said after.\nx,y\n", header="first",
             rows=[{"source": "x", "output": "y"}]),
        Case(cat, "--header none on a file whose first line looks like names", "p.csv",
             b"source,output\nx,y\n", header="none",
             rows=[{"source": "source", "output": "output"}, {"source": "x", "output": "y"}]),
        Case(cat, "an unknown --header value", "p.csv", b"source,output\nx,y\n", header="yes",
             error="--header: 'yes' is not one of auto, first, none"),
    ]


def xlsx_layout_cases() -> list[Case]:
    """Workbooks with title rows (merged or not) above the header."""
    cat = "header and lines above it (issue 20)"
    table = [["source", "output", "rating"], [PAIRS[0]["source"], PAIRS[0]["output"], 4],
             [PAIRS[1]["source"], PAIRS[1]["output"], 3]]
    return [
        Case(cat, "XLSX with a merged title row", "w.xlsx", xlsx({"S": [[TITLE, None, None]] + table}, merge="A1:C1"),
             rows=_scored([4.0, 3.0]),
             notes=[f"'w.xlsx': 1 title row(s) above the header were skipped (row 1: '{TITLE}'); the header is row 2. "
                    "Use --skip-rows N to choose another."]),
        Case(cat, "XLSX with two title rows", "w.xlsx", xlsx({"S": [[TITLE], ["Sheet made by the lab"]] + table}),
             rows=_scored([4.0, 3.0]),
             notes=[f"'w.xlsx': 2 title row(s) above the header were skipped (row 1: '{TITLE}'; row 2: 'Sheet made by "
                    "the lab'); the header is row 3. Use --skip-rows N to choose another."]),
        Case(cat, "XLSX, --skip-rows", "w.xlsx", xlsx({"S": [["made by", "lab"], ["when", "2024"]] + table}),
             skip_rows=2, rows=_scored([4.0, 3.0]),
             notes=["'w.xlsx': the first 2 row(s) of sheet 'S' were skipped (--skip-rows)."]),
        Case(cat, "XLSX with the header repeated", "w.xlsx", xlsx({"S": table[:2] + [table[0]] + table[2:]}),
             rows=_scored([4.0, 3.0]),
             notes=["'w.xlsx': row(s) 3 repeat the header (files joined together?) and were skipped."]),
    ]


def encoding_and_json_cases() -> list[Case]:
    """One Windows-1252 line in a UTF-8 file; --encoding; nested JSON; TSV quotes that do not pair."""
    cat = "encodings, JSON and quotes (issue 20)"
    mixed = ("source,output\nCafé crème,Déjà vu\n".encode() + "naïve,résumé\n".encode("cp1252")
             + "Ça va,Très bien\n".encode())
    nested = (b'{"pair": {"source": "a", "output": "b"}, "scores": {"human": 4, "bleu": 0.5}}\n'
              b'{"pair": {"source": "c", "output": "d"}, "scores": {"human": 3, "bleu": 0.25}}\n')
    return [
        Case(cat, "one Windows-1252 line in a UTF-8 file: only that line decoded otherwise", "p.csv", mixed,
             rows=[{"source": "Café crème", "output": "Déjà vu"}, {"source": "naïve", "output": "résumé"},
                   {"source": "Ça va", "output": "Très bien"}],
             notes=["'p.csv' is UTF-8 but 1 line(s) are not (line 3 has the byte 0xEF): lines 3 were decoded as "
                    "Windows-1252, the rest as UTF-8. Check the accented characters of those lines, or re-save the "
                    "file as UTF-8 (--encoding ENC reads it all in one encoding)."]),
        Case(cat, "--encoding reads the file in the encoding named", "p.csv",
             "source,output\nnaïve,Œuvre\n".encode("cp1252"), encoding="cp1252",
             rows=[{"source": "naïve", "output": "Œuvre"}]),
        Case(cat, "--encoding that cannot decode the file names the line", "p.csv", mixed, encoding="ascii",
             error="'p.csv' line 2 cannot be decoded as ascii (byte 0xC3); choose another --encoding, or leave it "
                   "out to detect it"),
        Case(cat, "an unknown --encoding", "p.csv", b"source,output\na,b\n", encoding="klingon",
             error="--encoding: 'klingon' is not an encoding Python knows (e.g. utf-8, cp1252, latin-1, utf-16)"),
        Case(cat, "nested JSON Lines: fields read as pair.source, pair.output", "p.jsonl", nested,
             mapping="source=pair.source,output=pair.output,human=scores.human,metric=scores.bleu",
             rows=[{"source": "a", "output": "b", "human:scores.human": 4.0, "metric:scores.bleu": 0.5},
                   {"source": "c", "output": "d", "human:scores.human": 3.0, "metric:scores.bleu": 0.25}],
             notes=["'p.jsonl' holds nested fields; they were read as columns named by their path: pair.source, "
                    "pair.output, scores.human, scores.bleu."]),
        Case(cat, "nested JSON array", "p.json",
             b'[{"pair": {"source": "a", "output": "b"}}, {"pair": {"source": "c", "output": "d"}}]',
             rows=[{"source": "a", "output": "b"}, {"source": "c", "output": "d"}]),
        Case(cat, "TSV with unbalanced quotes inside texts: read unquoted, said", "p.tsv",
             b'source\toutput\n"Hi there\tHello\nHe said "no\tHe said "yes"\nok\tfine\n',
             rows=[{"source": '"Hi there', "output": "Hello"}, {"source": 'He said "no', "output": 'He said "yes"'},
                   {"source": "ok", "output": "fine"}],
             notes=["'p.tsv': the double quotes on line(s) 2, 3 do not enclose whole texts, so quotes were read as "
                    "part of the texts (TSV texts are not quoted)."]),
        Case(cat, "TSV quote swallowing a line and a tab: read unquoted", "p.tsv",
             b'source\toutput\na\t"b\nc\td"\n',
             rows=[{"source": "a", "output": '"b'}, {"source": "c", "output": 'd"'}]),
    ]


def score_cell_cases() -> list[Case]:
    """Scores written 4/5 or 80%, spreadsheet error cells, and saved index columns."""
    cat = "score cells and index columns (issue 20)"
    return [
        Case(cat, "fractions read as their value, said", "p.csv",
             b"source,output,rating\nThe food was great.,The food was bad.,4/5\nHe said hi to me.,She said hello to me.,3/5\n",
             rows=_scored([0.8, 0.6]),
             notes=["Column 'rating': 2 fraction(s) a/b were read as their value (lines 2 ('4/5' read as 0.8), "
                    "3 ('3/5' read as 0.6))."]),
        Case(cat, "percentages read as value/100, said", "p.csv",
             b"source,output,rating\nThe food was great.,The food was bad.,80%\nHe said hi to me.,She said hello to me.,35 %\n",
             rows=_scored([0.8, 0.35]),
             notes=["Column 'rating': 2 percentage(s) p% were read as p/100 (lines 2 ('80%' read as 0.8), "
                    "3 ('35 %' read as 0.35))."]),
        Case(cat, "fractions beside plain numbers: refused naming both", "p.csv",
             b"source,output,rating\na,b,4\nc,d,4/5\n",
             error="column 'rating' mixes plain numbers (line 2: '4') with fractions or percentages (line 3: '4/5'), "
                   "perhaps on two scales; write every value of the column one way, or leave it out with --columns"),
        Case(cat, "spreadsheet error cells in a CSV score column: missing, counted, by line", "p.csv",
             b"source,output,rating,bleu\na,b,#VALUE!,0.5\nc,d,3,#DIV/0!\ne,f,#N/A,0.25\ng,h,4,0.125\n",
             mapping="source=source,output=output,human=rating,metric=bleu",
             rows=[{"source": "a", "output": "b", "human:rating": NAN, "metric:bleu": 0.5},
                   {"source": "c", "output": "d", "human:rating": 3.0, "metric:bleu": NAN},
                   {"source": "e", "output": "f", "human:rating": NAN, "metric:bleu": 0.25},
                   {"source": "g", "output": "h", "human:rating": 4.0, "metric:bleu": 0.125}],
             notes=["Column 'rating': 2 spreadsheet error cell(s) were read as missing values (lines 2 ('#VALUE!'), "
                    "4 ('#N/A')).",
                    "Column 'bleu': 1 spreadsheet error cell(s) were read as missing values (lines 3 ('#DIV/0!'))."]),
        Case(cat, "spreadsheet error cells in an XLSX", "w.xlsx",
             xlsx({"S": [["source", "output", "rating"], ["a", "b", "#REF!"], ["c", "d", 2], ["e", "f", "#NAME?"],
                         ["g", "h", "#NUM!"], ["i", "j", "#NULL!"]]}),
             rows=[{"source": s, "output": o, "human:rating": v} for s, o, v in
                   [("a", "b", NAN), ("c", "d", 2.0), ("e", "f", NAN), ("g", "h", NAN), ("i", "j", NAN)]],
             notes=["Column 'rating': 4 spreadsheet error cell(s) were read as missing values (rows 2 ('#REF!'), "
                    "4 ('#NAME?'), 5 ('#NUM!'), 6 ('#NULL!'))."]),
        Case(cat, "pandas index saved as 'Unnamed: 0': never a metric", "p.csv",
             b"Unnamed: 0,source,output,bleu\n0,a,b,0.5\n1,c,d,0.25\n",
             mapping="source=source,output=output,metric=bleu,key=Unnamed: 0",
             rows=[{"source": "a", "output": "b", "metric:bleu": 0.5}, {"source": "c", "output": "d", "metric:bleu": 0.25}],
             notes=["Column 'Unnamed: 0' holds row numbers (an index saved with the file); it is not used as a score "
                    "or metric."]),
        Case(cat, "an index saved with an empty name: never a metric", "p.csv", b",source,output\n1,a,b\n2,c,d\n5,e,f\n",
             mapping="source=source,output=output,key=column 1",
             rows=[{"source": "a", "output": "b"}, {"source": "c", "output": "d"}, {"source": "e", "output": "f"}],
             notes=["Column 'column 1' holds row numbers (an index saved with the file); it is not used as a score "
                    "or metric."]),
        Case(cat, "a first column named index with 0..n-1: never a metric", "p.tsv",
             b"index\tsource\toutput\n0\ta\tb\n1\tc\td\n", mapping="source=source,output=output,key=index",
             rows=[{"source": "a", "output": "b"}, {"source": "c", "output": "d"}]),
    ]


def issue20_cases() -> list[Case]:
    """Every class of issue 20."""
    return header_cases() + xlsx_layout_cases() + encoding_and_json_cases() + score_cell_cases()
