"""Figures for style classifiers, token attributions and tradeoffs: tidy data in, plotly figure (or HTML) out."""

from __future__ import annotations

import html
import textwrap
from typing import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from stviz.plots import hover_label, label_positions, plot_label, plot_labels, plot_text, template_literal

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def wrap_label(label: str, width: int = 48) -> str:
    """A long axis title broken into lines (plotly does not wrap them; a long y title runs off the figure)."""
    return "<br>".join(plot_text(line) for line in textwrap.wrap(str(label), width)) or plot_text(label)


def _title(title: str | None) -> str | None:
    """A figure title given as plain text (it may hold users' names), escaped once; None for no title."""
    return plot_text(title) if title else None


def tradeoff_figure(table: pd.DataFrame, x: str, y: str, *, x_label: str | None = None, y_label: str | None = None,
                    system: str = "system", setting: str = "setting", pareto: bool = True,
                    title: str | None = None) -> go.Figure:
    """One point per system and setting, settings of a system joined in hyper-parameter order (Mir et al. Fig. 2)."""
    from stviz.measures.tradeoffs import pareto_front, setting_value

    data = table.reset_index() if system not in table.columns else table.copy()
    if system not in data:
        data[system] = "all"
    if setting not in data:
        data[setting] = ""
    # Settings are written beside their points (an exported image must carry them, not only the hover), each on
    # the side where it least covers the other labels and points.
    data["_label"] = data[setting].astype(str).map(plot_label)
    data["_position"] = label_positions(data[x], data[y], data["_label"], width=700, height=330, marker_px=16)
    fig = go.Figure()
    if pareto and len(data) > 1:  # drawn first, so that its stars lie under the points and their labels
        ok = data[[x, y]].notna().all(axis=1)
        front = data[ok][pareto_front(data.loc[ok, x], data.loc[ok, y])].sort_values(x)
        fig.add_trace(go.Scatter(x=front[x], y=front[y], mode="lines+markers", name="Pareto front",
                                 line={"color": "rgba(80,80,80,0.6)", "dash": "dot", "shape": "hv"},
                                 marker={"symbol": "star-open", "size": 15, "color": "black"},
                                 hoverinfo="skip", legendrank=1001))  # listed last in the legend
    for k, (name, group) in enumerate(data.groupby(system, sort=True)):
        group = group.assign(_order=group[setting].map(setting_value)).sort_values(["_order", setting])
        fig.add_trace(go.Scatter(
            x=group[x], y=group[y], mode="lines+markers+text", name=plot_label(name),
            line={"color": PALETTE[k % len(PALETTE)]}, marker={"size": 9}, cliponaxis=False,
            text=group["_label"], textposition=group["_position"].tolist(),
            textfont={"size": 10, "color": PALETTE[k % len(PALETTE)]},
            customdata=np.stack([group[setting].astype(str)], axis=-1),
            hovertemplate=f"<b>{template_literal(hover_label(name))}</b> %{{text}}<br>{template_literal(plot_text(x_label or x))}: %{{x:.3f}}"
                          f"<br>{template_literal(plot_text(y_label or y))}: %{{y:.3f}}<extra></extra>"))
    fig.update_layout(title=_title(title), xaxis_title=wrap_label(x_label or x, 90),
                      yaxis_title=wrap_label(y_label or y), legend_title_text=plot_text(system), height=480,
                      margin={"t": 60 if title else 30})
    return fig


def distribution_figure(frame: pd.DataFrame, value: str, group: str, *, label: str | None = None,
                        title: str | None = None, nbins: int = 40) -> go.Figure:
    """Overlaid histograms of ``value`` per ``group`` (Cloudera Figs. 6 and 8: outputs vs references).

    Each group is drawn as a share of its own rows: there are many more system outputs than references,
    and raw counts would hide the references' shape.
    """
    fig = go.Figure()
    for k, (name, part) in enumerate(frame.groupby(group, sort=False)):
        fig.add_trace(go.Histogram(x=part[value], name=f"{plot_label(name)} (n = {len(part):,})", opacity=0.6, nbinsx=nbins,
                                   histnorm="percent", marker_color=PALETTE[k % len(PALETTE)],
                                   hovertemplate="%{x}: %{y:.1f}% of " + template_literal(hover_label(name)) + "<extra></extra>"))
    fig.update_layout(barmode="overlay", title=_title(title), xaxis_title=wrap_label(label or value, 90),
                      yaxis_title="% of the group's pairs",
                      height=380, margin={"t": 60 if title else 30})
    return fig


def sweep_figure(sweep: pd.DataFrame, *, label: str = "content preservation (cosine, higher = more similar)",
                 title: str | None = None) -> go.Figure:
    """Box plots of the content-preservation score per masking setting (Cloudera Fig. 5)."""
    colours = {"none": "#7f7f7f", "remove": PALETTE[0], "placeholder": PALETTE[1]}
    fig = go.Figure()
    for setting, part in sweep.groupby("setting", sort=False):
        fig.add_trace(go.Box(y=part["score"], name=str(setting), boxmean=True,
                             marker_color=colours.get(str(part["strategy"].iloc[0]), PALETTE[2])))
    fig.update_layout(title=_title(title), yaxis_title=wrap_label(label), xaxis_title="masking setting",
                      showlegend=False,
                      height=420, margin={"t": 60 if title else 30})
    return fig


def confusion_figure(confusion: pd.DataFrame, title: str = "Held-out confusion matrix") -> go.Figure:
    """Heatmap of a confusion matrix (rows: true style, columns: predicted)."""
    values = confusion.to_numpy()
    # Style names come from users' files: shown literally.
    fig = go.Figure(go.Heatmap(z=values, x=plot_labels(confusion.columns), y=plot_labels(confusion.index),
                               colorscale="Blues", text=values, texttemplate="%{text}", showscale=False))
    fig.update_layout(title=_title(title), xaxis_title="predicted", yaxis_title="true",
                      height=260 + 20 * len(confusion), yaxis={"autorange": "reversed"})
    return fig


def tokens_html(text: str, spans: Sequence[tuple[int, int]], scores: Sequence[float],
                masked: Sequence[bool] | None = None) -> str:
    """``text`` as HTML with each word tinted by its attribution (red: toward the style, blue: against).

    Every piece of text is escaped with ``html.escape``: texts come from users and corpora.
    Masked words are struck through.
    """
    scores = np.asarray(scores, dtype=float)
    top = float(np.abs(scores).max()) if len(scores) else 0.0
    masked = list(masked) if masked is not None else [False] * len(spans)
    parts, last = [], 0
    for (start, end), score, is_masked in zip(spans, scores, masked):
        parts.append(html.escape(text[last:start]))
        strength = abs(score) / top if top > 0 else 0.0
        rgb = "214,39,40" if score >= 0 else "31,119,180"
        style = f"background-color: rgba({rgb},{0.08 + 0.72 * strength:.2f}); padding: 1px 2px; border-radius: 3px;"
        if is_masked:
            style += " text-decoration: line-through; outline: 1px dashed #333;"
        parts.append(f'<span style="{style}" title="{score:+.3f}">{html.escape(text[start:end])}</span>')
        last = end
    parts.append(html.escape(text[last:]))
    return '<div style="line-height: 2; font-size: 1.05em;">' + "".join(parts) + "</div>"
