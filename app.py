"""stviz entry point: the navigation (Home first, then one page per view in pages/) and the Home page:
choose the data (a corpus or your own pair file) and the embedders, and see a summary of the dataset.
Every other view works on the choice made here."""

from __future__ import annotations

import streamlit as st

import ui
from stviz.analyses.common import oov_notes
from stviz.data import available_datasets
from stviz.data.intake.build import apply_mapping
from stviz.data.intake.kept_uploads import save_upload
from stviz.data.intake.layout import HEADER_CHOICES
from stviz.data.intake.mapping import ROLES, ColumnMapping, detect_mapping
from stviz.data.intake.readers import list_sheets, max_upload_mb, read_pairs_file, size_limit_text
from stviz.data.schema import DataError, short_name
from stviz.embedders import PRESETS
from stviz.plots.overview import counts_bar, length_histogram, score_histograms

ROLE_LABELS = {
    "source": "Source text (required)", "output": "Output text (required)", "system": "System",
    "setting": "Setting / hyper-parameter", "source_style": "Source style", "target_style": "Target style",
    "language": "Language of each pair (ISO codes or names; empty: detected)",
}
NONE = "(none)"


def choose_corpus() -> None:
    """Pick one of the datasets installed here (or the uploaded file); list how to get the others."""
    infos = available_datasets()
    titles = ui.dataset_choices()
    st.session_state["dataset-radio"] = ui.current_dataset_name()
    # The choice is copied into a plain session key in a callback, before the script (and the
    # sidebar) runs again: widget state vanishes on pages that do not draw the widget.
    # Radio labels render Markdown: an uploaded file's name is shown literally.
    st.radio("Dataset", list(titles), format_func=lambda name: ui.literal(titles[name]), key="dataset-radio",
             on_change=lambda: ui.set_dataset(st.session_state["dataset-radio"]))
    missing = [i for i in infos if not i.available]
    if missing:
        with st.expander(f"{len(missing)} more corpora can be added"):
            for info in missing:
                st.markdown(f"**{ui.literal(info.title)}**  \n`{info.how_to_get}`")
            st.caption("Corpora are downloaded from the authors' public repositories (or imported from a "
                       "local folder laid out like the shared corpora) into an ignored folder; they are never "
                       "part of this project.")


def upload_pairs() -> bool:
    """Upload a pair file, confirm the detected column mapping, and make it the session's dataset.

    Returns whether a file waits for its columns to be confirmed (the page then hides the summary of
    the current dataset, which would read as if it were the file's).
    """
    file = st.file_uploader(f"Pair file (CSV, TSV, JSONL or XLSX, or one of them .gz/.bz2/.xz; at most "
                            f"{size_limit_text()})",
                            type=["csv", "tsv", "txt", "jsonl", "json", "xlsx", "gz", "bz2", "xz"],
                            max_upload_size=max_upload_mb(),
                            help="One row per (source, output) pair; optional system, setting, styles, references, "
                                 "human scores (one column per rater is fine) and precomputed metrics. The size limit "
                                 "is set with STVIZ_MAX_UPLOAD_MB.")
    if file is None:
        return False
    if st.session_state.get("confirmed-upload") == (file.name, file.size, file.file_id):
        st.caption("This file is the dataset in use. To map its columns differently, remove it and upload it again.")
        return False
    data = file.getvalue()
    sheet = None
    try:
        if file.name.lower().endswith(".xlsx"):
            sheets = list_sheets(data)
            if len(sheets) > 1:  # None: the reader's choice (the first, or the only sheet holding a table), said
                sheet = st.selectbox("Sheet", [None] + sheets, key=f"sheet-{file.file_id}",
                                     format_func=lambda s: "detected (said below)" if s is None else s)
        reading = reading_options(file.file_id)
        frame, notes = read_pairs_file(file.name, data, sheet=sheet, **reading)
    except DataError as exc:
        ui.show_error(exc)
        return False
    for note in notes:
        st.info(ui.literal(note))
    st.dataframe(frame.head(20), width="stretch", height=220)
    # Widget keys carry the upload's id: another file of the same name starts from its own detection.
    confirmed = mapping_form(frame, detect_mapping(frame), key=f"map-{file.file_id}", filename=file.name)
    if confirmed is None:
        return True
    mapping, direction = confirmed
    try:
        ds = with_direction(apply_mapping(frame, mapping, name=file.name, title=f"Uploaded: {file.name}"), direction)
    except DataError as exc:
        ui.show_error(exc)
        return True
    ui.keep_upload(save_upload(file.name, data, mapping, sheet=sheet, reading=reading, direction=direction), ds)
    st.session_state["confirmed-upload"] = (file.name, file.size, file.file_id)
    st.session_state["flash"] = f"Using {file.name}: {ui.size_text(ds)}. Every view now works on it."
    ui.remember_dataset()  # the link names the upload before anything about it is drawn
    st.rerun()  # so the sidebar and the dataset list show the upload


def with_direction(ds, direction: str):
    """The upload with the direction confirmed on Home (pairs without style columns), said in its notes."""
    from stviz.data.intake.file_direction import apply_direction

    if not direction or ds.pairs is None or "target_style" in ds.pairs:
        return ds
    return apply_direction(ds, direction)


def direction_input(frame, guess: ColumnMapping, key: str, filename: str) -> str:
    """The pairs' direction, asked in the column confirmation when no style column is detected: suggested from the
    file's name or values (never a fixed example), confirmed with the columns; '' when not asked or left empty."""
    from stviz.data.intake.file_direction import suggest_direction

    if {"source_style", "target_style"} & set(guess.roles) or guess.roles.get("output") is None and not guess.outputs:
        return ""
    suggestion, source = suggest_direction(filename, frame)
    said = (f"Suggested from {source}: check it, or clear it if the pairs go several ways." if suggestion else
            "Nothing in the file says it; without one, style and fluency measures are left out.")
    return st.text_input("Direction of the pairs (the file has no style columns)", value=suggestion,
                         key=f"{key}-direction", placeholder="SOURCE>TARGET",
                         help="SOURCE>TARGET for every pair, or SYSTEM=SOURCE>TARGET;... per system (the command "
                              "line's --direction): style and fluency measures need each pair's target style. "
                              + said).strip()


def reading_options(file_id: str) -> dict:
    """How to read the file when detection got it wrong (the CLI's --header, --encoding, --skip-rows); {} by default."""
    with st.expander("Reading options (header, encoding, lines above the header)"):
        cols = st.columns(3)
        header = cols[0].selectbox("Header", HEADER_CHOICES, key=f"header-{file_id}",
                                   help="auto: detected (said below); first: the first line holds the column "
                                        "names; none: no header, columns are named column 1, column 2, ...")
        encoding = cols[1].text_input("Encoding", "", key=f"encoding-{file_id}", placeholder="detected",
                                      help="e.g. cp1252, latin-1, utf-16; empty: detected")
        skip = cols[2].number_input("Lines above the header", min_value=-1, value=-1, step=1,
                                    key=f"skip-{file_id}", help="-1: detected (comments, sep= line, title rows)")
    options = {"header": header, "encoding": encoding.strip() or None, "skip_rows": int(skip) if skip >= 0 else None}
    return {k: v for k, v in options.items() if v not in (None, "auto")}


USES = {"": "", "human": "human score", "metric": "metric", "rater": "rater (one annotator)",
        "key": "key (an id: never a score)"}


def mapping_form(frame, guess: ColumnMapping, key: str, filename: str = "") -> tuple[ColumnMapping, str] | None:
    """Let the user confirm which column plays which role (and the pairs' direction when no style column is
    detected); returns (mapping, direction) once confirmed."""
    columns = [str(c) for c in frame.columns]
    with st.form(f"mapping-{key}"):
        st.markdown("**Confirm the columns** (detected from their names and contents)")
        cols = st.columns(3)
        roles = {}
        for i, role in enumerate(ROLES):
            options = [NONE] + columns
            default = guess.roles.get(role, NONE)
            roles[role] = cols[i % 3].selectbox(ROLE_LABELS[role], options, index=options.index(default),
                                                key=f"{key}-{role}")
        outputs = st.multiselect("Or: one output column per system (a wide file; each column's name is its system)",
                                 columns, default=guess.outputs, key=f"{key}-outputs",
                                 help="For a file like source, DualRL, DeleteOnly: leave Output text at (none).")
        references = st.multiselect("Reference outputs (one or more, in order)", columns, default=guess.references,
                                    key=f"{key}-references")
        st.markdown("**Scores**: use each numeric column as a human score, a precomputed metric, one rater's "
                    "scores (raters are averaged into a human score and their agreement measured, never ranked as "
                    "metrics), or a key (an id or an index: never ranked). Untick *higher is better* where a lower "
                    "score means more content kept. *why* says what besides its name decided a column.")
        table = score_table(frame, guess)
        edited = st.data_editor(
            table, key=f"{key}-scores", hide_index=True, width="stretch",
            column_config={
                "column": st.column_config.TextColumn("column", disabled=True),
                "use as": st.column_config.SelectboxColumn("use as", options=list(USES.values())),
                "higher is better": st.column_config.CheckboxColumn("higher is better"),
                "example": st.column_config.TextColumn("example", disabled=True),
                "why": st.column_config.TextColumn("why", disabled=True),
            })
        # Ticked only when some column was read as a rater's: with none there is no mean to add.
        rater_mean = st.checkbox("Add the raters' mean as a human score", value=guess.rater_mean and bool(guess.raters),
                                 key=f"{key}-mean", help="Used when columns are marked as one rater's scores")
        direction = direction_input(frame, guess, key, filename)
        if not st.form_submit_button("Use this file", type="primary"):
            return None
    use = {label: code for code, label in USES.items()}
    chosen = {code: [r["column"] for r in edited.to_dict("records") if use.get(r["use as"]) == code]
              for code in ("human", "metric", "rater", "key")}
    directions = {r["column"]: bool(r["higher is better"]) for r in edited.to_dict("records")}
    wide = outputs if len(outputs) > 1 else []
    roles = {r: c for r, c in roles.items() if c != NONE and not (wide and r == "output")}
    if len(outputs) == 1 and "output" not in roles:
        roles["output"] = outputs[0]
    return ColumnMapping(roles=roles, references=references, outputs=wide,
                         human=chosen["human"], metrics=chosen["metric"], raters=chosen["rater"],
                         directions={c: directions[c] for c in chosen["human"]},
                         rater_mean=rater_mean and bool(chosen["rater"]), keys=chosen["key"],
                         evidence={c: why for c, why in guess.evidence.items() if c in chosen["key"]}), direction


def score_table(frame, guess: ColumnMapping):
    """One row per column that could hold scores (not a detected text role), with its detected use and direction."""
    import pandas as pd

    text_roles = set(guess.roles.values()) | set(guess.references) | set(guess.outputs)
    rows = []
    for col in frame.columns:
        use = next((code for code, cols in (("human", guess.human), ("metric", guess.metrics),
                                            ("rater", guess.raters), ("key", guess.keys)) if col in cols), "")
        if col in text_roles and not use:
            continue
        example = next((str(v) for v in frame[col] if str(v).strip()), "")
        rows.append({"column": str(col), "use as": USES[use], "higher is better": guess.higher_is_better(col),
                     "example": example[:40], "why": guess.evidence.get(col, "")})
    return pd.DataFrame(rows, columns=["column", "use as", "higher is better", "example", "why"])


def choose_embedders(ds) -> None:
    """The embedders the views offer first; out-of-vocabulary rates for word-vector ones."""
    default = st.session_state.get(ui.EMBEDDERS_KEY, ui.DEFAULT_EMBEDDERS)
    chosen = st.multiselect("Embedders the views start with", list(PRESETS), default=[s for s in default if s in PRESETS],
                            format_func=PRESETS.get, key="home-embedders")
    st.session_state[ui.EMBEDDERS_KEY] = chosen or ui.DEFAULT_EMBEDDERS
    texts = ds.texts["text"].tolist() if ds.texts is not None else ds.pairs["source"].tolist() + ds.pairs["output"].tolist()
    for note in oov_notes(chosen, texts):
        st.caption(ui.literal(note) + ".")
    choose_backend()


def choose_language(ds) -> None:
    """The texts' language: detected, or set here (every view then computes only the measures valid for it)."""
    from stviz.languages import dataset_language, known_languages, language_name

    report = dataset_language(ds)
    codes = ["auto"] + list(dict.fromkeys(known_languages() + sorted(report.languages) + [report.detected]))
    current = st.session_state.get(ui.LANGUAGE_KEY) or "auto"

    def keep() -> None:  # widget state is dropped on another page: the choice lives under its own key
        choice = st.session_state["home-language"]
        st.session_state[ui.LANGUAGE_KEY] = None if choice == "auto" else choice

    with st.expander("Language", expanded=report.mixed or report.language != "en"):
        st.selectbox("Language of the texts", codes, index=codes.index(current) if current in codes else 0,
                     key="home-language", on_change=keep,
                     format_func=lambda c: f"detected ({language_name(report.detected)})" if c == "auto"
                     else language_name(c),
                     help="Every view computes only the measures valid for this language and says what it left "
                          "out; in a file of several languages, only this language's pairs are compared (detected: "
                          "every language, each as itself).")
        if report.mixed:
            st.caption(ui.literal(f"Pairs per language ({report.origin()}): " + ", ".join(
                f"{language_name(c)} {n:,}" for c, n in sorted(report.languages.items(), key=lambda x: -x[1]))
                + ". Meta-evaluation gives one table per language; Metrics vs humans, Failure cases and the "
                  "Leaderboard show one language at a time (their Language box)."))


def choose_backend() -> None:
    """How transformer models run (PyTorch or ONNX Runtime), and the one in use."""
    from stviz.embedders import SentenceTransformerEmbedder, select_device
    from stviz.embedders.onnx_backend import BACKEND_LABELS, BACKENDS, BackendError, describe_backend, requested_backend, set_backend

    current = requested_backend()
    chosen = st.selectbox("How transformer models run (for this app process)", BACKENDS,
                          index=BACKENDS.index(current), format_func=BACKEND_LABELS.get, key="home-backend")
    if chosen != current:
        try:
            set_backend(chosen)
        except BackendError as exc:
            ui.show_error(exc)
    st.caption(describe_backend(SentenceTransformerEmbedder("minilm").id, select_device()))
    if select_device() == "cuda":
        choose_precision(SentenceTransformerEmbedder("minilm").id)


def choose_precision(model_id: str) -> None:
    """The precision of transformer encoders on this GPU (fp32 or a gated half precision), and the one in use."""
    from stviz.embedders.precision import (PRECISION_LABELS, PRECISIONS, PrecisionError, describe_precision,
                                           requested_precision, set_precision)

    current = requested_precision()
    chosen = st.selectbox("Precision on the GPU (for this app process)", PRECISIONS, index=PRECISIONS.index(current),
                          format_func=PRECISION_LABELS.get, key="home-precision")
    if chosen != current:
        try:
            set_precision(chosen)
        except PrecisionError as exc:
            ui.show_error(exc)
    st.caption(describe_precision(model_id, "cuda"))


def summary(ds) -> None:
    """Counts, groups, lengths and score distributions of the chosen dataset."""
    st.subheader(ui.literal(ds.title))
    if ds.illustrative:
        st.warning("Illustrative demo data written for stviz, not research data: use it to see what the views do.", icon="ℹ️")
    if ds.description:
        st.caption(ui.literal(ds.description))
    counts = ds.counts()
    cols = st.columns(len(counts))
    for col, (label, value) in zip(cols, counts.items()):
        col.metric(label.capitalize(), f"{value:,}")
    for note in ds.notes:
        st.caption(f"• {ui.literal(note)}")
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
        directions = ", ".join(f"{ui.literal(short_name(c))} ({'higher' if ds.human_higher_is_better(c) else 'lower'} "
                               "is better)" for c in ds.human_columns)
        st.caption(f"Human scores: {directions}.")
        st.plotly_chart(score_histograms(ds), width="stretch")
    if ds.texts is not None:
        example_sentences(ds)
    if ds.pairs is not None:
        with st.expander("First pairs"):
            short = [short_name(c) for c in ds.pairs.columns]
            # Short names only when they stay distinct (human:fluency beside metric:fluency must not collide).
            shown = ds.pairs.head(50).set_axis(short if len(set(short)) == len(short) else ds.pairs.columns, axis=1)
            st.dataframe(shown, width="stretch")


def example_sentences(ds) -> None:
    """A few random sentences of one style at a time: what the style looks like before any metric."""
    with st.expander("Example sentences per style"):
        styles = sorted(ds.texts["style"].astype(str).unique())
        cols = st.columns([3, 1], vertical_alignment="bottom")
        style = cols[0].selectbox("Style", styles, key="home-example-style")
        draw = st.session_state.setdefault("home-example-draw", 0)
        if cols[1].button("Show others", key="home-example-more"):
            draw = st.session_state["home-example-draw"] = draw + 1
        texts = ds.texts.loc[ds.texts["style"].astype(str) == style, "text"]
        shown = texts.sample(min(8, len(texts)), random_state=draw)
        # A static table: long sentences (Joyce, poetry) wrap instead of being cut at the cell's edge. Its cells
        # are Markdown, so each sentence is escaped to be shown as written.
        st.table(shown.map(ui.literal).rename("sentence").reset_index(drop=True), hide_index=True)
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
        st.success(ui.literal(st.session_state.pop("flash")))
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
    choose_language(ds)
    with st.expander("Embedders", expanded=False):
        choose_embedders(ds)
    summary(ds)


def navigation() -> None:
    """Route the URL to Home or a view (``ui.app_pages``). The menu is drawn in the sidebar (``ui.sidebar._menu``):
    with a ``pages/`` folder, Streamlit's own menu is turned off in .streamlit/config.toml (see docs/architecture.md)."""
    st.navigation(ui.app_pages(lambda: ui.run_page(home)), position="hidden").run()


navigation()
