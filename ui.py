"""Streamlit helpers shared by app.py and every page: the session's dataset, the sidebar,
embedder choice, progress bars, downloads and error display.

This is the only UI module besides the pages; the computations live in ``stviz``.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from stviz.analyses.base import NotApplicable
from stviz.cache import default_cache, fingerprint, format_bytes
from stviz.data import DATASET_NAMES, available_datasets, load_dataset
from stviz.data.schema import DataError, Dataset
from stviz.data.kept_uploads import is_upload, load_upload
from stviz.embedders import PRESETS, SPEC_HELP, EmbedderError, parse_embedder, select_device
from stviz.analyses import choices
from stviz.lexicon import DEFAULT_LEXICON_SIZE, LexiconSpec, describe_lexicon, resolve_lexicon
from stviz.progress import Progress, Reporter, Timer, describe
from stviz.export import figure_html, table_csv

DATASET_KEY = "dataset_name"  # name of the chosen dataset ("upload:KEY" for an uploaded one)
UPLOAD_KEY = "uploaded_dataset"  # the uploaded Dataset object itself
UPLOAD_NAME_KEY = "uploaded_dataset_name"  # the "upload:KEY" name of that object
EMBEDDERS_KEY = "embedders"  # specs chosen on the home page, the default elsewhere
PAGES_DIR = Path(__file__).resolve().parent / "pages"
DEFAULT_DATASET = "demo"
DEFAULT_EMBEDDERS = ["minilm", "glove-sum"]


# Streamlit caps a multiselect's chips at about four rows and scrolls the rest out of sight (wrap=True too), so
# with many metrics chosen the last ones are hidden: let the box grow to show every choice. No widget option does it.
_CSS = """<style>
[data-testid="stMultiSelect"] div:has(> [data-testid="stMultiSelectTagsContainer"]) { max-height: none; }
</style>"""


def page_setup(title: str) -> None:
    """Page config, title and the shared sidebar (dataset, device, cache)."""
    st.set_page_config(page_title=f"{title} · stviz", page_icon="🔎", layout="wide")
    st.html(_CSS)  # style only: takes no room on the page
    st.title(title)
    require_dataset()  # first: a link to a dataset that cannot be opened falls back before the sidebar lists it
    _sidebar()


def app_pages(home: Callable[[], None] = lambda: None) -> list:
    """Home, then every view in pages/ (titled from its file name: 1_Style_similarity.py -> Style similarity).

    app.py routes to these pages with its ``home``; the menu needs only their URL paths (a page's id is its
    URL path), so it builds them without one.
    """
    return [st.Page(home, title="Home", url_path="home", default=True),
            *(st.Page(str(path)) for path in sorted(PAGES_DIR.glob("[0-9]*_*.py")))]


def _menu() -> None:
    """The app's own menu, Home first, the current page highlighted.

    Streamlit's menu is off (client.showSidebarNavigation): with a pages/ folder, a new server's first
    session opened on a deep link runs the page without app.py (Streamlit's pages/ mode) and showed that
    folder's listing ('app' first) instead of st.navigation's menu. This menu is the same in both modes.
    """
    with st.container(key="app-menu", gap=None):
        for page in app_pages():
            st.page_link(page, width="stretch")
    st.divider()


def _sidebar() -> None:
    with st.sidebar:
        _menu()
        choose_dataset()
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
    if message := st.session_state.pop("cache-cleared", None):  # said after the rerun that follows clearing
        st.success(literal(message), icon="🗄️")
    # Everyone using this dashboard shares the cache: ask before wiping hours of computation.
    with st.popover("Clear cache…"):
        areas = cache.areas()  # the same areas and sizes as `python -m stviz cache info`
        st.markdown("Delete these, for everyone using this dashboard? They are recomputed when next needed, "
                    "which can take minutes per view.\n\n" + "\n".join(
                        f"- **{a.name}** ({format_bytes(a.bytes)}): {a.description}"
                        for a in areas if a.clearable and not a.confirm))
        uploads = sum(a.bytes for a in areas if a.confirm)
        with_uploads = st.checkbox(f"Also delete uploaded files ({format_bytes(uploads)}): links to them stop "
                                   "working until they are uploaded again", key="clear-cache-uploads")
        if st.button("Yes, clear the cache", type="primary", key="clear-cache-confirm"):
            report = cache.clear([a.name for a in areas if a.clearable and (with_uploads or not a.confirm)])
            st.cache_data.clear()
            st.session_state.pop("confirmed-runs", None)  # runs that were quick may be long again
            st.session_state["cache-cleared"] = report.message()
            st.rerun()


def dataset_choices() -> dict[str, str]:
    """Datasets the session can switch to (name -> title): those installed here and its upload."""
    titles = {i.name: i.title for i in available_datasets() if i.available}
    upload = st.session_state.get(UPLOAD_KEY)
    name = current_dataset_name()
    upload_name = st.session_state.get(UPLOAD_NAME_KEY) or (name if is_upload(name) else None)
    if upload is not None and upload_name:
        titles[upload_name] = f"Uploaded: {upload.name} ({len(upload.pairs):,} pairs)"
    if name not in titles:
        titles[name] = "Uploaded file (from the link)" if is_upload(name) else name
    return titles


def choose_dataset() -> None:
    """The dataset switcher shown in the sidebar of every page."""
    titles = dataset_choices()
    st.session_state["sidebar-dataset"] = current_dataset_name()  # follows a choice made elsewhere (Home)
    st.selectbox("Dataset", list(titles), format_func=titles.get, key="sidebar-dataset",
                 on_change=lambda: set_dataset(st.session_state["sidebar-dataset"]),
                 help="Every view works on this dataset. More corpora and your own files: Home page.")


def set_dataset(name: str) -> None:
    """Make ``name`` the session's dataset (also as a callback: it then runs before the script does)."""
    st.session_state[DATASET_KEY] = name


def current_dataset_name() -> str:
    """The session's dataset name: chosen in this session, else the link's (``?dataset=``), else the demo."""
    if DATASET_KEY not in st.session_state:
        st.session_state[DATASET_KEY] = st.query_params.get("dataset", DEFAULT_DATASET)
    return st.session_state[DATASET_KEY]


@st.cache_resource(show_spinner="Loading dataset…")
def _load_named(name: str) -> Dataset:
    # One object per process; views must not modify it.
    return load_dataset(name)


def require_dataset() -> Dataset:
    """The session's dataset (the embedded demo until the user picks another). An upload is reopened from the
    server's store after a reload or from a link; when that cannot be, say so and show the demo."""
    name = current_dataset_name()
    try:
        if is_upload(name):
            held = st.session_state.get(UPLOAD_KEY)
            if held is None or st.session_state.get(UPLOAD_NAME_KEY, name) != name:
                keep_upload(name, load_upload(name))  # a reload or a link: reopen it from the server's store
            return st.session_state[UPLOAD_KEY]
        return _load_named(name)
    except DataError as exc:
        st.warning(f"{literal(exc)}. Showing the demo instead.", icon="⚠️")
        set_dataset(DEFAULT_DATASET)
        return _load_named(DEFAULT_DATASET)


def keep_upload(name: str, dataset: Dataset) -> None:
    """Make a confirmed upload the session's dataset (``name`` from :func:`stviz.data.kept_uploads.save_upload`)."""
    st.session_state[UPLOAD_KEY], st.session_state[UPLOAD_NAME_KEY] = dataset, name
    set_dataset(name)


# -- the view in the URL ----------------------------------------------------------------------------------
def url_options(analysis: ModuleType):
    """The page's starting options: from the link (a reload or a shared URL), else as last left in this
    session, else the defaults. Values the link got wrong are ignored, and said so."""
    from stviz.analyses.base import from_query

    written = st.session_state.get(f"url-written:{analysis.__name__}")
    params = st.query_params.to_dict()
    # A URL this page did not write itself (a reload, a shared link, a link from another page) says
    # where the page starts; after that, the widgets do.
    if params != written and any(k != "dataset" for k in params):
        st.session_state[f"url-written:{analysis.__name__}"] = params
        options, notes = from_query(analysis.Options, {k: v for k, v in params.items() if k != "dataset"})
        for note in notes:
            st.caption(f"ℹ️ {literal(note[0].upper() + note[1:])}.")
        return options
    return st.session_state.get(f"options:{analysis.__name__}") or analysis.Options()


def remember_dataset() -> None:
    """Put the dataset (alone) into the URL: what the Home page has to share."""
    params = {"dataset": current_dataset_name()}
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


def remember(analysis: ModuleType, options) -> None:
    """Put the dataset and the options that differ from their defaults into the URL, so that a reload or a
    copied link reopens this view, and keep them for when the user comes back to this page."""
    from stviz.analyses.base import to_query

    st.session_state[f"options:{analysis.__name__}"] = options
    params = {"dataset": current_dataset_name(), **to_query(options)}
    st.session_state[f"url-written:{analysis.__name__}"] = params
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


def dataset_key(ds: Dataset) -> str:
    """A key for per-dataset caches in the page: the dataset's name and the content of its pairs.

    By content, so that a re-uploaded file with the same name is not confused with the old one.
    """
    return f"{ds.name}:{fingerprint(ds.pairs) if ds.pairs is not None else ''}"


def embedder_select(label: str, key: str, multi: bool = False, default: list[str] | None = None,
                    max_selections: int | None = None) -> list[str]:
    """Pick one or several embedders (presets, or a custom spec); returns their specs."""
    default = default or st.session_state.get(EMBEDDERS_KEY, DEFAULT_EMBEDDERS)
    options = list(PRESETS) + [s for s in default if s not in PRESETS]
    fmt = lambda spec: PRESETS.get(spec, spec)  # noqa: E731
    if multi:
        chosen = st.multiselect(label, options, default=[s for s in default if s in options],
                                format_func=fmt, key=key, max_selections=max_selections, wrap=True)
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


def lexicon_select(ds: Dataset, key: str, default: str | None = None, optional: bool = False) -> str | None:
    """Choose the style lexicon for removal / masking (Mir et al.); returns its spec (see :mod:`stviz.lexicon`).

    ``optional`` puts "no lexicon" first, for views where masking is an extra: a lexicon learned from
    another corpus (Yelp sentiment for formality pairs) should be a deliberate choice, not a default.
    """
    sources = choices.lexicons(ds)
    if optional and "dataset" not in sources:
        sources = {"none": "none (choose one to see the masked texts)", **sources}
    if not sources:
        st.info("No style lexicon: this dataset ships none and has no two styles to learn one from, and no "
                "labelled corpus (Yelp sentiment, CDS) is installed.")
        return "none"
    options = list(sources)
    parsed = LexiconSpec.parse(default) if default is not None else None
    chosen = parsed.source if parsed else None
    cols = st.columns([3, 1])
    choice = cols[0].selectbox("Style lexicon", options, index=options.index(chosen) if chosen in options else 0,
                               format_func=sources.get, key=key,
                               help="Style words are removed or masked before scoring (Mir et al.). A learned "
                                    "lexicon holds the words with the largest TF-IDF logistic-regression weights.")
    if choice in ("none", "dataset"):
        return choice
    size = cols[1].number_input("Words", 10, 5000, parsed.words if parsed else DEFAULT_LEXICON_SIZE, step=50,
                                key=f"{key}-size", help="Fewer words favour precision over recall, as Mir et al. "
                                                        "recommend.")
    spec = LexiconSpec.parse(choice).with_size(int(size)).text
    try:
        lexicon = _learned_lexicon(spec, ds.name, ds)
    except DataError as exc:
        show_error(exc)
        return "none"
    examples = ", ".join(literal(w) for w in list(lexicon)[:12])
    st.caption(f"{literal(describe_lexicon(spec, lexicon, ds))}, strongest first: {examples}, …")
    return spec


@st.cache_data(show_spinner="Learning the style lexicon…", max_entries=16, hash_funcs={Dataset: lambda d: d.name})
def _learned_lexicon(spec: str, dataset_name: str, _dataset: Dataset) -> dict[str, float]:
    # Keyed by the spec and the dataset; the disk cache keeps the lexicon across restarts.
    return resolve_lexicon(spec, _dataset)


def classifier_panel(trained, key: str, note: str = "") -> None:
    """The style classifier's summary, a warning when it is unreliable, and its confusion matrix."""
    from stviz.plots.style import confusion_figure

    # The summary names the training data: an uploaded file's name, shown as written.
    st.caption(f"Style classifier: {literal(trained.summary())}.{' ' + note if note else ''}")
    if warning := trained.reliability_warning():
        st.warning(warning)
    with st.expander("Classifier accuracy and confusion matrix"):
        st.plotly_chart(confusion_figure(trained.confusion), key=key)


class StreamlitReporter(Reporter):
    """An analysis's stages as one progress bar: stage name, real work counted, elapsed time and estimate."""

    def __init__(self, on_partial: Callable[[str, Any], None] | None = None):
        self.box = st.empty()
        self.on_partial = on_partial

    def stage(self, label: str) -> Progress:
        """Show ``label`` in the bar; the returned ``fn(done, total)`` moves it (at most ~10 times a second)."""
        bar = self.box.progress(0.0, text=literal(label))
        timer, last = Timer(), [0.0]

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - last[0] < 0.1:
                return
            last[0] = now
            bar.progress(min(done / total, 1.0) if total else 1.0, text=literal(describe(label, done, total, timer)))

        return report

    def partial(self, name: str, value: Any) -> None:
        """Hand a finished part to the page (e.g. to draw the first embedder's heatmap while the rest run)."""
        if self.on_partial is not None:
            self.on_partial(name, value)

    def finish(self) -> None:
        """Remove the bar."""
        self.box.empty()


def open_view(analysis: ModuleType, intro: str, *, small_intro: bool = False) -> tuple[Dataset, object]:
    """Every view's opening: page setup, its introduction, the dataset (stopping with a note when the view
    does not apply to it) and the options to start from (link, else this session, else defaults)."""
    page_setup(analysis.TITLE)
    (st.caption if small_intro else st.markdown)(intro)
    dataset = require_dataset()
    require_applicable(analysis, dataset)
    return dataset, url_options(analysis)


def require_applicable(analysis: ModuleType, dataset: Dataset) -> None:
    """Stop the page with a friendly note when the analysis does not apply to the dataset."""
    reason = analysis.applies_to(dataset)
    if reason:
        not_applicable(reason)
        st.stop()


def not_applicable(reason: str) -> None:
    """Why a view does not apply here, and what would (an info box, never an error)."""
    st.info(f"**Not applicable here.** {literal(reason)}", icon="ℹ️")


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
    key = f"{analysis.__name__}:{current_dataset_name()}:{options!r}"
    if key in st.session_state.setdefault("confirmed-runs", set()):
        return True
    try:
        cost = analysis.estimate(dataset, options)
    except (DataError, EmbedderError, ValueError):
        return True  # the run reports the problem itself
    if cost.seconds <= confirm_seconds():
        st.session_state["confirmed-runs"].add(key)  # not estimated again on every rerun of these options
        return True
    box = st.empty()
    with box.container(border=True):
        st.markdown(f"**This view needs {describe_seconds(cost.seconds)} of computing on this machine the first "
                    "time:** " + "; ".join(literal(p) for p in cost.parts) + ". The results are then kept "
                    "in the disk cache, so later visits (and the command line) are quick.")
        clicked = st.button("Compute", type="primary", key=f"confirm-{analysis.__name__}")
    if clicked:
        # Gone once clicked: left above the progress bar, the offer reads as still pending and a second click
        # would start the run again.
        box.empty()
        st.session_state["confirmed-runs"].add(key)
    return clicked


def run_analysis(analysis: ModuleType, dataset: Dataset, options, on_partial=None, **kwargs):
    """Run an analysis with a progress bar (after a click when it is long); on bad input show one clear
    message and stop the page."""
    if not confirm_cost(analysis, dataset, options):
        st.stop()
    progress = StreamlitReporter(on_partial)
    try:
        return analysis.run(dataset, options, progress, **kwargs)
    except NotApplicable as exc:
        not_applicable(str(exc))
    except (DataError, EmbedderError, ValueError) as exc:
        show_error(exc)
    finally:
        progress.finish()
    st.stop()


def show_notes(notes: list[str]) -> None:
    """The analysis's notes for the user (sampling, fallbacks, what was left out), one caption each."""
    for note in notes:
        st.caption(f"ℹ️ {literal(note[0].upper() + note[1:])}.")


def show_error(exc: BaseException) -> None:
    """A user-facing error box (no traceback) for bad input or an unloadable model; names in it shown literally."""
    st.error(literal(exc), icon="⚠️")


def download_table(frame: pd.DataFrame, name: str, key: str | None = None,
                   latex: bool | Callable[[], bytes] = True) -> None:
    """CSV (and LaTeX) download buttons for a table; CSV cells that a spreadsheet would run as formulas are neutralised.

    ``latex`` may be a function giving the LaTeX file's bytes, for a table laid out other than ``frame.to_latex``.
    """
    row = st.container(horizontal=True, gap="small")  # buttons side by side, left-aligned, at any page width
    row.download_button("⬇ CSV", lambda: table_csv(frame), file_name=f"{name}.csv", mime="text/csv",
                        key=f"{key or name}-csv", on_click="ignore",
                        help="Texts starting with = + - @ get a leading ' so spreadsheets do not run them "
                             "(STVIZ_NEUTRALISE_FORMULAS=0 turns this off)")
    if latex:
        default = lambda: frame.to_latex(float_format="%.3f", escape=True).encode()  # noqa: E731
        row.download_button("⬇ LaTeX", latex if callable(latex) else default,
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


__all__ = ["DATASET_KEY", "DATASET_NAMES", "EMBEDDERS_KEY", "PAGES_DIR", "StreamlitReporter", "UPLOAD_KEY", "app_pages",
           "choose_dataset",
           "classifier_panel", "clearing_allowed", "current_dataset_name", "dataset_key", "download_figure",
           "download_table", "embedder_select", "keep_upload", "lexicon_select", "literal", "not_applicable",
           "open_view", "page_setup", "remember", "remember_dataset", "require_applicable", "require_dataset", "run_analysis",
           "set_dataset", "show_error", "show_notes", "url_options"]
