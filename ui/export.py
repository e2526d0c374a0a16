"""Downloads: tables as CSV and LaTeX, figures as HTML, PNG and SVG."""

from __future__ import annotations

from typing import Callable

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from stviz.export import figure_html, table_csv
from stviz.formatting import latex_table


def download_table(frame: pd.DataFrame, name: str, key: str | None = None,
                   latex: bool | Callable[[], bytes] = True) -> None:
    """CSV (and LaTeX) download buttons for a table; CSV cells that a spreadsheet would run as formulas are neutralised.

    ``latex`` may be a function giving the LaTeX file's bytes, for a table laid out otherwise; by default
    numbers are written as the command line writes them (:func:`stviz.formatting.latex_table`).
    """
    from ui.preview import current

    info = current()  # a preview's table says so in its file name and first line
    name, note = (name + info.file_suffix, info.label + " (a seeded random sample; the full result follows)"
                  ) if info else (name, "")
    row = st.container(horizontal=True, gap="small")  # buttons side by side, left-aligned, at any page width
    row.download_button("⬇ CSV", lambda: _noted(table_csv(frame), note, "# "), file_name=f"{name}.csv", mime="text/csv",
                        key=f"{key or name}-csv", on_click="ignore",
                        help="Texts starting with = + - @ get a leading ' so spreadsheets do not run them "
                             "(STVIZ_NEUTRALISE_FORMULAS=0 turns this off)")
    if latex:
        default = lambda: latex_table(frame).encode()  # noqa: E731
        tex = latex if callable(latex) else default
        row.download_button("⬇ LaTeX", lambda: _noted(tex(), note, "% "),
                            file_name=f"{name}.tex", mime="text/x-tex", key=f"{key or name}-tex",
                            on_click="ignore")


def _noted(data, note: str, comment: str):
    """The file's bytes with a first comment line saying it is a preview (unchanged without a note)."""
    if not note:
        return data
    head = f"{comment}{note}\n"
    return head.encode() + data if isinstance(data, bytes) else head + data


def download_figure(fig, name: str, key: str | None = None, width: int = 1200) -> None:
    """HTML, PNG and SVG download buttons for a plotly figure (images rendered on click, ``width`` px wide); a
    preview's figure carries 'preview: N of M pairs' in its corner and its file name."""
    from ui.preview import current, marked_figure

    if info := current():
        fig, name = marked_figure(fig, info), name + info.file_suffix
    # Exported images get a fixed width: plotly's default 700 px crams wide figures.
    sized = lambda: go.Figure(fig).update_layout(width=fig.layout.width or width)  # noqa: E731
    row = st.container(horizontal=True, gap="small")
    row.download_button("⬇ HTML", lambda: figure_html(fig).encode(), file_name=f"{name}.html",
                        mime="text/html", key=f"{key or name}-html", on_click="ignore",
                        help="A standalone page with plotly.js inside: it opens offline")
    row.download_button("⬇ PNG", lambda: pio.to_image(sized(), format="png", scale=2), file_name=f"{name}.png",
                        mime="image/png", key=f"{key or name}-png", on_click="ignore")
    row.download_button("⬇ SVG", lambda: pio.to_image(sized(), format="svg"), file_name=f"{name}.svg",
                        mime="image/svg+xml", key=f"{key or name}-svg", on_click="ignore")


__all__ = ["download_figure", "download_table"]
