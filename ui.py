"""Streamlit helpers shared by app.py and every page: the session's dataset, the sidebar,
embedder choice, progress bars, downloads and error display.

This is the only UI module besides the pages; the computations live in ``stviz``.
"""

from __future__ import annotations

import contextlib
import html
import os
import re
from typing import Callable, Iterator

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from stviz.cache import default_cache, fingerprint
from stviz.classify import DEFAULT_LEXICON_SIZE
from stviz.data import DATASET_NAMES, available_datasets, load_dataset
from stviz.data.schema import DataError, Dataset
from stviz.embed import (PRESETS, SPEC_HELP, EmbedderError, WordVectorEmbedder, embed, parse_embedder,
                         select_device)
from stviz.export import figure_html, table_csv

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
        st.markdown(f"**Dataset:** {literal(_dataset_title(name))}")
        st.caption("Change it on the home page (app).")
        st.markdown(f"**Device:** `{select_device()}`")
        _cache_panel()


def clearing_allowed() -> bool:
    """Whether visitors may clear the cache: ``$STVIZ_ALLOW_CLEAR_CACHE`` (default 1; set 0 on shared deployments)."""
    return os.environ.get("STVIZ_ALLOW_CLEAR_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def _cache_panel() -> None:
    """Cache size, what happened to it (damage repaired, storing off), and a confirmed 'Clear cache'."""
    cache = default_cache()
    try:
        summary = cache.summary()
    except Exception as exc:  # noqa: BLE001 - the sidebar must never take a page down
        st.caption(f"Cache: unavailable ({literal(type(exc).__name__)}: {literal(str(exc)[:120])})")
        return
    for notice in cache.take_notices():
        st.warning(literal(notice), icon="🗄️")
    st.markdown(f"**Cache:** {summary['bytes'] / 1e6:,.1f} MB · {summary['vectors']:,} vectors · "
                f"{summary['results']:,} results" + ("" if cache.writable else " · not storing"))
    if not clearing_allowed():
        return
    # Everyone using this dashboard shares the cache: ask before wiping hours of computation.
    with st.popover("Clear cache…"):
        st.markdown("Delete **every** cached vector and result, for everyone using this dashboard? "
                    "They are recomputed when next needed, which can take minutes per view.")
        if st.button("Yes, clear the cache", type="primary", key="clear-cache-confirm"):
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


def oov_notes(specs: list[str], texts: list[str], limit: int = 5000) -> None:
    """A caption per word-vector embedder: the share of tokens with no vector (skipped when pooling)."""
    step = max(1, len(texts) // limit)
    sample = tuple(str(t) for t in texts[::step][:limit])  # evenly spaced, so every style is represented
    for spec in specs:
        try:
            embedder = parse_embedder(spec)
            if not isinstance(embedder, WordVectorEmbedder):
                continue
            rate = _oov_rate(spec, sample)
        except EmbedderError:
            continue  # the embedding step itself reports why the vectors cannot load
        scope = f"{len(sample):,} texts" + (f" sampled from {len(texts):,}" if len(sample) < len(texts) else "")
        st.caption(f"{embedder.label}: {rate:.1%} of tokens have no vector (out of vocabulary, on {scope}); "
                   "they are skipped when pooling.")


@st.cache_data(show_spinner=False, max_entries=64)
def _oov_rate(spec: str, texts: tuple[str, ...]) -> float:
    return parse_embedder(spec).oov_rate(list(texts))


#: Style-labelled corpora a lexicon can be learned from, besides the dataset itself.
LEXICON_CORPORA = ("yelp-sentiment", "cds")


def lexicon_sources(ds: Dataset) -> dict[str, str]:
    """Where a style lexicon can come from for ``ds``: its own, or learned from labelled texts (key -> label)."""
    from stviz.classify import labelled_texts

    sources = {}
    if ds.lexicon:
        sources["dataset"] = f"shipped with the dataset ({len(ds.lexicon):,} words)"
    try:
        if labelled_texts(ds)["style"].nunique() >= 2:
            sources["learn:"] = "learned from this dataset's style-labelled texts"
    except DataError:
        pass
    installed = {i.name: i.title for i in available_datasets() if i.available}
    for name in LEXICON_CORPORA:
        if name in installed and name != ds.name:
            sources[f"learn:{name}"] = f"learned from {installed[name]}"
    return sources


def lexicon_select(ds: Dataset, key: str, optional: bool = False,
                   sources: dict[str, str] | None = None) -> dict[str, float] | None:
    """Choose the style lexicon for removal / masking (Mir et al.); None when none is chosen or can be had.

    ``optional`` puts "no lexicon" first, for views where masking is an extra: a lexicon learned from
    another corpus (Yelp sentiment for formality pairs) should be a deliberate choice, not a default.
    ``sources``: :func:`lexicon_sources` of ``ds`` when the page already has them.
    """
    sources = lexicon_sources(ds) if sources is None else sources
    if optional and sources and "dataset" not in sources:
        sources = {"none": "none (choose one to see the masked texts)", **sources}
    if not sources:
        st.info("No style lexicon: this dataset ships none and has no two styles to learn one from, and no "
                "labelled corpus (Yelp sentiment, CDS) is installed.")
        return None
    cols = st.columns([3, 1])
    choice = cols[0].selectbox("Style lexicon", list(sources), format_func=sources.get, key=key,
                               help="Style words are removed or masked before scoring (Mir et al.). A learned "
                                    "lexicon holds the words with the largest TF-IDF logistic-regression weights.")
    if choice == "none":
        return None
    if choice == "dataset":
        return ds.lexicon
    size = cols[1].number_input("Words", 10, 5000, DEFAULT_LEXICON_SIZE, step=50, key=f"{key}-size",
                                help="Fewer words favour precision over recall, as Mir et al. recommend.")
    name = choice.split(":", 1)[1]
    source = _load_named(name) if name else ds
    pairs_key = fingerprint(ds.pairs) if not name and ds.pairs is not None else ""
    try:
        lexicon = _learned_lexicon(name or ds.name, pairs_key, int(size), source)
    except DataError as exc:
        show_error(exc)
        return None
    examples = ", ".join(literal(w) for w in list(lexicon)[:12])
    st.caption(f"{len(lexicon):,} style words, strongest first: {examples}, …")
    return lexicon


@st.cache_data(show_spinner="Learning the style lexicon…", max_entries=16)
def _learned_lexicon(name: str, pairs_key: str, size: int, _source: Dataset) -> dict[str, float]:
    # Keyed by the source's name (and pairs, for an uploaded file); the disk cache keeps it across restarts.
    from stviz.classify import lexicon_from_dataset

    return lexicon_from_dataset(_source, top_k=size)


def require_pairs(ds: Dataset, why: str) -> pd.DataFrame:
    """The dataset's pairs; for a dataset without any, say why this page needs them and stop."""
    if ds.pairs is None:
        st.info(f"**Not applicable to {literal(ds.title or ds.name)}**: it has style-labelled sentences but no "
                f"(source, output) pairs, {why}. Choose a pair dataset (the demo, SGDD-TST, Mir et al. Yelp outputs) "
                "or upload pairs on the home page; style-labelled sentences are explored on *Style similarity* "
                "and *Embedding map*.")
        st.stop()
    return ds.pairs


def require_style_labels(dataset: Dataset, unavailable: str) -> None:
    """Before any control is drawn: stop with :func:`one_style_notice` when no style classifier can be trained."""
    from stviz.classify import OneStyleError, check_style_labels

    try:
        check_style_labels(dataset)
    except OneStyleError as exc:
        one_style_notice(exc, unavailable)
        st.stop()
    except DataError as exc:
        show_error(exc)
        st.stop()


def one_style_notice(exc: DataError, unavailable: str) -> None:
    """Why a style view does not apply to a dataset whose human-written texts carry one style only (SGDD-TST)."""
    st.warning(f"{literal(exc)}. The other side of its pairs is "
               "system output, which cannot serve as examples of the target style.")
    st.markdown(f"**Not available here:** {unavailable}.  \n"
                "**Available:** content preservation against the human scores on *Metrics vs humans* and "
                "*Failure cases*. Pick *Mir et al. Yelp outputs* or the demo for this page, or upload pairs whose "
                "source-style column holds at least two styles (or with references in the target style).")


def classifier_panel(trained, key: str, note: str = "") -> None:
    """The style classifier's summary, a warning when it is unreliable, and its confusion matrix."""
    from stviz.plots.style import confusion_figure

    st.caption(f"Style classifier: {trained.summary()}.{' ' + note if note else ''}")
    if warning := trained.reliability_warning():
        st.warning(warning)
    with st.expander("Classifier accuracy and confusion matrix"):
        st.plotly_chart(confusion_figure(trained.confusion), key=key)


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
    """A user-facing error box (no traceback) for bad input or an unloadable model; names in it shown literally."""
    st.error(literal(exc), icon="⚠️")


def download_table(frame: pd.DataFrame, name: str, key: str | None = None, latex: bool = True) -> None:
    """CSV (and LaTeX) download buttons for a table; CSV cells that a spreadsheet would run as formulas are neutralised."""
    row = st.container(horizontal=True, gap="small")  # buttons side by side, left-aligned, at any page width
    row.download_button("⬇ CSV", lambda: table_csv(frame), file_name=f"{name}.csv", mime="text/csv",
                        key=f"{key or name}-csv", on_click="ignore",
                        help="Texts starting with = + - @ get a leading ' so spreadsheets do not run them "
                             "(STVIZ_NEUTRALISE_FORMULAS=0 turns this off)")
    if latex:
        row.download_button("⬇ LaTeX", lambda: frame.to_latex(float_format="%.3f", escape=True).encode(),
                            file_name=f"{name}.tex", mime="text/x-tex", key=f"{key or name}-tex",
                            on_click="ignore")


def download_figure(fig, name: str, key: str | None = None, width: int = 1200) -> None:
    """HTML, PNG and SVG download buttons for a plotly figure (images rendered on click, ``width`` px wide)."""
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


def escape(text: object) -> str:
    """HTML-escape any user text before it goes into ``unsafe_allow_html`` markup."""
    return html.escape(str(text), quote=True)


# What Streamlit's Markdown gives a meaning anywhere in a line: emphasis, code, links and images,
# HTML, '$' (KaTeX), '~' (strikethrough), '|' (tables), '&' (entities), and ':' before a letter
# (emoji shortcodes such as :smile:, directives such as :red[...]); at the start, block markers.
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>$~|&!]|:(?=[A-Za-z]))")
_MARKDOWN_BLOCK_START = re.compile(r"^(\s*\d*)([#>+\-=.)])")  # "# x", "- x", "1. x" ("1\\. x": the dot is escaped)


def literal(text: object) -> str:
    """User text (a file, system, style or column name) shown as written inside Streamlit Markdown.

    Characters Markdown, KaTeX or Streamlit's directives would interpret are backslash-escaped and
    line breaks become spaces, so ``**x**``, ``$x^2$``, ``[a](http://b)`` or ``:red[x]`` in a name
    appear literally in ``st.markdown``, ``st.caption``, ``st.info``, ``st.error`` and widget labels.
    """
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", " ".join(str(text).split()))
    return _MARKDOWN_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)


__all__ = ["page_setup", "require_dataset", "embedder_select", "oov_notes", "lexicon_sources", "lexicon_select",
           "require_pairs", "require_style_labels", "one_style_notice", "classifier_panel",
           "progress_bar", "embed_with_progress",
           "show_error", "download_table", "download_figure", "escape", "literal", "clearing_allowed",
           "DATASET_KEY", "UPLOAD_KEY",
           "EMBEDDERS_KEY", "DATASET_NAMES"]
