"""Embedding map: t-SNE, UMAP or PCA of unit-normalised sentence embeddings (Fitzpatrick et al.,
Figures 1-3), coloured by style, system or any score, the sentence on hover, and a box/lasso
selection that lists the selected sentences."""

from __future__ import annotations

import streamlit as st

import ui
from stviz.analyses import embedding_map as analysis
from stviz.analyses.embedding_map import (METHOD_LABELS, METHODS, POINT_CHOICES, TEXT_SETS, colour_label,
                                         matching_rows)
from stviz.data.schema import DataError
from stviz.languages.measures import resolve_embedders
from stviz.plots.similarity import embedding_map, for_export, selected_rows

INTRO = ("Where do sentences of different styles, systems or scores lie relative to each other? Each point is one "
         "sentence embedded and projected to 2-D (Fitzpatrick et al., Figures 1-3); hover a point to read it, click "
         "it to open its pair's story and nearest neighbours, draw a box or lasso to list the sentences inside.")


def controls(dataset, defaults: analysis.Options) -> analysis.Options:
    """What to map, with which embedder and method, coloured by what, and how many points."""
    sets = analysis.text_sets(dataset)
    cols = st.columns([1.1, 1.7, 0.9, 1.1])
    with cols[0]:
        if len(sets) > 1:
            chosen = defaults.texts or sets[0]
            text_set = st.radio("Sentences", sets, index=sets.index(chosen) if chosen in sets else 0,
                                format_func=TEXT_SETS.get, key="map-texts")
        else:
            text_set = sets[0]
            st.markdown(f"**Sentences**  \n{TEXT_SETS[text_set]}")
    with cols[1]:
        # auto: the language's encoder, shown as the one chosen (multilingual-e5 for Hindi, MiniLM for English).
        spec = ui.embedder_select("Embedder", key="map-embedder",
                                  default=list(resolve_embedders(dataset, [defaults.embedder])[:1]))[-1]
    method = cols[2].radio("Method", METHODS, index=METHODS.index(defaults.method), format_func=METHOD_LABELS.get,
                           key="map-method", help="Of the unit-normalised vectors, as in the paper. t-SNE of 11,000 "
                                                  "sentences takes about a minute the first time, UMAP ~40 s; results "
                                                  "are cached.")
    colours = analysis.colour_choices(dataset, text_set)
    colour = cols[3].selectbox("Colour by", colours or [None], key="map-colour", format_func=colour_label,
                               index=colours.index(defaults.colour) if defaults.colour in colours else 0)
    n_sentences = analysis.count_sentences(dataset, text_set)
    with st.expander("Parameters and sampling"):
        pcols = st.columns(3)
        sizes = [n for n in POINT_CHOICES if n == 0 or n < n_sentences]
        auto = analysis.resolve_max_points(defaults, n_sentences) or 0
        max_points = pcols[0].selectbox("Points", sizes, index=sizes.index(auto) if auto in sizes else 0,
                                        key="map-points", format_func=lambda n: f"all {n_sentences:,}" if n == 0
                                        else f"sample of {n:,} (stratified)")
        perplexity = pcols[1].slider("t-SNE perplexity", 5, 100, int(defaults.perplexity), key="map-perplexity")
        neighbours = pcols[2].slider("UMAP neighbours", 5, 100, defaults.n_neighbors, key="map-neighbours")
    return defaults.changed(texts=text_set, embedder=spec, method=method, colour=colour, max_points=max_points,
                            perplexity=float(perplexity), n_neighbors=neighbours)


def find_controls(defaults: analysis.Options) -> str:
    """The text search above the map (matches are ringed on it)."""
    return st.text_input("Find sentences", defaults.search, key="map-search", placeholder="a word or phrase",
                         help="Sentences containing this text (case-insensitive) are ringed on the map")


def clicked_row(points) -> int | None:
    """The sentence of a point just clicked (a selection of one point that this session has not handled yet)."""
    state = st.session_state.get(f"map-chart-{st.session_state.get('map-chart-gen', 0)}") or {}
    rows = tuple(selected_rows((state.get("selection") or {}).get("points")))
    if rows == st.session_state.get("map-handled"):
        return None  # the selection of a point already opened (or closed): not a new click
    st.session_state["map-handled"] = rows
    return rows[0] if len(rows) == 1 and rows[0] in set(points["row"]) else None


def opened(points, options: analysis.Options) -> analysis.Options:
    """``options`` with the sentence (and for pairs, the pair) opened: a point just clicked, else as before."""
    row = clicked_row(points)
    return options if row is None else open_row(points, options, row)


def open_row(points, options: analysis.Options, row: int) -> analysis.Options:
    """``options`` opening the point of ``row``: its sentence, and its pair when the map shows pairs."""
    point = points.set_index("row").loc[row]
    return options.changed(sentence=row, pair=int(point["pair"]) if "pair" in point else None)


def close_story() -> None:
    """Back to the map: nothing opened, and the chart's selection cleared (a new chart key)."""
    key = f"options:{analysis.__name__}"  # where ui.remember keeps the page's options for the next run
    if key in st.session_state:
        st.session_state[key] = st.session_state[key].changed(sentence=None, pair=None)
    st.session_state["map-chart-gen"] = st.session_state.get("map-chart-gen", 0) + 1
    st.session_state["map-handled"] = ()


def show_selection(points, event, colour) -> None:
    """The sentences inside the box or lasso, below the plot."""
    rows = selected_rows(event.selection.points) if event and event.selection else []
    if len(rows) < 2:
        st.caption("Click a point to open it (its pair's story and its nearest neighbours); draw a box or lasso "
                   "(toolbar, top right) to list the sentences inside it.")
        return
    chosen = points.set_index("row").loc[rows].drop(columns=["x", "y"])
    st.markdown(f"**{len(chosen):,} selected sentences**")
    if colour in chosen and not str(colour).startswith(("human:", "metric:")) and chosen[colour].dtype == object:
        counts = chosen[colour].astype(str).value_counts()
        st.caption(f"By {ui.literal(colour)}: " + " · ".join(f"{ui.literal(k)} {v:,}"
                                                                       for k, v in counts.items()))
    st.dataframe(chosen, width="stretch", column_config={"text": st.column_config.TextColumn(width="large")})
    ui.download_table(chosen, "selected-sentences", key="map-selected", latex=False)
    if "pair" in chosen:  # pairs chosen on the map become a slice that Metrics vs humans and the Leaderboard compute
        ui.save_selection(chosen["pair"].dropna().astype(int).unique(), f"map selection of {len(chosen):,}",
                          key="map-slice")


def show_neighbours(result, options: analysis.Options) -> None:
    """The opened sentence's nearest neighbours in the embedding space (their styles, distances); a row opens one."""
    try:
        table = analysis.neighbours(result.points, options.embedder, options.sentence, k=10)
    except DataError as exc:
        ui.show_error(exc)
        return
    text = result.points.set_index("row").loc[options.sentence, "text"]
    st.markdown(f"**Nearest neighbours** of “{ui.literal(text)}” ({ui.literal(result.embedder_label)}, cosine "
                "distance in the full embedding space, among the mapped sentences; click a row to open it)")
    shown = [c for c in table.columns if c != "row" or "pair" not in table]  # a pair's number says it already
    event = st.dataframe(table, width="stretch", hide_index=True, column_order=shown, on_select="rerun",
                         selection_mode="single-row", key=f"map-neighbours-{options.sentence}",
                         column_config={"text": st.column_config.TextColumn(width="large"),
                                        "cosine distance": st.column_config.NumberColumn(format="%.3f")})
    if event.selection.rows:
        # Opened like a click on the map: kept where ui.remember keeps the page's options, then drawn afresh.
        row = int(table.iloc[event.selection.rows[0]]["row"])
        st.session_state[f"options:{analysis.__name__}"] = open_row(result.points, options, row)
        st.rerun()


def sentence_title(result, options: analysis.Options) -> str:
    """'Sentence 12 · shakespeare': the opened sentence's row and style (when the map has styles)."""
    points = result.points.set_index("row")
    style = points.loc[options.sentence, "style"] if "style" in points and options.sentence in points.index else None
    return f"Sentence {options.sentence}" + (f" · {ui.literal(style)}" if style is not None else "")


def show_opened(dataset, result, options: analysis.Options) -> None:
    """The opened point: its pair's story (for pairs) and its nearest neighbours, with a way back."""
    if options.sentence is None and options.pair is None:
        return
    with st.container(border=True, key="map-opened-box"):
        head = st.columns([4, 1])
        head[0].subheader(f"Pair #{options.pair}" if options.pair is not None else sentence_title(result, options))
        head[1].button("✕ Back to the map", key="map-close", on_click=close_story, width="stretch")
        if options.pair is not None:
            ui.open_pair_story(dataset, options.pair, key="map-story")
        if options.sentence is not None:
            show_neighbours(result, options)


def main() -> None:
    """Dataset check, controls, the map, the selection below it, and the point opened."""
    dataset, defaults = ui.open_view(analysis, INTRO)
    options = controls(dataset, defaults).changed(search=find_controls(defaults))
    ui.remember(analysis, options)
    result = ui.run_analysis(analysis, dataset, options)
    ui.show_notes(result.notes)
    options = opened(result.points, options)
    ui.remember(analysis, options)  # ?pair=ID&sentence=ROW reopens the point
    proj = result.projection
    points = result.points
    chosen = points.index[points["row"] == options.sentence]
    fig = embedding_map(points, result.colour, result.title, colour_title=colour_label(result.colour),
                        highlight=matching_rows(points["text"], options.search),
                        chosen=int(chosen[0]) if len(chosen) else None)
    note = f"{len(points):,} points · {METHOD_LABELS[proj.method]} took {proj.seconds:.1f} s (kept in the disk cache)"
    if "explained variance" in proj.info:
        note += " · variance explained " + ", ".join(f"{100 * v:.1f}%" for v in proj.info["explained variance"])
    reading = ("PCA is linear: distances are shrunk, not rearranged" if proj.method == "pca" else
               "distances between clusters are not meaningful in t-SNE and UMAP; neighbourhoods are")
    st.caption(f"{note}. {reading[0].upper() + reading[1:]}.")
    # No drag mode of the figure's own: Streamlit then pans on drag and selects the point clicked (in lasso mode a
    # click deselects instead); box and lasso stay in the toolbar.
    event = ui.plotly_chart(fig.update_layout(dragmode=None), width="stretch", on_select="rerun",
                            selection_mode=("points", "box", "lasso"),
                            key=f"map-chart-{st.session_state.get('map-chart-gen', 0)}")
    ui.download_figure(for_export(fig, 1100), "embedding-map", key="map-fig")
    show_selection(points, event, result.colour)
    show_opened(dataset, result, options)


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
