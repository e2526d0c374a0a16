"""The view in the URL: a page starts from its link and writes its options back, so every view can be shared."""

from __future__ import annotations

from types import ModuleType

import streamlit as st

from ui.preview import current as current_preview
from ui.text import note_caption
from ui.uploads import current_dataset_name


def url_options(analysis: ModuleType):
    """The page's starting options: from the link (a reload or a shared URL), else as last left in this
    session, else the defaults. Values the link got wrong are ignored, and said so."""
    from stviz.analyses.base import from_query

    written = st.session_state.get(f"url-written:{analysis.__name__}")
    params = st.query_params.to_dict()
    adopt_url_slices(params)
    # A URL this page did not write itself (a reload, a shared link, a link from another page) says
    # where the page starts; after that, the widgets do.
    if params != written and any(k != "dataset" for k in params):
        st.session_state[f"url-written:{analysis.__name__}"] = params
        options, notes = from_query(analysis.Options, {k: v for k, v in params.items() if k != "dataset"})
        for note in notes:
            note_caption(note)
        return options
    return st.session_state.get(f"options:{analysis.__name__}") or analysis.Options()


#: Where the session keeps each dataset's slices ({dataset name: [Slice]}), and the URL value it last wrote.
SLICES_KEY, SLICES_WRITTEN = "slices", "slices-written"


def current_slices() -> list:
    """The current dataset's saved slices (stviz.analyses.slices.Slice), in the order they were saved."""
    return list(st.session_state.get(SLICES_KEY, {}).get(current_dataset_name(), []))


def set_slices(slices) -> None:
    """Keep ``slices`` as the current dataset's (the next :func:`remember` puts them into the URL)."""
    st.session_state.setdefault(SLICES_KEY, {})[current_dataset_name()] = list(slices)


def slices_query() -> dict[str, str]:
    """``{"slices": JSON}`` for the URL when the dataset has slices (a short {name: spec} object), else {}."""
    from stviz.analyses.slices import encode_slices

    slices = current_slices()
    return {"slices": encode_slices(slices)} if slices else {}


def adopt_url_slices(params: dict) -> None:
    """Take the link's slices when the URL carries ones this session did not write (a reload, a shared link);
    a slice the link got wrong is left out, and said so."""
    from stviz.analyses.slices import decode_slices

    text = params.get("slices")
    if text is None or text == st.session_state.get(SLICES_WRITTEN) or text == slices_query().get("slices"):
        return
    slices, notes = decode_slices(text)
    set_slices(slices)
    st.session_state[SLICES_WRITTEN] = text
    for note in notes:
        note_caption(note)


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
    # Slices belong to the dataset, not to one view: every view's URL carries them.
    params = {"dataset": current_dataset_name(), **to_query(options), **slices_query()}
    if (info := current_preview()) is not None:  # a page remembering its options after drawing a preview
        params["preview"] = str(info.n)
    st.session_state[f"url-written:{analysis.__name__}"] = params
    st.session_state[SLICES_WRITTEN] = params.get("slices")
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


__all__ = ["adopt_url_slices", "current_slices", "remember", "remember_dataset", "set_slices", "slices_query", "url_options"]
