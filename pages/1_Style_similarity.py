"""Style similarity (Fitzpatrick et al.): is an embedder style-invariant enough to measure content
preservation? Style x style cosine heatmaps side by side, most-similar styles, the self-similarity
count against chance with a permutation p-value, and style leakage with a ranking of embedders."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

import ui
from stviz.analyses import similarity as analysis
from stviz.analyses.similarity import PAPER_SELF_COUNTS, PAPER_STYLES, PER_STYLE_CHOICES, matrix_latex, row_maxima
from stviz.languages.measures import resolve_embedders
from stviz.plots.similarity import (for_export, heatmap_export_width, leakage_figure, permutation_figure,
                                    similarity_heatmap, similarity_heatmaps)

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


def controls(dataset, defaults: analysis.Options) -> analysis.Options:
    """Embedders, sample size, self-pair rule, permutations, leakage -> Options."""
    specs = ui.embedder_select("Embedders (up to 4, side by side)", key="sim-embedders", multi=True,
                               max_selections=4, default=list(resolve_embedders(dataset, defaults.embedders)))
    n_sentences = len(dataset.style_texts())
    auto = analysis.resolve_per_style(defaults, n_sentences)
    choices = [n for n in PER_STYLE_CHOICES if n == 0 or n < n_sentences]
    everything = f"all ({n_sentences:,} sentences)"
    if n_sentences > analysis.LARGE:  # MiniLM embeds ~300 sentences/s on 2 idle cores: say what "all" costs
        everything += f" - slow: {n_sentences / 300 / 60:,.0f} min or more with MiniLM the first time"
    cols = st.columns([2, 2, 1, 1])
    per_style = cols[0].selectbox("Sentences per style", choices, index=choices.index(auto or 0) if (auto or 0) in
                                  choices else 0, key="sim-per-style",
                                  format_func=lambda n: everything if n == 0 else f"random {n:,} per style",
                                  help="Large corpora are sampled (seeded) so that embedding stays quick; every "
                                       "result below is then computed on the sample.")
    include_self = cols[1].radio(
        "Diagonal", [False, True], index=int(defaults.include_self), horizontal=True, key="sim-include-self",
        help=SELF_PAIRS_HELP, format_func=lambda v: "self-pairs included (the paper's wording)" if v else
        "self-pairs excluded")
    permutations = cols[2].selectbox("Label shuffles", [199, 999, 4999], index=[199, 999, 4999].index(
        defaults.permutations) if defaults.permutations in (199, 999, 4999) else 1, key="sim-perms",
        help="For the permutation p-value of the self-similarity count.")
    leakage = cols[3].checkbox(
        "Style leakage", value=defaults.leakage, key="sim-leakage",
        help="Cross-validated logistic regression predicting style from the embedding, and the silhouette of "
             f"the style clusters. About 1-3 minutes per embedder on {n_sentences:,} sentences the first time (cached).")
    return defaults.changed(embedders=tuple(specs), per_style=per_style, include_self=include_self,
                            permutations=permutations, leakage=leakage)


def heatmaps(result: analysis.Result) -> None:
    """The paper's Tables 1-3 as annotated heatmaps, side by side."""
    st.subheader("Mean cosine similarity between styles")
    st.caption("Row style -> column style, higher = more similar. **Bold \\*** = row maximum at 3 decimals "
               "(ties all marked). The matrix is symmetric: the mean of per-sentence means equals the mean over "
               "all pairs. Hover a cell for its 95% bootstrap interval (sentences resampled within each style).")
    reports = result.reports
    if len(reports) == 1:
        spec, report = next(iter(reports.items()))
        fig = similarity_heatmap(report.matrix, result.labels[spec], low=_low(report), high=_high(report))
    else:
        shared = st.radio("Colour scale", ["one for all panels", "one per panel"], horizontal=True,
                          key="sim-scale", help="One scale: the same colour means the same cosine in every panel. "
                          "One per panel: each embedder's own contrast (its cosines may all lie in a narrow band).")
        fig = similarity_heatmaps({result.labels[s]: r.matrix for s, r in reports.items()},
                                  intervals={result.labels[s]: (_low(r), _high(r)) for s, r in reports.items()},
                                  shared_scale=shared == "one for all panels")
    ui.plotly_chart(fig, width="stretch", key="sim-heatmaps")
    ui.download_figure(for_export(fig, heatmap_export_width(result.n_styles, len(reports))), "style-similarity",
                       key="sim-fig")


def _low(report):
    return report.intervals.low if report.intervals else None


def _high(report):
    return report.intervals.high if report.intervals else None


def _bold_maxima(matrix: pd.DataFrame):
    mask = pd.DataFrame(row_maxima(matrix, 3), index=matrix.index, columns=matrix.columns)
    bold = mask.map(lambda m: "font-weight: bold" if m else "")
    return matrix.style.format("{:.3f}").apply(lambda _: bold, axis=None)


def _latex(matrix: pd.DataFrame, caption: str) -> bytes:
    return matrix_latex(matrix, 3, caption=caption).encode()


def tables(result: analysis.Result, include_self: bool) -> None:
    """Per embedder: the matrix in the paper's layout and the most-similar table, with downloads."""
    st.subheader(ui.preview_title("Tables (the paper's layout)"))
    # Only the open tab is drawn (ui.lazy); a custom embedder's spec is its label, as typed.
    ui.draw_tabs({ui.literal(result.labels[spec]): partial(embedder_tables, result, spec, include_self)
                  for spec in result.reports}, key="sim-tables-tab")


def embedder_tables(result: analysis.Result, spec: str, include_self: bool) -> None:
    """One embedder's matrix and most-similar table, with their downloads and notes."""
    report, name = result.reports[spec], spec.replace(":", "_").replace("/", "_")
    # A static table, as in the paper: long style names (coha_1810-1830) wrap in the header instead of
    # being cut, and 11 styles fit the page width. Its labels are Markdown: style names escaped.
    st.table(_bold_maxima(report.matrix.rename(index=ui.literal, columns=ui.literal)))
    caption = (f"Mean cosine similarity between styles, {result.labels[spec]}, self-pairs "
               f"{'included' if include_self else 'excluded'}.")
    ui.download_table(report.matrix.round(6), f"style-similarity-{name}", key=f"sim-m-{name}",
                      latex=partial(_latex, report.matrix, caption))  # LaTeX with the row maxima bold
    rows_height = 35 * (len(report.matrix) + 1) + 3  # every style visible without scrolling
    st.markdown("**Most similar style** (ties listed; Tables 4-6 of the paper)")
    table = report.most_similar.assign(similarity=report.most_similar["similarity"].round(3))
    st.dataframe(table, hide_index=True, width="stretch", height=rows_height,
                 column_config={"similarity": st.column_config.NumberColumn(format="%.3f")})
    ui.download_table(table.set_index("style"), f"most-similar-{name}", key=f"sim-ms-{name}")
    ui.show_notes(report.notes)


def self_similarity(result: analysis.Result, dataset_name: str) -> None:
    """Table 7: styles most similar to themselves, against chance, with the permutation p-value."""
    st.subheader(ui.preview_title("Styles most similar to themselves"))
    k = result.n_styles
    st.caption(
        f"A style-invariant embedder would make each style's most similar style a matter of chance. The paper "
        f"compares the count with 1/k = {100 / k:.1f}%. But with self-pairs included the matrix is a Gram matrix "
        "of the style means, whose largest cell always lies on the diagonal, so at least one style is always "
        "self-similar: the right reference is the count with **style labels shuffled** over sentences (same "
        "style sizes, same 3-decimal tie rule). p = share of shuffles reaching the observed count.")
    cols = st.columns(len(result.reports))
    for col, (spec, r) in zip(cols, result.reports.items()):
        perm = r.permutation
        interval = (f"bootstrap 95% CI {r.intervals.count_low}-{r.intervals.count_high}" if r.intervals
                    else "no bootstrap")
        col.metric(ui.literal(result.labels[spec]), f"{r.self_count}/{r.n_styles} = {100 * r.self_share:.1f}%",
                   delta=f"permutation p = {perm.p_value:.3f}", delta_color="off", delta_arrow="off",
                   help=f"chance 1/k = {100 * r.chance:.1f}%; shuffled labels give {perm.null_counts.mean():.2f} "
                        f"on average; {interval}")
        col.caption(f"1/k chance {100 * r.chance:.1f}% · shuffled-label mean {perm.null_counts.mean():.2f} "
                    f"({100 * perm.null_counts.mean() / r.n_styles:.1f}%) · {interval}")
        with col.expander("Shuffled-label distribution"):
            ui.plotly_chart(permutation_figure(perm.null_counts, r.self_count, r.n_styles),
                            width="stretch", key=f"sim-perm-{spec}")
    if dataset_name == "cds" and k == PAPER_STYLES:
        paper = pd.DataFrame([{"embedder (paper, Table 7)": n, "self-similar": f"{c}/11",
                               "%": round(100 * c / 11, 1)} for n, c in PAPER_SELF_COUNTS.items()])
        st.markdown("Published counts on the same corpus (Fitzpatrick et al., Table 7):")
        st.dataframe(paper, hide_index=True)


def leakage(result: analysis.Result) -> None:
    """Style leakage per embedder and the ranking from most to least style-invariant."""
    st.subheader("Style leakage: which embedder is most style-invariant?")
    ranking = result.ranking
    best = ranking.iloc[0]
    st.caption(
        "Style accuracy: 5-fold cross-validated logistic regression predicting the style from the unit-normalised "
        "embedding (**lower = more style-invariant**); leakage rescales it so 0 = majority-class rate and 1 = "
        "perfect. Silhouette (cosine) of the style clusters: near 0 or below = styles not separated. A low "
        "leakage says cosine scores are little confounded by style, not that the embedder captures content "
        "(random vectors are perfectly style-invariant); higher-dimensional embedders give the classifier more "
        "room, so compare embedders of similar size where you can.")
    if len(ranking) > 1:
        st.success(f"Most style-invariant of those chosen: **{ui.literal(best['embedder'])}** (style accuracy "
                   f"{best['style accuracy (CV)']:.3f} vs majority {best['majority rate']:.3f}).")
    ui.plotly_chart(leakage_figure(ranking), width="stretch", key="sim-leak-fig")
    percent = st.column_config.NumberColumn(format="%.1f")
    three = st.column_config.NumberColumn(format="%.3f")
    st.dataframe(ranking, hide_index=True, width="stretch", column_config={
        "rank": st.column_config.NumberColumn(width="small"), "embedder": st.column_config.TextColumn(width="medium"),
        "self-similar %": percent, "chance %": percent, **{c: three for c in ranking.columns[5:]}})
    ui.download_table(ranking.set_index("rank"), "style-invariance-ranking", key="sim-rank")


def main() -> None:
    """Dataset check, controls, then the paper's tables and the extensions."""
    dataset, defaults = ui.open_view(analysis, INTRO)
    options = controls(dataset, defaults)
    ui.remember(analysis, options)
    if not options.embedders:
        st.info("Choose at least one embedder.")
        st.stop()
    early = st.empty()  # each embedder's heatmap as soon as it is ready, while the others still compute
    shown: dict = {}

    def show_early(spec, report) -> None:
        shown[spec] = report.matrix
        with early.container():
            st.caption("Finished so far (the full results follow when every embedder is done):")
            for column, (done, matrix) in zip(st.columns(len(options.embedders)), shown.items()):
                column.plotly_chart(similarity_heatmap(matrix, done), width="stretch", key=f"sim-early-{done}-{len(shown)}")

    result = ui.run_analysis(analysis, dataset, options, on_partial=show_early)
    early.empty()
    for spec, error in result.errors.items():
        ui.show_error(f"{spec}: {error}")
    st.caption(f"{len(result.texts):,} sentences in {result.n_styles} styles.")
    ui.show_notes(result.notes)
    if not result.reports:
        st.stop()
    heatmaps(result)
    self_similarity(result, dataset.name)
    tables(result, options.include_self)
    if result.ranking is not None:
        leakage(result)
    else:
        st.caption("Tick **Style leakage** above to rank the embedders from most to least style-invariant.")


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
