"""The server's warming (:mod:`stviz.ready`) started with its pool, and said in every page's sidebar: "7 of 9
built-in views ready; Leaderboard on li2018-yelp: about 4 min left"."""

from __future__ import annotations

import sys

import streamlit as st

from stviz import ready
from ui.text import literal

#: How often the sidebar's line is redrawn while views are still being computed (a fragment: the page itself does not
#: rerun; twenty pages polling every few seconds would cost the server's event loop more than the news is worth).
REFRESH_SECONDS = 15


def start_warming() -> None:
    """Once per server: queue the built-in views' results in the pool at the lowest priority (unless turned off)."""
    if ready.enabled():
        ready.default_warmer(say=_say).start()


def _say(line: str) -> None:
    # The server's log (stdout of `stviz dashboard`, the terminal of `make run`): warming's progress, one line a view.
    print(f"stviz: {line}", file=sys.stderr, flush=True)


def readiness_line() -> None:
    """The sidebar's line on the built-in views, redrawn every :data:`REFRESH_SECONDS` while some are computing."""
    if not ready.enabled():
        return
    status = ready.default_warmer().status()
    if status is not None and status.ready >= status.total:
        st.caption(literal(status.line()))
    else:
        _live_line()


@st.fragment(run_every=REFRESH_SECONDS)
def _live_line() -> None:
    status = ready.default_warmer().status()
    st.caption(literal(status.line()) if status is not None else "Getting the built-in views ready…")


__all__ = ["REFRESH_SECONDS", "readiness_line", "start_warming"]
