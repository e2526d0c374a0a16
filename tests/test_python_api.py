"""The Python API (issue 67): each function returns its command's ``--format csv`` table, value for value, on a
built-in set and on a DataFrame in memory; bad input raises ``stviz.DataError`` in the command's words; the frame
given is never modified; ``import stviz`` stays light; the example notebook runs and its figures are plotly's."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import stviz
from stviz.analyses.tables import CSV_FLOAT_FORMATS
from stviz.cli import main
from stviz.cli.common import format_table

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "data" / "demo" / "pairs.csv"

#: (the command, its flags, the API function, its options): small choices, as the claim is not about the corpus.
CASES = {
    "correlate": (["--metrics", "bleu,chrf"], "correlate", {"metrics": ("bleu", "chrf")}),
    "failures": (["--metric", "chrf", "--top", "5"], "failures", {"metric": "chrf", "top": 5}),
    "leaderboard": (["--metrics", "accuracy,chrf,self_bleu", "--n-resamples", "200"], "leaderboard",
                    {"metrics": ("accuracy", "chrf", "self_bleu"), "n_resamples": 200}),
    "tradeoff": ([], "tradeoffs", {}),
    "blindspots": (["--metrics", "chrf", "--bootstrap", "200"], "blindspots", {"metrics": ("chrf",), "bootstrap": 200}),
}


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """The demo's pair file read by pandas: the DataFrame a notebook user holds."""
    return pd.read_csv(PAIRS)


def cli(argv: list[str], capsys) -> tuple[str, str]:
    """Run a command in this process: (stdout, stderr)."""
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def note_lines(err: str) -> list[str]:
    """The command's 'note: ...' lines, without the prefix."""
    return [line.removeprefix("note: ") for line in err.splitlines() if line.startswith("note: ")]


@pytest.mark.parametrize("source", ["built-in", "dataframe"])
@pytest.mark.parametrize("command", list(CASES))
def test_each_function_returns_its_commands_csv(command, source, frame, capsys):
    flags, function, options = CASES[command]
    dataset = "demo" if source == "built-in" else str(PAIRS)
    out, err = cli([command, "--dataset", dataset, *flags, "--format", "csv"], capsys)
    table = getattr(stviz, function)("demo" if source == "built-in" else frame, progress=False, **options)
    assert isinstance(table, pd.DataFrame) and len(table)
    assert format_table(table, "csv", CSV_FLOAT_FORMATS[command]) == out  # every value as the command prints it
    assert table.attrs["language"] in err.splitlines()
    if source == "built-in":  # a file's notes name the file; a DataFrame's name it 'dataframe.csv'
        assert set(note_lines(err)) <= set(table.attrs["notes"])


@pytest.mark.parametrize("source", ["built-in", "dataframe"])
def test_metric_scores_are_what_metrics_writes(source, frame, capsys, tmp_path):
    from stviz.export import write_table

    out = tmp_path / "cli.csv"
    cli(["metrics", "--dataset", "demo" if source == "built-in" else str(PAIRS), "--metrics", "bleu,chrf", "--out",
         str(out)], capsys)
    table = stviz.metric_scores("demo" if source == "built-in" else frame, metrics=["bleu", "chrf"], progress=False)
    mine = write_table(table, tmp_path / "api.csv")
    assert mine.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("source", ["built-in", "dataframe"])
def test_meta_evaluate_returns_meta_evals_csv(source, frame, capsys):
    out, _ = cli(["meta-eval", "--datasets", "demo" if source == "built-in" else str(PAIRS), "--format", "csv"],
                 capsys)
    given = "demo" if source == "built-in" else stviz.open(frame, name="pairs")  # the file's name, for the set column
    table = stviz.meta_evaluate([given], progress=False)
    assert format_table(table, "csv", CSV_FLOAT_FORMATS["meta-eval"]) == out


def test_style_similarity_gives_each_embedders_matrix(capsys):
    out, _ = cli(["similarity", "--dataset", "demo", "--embedder", "glove-sum", "--permutations", "199", "--format",
                  "csv"], capsys)
    table = stviz.style_similarity("demo", embedders=("glove-sum",), permutations=199, progress=False)
    heading, matrix = out.split("\n", 1)
    assert heading == "# glove-sum (self-pairs excluded)"
    assert format_table(table.loc["glove-sum"], "csv", "{:.3f}") == matrix


def test_embedding_map_gives_reduces_points(capsys, tmp_path):
    out = tmp_path / "map.csv"
    cli(["reduce", "--dataset", "demo", "--method", "pca", "--embedder", "glove-sum", "--out", str(out)], capsys)
    points = stviz.embedding_map("demo", method="pca", embedder="glove-sum", progress=False)
    pd.testing.assert_frame_equal(points.reset_index(drop=True), pd.read_csv(out), check_dtype=False, rtol=1e-6)


def test_the_dataframe_given_is_never_modified(frame):
    given = frame.set_index("system")  # a named index is read as a column, on a copy
    before = given.copy(deep=True)
    dataset = stviz.open(given)
    stviz.correlate(given, metrics=("chrf",), progress=False)
    pd.testing.assert_frame_equal(given, before)
    assert given.attrs == {} and "system" in dataset.pairs


def test_a_dataframe_is_read_by_the_intake_of_a_file(frame):
    dataset = stviz.open(frame)
    notes = stviz.open(frame).__dict__["_api_intake_notes"]
    assert dataset.name == "dataframe" and len(dataset.pairs) == len(frame)
    assert any(note.startswith("columns: ") for note in notes)
    assert "Read 72 rows and 8 columns from 'dataframe.csv'." in notes
    assert sorted(dataset.human_columns) == ["human:content_preservation", "human:style_transfer_intensity"]


def test_bad_input_raises_one_data_error_in_the_commands_words(frame, capsys, tmp_path):
    capsys.readouterr()
    assert main(["correlate", "--dataset", "no-such-set", "--format", "csv"]) == 2
    with pytest.raises(stviz.DataError) as unknown:
        stviz.correlate("no-such-set", progress=False)
    assert f"error: {unknown.value}" in capsys.readouterr().err.splitlines()

    no_source = frame.drop(columns=["source"])
    no_source.to_csv(tmp_path / "dataframe.csv", index=False)
    assert main(["correlate", "--dataset", str(tmp_path / "dataframe.csv"), "--header", "first"]) == 2
    with pytest.raises(stviz.DataError) as missing:
        stviz.correlate(no_source, progress=False)
    assert f"error: {missing.value}" in capsys.readouterr().err.splitlines()


def test_an_unknown_option_is_refused_with_the_names_taken():
    with pytest.raises(stviz.DataError, match=r"^unknown option metricz; metrics_vs_humans takes: .*\bmetrics\b"):
        stviz.correlate("demo", metricz=("bleu",), progress=False)


def test_import_stviz_is_light():
    code = ("import sys, stviz; heavy = [m for m in ('pandas', 'numpy', 'torch', 'stviz.analyses', 'stviz.api') "
            "if m in sys.modules]; print(heavy)")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert found.stdout.strip() == "[]"
    assert set(stviz.__all__) <= set(dir(stviz))


def test_progress_outside_a_notebook_is_tqdm_on_stderr(capsys):
    from stviz.api.progress import NotebookReporter

    reporter = NotebookReporter()
    report = reporter.stage("scoring pairs")
    report(5, 10)
    report(10, 10)
    reporter.finish()
    err = capsys.readouterr().err
    assert "scoring pairs" in err and "10/10" in err and "\033[K" not in err


def test_study_created_from_a_dataframe_reads_its_ratings_back(frame, tmp_path):
    db = f"sqlite:///{tmp_path / 'studies.sqlite3'}"
    study = stviz.study(frame, inputs=4, raters=2, db=db)
    assert len(study.rater_links()) == 2 and study.owner_link().startswith("http")
    ratings = study.ratings()
    assert isinstance(ratings, pd.DataFrame) and {"source", "output"} <= set(ratings.columns)
    assert stviz.study(id=study.id, db=db).title == study.title


@pytest.mark.parametrize("command", ["failures", "tradeoff"])
def test_with_no_options_the_pages_opening_gives_the_commands_table(command, capsys):
    out, _ = cli([command, "--dataset", "demo", "--format", "csv"], capsys)
    table = getattr(stviz, CASES[command][1])("demo", progress=False)
    assert format_table(table, "csv", CSV_FLOAT_FORMATS[command]) == out


def test_a_table_computed_here_is_kept_for_the_page(tmp_path, monkeypatch):
    # A fresh cache: the page's key must be found because this run kept it, not because a warm-up did.
    from stviz.analyses import metrics_vs_humans
    from stviz.analyses.kept import is_kept, kept_result
    from stviz.analyses.opening import opening_options
    from stviz.data import load_dataset

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    page = load_dataset("demo")  # as the page opens it
    asked = opening_options(metrics_vs_humans.__name__, page).changed(metrics=("chrf",))  # one widget moved
    assert not is_kept(metrics_vs_humans.__name__, page, asked)
    table = stviz.correlate("demo", metrics=["chrf"], progress=False)
    found, result = kept_result(metrics_vs_humans.__name__, page, asked)
    assert found
    assert list(metrics_vs_humans.readable_correlations(result)["r"]) == list(table["r"])


def test_the_example_notebook_runs_and_draws_plotly_figures(monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    path = ROOT / "docs" / "examples" / "quickstart.ipynb"
    notebook = nbformat.read(path, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells)  # outputs are not committed
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the kernel (this venv's python) imports this tree's stviz
    NotebookClient(notebook, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    assert not [output for output in outputs if output.output_type == "error"]
    # each Figure the notebook displayed, rebuilt from what plotly sent to the page
    figures = [go.Figure(output.data[PLOTLY]) for output in outputs if PLOTLY in output.get("data", {})]
    assert [figure.data[0].type for figure in figures] == ["heatmap", "scatter"]
    heatmap, intervals = figures
    matrix = stviz.style_similarity("demo", embedders=["glove-sum"], permutations=199, progress=False).loc["glove-sum"]
    assert heatmap.layout.title.text == "glove-sum"
    np.testing.assert_allclose(plotted(heatmap.data[0].z), matrix.to_numpy(float))  # the table's values, drawn
    board = stviz.leaderboard("demo", metrics=["chrf", "self_bleu"], n_resamples=200, progress=False)
    chrf = board.xs("chrf", level="metric").dropna(subset=["value"]).sort_values("value", ascending=False)
    assert list(intervals.data[0].y) == list(chrf.index) and len(chrf) >= 2  # the systems scored, best first
    np.testing.assert_allclose(plotted(intervals.data[0].x), chrf["value"].to_numpy(float))
    streams = "".join(output.text for output in outputs if output.output_type == "stream")
    assert "DataError: " in streams and "\r" not in streams and "\033[" not in streams  # no terminal bars


def test_progress_in_a_notebook_is_redrawn_in_place_without_carriage_returns(monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    cell = ("from stviz.api.progress import NotebookReporter\n"
            "reporter = NotebookReporter()\nreport = reporter.stage('scoring pairs')\n"
            "for done in range(0, 101, 25):\n    report(done, 100)\nreporter.finish()")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    NotebookClient(notebook, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = notebook.cells[0].outputs
    assert not [o for o in outputs if o.output_type in ("error", "stream")]  # nothing written to stderr
    shown = [o.data["text/plain"] for o in outputs if "text/plain" in o.get("data", {})]
    assert shown and "scoring pairs" in shown[-1] and "100 / 100" in shown[-1]  # one line, redrawn in place
    assert not any("\r" in text or "\033[" in text for text in shown)


#: The mime type plotly renders a Figure as in a notebook.
PLOTLY = "application/vnd.plotly.v1+json"


def plotted(values) -> np.ndarray:
    """A trace's array as sent to the page: plain lists, or plotly's typed arrays (base64 'bdata', dtype, shape)."""
    if isinstance(values, dict) and "bdata" in values:
        shape = tuple(int(n) for n in str(values.get("shape", "-1")).split(","))
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).reshape(shape)
    return np.asarray(values)


def test_a_frame_of_two_languages_gives_the_commands_one_table(capsys, tmp_path):
    from multilingual_data import pairs_frame

    mixed = pd.concat([pairs_frame("en"), pairs_frame("ru")], ignore_index=True)
    mixed.to_csv(tmp_path / "dataframe.csv", index=False)
    flags = ["--metrics", "chrf", "--method", "spearman"]
    out, err = cli(["correlate", "--dataset", str(tmp_path / "dataframe.csv"), "--header", "first", *flags,
                    "--format", "csv"], capsys)
    table = stviz.correlate(mixed, metrics=["chrf"], methods=["spearman"], progress=False)
    assert table.index.name == "language" and set(table.index) == {"en", "ru"}
    assert format_table(table, "csv", CSV_FLOAT_FORMATS["correlate"]) == out
    assert set(note_lines(err)) <= set(table.attrs["notes"])  # said once, with the languages they concern


def test_the_figures_draw_the_tables_of_the_api():
    tradeoffs = stviz.tradeoffs("demo", progress=False)
    plot = stviz.figures.tradeoff_plot(tradeoffs)
    assert isinstance(plot, go.Figure) and {trace.name for trace in plot.data} >= set(tradeoffs.index)
    meta = stviz.meta_evaluate(["demo"], progress=False)
    heatmap = stviz.figures.meta_heatmap(meta, aspect="content")
    assert heatmap.data[0].type == "heatmap" and len(heatmap.data[0].x) == len(
        meta[(meta["aspect"] == "content") & (meta["level"] == "sentence") & (meta["statistic"] == "Pearson r")])
    points = stviz.embedding_map("demo", method="pca", embedder="glove-sum", progress=False)
    drawn = stviz.figures.embedding_map(points)
    assert points.attrs["colour"] == "style" and sum(len(trace.x) for trace in drawn.data) == len(points)


def test_an_outputs_folder_is_opened_as_the_command_reads_it(tmp_path, capsys):
    from test_outputs_intake import flat, folder

    from stviz.cli.common import load_outputs_arg

    release = folder(tmp_path / "release", flat())
    opened = stviz.open(release)
    read = load_outputs_arg(release)[0]
    pd.testing.assert_frame_equal(opened.pairs, read.pairs)
    assert opened.name == read.name and opened.__dict__["_api_intake_notes"][-len(read.notes):] == read.notes
