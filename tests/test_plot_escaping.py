"""User-supplied names in figures are shown as written: escaped once, never read as markup or as a template variable.

Plotly reads a subset of HTML in titles, axis titles, legend names, annotations, colour bar titles and hover text,
and ``%{...}`` in a hovertemplate/texttemplate is a variable. Each figure builder is given a name that holds tags,
an ampersand, quotes and ``%{x}``; the figure's JSON must show it literally (``plotly_shows``: what plotly.js draws),
escaped exactly once (no ``&amp;lt;``), quotes untouched (no ``&quot;``), and never as ``%{x}`` in a template.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.test_plots_overview import plotly_shows

NAME = '<b>x</b> a & b "quoted" %{x}'
OTHER = "<i>y</i> & z"
TEMPLATE_KEYS = {"hovertemplate", "texttemplate"}


def strings(fig) -> list[tuple[str, str]]:
    """Every (key, string) in the figure's JSON (layout and traces) that plotly may draw: a trace's customdata
    only when its hovertemplate shows it (otherwise it is data handed back on selection, kept as it is)."""
    out = []

    def walk(value, key=""):
        if isinstance(value, dict):
            for k, v in value.items():
                if k == "customdata" and "customdata" not in str(value.get("hovertemplate", "")):
                    continue
                walk(v, k)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v, key)
        elif isinstance(value, str):
            out.append((key, value))

    walk(json.loads(fig.to_json()))
    return out


def shown(text: str) -> str:
    """What plotly.js draws for a label or template (a zero-width space that breaks '%{' is invisible)."""
    return plotly_shows(text).replace("\u200b", "")


def assert_literal(fig, *names: str, at_least: int = 1) -> None:
    """Each name shows as written somewhere in ``fig`` and no string in it is raw markup, double-escaped or a
    template variable taken from a name."""
    texts = strings(fig)
    for key, text in texts:
        assert "<b>x</b>" not in text and "<i>y</i>" not in text, (key, text)  # read as markup
        assert "&amp;lt;" not in text and "&amp;amp;" not in text, (key, text)  # escaped twice
        assert "&quot;" not in text, (key, text)  # plotly would show the entity
        if key in TEMPLATE_KEYS:
            assert '"quoted" %{x}' not in text, (key, text)  # the name's %{x} would be replaced by a value
    for name in names:
        found = [key for key, text in texts if name in shown(text)]
        assert len(found) >= at_least, (name, texts)


def test_overview_figures():
    from stviz.data.schema import Dataset
    from stviz.plots.overview import counts_bar, score_histograms

    assert_literal(counts_bar(pd.Series({NAME: 3, OTHER: 1}), "system"), NAME, OTHER)
    pairs = pd.DataFrame({"source": ["a", "b"], "output": ["c", "d"], f"human:{NAME}": [1.0, 2.0],
                          f"human:{OTHER}": [3.0, 4.0]})
    fig = score_histograms(Dataset(name="n", title="t", pairs=pairs))
    assert_literal(fig, NAME, OTHER)
    assert {shown(a.text) for a in fig.layout.annotations} == {NAME, OTHER}  # the panel titles


def _correlations(metrics=("m1", "m2"), series=("pearson",)):
    rows = [{"metric": m, "method": s, "group": "all", "r": 0.5 + 0.1 * i, "ci_low": 0.4, "ci_high": 0.7,
             "n": 10, "shown": "r"} for i, m in enumerate(metrics) for s in series]
    return pd.DataFrame(rows)


def test_forest_plot_title_names_and_series():
    from stviz.plots.metrics import forest_plot

    fig = forest_plot(_correlations(series=(NAME,)), {"m1": NAME, "m2": OTHER}, title=f"Correlation with {NAME}")
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == f"Correlation with {NAME}"
    assert shown(fig.data[0].name) == NAME and [shown(t) for t in fig.layout.yaxis.ticktext] == [NAME, OTHER]


def test_metric_human_scatter():
    from stviz.plots.metrics import metric_human_scatter

    frame = pd.DataFrame({"source": ["s1", "s2"], "output": ["o1", "o2"], "m": [0.1, 0.2], "h": [1.0, 2.0],
                          "system": [NAME, OTHER]})
    fig = metric_human_scatter(frame, "m", "h", NAME, color="system", human_label=OTHER)
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.xaxis.title.text) == NAME and shown(fig.layout.yaxis.title.text) == OTHER
    assert shown(fig.layout.title.text) == f"{NAME} against {OTHER}"


def test_ne_change_plot_metric_names():
    from stviz.plots.metrics import ne_change_plot

    fig = ne_change_plot(pd.DataFrame({"metric": [NAME, OTHER], "without NE": [0.1, 0.2], "with NE": [0.2, 0.3]}))
    assert_literal(fig, NAME, OTHER)
    assert {shown(y) for y in fig.data[-1].y} == {NAME, OTHER}


def test_williams_heatmap_metric_names():
    from stviz.plots.metrics import williams_heatmap

    p = pd.DataFrame([[np.nan, 0.01], [0.5, np.nan]], index=["m1", "m2"], columns=["m1", "m2"])
    fig = williams_heatmap(p, {"m1": NAME, "m2": OTHER})
    assert_literal(fig, NAME, OTHER)
    assert [shown(v) for v in fig.data[0].x] == [NAME, OTHER] == [shown(v) for v in fig.data[0].y]


def test_rank_difference_histogram_title():
    from stviz.plots.metrics import rank_difference_histogram

    fig = rank_difference_histogram(pd.DataFrame({"metric_over_human": [1.0, -2.0]}), NAME)
    assert_literal(fig, NAME)
    assert shown(fig.layout.title.text).startswith(f"{NAME}: ")


def _scores():
    return pd.DataFrame({"system": [NAME, OTHER] * 2, "metric": ["bleu"] * 2 + ["acc"] * 2,
                         "value": [1.0, 2.0, 0.5, 0.7], "low": [0.5, 1.5, 0.4, 0.6], "high": [1.5, 2.5, 0.6, 0.8]})


def test_leaderboard_figures():
    from stviz.plots.leaderboard import (correlation_heatmap, direction_figure, interval_figure, metric_scatter,
                                         significance_heatmap)

    assert_literal(interval_figure(_scores(), "bleu", NAME), NAME, OTHER)
    p = pd.DataFrame([[np.nan, 0.01], [0.01, np.nan]], index=[NAME, OTHER], columns=[NAME, OTHER])
    fig = significance_heatmap(p, p * 0 + 1, title=NAME)
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == NAME
    fig = metric_scatter(_scores(), "bleu", "acc", x_label=NAME, y_label=OTHER)
    assert_literal(fig, NAME, OTHER)
    assert {shown(a.text) for a in fig.layout.annotations} == {NAME, OTHER}
    directions = _scores().assign(direction=[NAME, NAME, OTHER, OTHER], metric="bleu")
    fig = direction_figure(directions, "bleu", OTHER)
    assert_literal(fig, NAME, OTHER)
    assert {shown(t.name) for t in fig.data} == {NAME, OTHER}
    meta = pd.DataFrame({"metric": ["m1", "m2"], "human": ["h", "h"], "pearson": [0.1, 0.2]})
    assert_literal(correlation_heatmap(meta, {"m1": NAME, "h": OTHER}), NAME, OTHER)


def test_meta_evaluation_figures():
    from stviz.plots.meta_evaluation import agreement_heatmap, sets_heatmap

    rows = pd.DataFrame({"task": [NAME, NAME, OTHER], "measure": [NAME, OTHER, NAME], "r": [0.5, 0.3, 0.2],
                         "ci_low": [0.4, 0.2, np.nan], "ci_high": [0.6, 0.4, np.nan], "best_group": [True, False, True]})
    fig = sets_heatmap(rows, "Pearson r", title=f"{NAME} · sentence level")
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == f"{NAME} · sentence level"
    matrix = pd.DataFrame([[1.0, 0.2], [0.2, 1.0]], index=[NAME, OTHER], columns=[NAME, OTHER])
    fig = agreement_heatmap(matrix, title=f"{NAME}: measure x measure")
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == f"{NAME}: measure x measure"


def test_similarity_figures():
    from stviz.plots.similarity import embedding_map, leakage_figure, similarity_heatmap, similarity_heatmaps

    matrix = pd.DataFrame([[0.9, 0.2], [0.2, 0.8]], index=[NAME, OTHER], columns=[NAME, OTHER])
    fig = similarity_heatmap(matrix, title=NAME)
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == NAME
    fig = similarity_heatmaps({NAME: matrix, OTHER: matrix})
    assert_literal(fig, NAME, OTHER)
    assert {shown(a.text) for a in fig.layout.annotations} == {NAME, OTHER}  # the panel titles
    ranking = pd.DataFrame({"embedder": [NAME, OTHER], "style accuracy (CV)": [0.6, 0.7], "majority rate": [0.5, 0.5]})
    assert_literal(leakage_figure(ranking), NAME, OTHER)
    frame = pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0], "text": ["one", "two"], "row": [0, 1],
                          "style": [NAME, OTHER], "score": [0.1, 0.2]})
    fig = embedding_map(frame, colour="style", title=f"PCA of {NAME}", colour_title=OTHER)
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == f"PCA of {NAME}" and shown(fig.layout.legend.title.text) == OTHER
    fig = embedding_map(frame, colour="score", title="map", colour_title=NAME)
    assert_literal(fig, NAME)
    assert shown(fig.data[0].marker.colorbar.title.text) == NAME


def test_style_figures():
    from stviz.plots.style import confusion_figure, distribution_figure, tradeoff_figure

    table = pd.DataFrame({"system": [NAME, OTHER], "setting": [NAME, "2"], "x": [0.1, 0.2], "y": [0.3, 0.4]})
    fig = tradeoff_figure(table, "x", "y", x_label=NAME, y_label=OTHER, title=NAME)
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == NAME and shown(fig.layout.xaxis.title.text) == NAME
    frame = pd.DataFrame({"v": [1, 2], "g": [NAME, OTHER]})
    fig = distribution_figure(frame, "v", "g", label=OTHER, title=NAME)
    assert_literal(fig, NAME, OTHER)
    assert shown(fig.layout.title.text) == NAME
    confusion = pd.DataFrame([[3, 1], [0, 4]], index=[NAME, OTHER], columns=[NAME, OTHER])
    fig = confusion_figure(confusion, title=f"Confusion on {NAME}")
    assert_literal(fig, NAME, OTHER)
    assert [shown(v) for v in fig.data[0].x] == [NAME, OTHER] and shown(fig.layout.title.text) == f"Confusion on {NAME}"


@pytest.mark.parametrize("plain", ["Correlation with human scores (95% bootstrap CI)", "a < b & c"])
def test_plain_titles_are_escaped_once(plain):
    """A title the builder escapes is never escaped again (the page passes plain text)."""
    from stviz.plots.metrics import forest_plot

    fig = forest_plot(_correlations(), title=plain)
    assert shown(fig.layout.title.text) == plain
