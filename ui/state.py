"""The view in the URL: a page starts from its link and writes its options back, so every view can be shared."""

from __future__ import annotations

from types import ModuleType

import streamlit as st

from ui.text import literal
from ui.uploads import current_dataset_name


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


__all__ = ["remember", "remember_dataset", "url_options"]
