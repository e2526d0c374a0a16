"""Figure builders of the home page's dataset summary."""

from __future__ import annotations

import pandas as pd

from stviz.data import load_dataset
from stviz.data.schema import Dataset
from stviz.plots.overview import counts_bar, length_histogram, score_histograms


def test_counts_bar_has_one_bar_per_group():
    fig = counts_bar(pd.Series({"formal": 3, "informal": 5}), "style")
    assert list(fig.data[0].y) == ["formal", "informal"] and list(fig.data[0].x) == [3, 5]


def test_small_counts_get_whole_number_ticks():
    assert counts_bar(pd.Series({"sys1": 2, "sys2": 1}), "system").layout.xaxis.dtick == 1  # no "0.5 pairs"
    assert counts_bar(pd.Series({"a": 500, "b": 700}), "style").layout.xaxis.dtick is None  # plotly's own ticks
    pairs = pd.DataFrame({"source": ["a b", "c d", "e f"], "output": ["a", "c d e f", "g h"]})
    fig = length_histogram(Dataset(name="tiny", title="tiny", pairs=pairs))
    assert fig.data[0].xbins.size == 1 and fig.data[0].xbins.start == 0.5  # whole-word bins centred on 1, 2, ...
    assert fig.layout.xaxis.dtick == 1 and fig.layout.yaxis.dtick == 1


def test_length_histogram_covers_each_text_role():
    fig = length_histogram(load_dataset("demo"))
    assert {trace.name for trace in fig.data} == {"style texts", "sources", "outputs"}
    assert sum(len(trace.x) for trace in fig.data) == 120 + 72 + 72


def test_score_histograms_one_panel_per_human_column():
    fig = score_histograms(load_dataset("demo"))
    titles = {a.text for a in fig.layout.annotations}
    assert titles == {"content_preservation", "style_transfer_intensity"}


def test_long_and_markup_names_are_cut_and_shown_literally():
    from stviz.plots import hover_label, plot_label, plot_labels
    from stviz.plots.similarity import embedding_map
    from stviz.plots.style import tradeoff_figure

    long_name = "system-" + "x" * 2000 + "-end"
    assert plot_label(long_name) == "system-" + "x" * 12 + "…" + "x" * 16 + "-end" and len(plot_label(long_name)) == 40
    assert plot_label("<b>bold</b> & $x$") == "&lt;b&gt;bold&lt;/b&gt; &amp; $x$"
    assert plot_labels(["a" * 50 + "1", "a" * 50 + "2", "a" * 50 + "1"])[2].endswith("(2)")  # never merged
    frame = pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0], "text": ["one", "two"], "row": [0, 1],
                          "system": [long_name, "<i>short</i>"]})
    fig = embedding_map(frame, colour="system")
    names = sorted(trace.name for trace in fig.data)
    assert names == ["&lt;i&gt;short&lt;/i&gt;", plot_label(long_name)]  # the legend keeps the plot its size
    assert any(hover_label(long_name) in trace.hovertemplate for trace in fig.data)  # the whole name on hover
    table = pd.DataFrame({"system": [long_name, long_name], "setting": ["a", "b"], "sti": [0.1, 0.2], "cp": [0.5, 0.4]})
    names = [trace.name for trace in tradeoff_figure(table, "sti", "cp").data]
    assert plot_label(long_name) in names and hover_label(long_name) not in names  # Pareto stars drawn first
    bar = counts_bar(pd.Series({long_name: 3}), "system")
    assert list(bar.data[0].y) == [plot_label(long_name)] and hover_label(long_name) in bar.data[0].customdata[0][0]


# What plotly.js shows for a label (src/lib/svg_text_utils.js): tags it knows are markup, and only these named
# entities and numeric ones are decoded; any other (&quot;) is shown as typed.
PLOTLY_ENTITIES = {"mu": "μ", "amp": "&", "lt": "<", "gt": ">", "nbsp": "\u00a0", "times": "×", "plusmn": "±",
                   "deg": "°"}


def plotly_shows(label: str) -> str:
    import html
    import re

    def entity(m):
        code = m.group(1)
        if code.startswith("#"):
            return html.unescape(m.group(0))
        return PLOTLY_ENTITIES.get(code, m.group(0))

    return re.sub(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);", entity, re.sub(r"<br>", " ", label))


def test_names_with_quotes_and_markup_show_as_written_in_legends_and_axes():
    from stviz.plots.leaderboard import interval_figure, metric_scatter
    from stviz.plots.style import distribution_figure, tradeoff_figure

    name = 'He said "hi" & <b>left</b> 50%{x}'
    scores = pd.DataFrame({"system": [name, "plain"] * 2, "metric": ["bleu"] * 2 + ["acc"] * 2,
                           "value": [1.0, 2.0, 0.5, 0.7], "low": [0.5, 1.5, 0.4, 0.6], "high": [1.5, 2.5, 0.6, 0.8]})
    board = interval_figure(scores, "bleu", "BLEU")
    assert name in [plotly_shows(y) for y in board.data[0].y]
    scatter = metric_scatter(scores, "bleu", "acc", x_label='x "q"', y_label="y")
    legend = [t.name for t in scatter.data if t.name and "left" in t.name]
    assert [plotly_shows(n) for n in legend] == [name]
    hover = next(t.hovertemplate for t in scatter.data if t.name in legend)
    assert "&quot;" not in hover and "%{x}" not in hover.split("</b>")[0]  # no template variable from a name
    table = pd.DataFrame({"system": [name, name], "setting": ["1", "2"], "x": [0.1, 0.2], "y": [0.3, 0.4]})
    trade = tradeoff_figure(table, "x", "y", x_label='content "kept"')
    assert plotly_shows(trade.data[-1].name) == name and plotly_shows(trade.layout.xaxis.title.text) == 'content "kept"'
    dist = distribution_figure(pd.DataFrame({"v": [1, 2], "g": [name, name]}), "v", "g")
    assert plotly_shows(dist.data[0].name) == f"{name} (n = 2)"


def test_figures_have_the_paper_template_from_plotlys_default():
    """Every figure is white as in a paper (an exported figure keeps it), whether or not its builder ever named a
    template, and no builder names one: a figure given ``template=`` copies and validates the whole template."""
    import pathlib
    import re

    from stviz.plots.leaderboard import interval_figure
    from stviz.plots.metrics import forest_plot

    scores = pd.DataFrame({"system": ["a", "b"], "metric": ["bleu"] * 2, "value": [1.0, 2.0], "low": [0.5, 1.5],
                           "high": [1.5, 2.5]})
    table = pd.DataFrame({"metric": ["bleu", "chrf"], "method": ["pearson"] * 2, "group": ["all"] * 2, "r": [0.3, 0.5],
                          "ci_low": [0.1, 0.3], "ci_high": [0.5, 0.7], "n": [10, 10], "shown": ["r"] * 2})
    for fig in (interval_figure(scores, "bleu", "BLEU"), forest_plot(table), counts_bar(pd.Series({"a": 1}), "x")):
        assert fig.layout.template.layout.plot_bgcolor == "white"
    builders = pathlib.Path(__file__).parents[1] / "stviz" / "plots"
    named = [p.name for p in builders.glob("*.py") if re.search(r"(?<!\w)template\s*=\s*[\"'\w]", p.read_text())]
    assert named == []
