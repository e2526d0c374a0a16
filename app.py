"""stviz entry point: the navigation (Home first, then one page per view in pages/) and the Home page:
choose the data (a corpus or your own pair file) and the embedders, and see a summary of the dataset.
Every other view works on the choice made here."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

import ui
from stviz.data import available_datasets
from stviz.data.schema import DataError, short_name
from stviz.analyses.common import oov_notes
from stviz.data.upload import ROLES, ColumnMapping, apply_mapping, detect_mapping, read_pairs_file
from stviz.data.uploads import save_upload
from stviz.embed import PRESETS
from stviz.plots.overview import counts_bar, length_histogram, score_histograms

ROLE_LABELS = {
    "source": "Source text (required)", "output": "Output text (required)", "system": "System",
    "setting": "Setting / hyper-parameter", "source_style": "Source style", "target_style": "Target style",
    "reference": "Reference output",
}
NONE = "(none)"


def choose_corpus() -> None:
    """Pick one of the datasets installed here (or the uploaded file); list how to get the others."""
    infos = available_datasets()
    titles = ui.dataset_choices()
    st.session_state["dataset-radio"] = ui.current_dataset_name()
    # The choice is copied into a plain session key in a callback, before the script (and the
    # sidebar) runs again: widget state vanishes on pages that do not draw the widget.
    st.radio("Dataset", list(titles), format_func=titles.get, key="dataset-radio",
             on_change=lambda: ui.set_dataset(st.session_state["dataset-radio"]))
    missing = [i for i in infos if not i.available]
    if missing:
        with st.expander(f"{len(missing)} more corpora can be added"):
            for info in missing:
                st.markdown(f"**{info.title}**  \n`{info.how_to_get}`")
            st.caption("Corpora are downloaded from the authors' public repositories (or imported from a "
                       "local folder laid out like the shared corpora) into an ignored folder; they are never "
                       "part of this project.")


def upload_pairs() -> bool:
    """Upload a pair file, confirm the detected column mapping, and make it the session's dataset.

    Returns whether a file waits for its columns to be confirmed (the page then hides the summary of
    the current dataset, which would read as if it were the file's).
    """
    file = st.file_uploader("Pair file (CSV, TSV, JSONL or XLSX)", type=["csv", "tsv", "txt", "jsonl", "json", "xlsx"],
                            help="One row per (source, output) pair; optional system, setting, styles, reference, "
                                 "human scores and precomputed metrics.")
    if file is None:
        return False
    if st.session_state.get("confirmed-upload") == (file.name, file.size, file.file_id):
        st.caption("This file is the dataset in use. To map its columns differently, remove it and upload it again.")
        return False
    try:
        frame, notes = read_pairs_file(file.name, file.getvalue())
    except DataError as exc:
        ui.show_error(exc)
        return False
    for note in notes:
        st.info(note)
    st.dataframe(frame.head(20), width="stretch", height=220)
    mapping = mapping_form(frame, detect_mapping(frame), key=file.name)
    if mapping is None:
        return True
    try:
        ds = apply_mapping(frame, mapping, name=file.name, title=f"Uploaded: {file.name}")
    except DataError as exc:
        ui.show_error(exc)
        return True
    ui.keep_upload(save_upload(file.name, file.getvalue(), mapping), ds)
    st.session_state["confirmed-upload"] = (file.name, file.size, file.file_id)
    st.session_state["flash"] = f"Using {file.name}: {len(ds.pairs):,} pairs. Every view now works on it."
    st.rerun()  # so the sidebar and the dataset list show the upload


def mapping_form(frame, guess: ColumnMapping, key: str) -> ColumnMapping | None:
    """Let the user confirm which column plays which role; returns the mapping once confirmed."""
    columns = [str(c) for c in frame.columns]
    with st.form(f"mapping-{key}"):
        st.markdown("**Confirm the columns** (detected from their names and contents)")
        cols = st.columns(4)
        roles = {}
        for i, role in enumerate(ROLES):
            options = [NONE] + columns
            default = guess.roles.get(role, NONE)
            roles[role] = cols[i % 4].selectbox(ROLE_LABELS[role], options, index=options.index(default),
                                                key=f"{key}-{role}")
        human = st.multiselect("Human-score columns", columns, default=guess.human, key=f"{key}-human")
        metrics = st.multiselect("Precomputed metric columns", columns, default=guess.metrics, key=f"{key}-metrics")
        if not st.form_submit_button("Use this file", type="primary"):
            return None
    return ColumnMapping(roles={r: c for r, c in roles.items() if c != NONE}, human=human, metrics=metrics)


def choose_embedders(ds) -> None:
    """The embedders the views offer first; out-of-vocabulary rates for word-vector ones."""
    default = st.session_state.get(ui.EMBEDDERS_KEY, ui.DEFAULT_EMBEDDERS)
    chosen = st.multiselect("Embedders the views start with", list(PRESETS), default=[s for s in default if s in PRESETS],
                            format_func=PRESETS.get, key="home-embedders")
    st.session_state[ui.EMBEDDERS_KEY] = chosen or ui.DEFAULT_EMBEDDERS
    texts = ds.texts["text"].tolist() if ds.texts is not None else ds.pairs["source"].tolist() + ds.pairs["output"].tolist()
    for note in oov_notes(chosen, texts):
        st.caption(ui.escape_markdown(note) + ".")


def summary(ds) -> None:
    """Counts, groups, lengths and score distributions of the chosen dataset."""
    st.subheader(ds.title)
    if ds.illustrative:
        st.warning("Illustrative demo data written for stviz, not research data: use it to see what the views do.", icon="ℹ️")
    if ds.description:
        st.caption(ds.description)
    counts = ds.counts()
    cols = st.columns(len(counts))
    for col, (label, value) in zip(cols, counts.items()):
        col.metric(label.capitalize(), f"{value:,}")
    for note in ds.notes:
        st.caption(f"• {note}")
    bars = []
    if ds.texts is not None:
        bars.append(counts_bar(ds.texts["style"].value_counts(), "style"))
    if ds.has_systems:
        groups = ds.pairs["system"] + (" · " + ds.pairs["setting"] if "setting" in ds.pairs else "")
        bars.append(counts_bar(groups.value_counts(), "system"))
    elif ds.pairs is not None and "source_style" in ds.pairs:
        direction = ds.pairs["source_style"] + " → " + ds.pairs.get("target_style", "?")
        bars.append(counts_bar(direction.value_counts(), "direction"))
    for col, fig in zip(st.columns(2), bars):
        col.plotly_chart(fig, width="stretch")
    st.plotly_chart(length_histogram(ds), width="stretch")
    if ds.pairs is not None and ds.human_columns:
        st.plotly_chart(score_histograms(ds), width="stretch")
    if ds.texts is not None:
        example_sentences(ds)
    if ds.pairs is not None:
        with st.expander("First pairs"):
            st.dataframe(ds.pairs.head(50).rename(columns=short_name), width="stretch")


def example_sentences(ds) -> None:
    """A few random sentences of one style at a time: what the style looks like before any metric."""
    with st.expander("Example sentences per style"):
        styles = sorted(ds.texts["style"].astype(str).unique())
        cols = st.columns([3, 1])
        style = cols[0].selectbox("Style", styles, key="home-example-style")
        draw = st.session_state.setdefault("home-example-draw", 0)
        if cols[1].button("Show others", key="home-example-more"):
            draw = st.session_state["home-example-draw"] = draw + 1
        texts = ds.texts.loc[ds.texts["style"].astype(str) == style, "text"]
        shown = texts.sample(min(8, len(texts)), random_state=draw)
        st.dataframe(shown.rename("sentence").reset_index(drop=True), width="stretch", hide_index=True,
                     column_config={"sentence": st.column_config.TextColumn(width="large")})
        st.caption(f"{len(shown)} of the {len(texts):,} sentences of this style, drawn at random.")


def home() -> None:
    """The home page."""
    ui.page_setup("stviz · how is text style transfer evaluated?")
    st.markdown(
        "Explore whether automatic metrics for **text style transfer** mean anything on *your* data: "
        "is an embedder style-invariant, which content-preservation metric agrees with humans, where do "
        "metrics fail, and how do systems trade style against content and naturalness."
    )
    if "flash" in st.session_state:
        st.success(st.session_state.pop("flash"))
    corpus_tab, upload_tab = st.tabs(["Pick a dataset", "Upload pairs"])
    with corpus_tab:
        choose_corpus()
    with upload_tab:
        pending = upload_pairs()
    if pending:
        st.caption("The summary of the current dataset shows again once the file's columns are confirmed above.")
        return
    ds = ui.require_dataset()
    ui.remember_dataset()
    with st.expander("Embedders", expanded=False):
        choose_embedders(ds)
    summary(ds)


PAGES = Path(__file__).resolve().parent / "pages"


def navigation() -> None:
    """Home, then every view in pages/ (titled from its file name: 1_Style_similarity.py -> Style similarity)."""
    views = [st.Page(str(path)) for path in sorted(PAGES.glob("[0-9]*_*.py"))]
    st.navigation([st.Page(home, title="Home", icon="🏠", default=True), *views]).run()


navigation()
