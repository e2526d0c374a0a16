"""Tabs and expanders whose hidden content is not built, sent or drawn until a visitor opens it.

Why: Streamlit builds every tab's and every folded expander's content on each run, and the browser draws all of it,
hidden or not. A view's figures in its other tabs (Metrics vs humans' scatter of every pair, Meta-evaluation's
heatmaps) held up the drawing of the tab in view by about 0.4 s on two cores (docs/benchmarks.md, "Stop 52").
Opening another tab or an expander reruns the page, which reads its kept result again (one cache read).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import streamlit as st


def draw_tabs(tabs: dict[str, Callable[[], None]], key: str, keep: dict[str, Iterable[str]] | None = None) -> None:
    """Tabs of which only the open one is drawn: ``tabs`` maps each label to what draws its content, ``keep`` each
    label to the keys of the value widgets inside it (not buttons), whose values are kept while their tab is hidden."""
    containers = st.tabs(list(tabs), key=key, on_change="rerun")
    for (label, draw), container in zip(tabs.items(), containers):
        if container.open is False:
            keep_values((keep or {}).get(label, ()))
            continue
        with container:
            draw()


def folded(label: str, key: str, draw: Callable[[], None], expanded: bool = False) -> None:
    """An expander whose content is drawn only while it is open (none of its widgets may be needed closed)."""
    box = st.expander(label, expanded=expanded, key=key, on_change="rerun")
    if box.open is not False:
        with box:
            draw()


def keep_values(keys: Iterable[str]) -> None:
    """Keep the values of widgets this run does not draw: Streamlit drops a widget's value at the end of a run that
    does not draw it, but keeps a value written through the Session State API until the widget is drawn again."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


__all__ = ["draw_tabs", "folded", "keep_values"]
