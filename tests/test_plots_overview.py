"""Figure builders of the home page's dataset summary."""

from __future__ import annotations

import pandas as pd

from stviz.data import load_dataset
from stviz.plots.overview import counts_bar, length_histogram, score_histograms


def test_counts_bar_has_one_bar_per_group():
    fig = counts_bar(pd.Series({"formal": 3, "informal": 5}), "style")
    assert list(fig.data[0].y) == ["formal", "informal"] and list(fig.data[0].x) == [3, 5]


def test_length_histogram_covers_each_text_role():
    fig = length_histogram(load_dataset("demo"))
    assert {trace.name for trace in fig.data} == {"style texts", "sources", "outputs"}
    assert sum(len(trace.x) for trace in fig.data) == 120 + 72 + 72


def test_score_histograms_one_panel_per_human_column():
    fig = score_histograms(load_dataset("demo"))
    titles = {a.text for a in fig.layout.annotations}
    assert titles == {"content_preservation", "style_transfer_intensity"}
