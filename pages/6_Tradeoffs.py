"""Tradeoffs (Mir et al. 2019, Figure 2): style transfer intensity against content preservation and
naturalness, one point per system and setting, lines per system, the Pareto front marked; and the
distributions of intensity and content for system outputs against references (Cloudera Figs. 6, 8)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.analyses import choices
from stviz.analyses import tradeoffs as analysis
from stviz.analyses.metrics_vs_humans import metric_label
from stviz.analyses.tradeoffs import KIND_LABELS
from stviz.plots.style import distribution_figure, tradeoff_figure

INTRO = ("Stronger style transfer usually costs content and fluency (Mir et al. 2019, Figure 2). Each point is one "
         "system setting, averaged over its pairs; lines join the settings of one system in hyper-parameter order, and "
         "the starred points form the Pareto front: no other setting is better on both axes.")
NATURALNESS_LABELS = {"unigram": "unigram logistic regression", "neural": "MLP on MiniLM vectors", "none": "none (skip)"}


@st.cache_resource(show_spinner=False)
def _classifier(pairs_key: str, kind: str, _dataset):
    # Keyed by the pairs' content: a re-uploaded file with the same name gets its own classifier.
    # Trained in the server's pool like every heavy computation: queued behind other sessions' work, said so.
    return ui.compute(f"tradeoffs-classifier:{pairs_key}:{kind}",
                      lambda progress: analysis.classifier(_dataset, analysis.Options(classifier_kind=kind), progress),
                      label="Training the style classifier")


def settings(dataset, defaults: analysis.Options) -> analysis.Options:
    """Classifier, content metric (with or without the NE merge), modification and naturalness model -> Options."""
    defaults, _ = analysis.for_language(dataset, defaults)  # MiniLM's choices are English's: not offered elsewhere
    cols = st.columns([1.1, 2, 1.2, 1.3])  # room for a content metric's whole name
    kinds = analysis.offered_kinds(dataset)
    kind = cols[0].radio("Style classifier", kinds, index=kinds.index(defaults.classifier_kind),
                         horizontal=True, key="trade-kind", format_func=KIND_LABELS.get)
    names = choices.content_metrics(dataset)
    metric = cols[1].selectbox("Content metric", names, index=names.index(defaults.content_metric), key="trade-metric",
                               format_func=metric_label)
    with_ne = cols[1].checkbox("Named-entity merge (Babakov et al.)", value=defaults.with_ne, key="trade-ne",
                               help="Content preservation as M*(1-p) + M_NE*p: M_NE is the Jaccard index of the "
                                    "entities of both texts, p the share of entity tokens.")
    mods = choices.modifications(dataset)
    modification = cols[2].selectbox("Style words", mods, key="trade-mod",  # one line: the menus stay aligned
                                     index=mods.index(defaults.modification),
                                     help="What happens to style-lexicon words before the content metric: kept "
                                          "(none), masked or removed. Mir et al. mask them.")
    natural = analysis.offered_naturalness(dataset)
    naturalness = cols[3].selectbox("Naturalness classifier", natural, key="trade-nat",
                                    index=natural.index(defaults.naturalness), format_func=NATURALNESS_LABELS.get)
    lexicon = (ui.lexicon_select(dataset, "trade-lexicon", default=defaults.lexicon) if modification != "none"
               else defaults.lexicon)
    return defaults.changed(classifier_kind=kind, content_metric=metric, with_ne=with_ne, modification=modification,
                            naturalness=naturalness, lexicon=lexicon)


def tradeoff_plots(result: analysis.Result) -> None:
    """Two scatter plots whose axes the user picks; intensity vs content and vs naturalness by default."""
    axes = result.axes
    second = "p_human_output" if "p_human_output" in axes else next((a for a in axes if "natural" in a), axes[0])
    # Short names in the select boxes (long ones are cut off there); the axes carry the full labels.
    short = lambda c: result.axis_label(c).split(" (")[0] + (" (human)" if str(c).startswith("human:") else "")  # noqa: E731
    for k, (x_default, y_default) in enumerate([("direction_corrected_emd", "content_preservation"),
                                                ("direction_corrected_emd", second)]):
        cols = st.columns(2)
        x = cols[0].selectbox("x axis", axes, index=axes.index(x_default), format_func=short, key=f"trade-x{k}")
        y = cols[1].selectbox("y axis", axes, index=axes.index(y_default), format_func=short, key=f"trade-y{k}")
        fig = tradeoff_figure(result.table, x, y, x_label=result.axis_label(x), y_label=result.axis_label(y))
        st.plotly_chart(fig, key=f"trade-fig{k}")
        ui.download_figure(fig, f"tradeoff-{x}-vs-{y}".replace(":", "_"), key=f"trade-dl{k}")


def reference_histograms(result: analysis.Result) -> None:
    """Intensity and content of system outputs against human references (Cloudera Figs. 6 and 8)."""
    if result.references is None:
        return
    st.subheader("System outputs vs references")
    for column in ("direction_corrected_emd", "content_preservation"):
        if column not in result.references:
            continue  # a precomputed metric column belongs to the system outputs: it cannot score the references
        frame = pd.concat([result.per_pair[[column]].assign(texts="system outputs"),
                           result.references[[column]].assign(texts="references")])
        fig = distribution_figure(frame, column, "texts", label=result.axis_label(column))
        st.plotly_chart(fig, key=f"ref-{column}")
        ui.download_figure(fig, f"reference-{column}", key=f"ref-dl-{column}")


def main() -> None:
    """Settings, tradeoff plots, the per-setting table, Table 7 correlations and reference histograms."""
    dataset, defaults = ui.open_view(analysis, INTRO, small_intro=True)
    options = settings(dataset, defaults)
    ui.remember(analysis, options)
    trained = _classifier(ui.dataset_key(dataset), options.classifier_kind, dataset)
    result = ui.run_analysis(analysis, dataset, options, trained=trained)
    ui.classifier_panel(trained, key="trade-confusion", note=f"Naturalness: adversarial "
                        f"{NATURALNESS_LABELS[options.naturalness]}, cross-fitted per system.")
    tradeoff_plots(result)
    st.subheader("One row per " + " and ".join(str(n) for n in result.table.index.names))
    shown = analysis.readable_table(result)
    st.dataframe(shown.style.format("{:.3f}", subset=[c for c in shown.columns if c != "n"], na_rep="–"),
                 key="trade-table", placeholder="–",  # the grid shows empty cells as "None" unless told
                 height=35 * (min(len(shown), 20) + 1) + 3)  # every setting in view, up to 20
    ui.show_notes(result.notes)
    ui.download_table(result.table, "tradeoff-table")
    if result.intensity_vs_human is not None:
        st.subheader("Intensity measures vs human intensity: Pearson r (Mir et al. Table 7)")
        st.dataframe(result.intensity_vs_human.style.format("{:.3f}"), key="trade-corr")
        st.caption("Pearson r per system, pooled over its settings; higher = closer to human judgments.")
        ui.download_table(result.intensity_vs_human, "intensity-vs-human")
    if result.naturalness_agreement is not None:
        st.subheader("Naturalness classifier vs raters (Mir et al. section 5)")
        st.dataframe(result.naturalness_agreement.style.format({"agreement": "{:.3f}", "n_judged": "{:,}"}),
                     key="trade-nat-agreement")
        st.caption(f"Share of rated pairs where the adversarial {NATURALNESS_LABELS[options.naturalness]} and the "
                   "raters chose the same text as more natural (chance: 0.5). Mir et al. report 0.68 (unigram) and "
                   "0.70 (LSTM) with their classifiers.")
        ui.download_table(result.naturalness_agreement, "naturalness-agreement")
    reference_histograms(result)


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
