"""Exported figures keep their tick labels and axis titles inside the image (issue 25): rendered with kaleido,
as the app's PNG download renders them (ui.export.download_figure: 1200 px wide, scale 2)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from PIL import Image

from stviz.plots.metrics import rank_difference_histogram


def _exported(fig: go.Figure) -> np.ndarray:
    png = pio.to_image(go.Figure(fig).update_layout(width=1200), format="png", scale=2)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def test_failure_histogram_png_keeps_ticks_and_titles_inside():
    ranks = pd.DataFrame({"metric_over_human": np.random.default_rng(0).normal(0, 30, 2000)})
    fig = rank_difference_histogram(ranks, "cosine: MiniLM")
    full = fig.full_figure_for_development(warn=False)
    # The plot area starts where the y tick labels ("1000"-wide numbers) and the title beside them fit.
    assert full.layout.margin.l >= 50 and full.layout.margin.b >= 50
    image = _exported(fig)
    background = image[2, image.shape[1] // 2]
    for border in (image[:, :4], image[:, -4:], image[-4:, :], image[:4, :]):
        assert (np.abs(border - background).sum(axis=-1) < 30).all()  # nothing drawn into the edges: nothing cut
    # Dark pixels (tick labels, the y title) left of the plot area: the labels are drawn, not clipped away.
    left = image[:, : int(full.layout.margin.l) * 2]
    assert (left.sum(axis=-1) < 300).sum() > 200
