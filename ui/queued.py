"""A computation a page waits for, run in the server's one pool (:mod:`stviz.pool`), never in the page's script.

Why: a team's server serves every session from one process on a few cores. Run in each session's script, twenty
cold views at once were twenty computations sharing two cores, every page silent for minutes. Run here, at most
``workers`` compute at once; the page waits as the job's waiter and says at once where it stands: its place in
line with an honest wait ("2 jobs ahead of yours, about 40 s"), then its stage and progress, and the parts it hands
over early (the first embedder's heatmap). A rerun or a closed tab stops the waiting, not the job: asked again
soon (a reload, a colleague), it is found running; asked by nobody, it is dropped (:data:`ABANDONED_AFTER`).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable

import streamlit as st

from stviz.progress import Reporter
from stviz.pool import CANCELLED, INTERACTIVE, QUEUED, Job, default_scheduler
from ui import turns
from ui.text import literal

#: How often the page looks at its job while it waits; the bar is redrawn when its text changes, and at least every
#: :data:`KEEPALIVE_SECONDS`: a redraw is where Streamlit stops a script the user has moved away from (a rerun, a
#: closed tab), while twenty pages redrawn twice a second cost their browsers and the server's event loop more
#: than the news is worth.
REDRAW_SECONDS = 0.5
KEEPALIVE_SECONDS = 2.0


def compute(key: str, work: Callable[[Reporter], Any], *, seconds: float | None = None, priority: int = INTERACTIVE,
            memory: float = 0.0, on_partial: Callable[[str, Any], None] | None = None, label: str = "Starting") -> Any:
    """``work(reporter)``'s result, computed in the server's pool under ``key`` (shared with every session asking for
    the same key); the page shows the queue, then the progress, meanwhile. Raises the job's error."""
    scheduler = default_scheduler()
    job = scheduler.submit(key, work, seconds=seconds, priority=priority, memory=memory, label=label)
    box, handed, drawn, at = st.empty(), 0, None, 0.0
    try:
        # A wait gives the page's turn back (ui.turns), so that it holds no other page up; a job another page had
        # finished already is drawn in this turn, not after waiting in line again.
        with contextlib.nullcontext() if job.finished else turns.given_back():
            while not scheduler.wait(job, REDRAW_SECONDS):
                handed = _hand_over(job, handed, on_partial)
                if job.state == CANCELLED:  # dropped while this page was away (a laptop asleep): asked for again
                    job = scheduler.submit(key, work, seconds=seconds, priority=priority, memory=memory, label=label)
                fraction, text = status(job)
                if text != drawn or time.monotonic() - at >= KEEPALIVE_SECONDS:
                    box.progress(fraction, text=literal(text))
                    drawn, at = text, time.monotonic()
            _hand_over(job, handed, on_partial)
    finally:
        box.empty()
    if job.state == CANCELLED:
        return compute(key, work, seconds=seconds, priority=priority, memory=memory, on_partial=on_partial, label=label)
    scheduler.forget(key)  # in the disk cache now; a later ask computes from it (and sees a changed cache)
    if job.error is not None:
        raise job.error
    return job.result


def status(job: Job) -> tuple[float, str]:
    """The bar's fraction and text for a job: its place in line while queued, else its stage and progress."""
    scheduler = default_scheduler()
    if job.state == QUEUED:
        return 0.0, f"Queued on this server: {scheduler.describe_wait(job) or 'starting'}"
    return (min(job.done / job.total, 1.0) if job.total else 0.0), job.describe() + sharing(scheduler.others(job))


def sharing(others: int) -> str:
    """' · sharing the server with 2 other computations' when others compute beside a job, else ''."""
    return f" · sharing the server with {others} other computation{'s' if others != 1 else ''}" if others else ""


def _hand_over(job: Job, handed: int, on_partial: Callable[[str, Any], None] | None) -> int:
    """Give the page the parts the job finished since last time; how many it has now."""
    parts = job.partials[handed:]
    if on_partial is not None:
        for name, value in parts:
            on_partial(name, value)
    return handed + len(parts)


__all__ = ["KEEPALIVE_SECONDS", "REDRAW_SECONDS", "compute", "sharing", "status"]
