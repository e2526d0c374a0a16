"""Embedding map: t-SNE, UMAP or PCA of unit-normalised sentence embeddings (Fitzpatrick et al.,
Figures 1-3), coloured by style, system or any score, the sentence on hover, and a box/lasso
selection that lists the selected sentences."""

from __future__ import annotations

import streamlit as st

import ui
from stviz.data.schema import DataError, short_name
from stviz.embed import PRESETS, EmbedderError
from stviz.plots.similarity import embedding_map, for_export, selected_rows
from stviz.reduce import MAP_SOURCES, METHOD_LABELS, METHODS, colour_columns, map_frame, map_points, map_sources

LARGE = 12_000  # above this many sentences a sample is the default (said on the page); CDS (11,000) is mapped whole
DEFAULT_SAMPLE = 5_000  # t-SNE of 5,000 points takes well under a minute


def colour_label(column) -> str:
    """How a colour column is named in the menu (human ratings marked as such)."""
    if column is None:
        return "(none)"
    return short_name(column) + (" (human)" if str(column).startswith("human:") else "")


def controls(dataset) -> dict:
    """What to map, with which embedder and method, coloured by what, and how many points."""
    sources = map_sources(dataset)
    cols = st.columns([1.1, 1.7, 0.9, 1.1])
    with cols[0]:
        if len(sources) > 1:
            source = st.radio("Sentences", sources, format_func=MAP_SOURCES.get, key="map-source")
        else:
            source = sources[0]
            st.markdown(f"**Sentences**  \n{MAP_SOURCES[source]}")
    with cols[1]:
        spec = ui.embedder_select("Embedder", key="map-embedder")[-1]
    method = cols[2].radio("Method", METHODS, format_func=METHOD_LABELS.get, key="map-method",
                           help="Of the unit-normalised vectors, as in the paper. t-SNE of 11,000 sentences takes "
                                "about a minute the first time, UMAP ~40 s; results are cached.")
    frame = map_frame(dataset, source)
    categorical, numeric = colour_columns(frame)
    colours = categorical + numeric
    colour = cols[3].selectbox("Colour by", colours or [None], key="map-colour",
                               format_func=colour_label)
    if "style" in frame and frame["style"].nunique() == 1:
        st.caption(f"All these sentences have one style (*{ui.escape(frame['style'].iloc[0])}*), so style cannot "
                   "colour them" + (": colour by system or score instead." if colours else "."))
    ui.oov_notes([spec], frame["text"].tolist())
    with st.expander("Parameters and sampling"):
        pcols = st.columns(3)
        sizes = [None] + [n for n in (1_000, 5_000, 10_000, 20_000) if n < len(frame)]
        default = sizes.index(DEFAULT_SAMPLE) if len(frame) > LARGE and DEFAULT_SAMPLE in sizes else 0
        max_points = pcols[0].selectbox("Points", sizes, index=default, key="map-points",
                                        format_func=lambda n: f"all {len(frame):,}" if n is None
                                        else f"sample of {n:,} (stratified)")
        perplexity = pcols[1].slider("t-SNE perplexity", 5, 100, 30, key="map-perplexity")
        neighbours = pcols[2].slider("UMAP neighbours", 5, 100, 15, key="map-neighbours")
    return {"source": source, "spec": spec, "method": method, "colour": colour, "frame": frame,
            "max_points": max_points, "perplexity": perplexity, "neighbours": neighbours}


def compute(options: dict):
    """Embed the (sampled) sentences and project them, both cached, with one progress bar for both stages."""
    frame, label = options["frame"], METHOD_LABELS[options["method"]]
    if options["max_points"] is not None:
        st.info(f"**Sampled:** {options['max_points']:,} of {len(frame):,} sentences, stratified by style (seed 0). "
                "Change it under *Parameters and sampling*.", icon=":material/shuffle:")
    n = len(frame) if options["max_points"] is None else options["max_points"]
    embedder = PRESETS.get(options["spec"], options["spec"])
    bar = st.progress(0.0, text=f"1/2 Embedding {n:,} sentences with {embedder} (cached once computed)")
    optimising = ("no progress reported; about a minute for 10,000 points" if options["method"] == "umap"
                  else "cached once computed")
    try:
        return map_points(frame, options["spec"], options["method"], max_points=options["max_points"],
                          perplexity=options["perplexity"], n_neighbors=options["neighbours"],
                          embed_progress=_stage(bar, f"1/2 Embedding with {embedder}", 0.0, 0.5),
                          progress=_stage(bar, f"2/2 {label} of {n:,} points ({optimising})", 0.5, 1.0))
    except EmbedderError as exc:
        ui.show_error(exc)
        st.stop()
    finally:
        bar.empty()


def _stage(bar, label: str, low: float, high: float):
    """A ``fn(done, total)`` that fills the part [low, high] of one progress bar."""
    def report(done: int, total: int) -> None:
        frac = min(done / total, 1.0) if total else 1.0
        counts = f" · {done:,} / {total:,}" if total > 1 else ""
        bar.progress(low + (high - low) * frac, text=label + counts)
    return report


def show_selection(points, event, colour) -> None:
    """The sentences inside the box or lasso, below the plot."""
    rows = selected_rows(event.selection.points) if event and event.selection else []
    if not rows:
        st.caption("Draw a box or lasso on the map (toolbar, top right) to list the sentences inside it.")
        return
    chosen = points.set_index("row").loc[rows].drop(columns=["x", "y"])
    st.markdown(f"**{len(chosen):,} selected sentences**")
    if colour in chosen and not str(colour).startswith(("human:", "metric:")):
        counts = chosen[colour].astype(str).value_counts()
        st.caption(f"By {colour}: " + " · ".join(f"{k} {v:,}" for k, v in counts.items()))
    st.dataframe(chosen, width="stretch", column_config={"text": st.column_config.TextColumn(width="large")})
    ui.download_table(chosen, "selected-sentences", key="map-selected", latex=False)


def main() -> None:
    """Dataset check, controls, the map, and the selection below it."""
    ui.page_setup("Embedding map")
    dataset = ui.require_dataset()
    if not map_sources(dataset):
        st.info(f"**{ui.escape(dataset.title)}** has no style labels and no pairs: there is nothing to map.")
        st.stop()
    if not dataset.has_styles:
        st.info(f"**{ui.escape(dataset.title)}** has no style labels, so points cannot be coloured by style; colour "
                "them by system or score where the file has them (or upload pairs with a source-style column).")
    try:
        options = controls(dataset)
        points, proj = compute(options)
    except DataError as exc:
        ui.show_error(exc)
        st.stop()
    title = f"{METHOD_LABELS[options['method']]} of {PRESETS.get(options['spec'], options['spec'])} embeddings"
    if proj.sampled:
        title += f" - stratified sample of {len(proj.rows):,} of {proj.n_total:,} sentences"
    fig = embedding_map(points, options["colour"], title, colour_title=colour_label(options["colour"]))
    method = METHOD_LABELS[options["method"]]
    note = f"{len(points):,} points · {method} took {proj.seconds:.1f} s (kept in the disk cache)"
    if "explained variance" in proj.info:
        note += " · variance explained " + ", ".join(f"{100 * v:.1f}%" for v in proj.info["explained variance"])
    reading = ("PCA is linear: distances are shrunk, not rearranged" if options["method"] == "pca" else
               "distances between clusters are not meaningful in t-SNE and UMAP; neighbourhoods are")
    st.caption(f"{note}. {reading[0].upper() + reading[1:]}.")
    event = st.plotly_chart(fig, width="stretch", on_select="rerun", selection_mode=("box", "lasso"),
                            key="map-chart")
    ui.download_figure(for_export(fig, 1100), "embedding-map", key="map-fig")
    show_selection(points, event, options["colour"])


main()
