"""stviz home page: choose the data (a corpus or your own pair file) and the embedders, and see
a summary of the dataset. Every other view (pages/) works on the choice made here."""

from __future__ import annotations

import streamlit as st

import ui
from stviz.data import available_datasets
from stviz.data.schema import DataError, short_name
from stviz.data.upload import ROLES, ColumnMapping, apply_mapping, detect_mapping, read_pairs_file
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
    titles = {i.name: i.title for i in infos if i.available}
    upload = st.session_state.get(ui.UPLOAD_KEY)
    if upload is not None:
        titles[f"upload:{upload.name}"] = f"Uploaded: {upload.name} ({len(upload.pairs):,} pairs)"
    options = list(titles)
    current = st.session_state.get(ui.DATASET_KEY, ui.DEFAULT_DATASET)
    if current not in options:  # e.g. an upload lost with an expired session
        current = st.session_state[ui.DATASET_KEY] = options[0]
    st.session_state["dataset-radio"] = current
    # The choice is copied into a plain session key in a callback, before the script (and the
    # sidebar) runs again: widget state vanishes on pages that do not draw the widget.
    st.radio("Dataset", options, format_func=titles.get, key="dataset-radio",
             on_change=lambda: st.session_state.update({ui.DATASET_KEY: st.session_state["dataset-radio"]}))
    missing = [i for i in infos if not i.available]
    if missing:
        with st.expander(f"{len(missing)} more corpora can be added"):
            for info in missing:
                st.markdown(f"**{info.title}**  \n`{info.how_to_get}`")
            st.caption("Corpora are downloaded from the authors' public repositories (or imported from a "
                       "local folder laid out like the shared corpora) into an ignored folder; they are never "
                       "part of this project.")


def upload_pairs() -> None:
    """Upload a pair file, confirm the detected column mapping, and make it the session's dataset."""
    file = st.file_uploader("Pair file (CSV, TSV, JSONL or XLSX)", type=["csv", "tsv", "txt", "jsonl", "json", "xlsx"],
                            help="One row per (source, output) pair; optional system, setting, styles, reference, "
                                 "human scores and precomputed metrics.")
    if file is None:
        return
    try:
        frame, notes = read_pairs_file(file.name, file.getvalue())
    except DataError as exc:
        ui.show_error(exc)
        return
    for note in notes:
        st.info(note)
    st.dataframe(frame.head(20), width="stretch", height=220)
    mapping = mapping_form(frame, detect_mapping(frame), key=file.name)
    if mapping is None:
        return
    try:
        ds = apply_mapping(frame, mapping, name=file.name, title=f"Uploaded: {file.name}")
    except DataError as exc:
        ui.show_error(exc)
        return
    st.session_state[ui.UPLOAD_KEY] = ds
    st.session_state[ui.DATASET_KEY] = f"upload:{file.name}"
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
    ui.oov_notes(chosen, texts)
    choose_backend()


def choose_backend() -> None:
    """How transformer models run (PyTorch or ONNX Runtime), and the one in use."""
    from stviz.embed import SentenceTransformerEmbedder, select_device
    from stviz.onnx_backend import BACKEND_LABELS, BACKENDS, BackendError, describe_backend, requested_backend, set_backend

    current = requested_backend()
    chosen = st.selectbox("How transformer models run (for this app process)", BACKENDS,
                          index=BACKENDS.index(current), format_func=BACKEND_LABELS.get, key="home-backend")
    if chosen != current:
        try:
            set_backend(chosen)
        except BackendError as exc:
            ui.show_error(exc)
    st.caption(describe_backend(SentenceTransformerEmbedder("minilm").id, select_device()))


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
    if ds.pairs is not None:
        with st.expander("First pairs"):
            st.dataframe(ds.pairs.head(50).rename(columns=short_name), width="stretch")


def main() -> None:
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
        upload_pairs()
    ds = ui.require_dataset()
    with st.expander("Embedders", expanded=False):
        choose_embedders(ds)
    summary(ds)


main()
