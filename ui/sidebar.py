"""The page frame: set-up, the app's own menu and the sidebar (dataset, device, cache and 'Clear cache')."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import streamlit as st

from stviz.cache import default_cache, format_bytes
from stviz import warmup
from stviz.pool import default_scheduler
from stviz.serving import raters_only
from stviz.embedders import select_device
from ui import store_notes
from ui.ready import readiness_line, start_warming
from ui.text import as_sentence, literal
from ui.uploads import choose_dataset, require_dataset


PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"  # ui/ sits beside pages/
#: The sidebar's cache counts are at most this old (counting a large cache's vectors is a table scan per page run).
SUMMARY_SECONDS = 30.0

# Streamlit caps a multiselect's chips at about four rows and scrolls the rest out of sight (wrap=True too), so
# with many metrics chosen the last ones are hidden: let the box grow to show every choice. No widget option does it.
_CSS = """<style>
[data-testid="stMultiSelect"] div:has(> [data-testid="stMultiSelectTagsContainer"]) { max-height: none; }
</style>"""


def page_setup(title: str) -> None:
    """Page config, title and the shared sidebar (dataset, device, cache)."""
    st.set_page_config(page_title=f"{title} · stviz", page_icon="🔎", layout="wide")
    if raters_only():  # the raters' server: rating links and nothing else, whatever the URL asks for
        st.info("This server takes answers to rating studies only: open the rating link you were sent.", icon="ℹ️")
        st.stop()
    store_notes.install()  # before any view computes: a damaged per-pair store set aside is said on the page
    _warm_up()
    st.html(_CSS)  # style only: takes no room on the page
    st.title(title)
    require_dataset(say_language=True)  # first: a link to a dataset that cannot be opened falls back before the
    # sidebar lists it; its language is said once, under the title
    _sidebar()


def _warm_up() -> None:
    # Once per server: the default models load while the researcher reads this page, where the views compute: in
    # the pool's worker processes (each warms itself as it starts), else in the server process. Then the built-in
    # views' results are computed in the pool before anyone asks (ui.ready).
    scheduler = default_scheduler()
    if scheduler.processes:
        scheduler.start()
    else:
        warmup.start_in_background()
    start_warming()


def app_pages(home: Callable[[], None] = lambda: None) -> list:
    """Home, then every view in pages/ (titled from its file name: 1_Style_similarity.py -> Style similarity).

    app.py routes to these pages with its ``home``; the menu needs only their URL paths (a page's id is its
    URL path), so it builds them without one.
    """
    return [st.Page(home, title="Home", url_path="home", default=True),
            *(st.Page(str(path)) for path in view_files())]


def view_files() -> list[Path]:
    """The views' files in their number's order (10_Blind_spots.py after 9_Rating_study.py, not before 1_...)."""
    return sorted(PAGES_DIR.glob("[0-9]*_*.py"), key=lambda path: (int(path.name.split("_", 1)[0]), path.name))


def view_link(file_name: str, label: str) -> None:
    """A link to another view of the app (a file of pages/), e.g. from a page that cannot answer without ratings."""
    st.page_link(st.Page(str(PAGES_DIR / file_name)), label=label)


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
        st.markdown(f"**Device:** `{device_summary()}`")
        _models_panel()
        readiness_line()
        _cache_panel()


def _models_panel() -> None:
    """Every model's known-answer check: failures of this process said at once, the doctor's table on request."""
    from stviz.models.known_answers import checks_done

    for failed in (r for r in checks_done() if not r.passed):
        st.warning(literal(failed.line()), icon="⚠️")
    with st.popover("Models…"):
        st.markdown("Every model behind a measure is checked on a known answer before its first use (cached per "
                    "model file, backend and device); a model that fails is refused with the reason. "
                    "The same as `stviz doctor`.")
        if st.button("Check every model", key="models-check"):
            from stviz.models.doctor import run_doctor

            with st.spinner("Checking every model (seconds once cached)…"):
                st.session_state["model-checks"] = run_doctor()
        report = st.session_state.get("model-checks")
        if report is not None:
            (st.success if report.passed else st.error)(literal(report.summary()))
            st.dataframe(_model_table(report), hide_index=True, key="models-table")


def _model_table(report):
    """The doctor's rows as a table: what, result, where it ran, from where, content hash, what was checked, time."""
    import pandas as pd

    return pd.DataFrame([{"measure": r.measure, "model": r.model, "result": r.result,
                          "backend": r.backend, "device": r.device, "precision": r.precision, "seconds": r.seconds,
                          "loaded from": r.source, "loaded as": r.loaded_as, "content hash": r.content,
                          "checked": r.checked} for r in report.rows])


def device_summary() -> str:
    """The device the models run on ('cpu', or the GPU's name and the precision encoders use there)."""
    from stviz.embedders import SentenceTransformerEmbedder
    from stviz.embedders.precision import describe_device

    return describe_device(select_device(), SentenceTransformerEmbedder("minilm").id)


def clearing_allowed() -> bool:
    """Whether visitors may clear the cache (:func:`stviz.serving.clearing_allowed`): not on a team's server
    (``stviz dashboard --team``, or listening beyond this machine) unless ``STVIZ_ALLOW_CLEAR_CACHE=1``."""
    from stviz.serving import clearing_allowed as allowed

    return allowed(st.get_option("server.address") or None)


def _cache_panel() -> None:
    """Cache size, what happened to it (damage repaired, a store set aside, storing off), and a confirmed 'Clear
    cache'."""
    cache = default_cache()
    try:
        summary = cache.summary(max_age=SUMMARY_SECONDS)
    except Exception as exc:  # noqa: BLE001 - the sidebar must never take a page down
        st.caption(f"Cache: unavailable ({literal(type(exc).__name__)}: {literal(str(exc)[:120])})")
        return
    for notice in cache.take_notices():
        st.warning(literal(notice), icon="ℹ️")
    for note in store_notes.take(cache.root):  # a per-pair store set aside since the last page (a background run)
        st.warning(literal(as_sentence(note)), icon="ℹ️")
    st.markdown(f"**Cache:** {summary['bytes'] / 1e6:,.1f} MB · {summary['vectors']:,} vectors · "
                f"{summary['results']:,} results" + ("" if cache.writable else " · not storing"))
    if not clearing_allowed():
        return
    if message := st.session_state.pop("cache-cleared", None):  # said after the rerun that follows clearing
        st.success(literal(message), icon="ℹ️")
    # Everyone using this dashboard shares the cache: ask before wiping hours of computation.
    with st.popover("Clear cache…"):
        areas = cache.areas(max_age=SUMMARY_SECONDS)  # the areas and sizes of `python -m stviz cache info`
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


__all__ = ["PAGES_DIR", "app_pages", "clearing_allowed", "page_setup", "view_link"]
