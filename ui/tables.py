"""Tables drawn as HTML where st.dataframe cannot: a value with its interval drawn as a small bar in one cell.

st.dataframe sizes its columns to their heads and scrolls sideways past the page's width, and a cell can hold
one number only (its tooltip is the column's). A presenter's leaderboard must fit the screen, so this table has
fixed column widths that share the page, heads that wrap, and each cell's interval and rank in its tooltip.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import streamlit as st

_CSS = """<style>
.stviz-board {width: 100%; table-layout: fixed; border-collapse: collapse; font-size: 0.92rem;}
.stviz-board th {font-weight: 600; font-size: 0.72rem; text-align: right; vertical-align: bottom; padding: 4px 3px;
                 overflow-wrap: anywhere; hyphens: auto; border-bottom: 1px solid rgba(49,51,63,0.3); line-height: 1.2;}
.stviz-board th.name, .stviz-board td.name {text-align: left; overflow-wrap: anywhere;}
.stviz-board td.name {white-space: normal;}  /* a long name (StyleTransformer-multi) wraps, never cut */
.stviz-board th.sorted {text-decoration: underline;}
.stviz-board td {padding: 4px 3px; text-align: right; border-bottom: 1px solid rgba(49,51,63,0.1);
                 font-variant-numeric: tabular-nums; white-space: nowrap; overflow: hidden;}
.stviz-board .track {position: relative; height: 4px; margin-top: 3px; background: rgba(49,51,63,0.08);}
.stviz-board .span {position: absolute; top: 0; height: 4px; background: rgba(31,119,180,0.55);}
.stviz-board .mark {position: absolute; top: -2px; width: 2px; height: 8px; background: rgb(31,119,180);}
</style>"""


def interval_table(table: pd.DataFrame, heads: dict[str, str], tooltips: dict[str, str], digits: dict[str, int],
                   sort_by: str, key: str) -> None:
    """Draw :func:`stviz.analyses.board_tables.compact_table`'s frame: system, rank range, then per measure its value
    over a bar of its interval (the bar's track spans every system's interval of that measure)."""
    metrics = list(dict.fromkeys(m for m, part in table.columns if part == "value"))
    # Widths share 80% of the page by each head's longest word, so that no word of a head is cut in two.
    weights = {m: 1 + max([5] + [len(w) for w in heads[m].replace("-", "- ").split()]) for m in metrics}
    widths = {m: 80 * w / sum(weights.values()) for m, w in weights.items()}
    ranked = table[("rank", "")].astype(str).str.strip().astype(bool).any()  # one system has no rank column
    head = ['<th class="name" style="width:15%">system</th>']
    head += [f'<th style="width:5%" title="rank range by {html.escape(heads[sort_by])}: systems whose intervals '
             'overlap share ranks">rank</th>'] if ranked else []
    head += [f'<th style="width:{widths[m]:.2f}%" class="{"sorted" if m == sort_by else ""}" '
             f'title="{html.escape(tooltips[m])}">{html.escape(heads[m])}</th>' for m in metrics]
    spans = {m: _extent(table, m) for m in metrics}
    rows = []
    for system, row in table.iterrows():
        cells = [f'<td class="name" title="{html.escape(str(system))}">{html.escape(str(system))}</td>']
        cells += [f'<td>{html.escape(str(row[("rank", "")]))}</td>'] if ranked else []
        cells += [_cell(row[(m, "value")], row[(m, "low")], row[(m, "high")], digits[m], spans[m]) for m in metrics]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    st.html(f'{_CSS}<div class="st-key-{html.escape(key)}"><table class="stviz-board" lang="en"><thead><tr>{"".join(head)}'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _extent(table: pd.DataFrame, metric: str) -> tuple[float, float]:
    values = table[[(metric, "low"), (metric, "high"), (metric, "value")]].to_numpy(float)
    values = values[np.isfinite(values)]
    return (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)


def _cell(value: float, low: float, high: float, digits: int, extent: tuple[float, float]) -> str:
    if not np.isfinite(value):
        return '<td title="not defined for this system">–</td>'
    text = f"{value:.{digits}f}"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"<td>{text}</td>"
    lo, hi = extent
    scale = (lambda v: 100 * (v - lo) / (hi - lo)) if hi > lo else (lambda v: 50.0)
    bar = (f'<div class="track"><div class="span" style="left:{scale(low):.1f}%;width:{max(scale(high) - scale(low), 1):.1f}%">'
           f'</div><div class="mark" style="left:calc({scale(value):.1f}% - 1px)"></div></div>')
    return f'<td title="{text}, 95% interval [{low:.{digits}f}, {high:.{digits}f}]">{text}{bar}</td>'


__all__ = ["interval_table"]
