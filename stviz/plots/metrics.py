"""Figures for metrics vs human judgments: forest plot, scatter, NE change, Williams matrix."""

from __future__ import annotations

import html
from typing import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from stviz.plots import hover_label, plot_label, plot_labels, plot_text, template_literal

_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def forest_plot(table: pd.DataFrame, labels: Mapping[str, str] | None = None, title: str = "") -> go.Figure:
    """Correlations with their bootstrap intervals, one row per metric, one colour per method/group.

    ``table`` is :func:`stviz.meta.correlation_table` output; rows for distances are marked
    "|r|" in the axis label so signs are never compared across directions.
    """
    labels = labels or {}
    fig = go.Figure()
    table = table.copy()
    table["series"] = table["method"] + np.where(table["group"].nunique() > 1, " · " + table["group"], "")
    order = (table.groupby("metric")["r"].mean().sort_values().index.tolist())
    # Metric names can be users' column names: shown literally, cut past 60 characters (whole on hover).
    shown = plot_labels([labels.get(m, m) for m in order], limit=60)
    names = {m: label + (" |r|" if (table.loc[table.metric == m, "shown"] != "r").any() else "")
             for m, label in zip(order, shown)}
    full = {m: hover_label(labels.get(m, m)) for m in order}
    position = {m: i for i, m in enumerate(order)}
    series_list = list(pd.unique(table["series"]))
    # Each series sits slightly above / below its metric's line so intervals never hide each other.
    spread = 0.5 / max(len(series_list), 1)
    for k, (series, sub) in enumerate(table.groupby("series", sort=False)):
        sub = sub.set_index("metric").reindex(order).dropna(subset=["r"])
        offset = (k - (len(series_list) - 1) / 2) * spread
        fig.add_trace(go.Scatter(
            x=sub["r"], y=[position[m] + offset for m in sub.index], mode="markers", name=plot_label(series),
            text=[full[m] for m in sub.index],
            marker=dict(color=_PALETTE[k % len(_PALETTE)], size=8),
            error_x=dict(type="data", symmetric=False, array=sub["ci_high"] - sub["r"],
                         arrayminus=sub["r"] - sub["ci_low"]),
            customdata=np.stack([sub["ci_low"], sub["ci_high"], sub["n"]], axis=1),
            hovertemplate="%{text}: %{x:.3f} [%{customdata[0]:.3f}, %{customdata[1]:.3f}], n=%{customdata[2]}"
                          "<extra>" + template_literal(hover_label(series)) + "</extra>"))
    fig.add_vline(x=0, line=dict(color="grey", dash="dot"))
    fig.update_layout(title=plot_text(title) if title else "Correlation with human scores (95% bootstrap CI)",
                      xaxis_title="correlation (|r| for distances; higher = agrees more with humans)",
                      height=max(320, 24 * len(order) + 150),
                      yaxis=dict(tickmode="array", tickvals=list(range(len(order))), ticktext=[names[m] for m in order],
                                 range=[-0.6, len(order) - 0.4], showgrid=True, zeroline=False, automargin=True),
                      xaxis=dict(automargin=True),
                      # Legend above the plot: below a tall figure it ends up far from the data.
                      legend=dict(orientation="h", x=0, y=1.0, xanchor="left", yanchor="bottom"),
                      margin=dict(l=10, r=10, t=80, b=10))
    return fig


def metric_human_scatter(frame: pd.DataFrame, metric: str, human: str, metric_label: str = "",
                         color: str | None = None, max_text: int = 160, human_label: str = "") -> go.Figure:
    """One point per pair: metric against human score, the two texts on hover (WebGL)."""
    def clip(s: pd.Series) -> pd.Series:
        s = s.astype(str)
        return s.where(s.str.len() <= max_text, s.str.slice(0, max_text) + "…")

    escape = lambda s: s.map(plot_text)  # noqa: E731 - texts show literally
    hover = ("source: " + escape(clip(frame["source"])) + "<br>output: " + escape(clip(frame["output"]))).to_numpy()
    fig = go.Figure()
    groups = frame.groupby(color, sort=False) if color and color in frame else [("pairs", frame)]
    for k, (name, sub) in enumerate(groups):
        fig.add_trace(go.Scattergl(
            x=sub[metric], y=sub[human], mode="markers", name=plot_label(name),
            marker=dict(size=5, opacity=0.5, color=_PALETTE[k % len(_PALETTE)]),
            text=hover[frame.index.get_indexer(sub.index)],
            hovertemplate="%{text}<br>metric %{x:.3f} · human %{y:.2f}<extra>" + template_literal(hover_label(name))
                          + "</extra>"))
    x_name, y_name = plot_label(metric_label or metric, 80), plot_label(human_label or human, 80)
    fig.update_layout(xaxis_title=x_name, yaxis_title=y_name, title=f"{x_name} against {y_name}", height=480,
                      margin=dict(l=10, r=10, t=50, b=10))
    return fig


def ne_change_plot(table: pd.DataFrame) -> go.Figure:
    """Babakov et al. Table 4 as a dumbbell: each metric's correlation without and with the NE merge."""
    table = table.sort_values("without NE")
    names = plot_labels(table["metric"], limit=60)  # metric names can be users' column names: shown literally
    fig = go.Figure()
    for (_, row), name in zip(table.iterrows(), names):
        fig.add_trace(go.Scatter(x=[row["without NE"], row["with NE"]], y=[name] * 2, mode="lines",
                                 line=dict(color="lightgrey", width=3), showlegend=False, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=table["without NE"], y=names, mode="markers", name="without NE",
                             marker=dict(color=_PALETTE[0], size=9)))
    fig.add_trace(go.Scatter(x=table["with NE"], y=names, mode="markers", name="with NE merge",
                             marker=dict(color=_PALETTE[1], size=9, symbol="diamond")))
    fig.update_layout(title="Correlation without and with the named-entity merge (Babakov et al.)",
                      xaxis_title="correlation with human scores", height=max(320, 26 * len(table) + 140),
                      margin=dict(l=10, r=10, t=50, b=10))
    return fig


def williams_heatmap(pvalues: pd.DataFrame, labels: Mapping[str, str] | None = None,
                     alpha: float = 0.05, max_text_cells: int = 14) -> go.Figure:
    """Williams test p-values: cell (row, column) small = row metric beats column metric."""
    labels = labels or {}
    names = plot_labels([labels.get(m, m) for m in pvalues.index])  # users' column names: shown literally
    z = pvalues.to_numpy(float)
    # Numbers in the cells only while they can be read; the hover always has them.
    text = np.where(np.isnan(z), "", np.where(z < alpha, "✓ ", "") + np.char.mod("%.3f", np.nan_to_num(z)))
    if len(names) > max_text_cells:
        text = np.where(np.isnan(z) | (z >= alpha), "", "✓")
    fig = go.Figure(go.Heatmap(z=z, x=plot_labels([labels.get(m, m) for m in pvalues.columns]), y=names,
                               zmin=0, zmax=0.2,
                               colorscale="Blues_r", text=text, texttemplate="%{text}", xgap=1, ygap=1,
                               colorbar=dict(title="p"),
                               hovertemplate="%{y} > %{x}: p=%{z:.4f}<extra></extra>"))
    fig.update_layout(title=f"Williams test: does the row metric agree more with humans? (✓ p < {alpha})",
                      height=max(360, 30 * len(names) + 160), yaxis=dict(autorange="reversed"),
                      margin=dict(l=10, r=10, t=60, b=10))
    return fig


def rank_difference_histogram(ranks: pd.DataFrame, metric_label: str = "") -> go.Figure:
    """How far the metric's percentile rank is from the humans' (positive = metric over-rates)."""
    fig = go.Figure(go.Histogram(x=ranks["metric_over_human"], nbinsx=50, marker_color=_PALETTE[0]))
    fig.update_layout(title=f"{plot_label(metric_label, 80)}: metric percentile minus human percentile",
                      xaxis_title="← metric under-rates   (percentile points)   metric over-rates →",
                      yaxis_title="pairs", height=340, margin=dict(l=70, r=20, t=50, b=60))
    # Room for the tick labels and axis titles: an exported PNG/SVG has no page padding around it, and with
    # 10 px margins it clipped the y ticks and drew the axis titles over them.
    fig.update_xaxes(automargin=True, title_standoff=8)
    fig.update_yaxes(automargin=True, title_standoff=8)
    return fig


# -- failure cases -------------------------------------------------------------------------------
_DEL = "background:#ffd7d5;text-decoration:line-through;border-radius:3px;padding:0 2px"
_INS = "background:#ccf2d1;border-radius:3px;padding:0 2px"
_SUB = "background:#fff1b8;border-radius:3px;padding:0 2px"


def word_diff_html(source: str, output: str) -> tuple[str, str]:
    """Word-level diff of a pair as two HTML snippets: lost words struck in the source, new words
    marked in the output, replaced words highlighted in both. Every word is ``html.escape``d, so
    user text can never inject markup."""
    import difflib
    import html

    a, b = str(source).split(), str(output).split()
    # Compare case-insensitively so "Friday" -> "friday" is not reported as a change.
    matcher = difflib.SequenceMatcher(None, [w.lower() for w in a], [w.lower() for w in b], autojunk=False)
    left, right = [], []

    def span(words, style):
        text = " ".join(html.escape(w, quote=True) for w in words)
        return f'<span style="{style}">{text}</span>' if style else text

    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            left.append(span(a[i1:i2], ""))
            right.append(span(b[j1:j2], ""))
        elif op == "delete":
            left.append(span(a[i1:i2], _DEL))
        elif op == "insert":
            right.append(span(b[j1:j2], _INS))
        else:
            left.append(span(a[i1:i2], _SUB))
            right.append(span(b[j1:j2], _SUB))
    return " ".join(p for p in left if p), " ".join(p for p in right if p)
