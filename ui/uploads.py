"""The session's dataset: chosen in the sidebar or on Home, uploaded, reopened from the server's store."""

from __future__ import annotations

import streamlit as st

from stviz.cache import fingerprint
from stviz.data import available_datasets, load_dataset
from stviz.data.intake.kept_uploads import is_upload, load_upload
from stviz.data.released.kept_outputs import is_outputs, load_outputs, open_outputs
from stviz.data.schema import DataError, Dataset
from stviz.studies.links import is_study
from ui.text import literal


DATASET_KEY = "dataset_name"  # name of the chosen dataset ("upload:KEY" for an uploaded one)
UPLOAD_KEY = "uploaded_dataset"  # the uploaded Dataset object itself
UPLOAD_NAME_KEY = "uploaded_dataset_name"  # the "upload:KEY" name of that object
LANGUAGE_KEY = "language"  # the texts' language the user set on Home (None: detected); ?lang= in a link
OUTPUTS_PENDING_KEY = "outputs-pending"  # uploaded outputs ("outputs:KEY...") shown on the Leaderboard, not yet in use
DEFAULT_DATASET = "demo"


def dataset_choices() -> dict[str, str]:
    """Datasets the session can switch to (name -> title): those installed here and its upload."""
    titles = {i.name: i.title for i in available_datasets() if i.available}
    upload = st.session_state.get(UPLOAD_KEY)
    name = current_dataset_name()
    upload_name = st.session_state.get(UPLOAD_NAME_KEY) or (name if is_upload(name) else None)
    if upload is not None and upload_name:
        titles[upload_name] = f"Uploaded: {upload.name} ({size_text(upload)})"
    if is_outputs(name):
        titles[name] = _outputs_title(name)
    if name not in titles:
        titles[name] = ("Uploaded file (from the link)" if is_upload(name)
                        else f"Rating study {name.split(':', 1)[1]} (its ratings)" if is_study(name) else name)
    return titles


def size_text(ds: Dataset) -> str:
    """'72 pairs', or for rated sentences (texts, no pairs) '48 sentences'."""
    return f"{len(ds.pairs):,} pairs" if ds.pairs is not None else f"{len(ds.texts):,} sentences"


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
    st.session_state.pop(OUTPUTS_PENDING_KEY, None)  # a dataset chosen replaces outputs still being looked at


def current_dataset_name() -> str:
    """The session's dataset name: chosen in this session, else the link's (``?dataset=``), else the demo."""
    if DATASET_KEY not in st.session_state:
        st.session_state[DATASET_KEY] = st.query_params.get("dataset", DEFAULT_DATASET)
    return st.session_state[DATASET_KEY]


@st.cache_resource(show_spinner="Loading dataset…")
def _load_named(name: str) -> Dataset:
    # One object per process; views must not modify it.
    return load_dataset(name)


@st.cache_resource(show_spinner="Reading the uploaded outputs…")
def opened_outputs(name: str):
    """Uploaded outputs reopened and surveyed (:func:`stviz.data.released.kept_outputs.open_outputs`), once per
    process."""
    return open_outputs(name)  # named by content and choices: the same name always reads the same files


@st.cache_resource(show_spinner="Reading the uploaded outputs…")
def _load_outputs(name: str) -> Dataset:
    return load_outputs(name, opened_outputs(name))


def _outputs_title(name: str) -> str:
    try:
        ds = _load_outputs(name)
    except DataError:
        return "Uploaded system outputs"
    return f"{ds.title} ({ds.pairs['system'].nunique()} systems)"


def require_dataset(say_language: bool = False) -> Dataset:
    """The session's dataset in the language the user set (else detected); ``say_language``: its language in a
    caption (once per page, under its title: ``page_setup`` asks; the page's later calls do not repeat it)."""
    from stviz.languages import dataset_language, with_language

    ds = _require_dataset()
    code = st.session_state.get(LANGUAGE_KEY) or st.query_params.get("lang")
    try:
        ds = with_language(ds, code) if code else ds
    except DataError as exc:
        st.warning(literal(str(exc)), icon="⚠️")
    if say_language:
        st.caption(literal(dataset_language(ds).sentence()))
    return ds


def _require_dataset() -> Dataset:
    """The session's dataset (the embedded demo until the user picks another). An upload is reopened from the
    server's store after a reload or from a link; when that cannot be, say so and show the demo."""
    name = current_dataset_name()
    try:
        if is_outputs(name):
            return _load_outputs(name)  # a reload or a link reopens them from the server's store, like a file
        if is_upload(name):
            held = st.session_state.get(UPLOAD_KEY)
            if held is None or st.session_state.get(UPLOAD_NAME_KEY, name) != name:
                keep_upload(name, load_upload(name))  # a reload or a link: reopen it from the server's store
            return st.session_state[UPLOAD_KEY]
        if is_study(name):
            return load_dataset(name)  # read afresh on every run: raters may be answering right now
        return _load_named(name)
    except DataError as exc:
        st.warning(f"{literal(exc)}. Showing the demo instead.", icon="⚠️")
        set_dataset(DEFAULT_DATASET)
        return _load_named(DEFAULT_DATASET)


def keep_upload(name: str, dataset: Dataset) -> None:
    """Make a confirmed upload the session's dataset (``name``: from
    :func:`stviz.data.intake.kept_uploads.save_upload`)."""
    st.session_state[UPLOAD_KEY], st.session_state[UPLOAD_NAME_KEY] = dataset, name
    set_dataset(name)


def dataset_key(ds: Dataset) -> str:
    """A key for per-dataset caches in the page: the dataset's name and the content of its pairs.

    By content, so that a re-uploaded file with the same name is not confused with the old one.
    """
    # The language is part of it: a mixed file compared in Russian is not the same data as in English.
    return f"{ds.name}:{ds.language or ''}:{fingerprint(ds.pairs) if ds.pairs is not None else ''}"


__all__ = ["DATASET_KEY", "DEFAULT_DATASET", "OUTPUTS_PENDING_KEY", "UPLOAD_KEY", "UPLOAD_NAME_KEY", "choose_dataset",
           "current_dataset_name", "dataset_choices", "dataset_key", "keep_upload", "opened_outputs", "require_dataset",
           "set_dataset"]
