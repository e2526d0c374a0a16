"""The Blind spots heatmap: measures x damages, each cell the share of pairs whose damaged output scored worse.

Damages are grouped by what they break (content, style, fluency), measures by their axis; a cell a measure should
notice (its axis is what the damage breaks) is framed, so a pale framed cell reads as a blind spot at a glance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from stviz.plots import hover_label, plot_labels, plot_text, template_literal

BREAKS_ORDER = ("content", "style", "fluency")
AXIS_ORDER = ("content", "style", "fluency", "overall", "")


def detection_heatmap(table: pd.DataFrame, measure_labels: dict[str, str], damage_labels: dict[str, str],
                      title: str = "") -> go.Figure:
    """Measures (rows, grouped by axis) x damages (columns, grouped by what they break), coloured by detection.

    ``table`` has the analysis's columns (damage, breaks, measure, axis, should_notice, detected, low, high, ties, n).
    """
    damages = _ordered(table, "damage", "breaks", BREAKS_ORDER)
    measures = _ordered(table, "measure", "axis", AXIS_ORDER)
    cell = table.set_index(["measure", "damage"])
    z = np.full((len(measures), len(damages)), np.nan)
    text, hover = [], []
    frames = []
    for i, measure in enumerate(measures):
        text.append([])
        hover.append([])
        for j, damage in enumerate(damages):
            if (measure, damage) not in cell.index:
                text[i].append("")
                hover[i].append(template_literal(f"{hover_label(measure_labels.get(measure, measure))}: not computed"))
                continue
            row = cell.loc[(measure, damage)]
            z[i, j] = row["detected"]
            text[i].append(f"{100 * row['detected']:.0f}" if np.isfinite(row["detected"]) else "")
            hover[i].append(_hover(row, measure_labels.get(measure, measure), damage_labels.get(damage, damage)))
            if row["should_notice"]:
                frames.append((j, i))
    x = [f"{damage_labels.get(d, d)} ({cell.xs(d, level='damage')['breaks'].iloc[0]})" for d in damages]
    y = [f"{measure_labels.get(m, m)} ({cell.xs(m, level='measure')['axis'].iloc[0] or 'no axis'})" for m in measures]
    fig = go.Figure(go.Heatmap(
        z=z, x=plot_labels(x, limit=40), y=plot_labels(y, limit=48), zmin=0, zmax=1, colorscale="RdYlGn",
        text=text, texttemplate="%{text}", customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        colorbar={"title": {"text": "detected", "side": "right"}, "tickformat": ".0%"}, xgap=2, ygap=2))
    for j, i in frames:  # the cells a measure should notice: framed
        fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5, xref="x", yref="y",
                      line={"color": "#222", "width": 2})
    fig.update_layout(title=plot_text(title) if title else None, height=330 + 34 * len(measures),
                      margin={"t": 60 if title else 20, "b": 10, "l": 10, "r": 10},
                      xaxis={"tickangle": -35, "automargin": True},
                      yaxis={"autorange": "reversed", "automargin": True})
    return fig


def _ordered(table: pd.DataFrame, key: str, group: str, order: tuple[str, ...]) -> list[str]:
    """The distinct values of ``key`` in the order of their ``group`` (then as they first appear)."""
    firsts = table.drop_duplicates(key)
    rank = {value: order.index(value) if value in order else len(order) for value in firsts[group]}
    return sorted(firsts[key], key=lambda v: (rank[firsts.loc[firsts[key] == v, group].iloc[0]],
                                              list(firsts[key]).index(v)))


def _hover(row: pd.Series, measure: str, damage: str) -> str:
    """One cell's hover: what was damaged, the share detected with its interval, ties, mean change, pairs."""
    job = "should notice it" if row["should_notice"] else "need not notice it"
    return template_literal(
        f"{hover_label(measure)}<br>{hover_label(damage)} (breaks {row['breaks']}): {job}<br>"
        f"detected in {100 * row['detected']:.1f}% of {int(row['n']):,} pairs "
        f"[{100 * row['low']:.1f}, {100 * row['high']:.1f}] (95% CI)<br>ties (missed): {100 * row['ties']:.1f}%<br>"
        f"effect: {row['effect']:+.2f} SD of the measure")


__all__ = ["detection_heatmap"]
