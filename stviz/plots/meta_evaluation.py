"""Figures of the meta-evaluation: tidy tables in, plotly figures out.

* :func:`sets_heatmap` - sets (one row per set and human column) x measures, the agreement with people
  in each cell, its 95% interval and the best group on hover;
* :func:`agreement_heatmap` - one set's measure x measure rank correlation (Spearman rho).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from stviz.plots import hover_label, plot_labels, plot_text, template_literal


#: Longest measure name shown whole under the sets x measures heatmap (its labels are slanted: room for more).
MEASURE_CHARS = 48


def sets_heatmap(rows: pd.DataFrame, statistic_label: str, title: str = "") -> go.Figure:
    """Tasks (``task``: set · human) x measures (``measure``) coloured by ``r``; interval, best group and (column
    ``encoder``, where given) the cell's sentence encoder on hover.

    Measures are ordered by their mean over tasks (best first); a missing cell is a measure the set lacks.
    """
    r = rows.pivot_table(index="task", columns="measure", values="r", sort=False)
    r = r[r.mean().sort_values(ascending=False).index]
    cells = {name: _cells(rows, name, r) for name in ("ci_low", "ci_high", "best", "encoder")}
    hover = [[_hover(task, measure, r.iloc[i, j], *(cells[c][i][j] for c in ("ci_low", "ci_high", "best", "encoder")),
                     statistic_label) for j, measure in enumerate(r.columns)] for i, task in enumerate(r.index)]
    # A dot marks the best group: the measures not significantly worse than the best of that row.
    text = [[("● " if cells["best"][i][j] == 1 else "") + (f"{v:.2f}" if np.isfinite(v) else "")
             for j, v in enumerate(row)] for i, row in enumerate(r.to_numpy(float))]
    fig = go.Figure(go.Heatmap(
        z=r.to_numpy(float), x=plot_labels(r.columns, MEASURE_CHARS, parts=True), y=plot_labels(r.index, parts=True),
        zmin=-1, zmax=1, colorscale="RdBu", text=text, texttemplate="%{text}", customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", xgap=1, ygap=1,
        colorbar={"title": {"text": plot_text(statistic_label), "side": "right"}}))  # upright beside the bar: unclipped
    fig.update_layout(title=plot_text(title) if title else None, height=300 + 42 * len(r),
                      margin={"t": 50 if title else 20, "b": 20, "l": 20, "r": 20},
                      xaxis={"tickangle": -35, "automargin": True}, yaxis={"autorange": "reversed", "automargin": True})
    return fig


def _cells(rows: pd.DataFrame, column: str, like: pd.DataFrame) -> list[list]:
    """One column of the rows as a task x measure grid shaped as ``like`` (NaN or '' where a cell is missing)."""
    if column == "best":
        rows, column = rows.assign(best=rows["best_group"].astype(float)), "best"
    if column not in rows:
        return [[""] * like.shape[1] for _ in range(like.shape[0])]
    grid = rows.pivot_table(index="task", columns="measure", values=column, sort=False,
                            aggfunc="first").reindex_like(like)
    numeric = pd.api.types.is_numeric_dtype(rows[column])
    return grid.to_numpy(float).tolist() if numeric else grid.astype(object).to_numpy(object).tolist()


def _hover(task, measure, r, low, high, best, encoder, statistic_label) -> str:
    """A cell's hover: task, measure (and its encoder), the statistic with its interval, the best group."""
    on = f"<br>encoder: {plot_text(encoder)}" if isinstance(encoder, str) and encoder else ""
    if not np.isfinite(r):
        return template_literal(f"{hover_label(task)}<br>{hover_label(measure)}: not computed for this set")
    interval = f" [{low:.3f}, {high:.3f}]" if np.isfinite(low) and np.isfinite(high) else ""
    group = "<br>in the best group" if best == 1 else ""
    return template_literal(f"{hover_label(task)}<br>{hover_label(measure)}{on}<br>{statistic_label} = {r:.3f}"
                            f"{interval} (95% CI){group}")


def agreement_heatmap(matrix: pd.DataFrame, title: str = "") -> go.Figure:
    """Measure x measure Spearman rho of one set: blocks of measures that rank outputs alike."""
    fig = go.Figure(go.Heatmap(
        z=matrix.to_numpy(float), x=plot_labels(matrix.columns, MEASURE_CHARS, parts=True),
        y=plot_labels(matrix.index, parts=True), zmin=-1, zmax=1,
        colorscale="RdBu", texttemplate="%{z:.2f}", colorbar={"title": {"text": "Spearman ρ", "side": "right"}}))
    fig.update_layout(title=plot_text(title) if title else None, height=200 + 30 * len(matrix),
                      margin={"t": 50 if title else 20}, xaxis={"tickangle": -35, "automargin": True},
                      yaxis={"autorange": "reversed", "automargin": True})
    return fig


__all__ = ["agreement_heatmap", "sets_heatmap"]
