"""Figures of the leaderboard: tidy tables in, plotly figures out.

* :func:`interval_figure` - one metric, each system's value with its 95% interval;
* :func:`significance_heatmap` - the p-value of every two systems for one metric;
* :func:`metric_scatter` - any two metrics, one point per system with both intervals, the Pareto front;
* :func:`direction_figure` - one metric per transfer direction;
* :func:`correlation_heatmap` - each metric's correlation with each human rating across systems.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import plotly.graph_objects as go

from stviz.plots import label_offsets, plot_text as _esc, template_literal
from stviz.plots.style import PALETTE, wrap_label


def interval_figure(scores: pd.DataFrame, metric: str, label: str, higher_is_better: bool = True) -> go.Figure:
    """Each system's value of one metric with its interval, best first."""
    rows = scores[scores["metric"] == metric].dropna(subset=["value"])
    rows = rows.sort_values("value", ascending=not higher_is_better)
    fig = go.Figure(go.Scatter(
        x=rows["value"], y=[_esc(s) for s in rows["system"]], mode="markers",
        marker={"size": 11, "color": PALETTE[0]},
        error_x={"type": "data", "symmetric": False, "array": rows["high"] - rows["value"],
                 "arrayminus": rows["value"] - rows["low"], "thickness": 2},
        hovertemplate="%{y}: %{x:.3f}<extra></extra>"))
    fig.update_layout(xaxis_title=wrap_label(f"{label} ({'higher' if higher_is_better else 'lower'} is better; "
                                             "bars: 95% bootstrap interval)", 90),
                      yaxis={"autorange": "reversed"},
                      height=90 + 34 * len(rows), margin={"t": 20, "l": 10})
    return fig


def significance_heatmap(matrix: pd.DataFrame, differences: pd.DataFrame | None = None, title: str = "",
                         alpha: float = 0.05) -> go.Figure:
    """p-values of every two systems (darker = more significant); cells say the p-value and the difference."""
    p = matrix.to_numpy(dtype=float)
    shown = -np.log10(np.clip(p, 1e-4, 1))
    text = []
    for i, row in enumerate(matrix.index):
        line = []
        for j, col in enumerate(matrix.columns):
            if i == j or not np.isfinite(p[i, j]):
                line.append("")
                continue
            cell = "<0.001" if p[i, j] < 0.001 else f"{p[i, j]:.3f}"
            if differences is not None and np.isfinite(differences.iloc[i, j]):
                cell += f"<br>{differences.iloc[i, j]:+.2f}"
            line.append(cell)
        text.append(line)
    labels = [_esc(s) for s in matrix.index]
    fig = go.Figure(go.Heatmap(
        z=shown, x=labels, y=labels, text=text, texttemplate="%{text}", zmin=0, zmax=3,
        colorscale="Blues", colorbar={"title": "-log10 p", "tickvals": [0, 1.3, 2, 3],
                                      "ticktext": ["1", "0.05", "0.01", "0.001"]},
        hovertemplate="%{y} vs %{x}: p %{text}<extra></extra>"))
    fig.update_layout(title=_esc(title) if title else None, height=120 + 48 * len(labels),
                      yaxis={"autorange": "reversed"}, xaxis={"side": "bottom"}, margin={"t": 50 if title else 20},
                      annotations=[{"text": f"cell: p-value, then row − column; significant at {alpha:g} when "
                                            f"p < {alpha:g}", "showarrow": False, "xref": "paper", "yref": "paper",
                                    "x": 0, "y": 1.02, "xanchor": "left", "yanchor": "bottom", "font": {"size": 11}}])
    return fig


def metric_scatter(scores: pd.DataFrame, x: str, y: str, *, x_label: str, y_label: str,
                   x_higher: bool = True, y_higher: bool = True) -> go.Figure:
    """One point per system on two metrics with both intervals, and the Pareto front (the systems nobody beats on both)."""
    from stviz.measures.tradeoffs import pareto_front

    wide = {m: scores[scores["metric"] == m].set_index("system") for m in (x, y)}
    systems = [s for s in wide[x].index if s in wide[y].index and np.isfinite(wide[x].loc[s, "value"])
               and np.isfinite(wide[y].loc[s, "value"])]
    # Names on leader lines where they cover no other name, point or error bar (systems with near-equal scores
    # crowd the corner of the best ones, and the eight spots next to a point are then all taken).
    vx = np.array([wide[x].loc[s, "value"] for s in systems], float)
    vy = np.array([wide[y].loc[s, "value"] for s in systems], float)
    offsets = label_offsets(vx, vy, systems, obstacles=_error_bar_boxes(wide, x, y, systems, vx, vy))
    fig = go.Figure()
    for k, system in enumerate(systems):
        a, b = wide[x].loc[system], wide[y].loc[system]
        fig.add_trace(go.Scatter(
            x=[a["value"]], y=[b["value"]], mode="markers", name=_esc(system),
            cliponaxis=False, marker={"size": 12, "color": PALETTE[k % len(PALETTE)]},
            error_x={"type": "data", "symmetric": False, "array": [a["high"] - a["value"]],
                     "arrayminus": [a["value"] - a["low"]]},
            error_y={"type": "data", "symmetric": False, "array": [b["high"] - b["value"]],
                     "arrayminus": [b["value"] - b["low"]]},
            hovertemplate=template_literal(f"<b>{_esc(system)}</b><br>{_esc(x_label)}: ") + "%{x:.3f}<br>"
                          + template_literal(f"{_esc(y_label)}: ") + "%{y:.3f}<extra></extra>"))
        ax, ay = offsets[k]
        fig.add_annotation(x=a["value"], y=b["value"], text=_esc(system), ax=ax, ay=ay, showarrow=True, arrowhead=0,
                           arrowwidth=1, arrowcolor="rgba(80,80,80,0.5)", standoff=7, font={"size": 12})
    if len(systems) > 1:
        xs = np.array([wide[x].loc[s, "value"] for s in systems]) * (1 if x_higher else -1)
        ys = np.array([wide[y].loc[s, "value"] for s in systems]) * (1 if y_higher else -1)
        front = pareto_front(xs, ys)
        order = np.argsort(xs[front])
        fx = np.array([wide[x].loc[s, "value"] for s in systems])[front][order]
        fy = np.array([wide[y].loc[s, "value"] for s in systems])[front][order]
        fig.add_trace(go.Scatter(x=fx, y=fy, mode="lines", name="Pareto front", hoverinfo="skip",
                                 line={"color": "rgba(80,80,80,0.6)", "dash": "dot"}))
    fig.update_layout(xaxis_title=wrap_label(f"{x_label} ({'higher' if x_higher else 'lower'} is better)", 90),
                      yaxis_title=wrap_label(f"{y_label} ({'higher' if y_higher else 'lower'} is better)"),
                      height=520, legend_title_text="system", margin={"t": 20})
    return fig


#: The plot area label_offsets assumes (pixels): the figure's 520 px less its margins, the page less the legend.
SCATTER_AREA = (700, 400)


def _error_bar_boxes(wide: dict, x: str, y: str, systems: list[str], vx: np.ndarray, vy: np.ndarray) -> list[tuple]:
    """Each point's two error bars as thin boxes in label_offsets' pixels (its mapping from the points' extent)."""
    width, height = SCATTER_AREA
    (x0, x1), (y0, y1) = (np.nanmin(vx), np.nanmax(vx)), (np.nanmin(vy), np.nanmax(vy))
    px = lambda v: width * (0.05 + 0.9 * (v - x0) / ((x1 - x0) or 1))  # noqa: E731
    py = lambda v: height * (0.05 + 0.9 * (v - y0) / ((y1 - y0) or 1))  # noqa: E731
    boxes = []
    for system, cx, cy in zip(systems, vx, vy):
        a, b = wide[x].loc[system], wide[y].loc[system]
        if np.isfinite(a["low"]) and np.isfinite(a["high"]):
            boxes.append((px(a["low"]), py(cy) - 3, px(a["high"]), py(cy) + 3))
        if np.isfinite(b["low"]) and np.isfinite(b["high"]):
            boxes.append((px(cx) - 3, py(b["low"]), px(cx) + 3, py(b["high"])))
    return boxes


def direction_figure(by_direction: pd.DataFrame, metric: str, label: str) -> go.Figure:
    """One metric per system, a bar per transfer direction with its interval."""
    rows = by_direction[by_direction["metric"] == metric]
    fig = go.Figure()
    for k, (direction, part) in enumerate(rows.groupby("direction", sort=False)):
        fig.add_trace(go.Bar(
            x=[_esc(s) for s in part["system"]], y=part["value"], name=_esc(direction),
            marker={"color": PALETTE[k % len(PALETTE)]},
            error_y={"type": "data", "symmetric": False, "array": part["high"] - part["value"],
                     "arrayminus": part["value"] - part["low"]}))
    fig.update_layout(barmode="group", yaxis_title=wrap_label(label), legend_title_text="direction",
                      height=440, margin={"t": 20})
    return fig


def correlation_heatmap(meta: pd.DataFrame, labels: dict[str, str], method: str = "pearson") -> go.Figure:
    """Each automatic metric's correlation with each human rating across systems."""
    table = meta.pivot(index="metric", columns="human", values=method)
    fig = go.Figure(go.Heatmap(
        z=table.to_numpy(float), x=[_esc(labels.get(c, c)) for c in table.columns],
        y=[_esc(labels.get(m, m)) for m in table.index], zmin=-1, zmax=1, colorscale="RdBu",
        texttemplate="%{z:.2f}", colorbar={"title": method}))
    fig.update_layout(height=120 + 40 * len(table), margin={"t": 20},
                      yaxis={"autorange": "reversed", "automargin": True})  # long metric names stay whole
    return fig


__all__ = ["correlation_heatmap", "direction_figure", "interval_figure", "metric_scatter", "significance_heatmap"]
