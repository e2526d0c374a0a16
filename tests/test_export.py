"""Exports people open elsewhere: formula cells neutralised (with an opt-out), HTML figures that work offline."""

from __future__ import annotations

import io
import re

import pandas as pd
import plotly.graph_objects as go

from stviz.cli import main
from stviz.export import figure_html, neutralise_formulas, table_csv, write_table

HOSTILE = pd.DataFrame({"text": ["=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "fine",
                                 "\tx", "a=b"],
                        "score": [-1.5, 2.0, -3.0, 0.0, 1.0, 2.0, 3.0]})


def test_formula_cells_are_neutralised_and_numbers_kept():
    out = neutralise_formulas(HOSTILE.rename(columns={"text": "=cmd"}))
    assert out["'=cmd"].tolist() == ["'=HYPERLINK(\"http://x\",\"y\")", "'+cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1)",
                                     "fine", "'\tx", "a=b"]
    assert out["score"].tolist() == [-1.5, 2.0, -3.0, 0.0, 1.0, 2.0, 3.0]  # numbers stay numbers
    text = table_csv(HOSTILE, index=False).decode()
    assert text.splitlines()[1] == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-1.5"


def test_opt_out_keeps_cells_as_they_are(monkeypatch):
    assert table_csv(HOSTILE, neutralise=False, index=False) == HOSTILE.to_csv(index=False).encode()
    monkeypatch.setenv("STVIZ_NEUTRALISE_FORMULAS", "0")
    assert table_csv(HOSTILE, index=False) == HOSTILE.to_csv(index=False).encode()


def test_out_files_are_neutralised_and_parquet_kept_exact(tmp_path):
    assert pd.read_csv(write_table(HOSTILE, tmp_path / "t.csv"))["text"].iloc[0].startswith("'=")
    assert pd.read_csv(write_table(HOSTILE, tmp_path / "t.tsv"), sep="\t")["text"].iloc[3] == "'@SUM(A1)"
    pd.testing.assert_frame_equal(pd.read_parquet(write_table(HOSTILE, tmp_path / "t.parquet")), HOSTILE)


def test_cli_out_csv_neutralises_user_texts(tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("source,output,human\n=1+1,@SUM(A1),3\nhello there,Hi.,4\n")
    out = tmp_path / "m.csv"
    assert main(["metrics", "--dataset", str(pairs), "--metrics", "bleu", "--out", str(out)]) == 0
    written = pd.read_csv(out)
    assert "'=1+1" in written.astype(str).to_numpy() and "=1+1" not in written.astype(str).to_numpy()


def test_cli_csv_on_stdout_is_neutralised_like_out(tmp_path, capsys):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text('source,output,system,human\nhello there,Hi.,"=HYPERLINK(""http://x"",""y"")",3\n'
                     'good bye,Bye.,"=HYPERLINK(""http://x"",""y"")",4\nsee you,Later.,@other,2\n')
    assert main(["failures", "--dataset", str(pairs), "--metric", "bleu", "--format", "csv"]) == 0
    shown = pd.read_csv(io.StringIO(capsys.readouterr().out)).astype(str).to_numpy()
    assert "'=HYPERLINK(\"http://x\",\"y\")" in shown and "'@other" in shown
    assert not any(cell.startswith(("=", "@")) for cell in shown.ravel())


def test_html_figure_embeds_plotly_js():
    page = figure_html(go.Figure(go.Bar(x=["a"], y=[1])))
    assert not re.search(r"<script[^>]+src=", page)  # nothing loaded from a CDN: it opens offline
    assert len(page) > 1_000_000 and "Plotly.newPlot" in page  # plotly.js itself is inside
