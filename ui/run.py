"""Running a view: its opening, the cost box before a long cold run, progress per stage, one clear error."""

from __future__ import annotations

import functools
import os
import time
from types import ModuleType
from typing import Any, Callable

import streamlit as st

from stviz.analyses.base import NotApplicable
from stviz.analyses.kept import job_key, keep_run, keepable, kept_result
from stviz.data.schema import DataError, Dataset
from stviz.embedders import EmbedderError
from stviz.progress import Progress, Reporter, Timer, describe
from ui.sidebar import page_setup
from ui.state import remember_dataset, url_options
from ui.text import literal, not_applicable, show_error
from ui.uploads import current_dataset_name, require_dataset


class StreamlitReporter(Reporter):
    """An analysis's stages as one progress bar: stage name, real work counted, elapsed time and estimate."""

    def __init__(self, on_partial: Callable[[str, Any], None] | None = None):
        self.box = st.empty()
        self.on_partial = on_partial

    def stage(self, label: str) -> Progress:
        """Show ``label`` in the bar; the returned ``fn(done, total)`` moves it (at most ~10 times a second)."""
        shared = sharing_note()  # said while it runs: on a busy server a stage takes longer than alone
        bar = self.box.progress(0.0, text=literal(label) + shared)
        timer, last = Timer(), [0.0]

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - last[0] < 0.1:
                return
            last[0] = now
            bar.progress(min(done / total, 1.0) if total else 1.0,
                         text=literal(describe(label, done, total, timer)) + shared)

        return report

    def partial(self, name: str, value: Any) -> None:
        """Hand a finished part to the page (e.g. to draw the first embedder's heatmap while the rest run)."""
        if self.on_partial is not None:
            self.on_partial(name, value)

    def finish(self) -> None:
        """Remove the bar."""
        self.box.empty()


def sharing_note() -> str:
    """' · sharing the server with 2 other computations' when the server's pool computes beside this work, else ''."""
    from stviz.pool import default_scheduler
    from ui.queued import sharing

    return sharing(default_scheduler().others())


def open_view(analysis: ModuleType, intro: str, *, small_intro: bool = False) -> tuple[Dataset, object]:
    """Every view's opening: page setup, its introduction, the dataset (stopping with a note when the view
    does not apply to it) and the options to start from (link, else this session, else defaults)."""
    page_setup(analysis.TITLE)
    (st.caption if small_intro else st.markdown)(intro)
    dataset = require_dataset()
    if getattr(analysis, "ONE_LANGUAGE_AT_A_TIME", False):
        dataset = language_facet(dataset)
    require_applicable(analysis, dataset)
    return dataset, url_options(analysis)


#: The session key of the Language facet (the language a view of one language at a time shows).
FACET_KEY = "language-facet"


def language_facet(dataset: Dataset) -> Dataset:
    """A file of several languages, shown one language at a time: the Language facet's choice (the largest language
    first; kept across views and reruns), said beside it; the dataset itself when its pairs are in one language or
    Home's Language box chose one."""
    from stviz.languages import dataset_language, facet_languages, language_name, with_language

    codes = facet_languages(dataset)  # the order the server's warm jobs compute them in (stviz.ready)
    if not codes:
        return dataset
    report = dataset_language(dataset)
    current = st.session_state.get(FACET_KEY)
    chosen = st.selectbox("Language", codes, index=codes.index(current) if current in codes else 0,
                          format_func=lambda c: f"{language_name(c)} · {report.languages[c]:,} pairs",
                          key=f"{FACET_KEY}-box",
                          help="The pairs are in several languages; this view compares one at a time (a correlation "
                               "or a ranking across languages would also rank the languages). The command line "
                               "prints one table per language in one run; Meta-evaluation shows every language.")
    st.session_state[FACET_KEY] = chosen
    st.caption(literal(f"{report.origin().capitalize()}: {len(codes)} languages; shown: {language_name(chosen)}, "
                       f"{report.languages[chosen]:,} of {sum(report.languages.values()):,} pairs."))
    return with_language(dataset, chosen)


def require_applicable(analysis: ModuleType, dataset: Dataset) -> None:
    """Stop the page with a friendly note when the analysis does not apply to the dataset."""
    reason = analysis.applies_to(dataset)
    if reason:
        not_applicable(reason)
        remember_dataset()  # a link copied from here reopens this dataset (not the demo) with the reason
        st.stop()


def preview_seconds(analysis: ModuleType, dataset: Dataset, options, key: str) -> float | None:
    """The cold run's seconds when a preview should be drawn first (long, previewable, the link does not turn it
    off, no LLM calls to ask about first), else None."""
    from ui import preview

    if preview.wanted(analysis) is None or not hasattr(analysis, "estimate"):
        return None
    if key in st.session_state.setdefault("confirmed-runs", set()):
        return None  # estimated quick before (or clicked): not estimated again on every rerun
    known = st.session_state.setdefault("preview-seconds", {})
    if key in known:  # a preview shown before: its full run is in the background, not estimated again
        return known[key]
    try:
        cost = analysis.estimate(dataset, options)
    except (DataError, EmbedderError, ValueError):
        return None
    st.session_state.setdefault("run-costs", {})[key] = cost
    if getattr(cost, "calls", 0) or cost.seconds <= confirm_seconds():
        return None
    known[key] = cost.seconds
    return cost.seconds


def confirm_seconds() -> float:
    """Cold runs longer than this wait for a click (``STVIZ_CONFIRM_SECONDS``, default 30; 'inf' never waits)."""
    return float(os.environ.get("STVIZ_CONFIRM_SECONDS", "30"))


def confirm_cost(analysis: ModuleType, dataset: Dataset, options) -> bool:
    """True when the run may start: it is quick, or the user clicked after reading what it will cost.

    A link opened by a colleague, or a page visited by accident, must not start minutes of computing
    unasked; once the results are in the disk cache the estimate is zero and nothing waits.
    """
    from stviz.costs import describe_seconds

    if not hasattr(analysis, "estimate"):
        return True
    key = job_key(analysis.__name__, current_dataset_name(), options, dataset.language)  # run_analysis's key
    if key in st.session_state.setdefault("confirmed-runs", set()):
        return True
    try:
        cost = analysis.estimate(dataset, options)
    except (DataError, EmbedderError, ValueError):
        return True  # the run reports the problem itself
    st.session_state.setdefault("run-costs", {})[key] = cost  # the queue's wait and memory check use it
    # Calls to an LLM judge may be paid for: they wait for a click however quick (unless waiting is off: 'inf').
    asks = getattr(cost, "calls", 0) and confirm_seconds() != float("inf")
    if cost.seconds <= confirm_seconds() and not asks:
        st.session_state["confirmed-runs"].add(key)  # not estimated again on every rerun of these options
        return True
    box = st.empty()
    with box.container(border=True):
        st.markdown(f"**This view needs {describe_seconds(cost.seconds)} of computing on this machine the first "
                    "time.** The results are then kept in the disk cache, so later visits (and the command line) are "
                    "quick. What each part costs (a part left out in the options above is not computed):")
        st.markdown("\n".join(f"- {literal(item)}" for item in cost.itemised()))
        for plan in getattr(cost, "call_plans", []):
            st.markdown("- " + literal(plan))
        clicked = st.button("Compute", type="primary", key=f"confirm-{analysis.__name__}")
    if clicked:
        # Gone once clicked: left above the progress bar, the offer reads as still pending and a second click
        # would start the run again.
        box.empty()
        st.session_state["confirmed-runs"].add(key)
    return clicked


def run_analysis(analysis: ModuleType, dataset: Dataset, options, on_partial=None, **kwargs):
    """Run an analysis in the server's pool (:mod:`ui.queued`) with its place in line, then its progress; on bad
    input show one clear message and stop the page.

    A full result kept in the disk cache (computed before anyone asked, :mod:`stviz.ready`, or by an earlier run) is
    read and nothing is asked of the pool. A long cold run (the cost box's threshold) of a view that offers a preview
    draws a sampled preview first and computes the full result in the background (:mod:`ui.preview`); other long
    runs wait for a click.
    """
    from ui import preview

    key = job_key(analysis.__name__, current_dataset_name(), options, dataset.language)
    job_options = preview.job_options(analysis, options)  # what a background full run computes
    full_key = job_key(analysis.__name__, current_dataset_name(), job_options, dataset.language)
    try:
        if (kept := _kept(analysis, dataset, options, kwargs)) is not None:
            _in_full(analysis, key)
            return kept
        full = preview.finished_result(full_key)
        if full is not None or (job_options != options and _kept(analysis, dataset, job_options, kwargs) is not None):
            _in_full(analysis, key)
            # A filter or an opened pair the job left at its default: applied now, on the warm cache.
            return full if full is not None and job_options == options else \
                _compute(analysis, dataset, options, key, on_partial, **kwargs)
        preview.unmark(analysis)
        if (seconds := preview_seconds(analysis, dataset, options, key)) is not None:
            cost = st.session_state.get("run-costs", {}).get(key)
            return preview.run_preview(analysis, dataset, options, full_key, preview.wanted(analysis) or 0, seconds,
                                       full_options=job_options, cost=cost, **kwargs)
        if not confirm_cost(analysis, dataset, options):
            st.stop()
        return _compute(analysis, dataset, options, key, on_partial, **kwargs)
    except NotApplicable as exc:
        not_applicable(str(exc))
    except (DataError, EmbedderError, ValueError, MemoryError) as exc:
        show_error(exc)
    st.stop()


def _in_full(analysis: ModuleType, key: str) -> None:
    """The page draws a full result: no preview marks; later reruns of these options run straight (no cost box)."""
    from ui import preview

    preview.unmark(analysis)
    st.session_state.setdefault("confirmed-runs", set()).add(key)


def _kept(analysis: ModuleType, dataset: Dataset, options, kwargs: dict):
    """The view's full result when it is kept in the disk cache for these options (one read), else None."""
    if not keepable(kwargs):
        return None
    found, result = kept_result(analysis.__name__, dataset, options)
    return result if found else None


def _compute(analysis: ModuleType, dataset: Dataset, options, key: str, on_partial=None, **kwargs):
    """``analysis.run`` in the server's pool, as this page's wait: interactive when quick, behind previews when its
    estimate is long (a run confirmed by a click)."""
    from stviz.pool import BACKGROUND, INTERACTIVE
    from ui.queued import compute

    cost = st.session_state.get("run-costs", {}).get(key)
    seconds = getattr(cost, "seconds", None)
    quick = seconds is None or seconds <= confirm_seconds()
    return compute(key, functools.partial(keep_run, analysis.__name__, dataset, options, **kwargs), seconds=seconds,
                   priority=INTERACTIVE if quick else BACKGROUND, memory=getattr(cost, "memory", 0.0),
                   on_partial=on_partial, label=f"Computing {getattr(analysis, 'TITLE', 'the view')}")


__all__ = ["StreamlitReporter", "confirm_cost", "confirm_seconds", "open_view", "require_applicable", "run_analysis"]
