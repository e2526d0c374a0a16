"""Figures for the style-similarity and embedding-map views (Fitzpatrick et al., Tables 1-3, Figures 1-3)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from stviz.similarity import row_maxima

#: Distinct colours for up to 10 / 48 categories (Streamlit's default cycle repeats colours at 11 styles).
_FEW = qualitative.D3
_MANY = qualitative.Dark24 + qualitative.Light24

#: Longest sentence shown whole on hover; longer ones are cut (hover boxes would cover the plot).
HOVER_CHARS = 240


def _heatmap_trace(matrix: pd.DataFrame, decimals: int, low: pd.DataFrame | None, high: pd.DataFrame | None,
                   showscale: bool) -> go.Heatmap:
    values = matrix.to_numpy()
    mask = row_maxima(matrix, decimals)
    text = [[(f"<b>{v:.{decimals}f}*</b>" if mask[i, j] else f"{v:.{decimals}f}") for j, v in enumerate(row)]
            for i, row in enumerate(values)]
    if low is not None and high is not None:
        custom = np.dstack([low.to_numpy(), high.to_numpy()])
        hover = ("%{y} -> %{x}<br>mean cosine %{z:.4f}<br>bootstrap CI [%{customdata[0]:.4f}, %{customdata[1]:.4f}]"
                 "<extra></extra>")
    else:
        custom, hover = None, "%{y} -> %{x}<br>mean cosine %{z:.4f}<extra></extra>"
    return go.Heatmap(z=values, x=[str(c) for c in matrix.columns], y=[str(i) for i in matrix.index], text=text,
                      texttemplate="%{text}", textfont={"size": 10}, customdata=custom, hovertemplate=hover,
                      colorscale="Viridis", showscale=showscale, colorbar={"title": {"text": "cosine"}})


def similarity_heatmap(matrix: pd.DataFrame, title: str = "", decimals: int = 3,
                       low: pd.DataFrame | None = None, high: pd.DataFrame | None = None) -> go.Figure:
    """Style x style heatmap annotated to ``decimals`` places, row maxima bold with * (paper's Tables 1-3)."""
    fig = go.Figure(_heatmap_trace(matrix, decimals, low, high, showscale=True))
    _style_heatmap_axes(fig)
    fig.update_layout(title={"text": title}, height=max(420, 45 * len(matrix) + 160))
    return fig


def similarity_heatmaps(matrices: Mapping[str, pd.DataFrame], decimals: int = 3,
                        intervals: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]] | None = None,
                        columns: int = 2) -> go.Figure:
    """Several embedders' heatmaps side by side (each with its own colour range; values are printed)."""
    names = list(matrices)
    cols = min(columns, len(names))
    rows = int(np.ceil(len(names) / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=names, horizontal_spacing=0.12, vertical_spacing=0.16)
    for n, name in enumerate(names):
        low, high = (intervals or {}).get(name, (None, None))
        fig.add_trace(_heatmap_trace(matrices[name], decimals, low, high, showscale=False),
                      row=n // cols + 1, col=n % cols + 1)
    k = len(next(iter(matrices.values())))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(tickangle=-45)
    fig.update_layout(height=rows * max(380, 42 * k + 120) + 80,
                      title={"text": "Mean cosine similarity, row style -> column style (row maximum bold *)"})
    return fig


def _style_heatmap_axes(fig: go.Figure) -> None:
    fig.update_yaxes(autorange="reversed", title={"text": "style"})
    fig.update_xaxes(tickangle=-45, title={"text": "compared with"})


def permutation_figure(null_counts: np.ndarray, observed: int, k: int) -> go.Figure:
    """Histogram of self-similarity counts with shuffled style labels, the observed count and 1/k chance."""
    values, freq = np.unique(np.asarray(null_counts), return_counts=True)
    fig = go.Figure(go.Bar(x=values, y=freq / freq.sum(), name="labels shuffled",
                           hovertemplate="%{x} styles: %{y:.1%} of permutations<extra></extra>"))
    fig.add_vline(x=observed, line={"color": "crimson", "width": 3},
                  annotation_text=f"observed {observed}", annotation_position="top")
    fig.add_vline(x=1.0, line={"color": "grey", "dash": "dot"}, annotation_text="k x 1/k = 1",
                  annotation_position="bottom right")
    fig.update_layout(xaxis={"title": {"text": f"styles most similar to themselves (of {k})"}, "dtick": 1},
                      yaxis={"title": {"text": "share of permutations"}, "tickformat": ".0%"},
                      height=320, showlegend=False)
    return fig


def leakage_figure(ranking: pd.DataFrame) -> go.Figure:
    """Cross-validated style accuracy per embedder against the majority rate (lower = more invariant)."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=ranking["embedder"], y=ranking["style accuracy (CV)"], name="style accuracy (5-fold CV)",
                         hovertemplate="%{x}: %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=ranking["embedder"], y=ranking["majority rate"], mode="markers",
                             marker={"symbol": "line-ew-open", "size": 40, "line": {"width": 3}},
                             name="majority-class rate (chance)"))
    fig.update_layout(yaxis={"title": {"text": "accuracy (higher = more style leaks)"}, "range": [0, 1]},
                      height=340, legend={"orientation": "h", "y": -0.25})
    return fig


def _hover_text(texts: Sequence[str], limit: int = HOVER_CHARS, width: int = 60) -> list[str]:
    out = []
    for text in texts:
        text = str(text)
        if len(text) > limit:
            text = text[: limit - 1] + "…"
        # Break long lines so the hover box stays narrow; plotly renders <br> as a line break.
        lines = [text[i : i + width] for i in range(0, len(text), width)] or [""]
        out.append("<br>".join(lines))
    return out


def embedding_map(frame: pd.DataFrame, colour: str | None = None, title: str = "",
                  x: str = "x", y: str = "y") -> go.Figure:
    """WebGL scatter of a projection (one trace per category, or a colour scale for a score).

    ``frame`` has columns x, y, text, ``row`` (position in the mapped frame; carried as customdata
    so a selection can be mapped back) and the colour column.
    """
    hover = _hover_text(frame["text"].tolist())
    fig = go.Figure()
    if colour is None or colour not in frame:
        fig.add_trace(_scatter(frame, hover, np.ones(len(frame), bool), x, y, name="sentences"))
    elif pd.api.types.is_numeric_dtype(frame[colour]):
        values = frame[colour]
        fig.add_trace(go.Scattergl(
            x=frame[x], y=frame[y], mode="markers", text=hover, customdata=frame["row"],
            marker={"size": 4, "color": values, "colorscale": "Viridis", "showscale": True,
                    "colorbar": {"title": {"text": colour}}},
            hovertemplate="%{text}<br>" + colour + " = %{marker.color:.3f}<extra></extra>", name=colour))
    else:
        labels = frame[colour].astype(str).fillna("(none)")
        values = sorted(labels.unique())
        palette = _FEW if len(values) <= len(_FEW) else _MANY
        for n, value in enumerate(values):
            fig.add_trace(_scatter(frame, hover, (labels == value).to_numpy(), x, y, name=value,
                                   color=palette[n % len(palette)]))
    # Equal axis scales: t-SNE/UMAP/PCA distances must not be stretched one way.
    fig.update_layout(title={"text": title}, height=680, dragmode="lasso",
                      xaxis={"showticklabels": False, "title": None},
                      yaxis={"showticklabels": False, "title": None, "scaleanchor": "x", "scaleratio": 1},
                      legend={"itemsizing": "constant"})
    return fig


def _scatter(frame: pd.DataFrame, hover: list[str], mask: np.ndarray, x: str, y: str, name: str,
             color: str | None = None) -> go.Scattergl:
    idx = np.flatnonzero(mask)
    marker = {"size": 4, "opacity": 0.75}
    if color:
        marker["color"] = color
    return go.Scattergl(x=frame[x].to_numpy()[idx], y=frame[y].to_numpy()[idx], mode="markers", name=name,
                        text=[hover[i] for i in idx], customdata=frame["row"].to_numpy()[idx],
                        marker=marker, hovertemplate="%{text}<extra>" + name + "</extra>")


def selected_rows(points: Sequence[Mapping]) -> list[int]:
    """Row numbers (the ``customdata`` of :func:`embedding_map`) of points in a plotly selection event."""
    rows = []
    for point in points or []:
        data = point.get("customdata")
        if isinstance(data, (list, tuple)):
            data = data[0] if data else None
        if data is not None:
            rows.append(int(data))
    return sorted(set(rows))
