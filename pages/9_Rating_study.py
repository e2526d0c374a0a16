"""Rating study: ask people, in the browser. A blind study of system outputs from the current dataset (absolute
ratings per aspect or pairwise preferences), shared by link, every answer saved as it is given; its ratings become
human columns of a dataset every view reads. A rater's link (``?rate=TOKEN``) opens the rating screen alone; the
owner's (``?own=TOKEN``) opens the study's progress and agreement. All computing is in stviz.studies."""

from __future__ import annotations

import streamlit as st

import ui
from stviz.data.schema import DataError
from stviz.studies import Protocol
from stviz.studies.links import base_of
from stviz.studies.protocol import ASPECTS, KINDS, SCALES
from stviz.studies.sampling import sample_items, study_systems
from ui import study as study_ui

TITLE = "Rating study"
INTRO = ("**Ask people.** Sample outputs of the current dataset's systems, evenly over its transfer directions, and "
         "send each rater a link: they see one output at a time, blind (no system names, their own order), and "
         "answer with a click or a key. Every answer is saved as it is given. The ratings then stand beside every "
         "automatic measure: **Use these ratings as the dataset**, then Meta-evaluation or Metrics vs humans.")
KIND_LABELS = {"absolute": "absolute: rate each output per aspect", "pairwise": "pairwise: which of two outputs is better"}
SCALE_LABELS = {"1-5": "1-5 (Li et al. 2018, Mir et al. 2019)", "0-0.5-1": "0 / 0.5 / 1 (the detoxification studies)"}


def create_form(dataset, base_url: str) -> None:
    """The new study's choices; on submit, the study is stored and the page becomes its owner's view."""
    try:
        systems = study_systems(dataset)
    except DataError as exc:
        ui.not_applicable(f"{exc}. Pick a dataset of system outputs in the sidebar or on Home.")
        return
    with st.form("study-create"):
        st.markdown(f"**New study on {ui.literal(dataset.title)}**")
        title = st.text_input("Title (raters see it)", value="Rating rewritten sentences", key="study-title")
        chosen = st.multiselect("Systems", systems, default=systems[:3], key="study-systems")
        left, middle, right = st.columns(3)
        inputs = left.number_input("Inputs", min_value=1, value=20, key="study-inputs",
                                   help="Drawn evenly over the transfer directions; each with every system's output")
        raters = middle.number_input("Rater links", min_value=1, max_value=200, value=3, key="study-raters")
        repeats = right.number_input("Repeated items per rater", min_value=0, value=2, key="study-repeats",
                                     help="Shown a second time late in the rater's list, to measure consistency")
        kind = st.radio("Protocol", KINDS, format_func=KIND_LABELS.get, horizontal=True, key="study-kind")
        aspects = st.multiselect("Aspects", ASPECTS, default=list(ASPECTS), key="study-aspects")
        scale = st.radio("Scale (absolute ratings)", list(SCALES), format_func=SCALE_LABELS.get, horizontal=True,
                         key="study-scale")
        seed = st.number_input("Seed of the sample", min_value=0, value=0, key="study-seed")
        submitted = st.form_submit_button("Create the study", type="primary")
    if submitted:
        try:
            protocol = Protocol(kind=kind, aspects=tuple(aspects), scale=scale, repeats=int(repeats))
            items = sample_items(dataset, chosen, int(inputs), seed=int(seed), kind=kind)
            store = study_ui.store()
            study = store.create_study(title, dataset.name, protocol, items)
            for _ in range(int(raters)):
                store.add_rater(study)
        except DataError as exc:
            ui.show_error(exc)
            return
        st.query_params["own"] = study.owner_token  # a reload or a bookmark keeps the owner's view
        st.rerun()


def main() -> None:
    """The rater's screen for a rater link, else the owner's view of a study, else a new study's form; a database
    stviz cannot use (damaged, unreachable) is its one message, never a traceback."""
    params = st.query_params
    if "rate" in params:
        st.set_page_config(page_title="Rating · stviz", page_icon="🔎", layout="centered")
    try:
        if "rate" in params:
            study_ui.rater_screen(params["rate"])
        else:
            owner_or_form(params)
    except DataError as exc:
        ui.show_error(exc)


def owner_or_form(params) -> None:
    """The owner's view of the study an owner link names, else a new study's form."""
    store = study_ui.store()  # first: a database stviz cannot use is said before anyone fills the form
    study = store.study_for_owner(params["own"]) if "own" in params else None
    if (study is not None and study.dataset in ui.DATASET_NAMES and ui.DATASET_KEY not in st.session_state
            and "dataset" not in params):
        ui.set_dataset(study.dataset)  # an owner link opened afresh: the sidebar and language line say the study's data
    ui.page_setup(TITLE)
    st.caption(INTRO)
    base_url = base_of(st.context.url or "")
    if study is not None:
        study_ui.owner_view(study, base_url)
        return
    if "own" in params:
        st.error("This owner link is not valid on this server (check that it was copied whole).", icon="⚠️")
    create_form(ui.require_dataset(), base_url)


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
