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


def sets_heatmap(rows: pd.DataFrame, statistic_label: str, title: str = "") -> go.Figure:
    """Tasks (``task``: set · human) x measures (``measure``) coloured by ``r``; interval and best group on hover.

    Measures are ordered by their mean over tasks (best first); a missing cell is a measure the set lacks.
    """
    r = rows.pivot_table(index="task", columns="measure", values="r", sort=False)
    order = r.mean().sort_values(ascending=False).index
    r = r[order]
    low = rows.pivot_table(index="task", columns="measure", values="ci_low", sort=False).reindex_like(r)
    high = rows.pivot_table(index="task", columns="measure", values="ci_high", sort=False).reindex_like(r)
    best = rows.assign(best=rows["best_group"].astype(float)).pivot_table(
        index="task", columns="measure", values="best", sort=False).reindex_like(r)
    hover = [[_hover(task, measure, r.iloc[i, j], low.iloc[i, j], high.iloc[i, j], best.iloc[i, j], statistic_label)
              for j, measure in enumerate(r.columns)] for i, task in enumerate(r.index)]
    # A dot marks the best group: the measures not significantly worse than the best of that row.
    text = [[("● " if best.iloc[i, j] == 1 else "") + (f"{v:.2f}" if np.isfinite(v) else "")
             for j, v in enumerate(row)] for i, row in enumerate(r.to_numpy(float))]
    fig = go.Figure(go.Heatmap(
        z=r.to_numpy(float), x=plot_labels(r.columns), y=plot_labels(r.index), zmin=-1, zmax=1,
        colorscale="RdBu", text=text, texttemplate="%{text}", customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", colorbar={"title": statistic_label}, xgap=1, ygap=1))
    fig.update_layout(title=plot_text(title) if title else None, height=260 + 42 * len(r),
                      margin={"t": 50 if title else 20, "b": 10}, xaxis={"tickangle": -35, "automargin": True},
                      yaxis={"autorange": "reversed", "automargin": True})
    return fig


def _hover(task, measure, r, low, high, best, statistic_label) -> str:
    if not np.isfinite(r):
        return template_literal(f"{hover_label(task)}<br>{hover_label(measure)}: not computed for this set")
    interval = f" [{low:.3f}, {high:.3f}]" if np.isfinite(low) and np.isfinite(high) else ""
    group = "<br>in the best group" if best == 1 else ""
    return template_literal(f"{hover_label(task)}<br>{hover_label(measure)}<br>{statistic_label} = {r:.3f}"
                            f"{interval} (95% CI){group}")


def agreement_heatmap(matrix: pd.DataFrame, title: str = "") -> go.Figure:
    """Measure x measure Spearman rho of one set: blocks of measures that rank outputs alike."""
    fig = go.Figure(go.Heatmap(
        z=matrix.to_numpy(float), x=plot_labels(matrix.columns), y=plot_labels(matrix.index), zmin=-1, zmax=1,
        colorscale="RdBu", texttemplate="%{z:.2f}", colorbar={"title": "Spearman ρ"}))
    fig.update_layout(title=plot_text(title) if title else None, height=200 + 30 * len(matrix),
                      margin={"t": 50 if title else 20}, xaxis={"tickangle": -35},
                      yaxis={"autorange": "reversed", "automargin": True})
    return fig


__all__ = ["agreement_heatmap", "sets_heatmap"]
