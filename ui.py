"""Streamlit helpers shared by app.py and every page: the session's dataset, the sidebar,
embedder choice, progress bars, downloads and error display.

This is the only UI module besides the pages; the computations live in ``stviz``.
"""

from __future__ import annotations

import contextlib
import html
from typing import Callable, Iterator

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from stviz.cache import default_cache
from stviz.data import DATASET_NAMES, available_datasets, load_dataset
from stviz.data.schema import DataError, Dataset
from stviz.embed import PRESETS, SPEC_HELP, EmbedderError, embed, parse_embedder, select_device

DATASET_KEY = "dataset_name"  # name of the chosen dataset ("upload:FILE" for an uploaded one)
UPLOAD_KEY = "uploaded_dataset"  # the uploaded Dataset object itself
EMBEDDERS_KEY = "embedders"  # specs chosen on the home page, the default elsewhere
DEFAULT_DATASET = "demo"
DEFAULT_EMBEDDERS = ["minilm", "glove-sum"]


def page_setup(title: str) -> None:
    """Page config, title and the shared sidebar (dataset, device, cache)."""
    st.set_page_config(page_title=f"{title} · stviz", page_icon="🔎", layout="wide")
    st.title(title)
    _sidebar()


def _sidebar() -> None:
    with st.sidebar:
        name = st.session_state.get(DATASET_KEY, DEFAULT_DATASET)
        st.markdown(f"**Dataset:** {_dataset_title(name)}")
        st.caption("Change it on the home page (app).")
        st.markdown(f"**Device:** `{select_device()}`")
        cache = default_cache()
        summary = cache.summary()
        st.markdown(f"**Cache:** {summary['bytes'] / 1e6:,.1f} MB · {summary['vectors']:,} vectors · "
                    f"{summary['results']:,} results")
        if st.button("Clear cache", help="Delete every cached vector and result (they are recomputed when needed)"):
            cache.clear()
            st.cache_data.clear()
            st.toast("Cache cleared")
            st.rerun()


def _dataset_title(name: str) -> str:
    if name.startswith("upload:"):
        return f"uploaded file {name[7:]}"
    return next((i.title for i in available_datasets() if i.name == name), name)


@st.cache_resource(show_spinner="Loading dataset…")
def _load_named(name: str) -> Dataset:
    # One object per process; views must not modify it.
    return load_dataset(name)


def require_dataset() -> Dataset:
    """The session's dataset (the embedded demo until the user picks another); stops with a message if it cannot load."""
    name = st.session_state.get(DATASET_KEY, DEFAULT_DATASET)
    if name.startswith("upload:"):
        ds = st.session_state.get(UPLOAD_KEY)
        if ds is None:
            st.warning("The uploaded file is no longer in this session; upload it again on the home page.")
            st.stop()
        return ds
    try:
        return _load_named(name)
    except DataError as exc:
        show_error(exc)
        st.stop()


def embedder_select(label: str, key: str, multi: bool = False, default: list[str] | None = None,
                    max_selections: int | None = None) -> list[str]:
    """Pick one or several embedders (presets, or a custom spec); returns their specs."""
    default = default or st.session_state.get(EMBEDDERS_KEY, DEFAULT_EMBEDDERS)
    options = list(PRESETS) + [s for s in default if s not in PRESETS]
    fmt = lambda spec: PRESETS.get(spec, spec)  # noqa: E731
    if multi:
        chosen = st.multiselect(label, options, default=[s for s in default if s in options],
                                format_func=fmt, key=key, max_selections=max_selections)
    else:
        chosen = [st.selectbox(label, options, index=options.index(default[0]) if default[0] in options else 0,
                               format_func=fmt, key=key)]
    custom = st.text_input("Another embedder (optional)", key=f"{key}-custom", help=SPEC_HELP,
                           placeholder="e.g. wv:glove-wiki-gigaword-300:sum")
    if custom.strip():
        try:
            parse_embedder(custom)
        except EmbedderError as exc:
            show_error(exc)
        else:
            chosen = (chosen if multi else []) + [custom.strip()]
    return chosen


@contextlib.contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar for long work; yields ``fn(done, total)`` and disappears when done."""
    bar = st.progress(0.0, text=label)

    def report(done: int, total: int) -> None:
        frac = min(done / total, 1.0) if total else 1.0
        bar.progress(frac, text=f"{label} ({done:,} / {total:,})")

    try:
        yield report
    finally:
        bar.empty()


def embed_with_progress(texts: list[str], spec: str) -> np.ndarray:
    """Vectors for ``texts`` (disk-cached), with a progress bar; stops the page with a message if the embedder fails."""
    try:
        embedder = parse_embedder(spec)
        with progress_bar(f"Embedding {len(texts):,} texts with {embedder.label} on {select_device()}") as report:
            return embed(texts, embedder, progress=report)
    except EmbedderError as exc:
        show_error(exc)
        st.stop()


def show_error(exc: BaseException) -> None:
    """A user-facing error box (no traceback) for bad input or an unloadable model."""
    st.error(str(exc), icon="⚠️")


def download_table(frame: pd.DataFrame, name: str, key: str | None = None, latex: bool = True) -> None:
    """CSV (and LaTeX) download buttons for a table."""
    cols = st.columns(2 if latex else 1, gap="small")
    cols[0].download_button("⬇ CSV", frame.to_csv().encode(), file_name=f"{name}.csv", mime="text/csv",
                            key=f"{key or name}-csv", on_click="ignore")
    if latex:
        cols[1].download_button("⬇ LaTeX", lambda: frame.to_latex(float_format="%.3f", escape=True).encode(),
                                file_name=f"{name}.tex",
                                mime="text/x-tex", key=f"{key or name}-tex", on_click="ignore")


def download_figure(fig, name: str, key: str | None = None, width: int = 1200) -> None:
    """HTML, PNG and SVG download buttons for a plotly figure (images rendered on click, ``width`` px wide)."""
    # Exported images get a fixed width: plotly's default 700 px crams wide figures.
    sized = lambda: go.Figure(fig).update_layout(width=fig.layout.width or width)  # noqa: E731
    cols = st.columns(3, gap="small")
    cols[0].download_button("⬇ HTML", lambda: fig.to_html(include_plotlyjs="cdn").encode(), file_name=f"{name}.html",
                            mime="text/html", key=f"{key or name}-html", on_click="ignore")
    cols[1].download_button("⬇ PNG", lambda: pio.to_image(sized(), format="png", scale=2), file_name=f"{name}.png",
                            mime="image/png", key=f"{key or name}-png", on_click="ignore")
    cols[2].download_button("⬇ SVG", lambda: pio.to_image(sized(), format="svg"), file_name=f"{name}.svg",
                            mime="image/svg+xml", key=f"{key or name}-svg", on_click="ignore")


def escape(text: object) -> str:
    """HTML-escape any user text before it goes into ``unsafe_allow_html`` markup."""
    return html.escape(str(text), quote=True)


__all__ = ["page_setup", "require_dataset", "embedder_select", "progress_bar", "embed_with_progress",
           "show_error", "download_table", "download_figure", "escape", "DATASET_KEY", "UPLOAD_KEY",
           "EMBEDDERS_KEY", "DATASET_NAMES"]
