"""The leaderboard as a presenter shows it and a paper prints it (issue 25): numeric CSV columns, the compact
table's order, ties among the worst outputs, the Failure cases link, and LaTeX tables that pdflatex compiles."""

from __future__ import annotations

import io
import shutil
import subprocess

import pandas as pd
import pytest

from stviz.analyses import board_tables, leaderboard
from stviz.export import table_csv
from stviz.formatting import latex_escape, latex_table

SYSTEMS = ["A", "B", "C"]


def _result(per_output: pd.DataFrame | None = None) -> leaderboard.Result:
    rows = []
    for system, (acc, ppl, content) in zip(SYSTEMS, [(70.0, 80.0, 3.1), (90.0, 120.0, 3.9), (40.0, 60.0, 2.5)]):
        rows += [{"system": system, "metric": "accuracy", "value": acc, "low": acc - 3, "high": acc + 3},
                 {"system": system, "metric": "perplexity", "value": ppl, "low": ppl - 10, "high": ppl + 10},
                 {"system": system, "metric": "human:content", "value": content, "low": content - 0.2,
                  "high": content + 0.2}]
    scores = pd.DataFrame(rows)
    scores = scores.merge(leaderboard.sysmod.rank_ranges(scores), on=["system", "metric"])
    if per_output is None:
        per_output = pd.DataFrame({"system": ["A"] * 4, "accuracy": [1.0, 0, 0, 0],
                                   "target_probability": [0.9, 0.4, 0.1, 0.3], "cosine": [0.5, 0.2, 0.9, 0.1]})
    empty = pd.DataFrame()
    return leaderboard.Result(scores=scores, tests=empty, by_direction=empty, system_meta=empty, output_meta=empty,
                              per_output=per_output, systems=SYSTEMS, metrics=["accuracy", "perplexity"],
                              humans=["human:content"])


def test_csv_holds_numbers_value_low_high_and_rank_per_measure():
    table = board_tables.numeric_table(_result())
    assert list(table.columns[:5]) == ["style accuracy (%)", "style accuracy (%) low", "style accuracy (%) high",
                                       "style accuracy (%) rank best", "style accuracy (%) rank worst"]
    read = pd.read_csv(io.BytesIO(table_csv(table)), index_col="system")
    assert read.loc["B", "style accuracy (%)"] == 90.0 and read.loc["B", "style accuracy (%) low"] == 87.0
    assert read.loc["C", "perplexity high"] == 70.0 and read.loc["C", "perplexity rank best"] == 1
    assert all(pd.api.types.is_numeric_dtype(read[c]) for c in read.columns)  # no "72.5 [69.8, 75.3]" text cells


def test_measure_rows_are_each_measures_rows_in_the_boards_system_order():
    """One pass over the scores gives what filtering them per measure gave: systems in the board's order, a system
    without a value as NaN, a measure without any row as all NaN (Arrow strings, as a kept result holds them)."""
    result = _result()
    scores = result.scores[~((result.scores["system"] == "B") & (result.scores["metric"] == "perplexity"))]
    scores = scores.astype({"system": "string[pyarrow]", "metric": "string[pyarrow]"})
    result = leaderboard.Result(**{**result.__dict__, "scores": scores, "humans": ["human:content", "human:style"]})
    by_measure = board_tables.measure_rows(result)
    for metric in result.metrics + result.humans:
        expected = scores[scores["metric"] == metric].set_index("system").reindex(SYSTEMS)
        pd.testing.assert_frame_equal(by_measure[metric], expected)
    assert by_measure["perplexity"].loc["B"].isna().all() and by_measure["human:style"]["value"].isna().all()


def test_compact_table_is_sorted_by_the_chosen_measure_with_its_rank_range():
    by_accuracy = board_tables.compact_table(_result(), "accuracy")
    assert list(by_accuracy.index) == ["B", "A", "C"] and list(by_accuracy[("rank", "")]) == ["1", "2", "3"]
    by_perplexity = board_tables.compact_table(_result(), "perplexity", ["perplexity"])
    assert list(by_perplexity.index) == ["C", "A", "B"]  # lower is better
    assert list(by_perplexity.columns) == [("rank", ""), ("perplexity", "value"), ("perplexity", "low"),
                                           ("perplexity", "high")]


def test_worst_outputs_break_ties_and_say_so():
    result = _result()
    worst = leaderboard.extreme_outputs(result, "A", "accuracy", n=2)
    # Three outputs tie at accuracy 0: the two with the lowest target-style probability are listed, lowest first.
    assert list(worst["target_probability"]) == [0.1, 0.3]
    note = leaderboard.tie_note(result, "A", "accuracy", worst)
    assert note.startswith("3 of A's 4 outputs tie at 0 by accuracy") and "probability of the target style" in note
    best = leaderboard.extreme_outputs(result, "A", "cosine", n=2, worst=False)
    assert list(best["cosine"]) == [0.9, 0.5] and leaderboard.tie_note(result, "A", "cosine", best, False) is None


def test_ties_without_a_tie_breaker_are_said_in_file_order():
    per_output = pd.DataFrame({"system": ["A"] * 3, "naturalness": [0.2, 0.2, 0.2]})
    result = _result(per_output)
    worst = leaderboard.extreme_outputs(result, "A", "naturalness", n=2)
    assert leaderboard.tie_note(result, "A", "naturalness", worst) == ("3 of A's 3 outputs tie at 0.2 by naturalness; "
                                                                        "listed: 2 of them in file order.")


def test_failure_link_matches_a_content_metric_with_the_content_rating():
    result = _result()
    assert board_tables.failure_link(result, "A", "cosine", 7) == {"systems": "A", "metric": "cosine:minilm",
                                                                   "human": "content", "pair": "7"}
    assert board_tables.failure_link(result, "A", "bertscore", None)["metric"] == "bertscore"
    assert board_tables.failure_link(result, "A", "accuracy", None)["metric"] == "cosine:minilm"


def test_latex_escapes_minus_signs_and_less_than():
    assert latex_escape("p <0.001, metric − human") == "p $<$0.001, metric $-$ human"
    text = latex_table(pd.DataFrame({"metric − human": [-1.5], "p": ["<0.001"]}))
    assert "\u2212" not in text and "$<$0.001" in text and "<0.001" not in text.replace("$<$0.001", "")
    assert r"\toprule" in text and "booktabs" in text


# -- LaTeX that compiles ----------------------------------------------------------------------------------
DOCUMENT = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{booktabs}
\usepackage{graphicx}
\begin{document}
%s
\end{document}
"""


def compile_latex(body: str, tmp_path) -> str:
    """Run pdflatex on ``body`` in a minimal article; the log (fails when pdflatex is missing: make test installs it)."""
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is missing: run 'make system-packages' (texlive-latex-base, texlive-latex-recommended)")
    (tmp_path / "table.tex").write_text(DOCUMENT % body, encoding="utf-8")
    run = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "table.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    log = (tmp_path / "table.log").read_text(errors="replace")
    assert run.returncode == 0, log[-3000:]
    assert (tmp_path / "table.pdf").exists()
    return log


def test_leaderboard_latex_compiles_and_fits_the_page(tmp_path):
    names = ["DeleteAndRetrieve", "StyleEmbedding", "Cross_Aligned & co"]
    result = _result()
    result.scores["system"] = result.scores["system"].map(dict(zip(SYSTEMS, names)))
    result.systems = names
    log = compile_latex(board_tables.board_latex(result), tmp_path)
    assert "Overfull \\hbox" not in log


def test_correlation_and_failure_tables_compile(tmp_path, corpora):
    from stviz.analyses import failure_cases, metrics_vs_humans
    from stviz.data import load_dataset

    demo = load_dataset("demo")
    correlations = metrics_vs_humans.run(demo, metrics_vs_humans.Options(metrics=("bleu", "chrf"), bootstrap=20))
    shown = metrics_vs_humans.readable_correlations(correlations).drop(columns="texts").set_index("metric")
    failures = failure_cases.run(demo, failure_cases.Options(metric="bleu"))
    ranking = failure_cases.readable_ranking(failures.ranking.head(10))
    assert "−" in "".join(ranking.columns)  # the page's column name has a minus sign: it must not reach LaTeX
    body = latex_table(shown) + "\n\\bigskip\n\n" + latex_table(ranking)
    compile_latex(body, tmp_path)


def test_p_values_below_a_thousandth_print_as_less_than(tmp_path):
    frame = pd.DataFrame({"r": [0.5, -0.2], "p": ["<0.001", "0.012"]}, index=["BLEU − x", "chrF"])
    compile_latex(latex_table(frame), tmp_path)
