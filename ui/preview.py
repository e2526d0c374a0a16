"""A long cold view answers in seconds: a sampled preview is drawn at once, the full run computes in the server's
scheduler (:mod:`stviz.pool`), and when it is done the page reruns and draws the full result in place of the
preview.

Why not the script run: a rerun (any widget) or a reload (a new session) stops a script run, and the minutes
already spent would be lost. The job lives in the server process, keyed by view, dataset and options: a reload
(or a colleague asking for the same view) finds it queued or running, the preview comes back from the cache in
seconds, then the full result. While queued, the page says how many jobs are ahead and about how long they take;
a job nobody polls for three minutes is dropped (what it computed so far stays in the disk cache).
"""

from __future__ import annotations

import functools
from types import ModuleType

import plotly.graph_objects as go
import streamlit as st

from stviz.analyses.kept import keep_run
from stviz.analyses.preview import PreviewInfo, job_options, preview_inputs, supports
from stviz.analyses.preview_rankings import ranking
from stviz.pool import BACKGROUND, CANCELLED, FINISHED, INTERACTIVE, QUEUED, Job, default_scheduler
from ui.queued import compute, status
from ui.text import literal

INFO_KEY = "preview-info"
SAMPLE_KEY = "preview-sample"


def start_full_run(key: str, analysis: ModuleType, dataset, options, seconds: float | None = None,
                   memory: float = 0.0, **kwargs) -> Job:
    """The background job of this view in the server's one scheduler (:mod:`stviz.pool`): queued now unless one
    for the same key is queued, running or has just finished, whichever session asked first. Served after the
    interactive jobs (previews), so those keep answering first."""
    return default_scheduler().submit(key, functools.partial(keep_run, analysis.__name__, dataset, options, **kwargs),
                                      seconds=seconds, priority=BACKGROUND, memory=memory)


def finished_result(key: str):
    """The full result of a finished job for this key (None when there is none, or it failed: then it is forgotten)."""
    scheduler = default_scheduler()
    job = scheduler.get(key)
    if job is None or job.state != FINISHED:
        return None
    if job.error is not None:
        scheduler.forget(key)
        raise job.error
    return job.result


def wanted(analysis: ModuleType) -> int | None:
    """The preview's size asked for by the link (``preview=N``; 0 = the default size), or None when it is off."""
    if not supports(analysis):
        return None
    value = st.query_params.get("preview", "")
    if value.strip().lower() in ("off", "no", "false"):
        return None
    return int(value) if value.strip().isdigit() else 0


def run_preview(analysis: ModuleType, dataset, options, key: str, size: int, seconds: float, full_options=None,
                cost=None, **kwargs):
    """Draw nothing yet: run the preview on its sample (an interactive job of the server's pool), start (or find) the
    full run (with ``full_options``, keyed by ``key``), and put up the banner, the poller and the marks (URL,
    exports). Returns the preview's result for the page to draw."""
    from stviz.costs import describe_seconds

    sample, frozen, info = preview_inputs(analysis, dataset, options, size or None, **kwargs)
    banner = st.container()
    result = compute(f"preview {info.n}:{key}:{frozen!r}", functools.partial(analysis.run, sample, frozen, **kwargs),
                     seconds=preview_cost(analysis, sample, frozen, **kwargs), priority=INTERACTIVE,
                     label=f"Computing a preview on {info.label.removeprefix('preview: ')}")
    job = start_full_run(key, analysis, dataset, options if full_options is None else full_options, seconds,
                         getattr(cost, "memory", 0.0), **kwargs)
    mark(analysis, info, sample)
    found = ranking(analysis, result, sample)
    with banner:
        st.info(f"**{info.label}** (a seeded random sample: intervals, percentiles and rankings are the sample's, "
                f"so rougher). The full result ({describe_seconds(seconds)} of computing the first time) is computing "
                "in the background and replaces this preview when done; the preview's work is not done again."
                + (f"  \n{literal(found.describe())}." if found else "")
                + (f"  \nWhat the full result costs: {literal('; '.join(cost.itemised()))} (a part left out in the "
                   "options is not computed)." if cost is not None and len(cost.parts) > 1 else ""))
        poll(key, job)
    return result


def preview_cost(analysis: ModuleType, sample, frozen, **kwargs) -> float | None:
    """The preview's own cold estimate in seconds (None when it cannot be made): the wait said to the pages queued
    behind it, and its bar's time left before its first counts."""
    from stviz.data.schema import DataError
    from stviz.embedders import EmbedderError

    extra = {"uploads": kwargs["uploads"]} if "uploads" in kwargs else {}  # Meta-evaluation's other sets
    try:
        return analysis.estimate(sample, frozen, **extra).seconds
    except (DataError, EmbedderError, ValueError):
        return None


@st.fragment(run_every=2)
def poll(key: str, job: Job) -> None:
    """The full run's progress (or its place in the server's queue), every 2 s, as one of its waiters; when it is
    done, the whole page reruns and draws the full result."""
    scheduler = default_scheduler()
    job = scheduler.get(key) or job
    if job.state == CANCELLED:  # dropped while nobody polled (a laptop asleep): asked for again
        job = scheduler.submit(key, job.work, job.seconds)
    scheduler.touch(job)
    if job.finished:
        st.rerun()
    fraction, text = status(job)  # the same words as every other waiting page's bar
    st.progress(fraction, text="Full result: " + literal(text[0].lower() + text[1:] if job.state == QUEUED else text))


def mark(analysis: ModuleType, info: PreviewInfo, sample) -> None:
    """Say 'preview' in the URL (``preview=N``) and to the exports drawn in this script run; keep the sample,
    whose rows the preview's values belong to (:func:`dataset_of_result`)."""
    st.session_state[INFO_KEY], st.session_state[SAMPLE_KEY] = info, sample
    params = st.query_params.to_dict()
    if params.get("preview") != str(info.n):
        st.query_params["preview"] = str(info.n)
    written = f"url-written:{analysis.__name__}"
    st.session_state[written] = {**st.session_state.get(written, {}), "preview": str(info.n)}


def unmark(analysis: ModuleType) -> None:
    """The full result is shown: no preview mark in the URL or on exports."""
    st.session_state.pop(INFO_KEY, None)
    st.session_state.pop(SAMPLE_KEY, None)
    if "preview" in st.query_params:
        del st.query_params["preview"]
    written = st.session_state.get(f"url-written:{analysis.__name__}")
    if isinstance(written, dict):
        written.pop("preview", None)


def current() -> PreviewInfo | None:
    """The preview drawn in this script run (None when the page shows a full result)."""
    return st.session_state.get(INFO_KEY)


def dataset_of_result(dataset):
    """The dataset whose rows the result drawn in this script run belongs to: the preview's sample while a preview
    is shown (its values are the sample's, row for row), else ``dataset`` itself."""
    return st.session_state.get(SAMPLE_KEY, dataset) if current() else dataset


def title(text: str) -> str:
    """A figure or table title, marked '(preview: N of M pairs)' while a preview is shown."""
    info = current()
    return f"{text} ({info.label})" if info else text


def marked_figure(fig: go.Figure, info: PreviewInfo | None = None) -> go.Figure:
    """A copy of ``fig`` with 'preview: N of M pairs' written in its top-right corner (while a preview is shown)."""
    info = info or current()
    if info is None or any(note.text == info.label for note in fig.layout.annotations or ()):
        return fig  # no preview, or marked already (a page's figure, then exported)
    fig = go.Figure(fig)
    # Just above the plot area's top-right corner, in the top margin (never over the data, whatever the height).
    fig.add_annotation(text=info.label, xref="paper", yref="paper", x=1, y=1, xanchor="right", yanchor="bottom",
                       yshift=4, showarrow=False, font=dict(color="#b45309", size=13))
    if (fig.layout.margin.t or 0) < 60:
        fig.update_layout(margin_t=60)
    return fig


def plotly_chart(fig: go.Figure, **kwargs):
    """``st.plotly_chart`` of ``fig``, marked 'preview: N of M' in its corner while a preview is shown (every view's
    figures go through here, so none is left unmarked); returns Streamlit's selection event."""
    return st.plotly_chart(marked_figure(fig), **kwargs)


def wait_for(job: Job, seconds: float = 0.0) -> None:
    """Block up to ``seconds`` for a job, as its waiter (tests)."""
    default_scheduler().wait(job, seconds)


__all__ = ["Job", "current", "dataset_of_result", "finished_result", "job_options", "mark", "marked_figure",
           "plotly_chart", "run_preview", "start_full_run", "title", "unmark", "wanted"]
