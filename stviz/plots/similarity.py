"""Figures for the style-similarity and embedding-map views (Fitzpatrick et al., Tables 1-3, Figures 1-3)."""

from __future__ import annotations

import functools
import textwrap
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from stviz.plots import hover_label, plot_label, plot_labels, plot_text, template_literal
from stviz.similarity import row_maxima

#: Distinct colours: D3's ten for up to 10 categories; beyond, D3, black, then plotly's 26-colour Alphabet without
#: its two near-white shades (invisible on white). So CDS's 11 styles get 11 clearly different colours (Dark24's
#: first eleven hold four purples and pinks).
_FEW = qualitative.D3
_MANY = qualitative.D3 + ["#000000"] + [c for c in qualitative.Alphabet if c not in ("#E2E2E2", "#F7E1A0")]

#: Height of the embedding map: with equal axis scales and the legend at the right, about as tall as the plot
#: is wide on a 1400 px screen, so the cloud fills the page width instead of a small square in the middle.
MAP_HEIGHT = 860

#: Longest sentence shown whole on hover; longer ones are cut (hover boxes would cover the plot).
HOVER_CHARS = 240


def _heatmap_trace(matrix: pd.DataFrame, decimals: int, low: pd.DataFrame | None, high: pd.DataFrame | None,
                   showscale: bool, coloraxis: str | None = None) -> go.Heatmap:
    values = matrix.to_numpy()
    mask = row_maxima(matrix, decimals)
    text = [[(f"<b>{v:.{decimals}f}*</b>" if mask[i, j] else f"{v:.{decimals}f}") for j, v in enumerate(row)]
            for i, row in enumerate(values)]
    if low is not None and high is not None:
        custom = np.dstack([low.to_numpy(), high.to_numpy()])
        hover = ("%{y} → %{x}<br>mean cosine %{z:.4f}<br>bootstrap CI [%{customdata[0]:.4f}, %{customdata[1]:.4f}]"
                 "<extra></extra>")
    else:
        custom, hover = None, "%{y} → %{x}<br>mean cosine %{z:.4f}<extra></extra>"
    colours = ({"coloraxis": coloraxis} if coloraxis else
               {"colorscale": "Viridis", "showscale": showscale, "colorbar": {"title": {"text": "cosine"}}})
    return go.Heatmap(z=values, x=plot_labels(matrix.columns), y=plot_labels(matrix.index), text=text,
                      texttemplate="%{text}", textfont={"size": 10}, customdata=custom, hovertemplate=hover, **colours)


def similarity_heatmap(matrix: pd.DataFrame, title: str = "", decimals: int = 3,
                       low: pd.DataFrame | None = None, high: pd.DataFrame | None = None) -> go.Figure:
    """Style x style heatmap annotated to ``decimals`` places, row maxima bold with * (paper's Tables 1-3)."""
    fig = go.Figure(_heatmap_trace(matrix, decimals, low, high, showscale=True))
    _style_heatmap_axes(fig)
    margin = _label_margin(matrix)
    fig.update_layout(title={"text": plot_text(title)}, height=max(420, 45 * len(matrix) + 100 + margin),
                      margin={"l": margin + 30, "b": margin + 30})
    return fig


def _panel_title(name: str, width: int = 40) -> str:
    """An embedder's panel title, a long one broken before its parenthesis so that two panels' titles never meet."""
    head, paren, rest = name.partition(" (")
    if len(name) <= width or not paren:
        return plot_text(name)
    return plot_text(head) + "<br>" + plot_text("(" + rest)


def similarity_heatmaps(matrices: Mapping[str, pd.DataFrame], decimals: int = 3,
                        intervals: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]] | None = None,
                        columns: int = 2, shared_scale: bool = True) -> go.Figure:
    """Several embedders' heatmaps side by side, values printed, on one colour scale or one per panel.

    One scale (the default), so that the same colour means the same cosine in every panel: how much
    more similar a style is to itself than to others can be compared across embedders at a glance.
    Per panel, each embedder's own contrast shows (GloVe's cosines all lie near 0.9, MiniLM's near 0.1).
    """
    names = list(matrices)
    cols = min(columns, len(names))
    rows = int(np.ceil(len(names) / cols))
    # Shared style axes: labels only on the outer panels, so long style names never run into the
    # neighbouring heatmap (CDS has names like romantic_poetry and coha_1810-1830).
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[_panel_title(n) for n in names], shared_yaxes=True,
                        shared_xaxes=True,
                        horizontal_spacing=0.04 if shared_scale else 0.1,
                        vertical_spacing=0.08 if rows > 1 else 0.1)
    for n, name in enumerate(names):
        low, high = (intervals or {}).get(name, (None, None))
        trace = _heatmap_trace(matrices[name], decimals, low, high, showscale=not shared_scale,
                               coloraxis="coloraxis" if shared_scale else None)
        fig.add_trace(trace, row=n // cols + 1, col=n % cols + 1)
        if not shared_scale:  # the panel's own colour bar, just right of it
            x_end = fig.layout[f"xaxis{n + 1 if n else ''}"].domain[1]
            y_low, y_high = fig.layout[f"yaxis{n + 1 if n else ''}"].domain
            fig.data[-1].update(colorbar={"x": x_end + 0.005, "xanchor": "left", "y": (y_low + y_high) / 2,
                                          "len": y_high - y_low, "thickness": 12, "title": {"text": "cosine"}})
    first = next(iter(matrices.values()))
    k, margin = len(first), _label_margin(first)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(tickangle=-45)
    if shared_scale:
        values = np.concatenate([m.to_numpy().ravel() for m in matrices.values()])
        fig.update_layout(coloraxis={"colorscale": "Viridis", "cmin": float(np.nanmin(values)),
                                     "cmax": float(np.nanmax(values)),
                                     "colorbar": {"title": {"text": "cosine<br>(all panels)"}}})
    fig.update_layout(height=rows * max(340, 40 * k + 60) + margin + 60,
                      margin={"l": margin, "b": int(0.75 * margin), "t": 90},
                      title={"text": "Mean cosine similarity, row style → column style (row maximum bold *)"})
    return fig


def for_export(fig: go.Figure, width: int) -> go.Figure:
    """A copy sized for PNG/SVG/HTML files: the page stretches figures, a file gets this fixed width."""
    return go.Figure(fig).update_layout(width=width)


def heatmap_export_width(k: int, panels: int, columns: int = 2) -> int:
    """Width at which ``panels`` k x k heatmaps (side by side, ``columns`` per row) keep 3-decimal cells legible."""
    return max(800, min(panels, columns) * (48 * k + 60) + 260)


def _label_margin(matrix: pd.DataFrame) -> int:
    """Pixels for the longest style name (tick labels at 12 px are ~7 px per character)."""
    longest = max(len(str(s)) for s in list(matrix.index) + list(matrix.columns))
    return int(min(260, 30 + 7 * longest))


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
                      height=300, showlegend=False, margin={"t": 40})
    return fig


def leakage_figure(ranking: pd.DataFrame) -> go.Figure:
    """Cross-validated style accuracy per embedder against the majority rate (lower = more invariant)."""
    names = plot_labels(ranking["embedder"])
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=ranking["style accuracy (CV)"], name="style accuracy (5-fold CV)",
                         text=[f"{v:.3f}" for v in ranking["style accuracy (CV)"]], textposition="outside",
                         marker={"color": "#4c78a8"}, hovertemplate="%{x}: style accuracy %{y:.3f}<extra></extra>"))
    # A dark dash across each bar: the accuracy a classifier gets by always answering the largest style.
    fig.add_trace(go.Scatter(x=names, y=ranking["majority rate"], mode="markers",
                             marker={"symbol": "line-ew-open", "size": 60, "color": "#d62728", "line": {"width": 4}},
                             name="majority-class rate (chance)",
                             hovertemplate="%{x}: majority-class rate %{y:.3f}<extra></extra>"))
    fig.update_layout(yaxis={"title": {"text": "style accuracy (higher = more style leaks)"}, "range": [0, 1.08]},
                      height=360, bargap=0.5, margin={"t": 30}, legend={"orientation": "h", "y": -0.2})
    return fig


def _label(text: object) -> str:
    """User text for a plotly label: shown literally (plotly reads a subset of HTML), long names cut in the middle."""
    return plot_label(text)


def _hover_text(texts: Sequence[str], limit: int = HOVER_CHARS, width: int = 60) -> list[str]:
    return [_hover_line(str(text), limit, width) for text in texts]


@functools.lru_cache(maxsize=65_536)
def _hover_line(text: str, limit: int, width: int) -> str:
    """One sentence's hover text, kept per process: a map's page run wraps its 11,000 texts again otherwise (0.3 s)."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    # Break long lines (between words) so the hover box stays narrow; plotly renders <br> as a line break, and
    # escaping afterwards keeps '<b>' or '<script>' in a sentence as visible text.
    lines = [plot_text(line) for line in textwrap.wrap(text, width, break_long_words=True)] or [""]
    return "<br>".join(lines)


def marker_size(n: int) -> int:
    """Point size that keeps a few hundred points visible and 10,000+ points from merging into a blob."""
    return 9 if n <= 500 else 7 if n <= 2_000 else 5 if n <= 12_000 else 4


def embedding_map(frame: pd.DataFrame, colour: str | None = None, title: str = "",
                  x: str = "x", y: str = "y", colour_title: str | None = None,
                  highlight: Sequence[int] = (), chosen: int | None = None) -> go.Figure:
    """WebGL scatter of a projection (one trace per category, or a colour scale for a score).

    ``frame`` has columns x, y, text, ``row`` (position in the mapped frame; carried as customdata
    so a selection can be mapped back) and the colour column, named ``colour_title`` on the plot.
    ``highlight``: positions in ``frame`` ringed on top (search matches); ``chosen``: the position of
    the sentence opened, drawn as a large ring.
    """
    hover = _hover_text(frame["text"].tolist())
    shown = _label(colour_title or colour)
    size = marker_size(len(frame))
    fig = go.Figure()
    if colour is None or colour not in frame:
        fig.add_trace(_scatter(frame, hover, np.ones(len(frame), bool), x, y, name="sentences", size=size))
    elif pd.api.types.is_numeric_dtype(frame[colour]):
        values = frame[colour]
        fig.add_trace(go.Scattergl(
            x=frame[x], y=frame[y], mode="markers", text=hover, customdata=frame["row"],
            marker={"size": size, "color": values, "colorscale": "Viridis", "showscale": True,
                    "colorbar": {"title": {"text": shown}}},
            hovertemplate="%{text}<br>" + shown.replace("%{", "%\u200b{") + " = %{marker.color:.3f}<extra></extra>",
            name=shown, showlegend=False))  # the colour bar says what the colours are
    else:
        labels = frame[colour].fillna("(none)").astype(str)
        values = sorted(labels.unique())
        palette = _FEW if len(values) <= len(_FEW) else _MANY
        for n, value in enumerate(values):
            fig.add_trace(_scatter(frame, hover, (labels == value).to_numpy(), x, y, name=value,
                                   color=palette[n % len(palette)], size=size))
    if len(highlight):  # the matches stand out of a faded map (as in the Embedding Projector)
        fig.update_traces(marker_opacity=0.2)
        _rings(fig, frame, hover, highlight, x, y, f"matches ({len(highlight):,})", size + 6, 1.5)
    if chosen is not None:
        _rings(fig, frame, hover, [chosen], x, y, "opened", size + 16, 3.5, colour="#d62728")
    numeric = colour in frame and pd.api.types.is_numeric_dtype(frame[colour])
    # Equal axis scales: t-SNE/UMAP/PCA distances must not be stretched one way. The axes carry
    # no meaning (arbitrary units and rotation), so no ticks, grid or zero lines either.
    bare = {"showticklabels": False, "title": None, "showgrid": False, "zeroline": False}
    fig.update_layout(title={"text": plot_text(title)}, height=MAP_HEIGHT, dragmode="lasso",
                      margin={"t": 60, "b": 20, "l": 20},
                      xaxis=bare, yaxis={**bare, "scaleanchor": "x", "scaleratio": 1},
                      legend={"itemsizing": "constant", "title": {"text": shown if colour in frame and not numeric else ""},
                              # beside a colour bar, the rings' legend goes below the map
                              **({"orientation": "h", "y": -0.02} if numeric else {})})
    return fig


def _scatter(frame: pd.DataFrame, hover: list[str], mask: np.ndarray, x: str, y: str, name: str,
             color: str | None = None, size: int = 4) -> go.Scattergl:
    idx = np.flatnonzero(mask)
    marker = {"size": size, "opacity": 0.75}
    if color:
        marker["color"] = color
    # Braces would start a plotly template variable; the name is user data (a style or system).
    shown = template_literal(hover_label(name))  # the whole name on hover; the legend has it cut
    return go.Scattergl(x=frame[x].to_numpy()[idx], y=frame[y].to_numpy()[idx], mode="markers", name=_label(name),
                        text=[hover[i] for i in idx], customdata=frame["row"].to_numpy()[idx],
                        marker=marker, hovertemplate="%{text}<extra>" + shown + "</extra>")


def _rings(fig: go.Figure, frame: pd.DataFrame, hover: list[str], positions: Sequence[int], x: str, y: str,
           name: str, size: int, width: float, colour: str = "#111111") -> None:
    """Open black circles around some points, on top of the coloured ones (they stay clickable: same customdata)."""
    if len(positions) == 0:
        return
    mask = np.zeros(len(frame), bool)
    mask[list(positions)] = True
    trace = _scatter(frame, hover, mask, x, y, name=name, size=size)
    trace.marker.update(symbol="circle-open", color=colour, opacity=1.0, line={"width": width})
    fig.add_trace(trace)


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
