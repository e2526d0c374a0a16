"""Style similarity (Fitzpatrick et al.): is an embedder style-invariant enough to measure content
preservation? Style x style cosine heatmaps side by side, most-similar styles, the self-similarity
count against chance with a permutation p-value, and style leakage with a ranking of embedders."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.data.schema import DataError
from stviz.embed import PRESETS, EmbedderError
from stviz.plots.similarity import (for_export, heatmap_export_width, leakage_figure, permutation_figure,
                                    similarity_heatmap, similarity_heatmaps)
from stviz.similarity import (PAPER_SELF_COUNTS, PAPER_STYLES, invariance_ranking, matrix_latex, row_maxima,
                              sample_per_style, similarity_report)

LARGE = 20_000  # above this many sentences the page samples per style by default (and says so)

INTRO = (
    "Content preservation is usually scored as the cosine similarity of sentence embeddings, which assumes "
    "the embedding ignores style. Following Fitzpatrick, Park and Obst (*Measuring Content Preservation in "
    "Textual Style Transfer*), each cell is the mean cosine similarity between a sentence of the row style and "
    "the sentences of the column style (**higher = more similar**). If the embedder ignored style, no style "
    "would stand out as most similar to itself."
)
SELF_PAIRS_HELP = (
    "The paper: 'for each sentence in A, the mean cosine similarity to every sentence in B'. Read literally, "
    "for A = B every sentence is also compared with itself (cosine 1), which lifts the diagonal by "
    "(1 - value)/n - under 0.001 for 1,000 sentences per style, but enough to break a tie at 3 decimals, and "
    "large for small corpora. Excluding self-pairs gives the unbiased mean over distinct pairs."
)


def choose_sample(texts: pd.DataFrame) -> pd.DataFrame:
    """All sentences, or an explicit per-style sample for large corpora."""
    largest = int(texts["style"].value_counts().max())
    options = [None] + [n for n in (500, 1000, 2000, 5000) if n < largest]
    default = options.index(1000) if len(texts) > LARGE and 1000 in options else 0
    everything = f"all ({len(texts):,} sentences)"
    if len(texts) > LARGE:  # MiniLM embeds ~300 sentences/s on 2 idle cores (STACK.md): say what "all" costs
        everything += f" - slow: {len(texts) / 300 / 60:,.0f} min or more with MiniLM the first time"
    per_style = st.selectbox("Sentences per style", options, index=default, key="sim-per-style",
                             format_func=lambda n: everything if n is None else f"random {n:,} per style",
                             help="Large corpora are sampled (seed 0) so that embedding stays quick; every "
                                  "result below is then computed on the sample.")
    chosen = sample_per_style(texts, per_style)
    if len(chosen) < len(texts):
        st.info(f"**Sampled:** {len(chosen):,} of {len(texts):,} sentences (at most {per_style:,} per style, "
                "seed 0). Every number below is computed on this sample.", icon=":material/shuffle:")
    return chosen


def controls(texts: pd.DataFrame) -> dict:
    """Embedders, self-pair rule, permutations, leakage."""
    specs = ui.embedder_select("Embedders (up to 4, side by side)", key="sim-embedders", multi=True,
                               max_selections=4)
    cols = st.columns([2, 1, 1])
    include_self = cols[0].radio(
        "Diagonal", [False, True], horizontal=True, key="sim-include-self", help=SELF_PAIRS_HELP,
        format_func=lambda v: "self-pairs included (the paper's wording)" if v else "self-pairs excluded")
    permutations = cols[1].selectbox("Label shuffles (p-value)", [199, 999, 4999], index=1, key="sim-perms")
    leakage = cols[2].checkbox(
        "Style leakage", key="sim-leakage",
        help="Cross-validated logistic regression predicting style from the embedding, and the silhouette of "
             f"the style clusters. About 1-3 minutes per embedder on {len(texts):,} sentences the first time (cached).")
    return {"specs": specs, "include_self": include_self, "permutations": permutations, "leakage": leakage}


def compute(texts: pd.DataFrame, options: dict) -> dict:
    """One report per embedder (disk-cached), with a progress bar each; failing embedders are reported."""
    reports = {}
    for spec in options["specs"]:
        label = PRESETS.get(spec, spec)
        try:
            with ui.progress_bar(f"{label}: embedding {len(texts):,} sentences, permutation test, bootstrap"
                                 + (", style leakage" if options["leakage"] else "")) as report:
                reports[spec] = similarity_report(
                    texts["text"].tolist(), texts["style"].tolist(), spec, include_self=options["include_self"],
                    n_permutations=options["permutations"], leakage=options["leakage"], progress=report)
        except (DataError, EmbedderError) as exc:
            ui.show_error(exc)
    return reports


def heatmaps(reports: dict) -> None:
    """The paper's Tables 1-3 as annotated heatmaps, side by side."""
    st.subheader("Mean cosine similarity between styles")
    st.caption("Row style -> column style, higher = more similar. **Bold \\*** = row maximum at 3 decimals "
               "(ties all marked). The matrix is symmetric: the mean of per-sentence means equals the mean over "
               "all pairs. Hover a cell for its 95% bootstrap interval (sentences resampled within each style).")
    if len(reports) == 1:
        spec, report = next(iter(reports.items()))
        fig = similarity_heatmap(report.matrix, PRESETS.get(spec, spec), low=report.intervals.low,
                                 high=report.intervals.high)
    else:
        fig = similarity_heatmaps({PRESETS.get(s, s): r.matrix for s, r in reports.items()},
                                  intervals={PRESETS.get(s, s): (r.intervals.low, r.intervals.high)
                                             for s, r in reports.items()})
    st.plotly_chart(fig, width="stretch", key="sim-heatmaps")
    k = next(iter(reports.values())).n_styles
    ui.download_figure(for_export(fig, heatmap_export_width(k, len(reports))), "style-similarity", key="sim-fig")


def downloads(frame: pd.DataFrame, name: str, key: str) -> None:
    """CSV and LaTeX buttons side by side; the LaTeX escapes style names (CDS has coha_1810-1830)."""
    ui.download_table(frame, name, key=key)


def _bold_maxima(matrix: pd.DataFrame):
    mask = pd.DataFrame(row_maxima(matrix, 3), index=matrix.index, columns=matrix.columns)
    bold = mask.map(lambda m: "font-weight: bold" if m else "")
    return matrix.style.format("{:.3f}").apply(lambda _: bold, axis=None)


def tables(reports: dict, include_self: bool) -> None:
    """Per embedder: the matrix in the paper's layout and the most-similar table, with downloads."""
    st.subheader("Tables (the paper's layout)")
    tabs = st.tabs([PRESETS.get(s, s) for s in reports])
    for tab, (spec, report) in zip(tabs, reports.items()):
        name = spec.replace(":", "_").replace("/", "_")
        with tab:
            rows_height = 35 * (len(report.matrix) + 1) + 3  # every style visible without scrolling
            # Narrow number columns so 11 styles fit the page width (full names show on hover).
            narrow = {str(c): st.column_config.Column(width="small") for c in report.matrix.columns}
            st.dataframe(_bold_maxima(report.matrix), width="stretch", height=rows_height,
                         column_config=narrow if len(report.matrix) > 6 else None)
            with st.container(horizontal=True):
                ui.download_table(report.matrix.round(6), f"style-similarity-{name}", key=f"sim-m-{name}",
                                  latex=False)
                st.download_button(
                    "⬇ LaTeX (row maxima bold)", matrix_latex(report.matrix, 3, caption=(
                        f"Mean cosine similarity between styles, {PRESETS.get(spec, spec)}, self-pairs "
                        f"{'included' if include_self else 'excluded'}.")).encode(),
                    file_name=f"style-similarity-{name}.tex", mime="text/x-tex", key=f"sim-tex-{name}",
                    on_click="ignore")
            st.markdown("**Most similar style** (ties listed; Tables 4-6 of the paper)")
            table = report.most_similar.assign(similarity=report.most_similar["similarity"].round(3))
            st.dataframe(table, hide_index=True, width="stretch", height=rows_height,
                         column_config={"similarity": st.column_config.NumberColumn(format="%.3f")})
            downloads(table.set_index("style"), f"most-similar-{name}", key=f"sim-ms-{name}")
            for note in report.notes:
                st.caption(note)


def self_similarity(reports: dict, dataset_name: str) -> None:
    """Table 7: styles most similar to themselves, against chance, with the permutation p-value."""
    st.subheader("Styles most similar to themselves")
    k = next(iter(reports.values())).n_styles
    st.caption(
        f"A style-invariant embedder would make each style's most similar style a matter of chance. The paper "
        f"compares the count with 1/k = {100 / k:.1f}%. But with self-pairs included the matrix is a Gram matrix "
        "of the style means, whose largest cell always lies on the diagonal, so at least one style is always "
        "self-similar: the right reference is the count with **style labels shuffled** over sentences (same "
        "style sizes, same 3-decimal tie rule). p = share of shuffles reaching the observed count.")
    cols = st.columns(len(reports))
    for col, (spec, r) in zip(cols, reports.items()):
        perm = r.permutation
        col.metric(PRESETS.get(spec, spec), f"{r.self_count}/{r.n_styles} = {100 * r.self_share:.1f}%",
                   delta=f"permutation p = {perm.p_value:.3f}", delta_color="off", delta_arrow="off",
                   help=f"chance 1/k = {100 * r.chance:.1f}%; shuffled labels give {perm.null_counts.mean():.2f} "
                        "on average; bootstrap 95% interval of the count: "
                        f"{r.intervals.count_low}-{r.intervals.count_high}")
        col.caption(f"1/k chance {100 * r.chance:.1f}% · shuffled-label mean {perm.null_counts.mean():.2f} "
                    f"({100 * perm.null_counts.mean() / r.n_styles:.1f}%) · bootstrap 95% CI "
                    f"{r.intervals.count_low}-{r.intervals.count_high}")
        with col.expander("Shuffled-label distribution"):
            st.plotly_chart(permutation_figure(perm.null_counts, r.self_count, r.n_styles),
                            width="stretch", key=f"sim-perm-{spec}")
    if dataset_name == "cds" and k == PAPER_STYLES:
        paper = pd.DataFrame([{"embedder (paper, Table 7)": n, "self-similar": f"{c}/11",
                               "%": round(100 * c / 11, 1)} for n, c in PAPER_SELF_COUNTS.items()])
        st.markdown("Published counts on the same corpus (Fitzpatrick et al., Table 7):")
        st.dataframe(paper, hide_index=True)


def leakage(reports: dict) -> None:
    """Style leakage per embedder and the ranking from most to least style-invariant."""
    st.subheader("Style leakage: which embedder is most style-invariant?")
    ranking = invariance_ranking(list(reports.values()))
    ranking["embedder"] = ranking["embedder"].map(lambda s: PRESETS.get(s, s))
    best = ranking.iloc[0]
    st.caption(
        "Style accuracy: 5-fold cross-validated logistic regression predicting the style from the unit-normalised "
        "embedding (**lower = more style-invariant**); leakage rescales it so 0 = majority-class rate and 1 = "
        "perfect. Silhouette (cosine) of the style clusters: near 0 or below = styles not separated. A low "
        "leakage says cosine scores are little confounded by style, not that the embedder captures content "
        "(random vectors are perfectly style-invariant); higher-dimensional embedders give the classifier more "
        "room, so compare embedders of similar size where you can.")
    if len(ranking) > 1:
        st.success(f"Most style-invariant of those chosen: **{best['embedder']}** (style accuracy "
                   f"{best['style accuracy (CV)']:.3f} vs majority {best['majority rate']:.3f}).")
    st.plotly_chart(leakage_figure(ranking), width="stretch", key="sim-leak-fig")
    percent = st.column_config.NumberColumn(format="%.1f")
    three = st.column_config.NumberColumn(format="%.3f")
    st.dataframe(ranking, hide_index=True, width="stretch", column_config={
        "rank": st.column_config.NumberColumn(width="small"), "embedder": st.column_config.TextColumn(width="medium"),
        "self-similar %": percent, "chance %": percent, **{c: three for c in ranking.columns[5:]}})
    downloads(ranking.set_index("rank"), "style-invariance-ranking", key="sim-rank")


OTHER_CORPORA = ("Choose a corpus with several styles on the home page (the demo, the Corpus of Diverse Styles, "
                 "Yelp sentiment, Mir et al.'s Yelp outputs), or upload pairs with a source-style column.")


def style_sentences(dataset) -> pd.DataFrame:
    """The style-labelled sentences, or a message saying why this view does not apply (and stop)."""
    try:
        texts = dataset.style_texts()
    except DataError:
        st.info(f"**This view does not apply to {ui.escape(dataset.title)}**: it has no style labels, so there are "
                f"no styles to compare. {OTHER_CORPORA}", icon="ℹ️")
        st.stop()
    sizes = texts["style"].value_counts()
    if (sizes < 2).any() and (sizes >= 2).sum() >= 2:
        # A style with one sentence has no within-style pair; leave it out (said on screen) rather than fail.
        tiny = sizes[sizes < 2]
        st.warning("Left out, fewer than 2 sentences: " + ", ".join(f"*{ui.escape(k)}* ({v})" for k, v in tiny.items()),
                   icon=":material/filter_alt:")
        texts = texts[texts["style"].isin(sizes[sizes >= 2].index)]
    n_styles = texts["style"].nunique()
    from_pairs = dataset.texts is None
    origin = "distinct source sentences of the pairs" if from_pairs else "sentences"
    why = (" (They are the distinct source sentences of the pairs: system outputs are not used as style examples, "
           "since whether they carry the target style is what is being evaluated.)" if from_pairs else "")
    if n_styles < 2:
        st.info(f"**This view does not apply to {ui.escape(dataset.title)}.** Style similarity compares styles with "
                f"each other, so it needs two or more, but all {len(texts):,} style-labelled sentences here have one "
                f"style, *{ui.escape(texts['style'].iloc[0])}*.{why}\n\n{OTHER_CORPORA} The **Embedding map** can "
                "still show these sentences, or the outputs coloured by score.", icon="ℹ️")
        st.stop()
    if from_pairs:
        origin += ", labelled with their source style (outputs are not style examples)"
    st.caption(f"{len(texts):,} {origin}, in {n_styles} styles.")
    return texts


def main() -> None:
    """Dataset check, controls, then the paper's tables and the extensions."""
    ui.page_setup("Style similarity")
    st.markdown(INTRO)
    dataset = ui.require_dataset()
    texts = style_sentences(dataset)
    texts = choose_sample(texts)
    options = controls(texts)
    if not options["specs"]:
        st.info("Choose at least one embedder.")
        st.stop()
    ui.oov_notes(options["specs"], texts["text"].tolist())
    reports = compute(texts, options)
    if not reports:
        st.stop()
    heatmaps(reports)
    self_similarity(reports, dataset.name)
    tables(reports, options["include_self"])
    if options["leakage"]:
        leakage(reports)
    else:
        st.caption("Tick **Style leakage** above to rank the embedders from most to least style-invariant.")


main()
