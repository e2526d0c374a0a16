"""Tradeoffs (Mir et al. 2019, Figure 2): style transfer intensity against content preservation and
naturalness, one point per system and setting, lines per system, the Pareto front marked; and the
distributions of intensity and content for system outputs against references (Cloudera Figs. 6, 8)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.cache import fingerprint
from stviz.classify import default_classifier, human_reference_texts
from stviz.data.schema import DataError, short_name
from stviz.metrics import available_metrics, get_card
from stviz.metrics.naturalness import KIND_LABELS, NATURALNESS_RELATIVE, naturalness_agreement
from stviz.metrics.style import correlation_with_humans, style_transfer_intensity, tradeoff_pairs, tradeoff_table
from stviz.plots.style import distribution_figure, tradeoff_figure

AXIS_LABELS = {
    "direction_corrected_emd": "style transfer intensity (direction-corrected EMD, higher = further toward the target)",
    "normalised_intensity": "normalised intensity (share of the possible move toward the target, higher = more)",
    "target_style_probability": "target-style probability of outputs (higher = more target-like)",
    "p_target_source": "target-style probability of sources",
    "p_target_output": "target-style probability of outputs (higher = more target-like)",
    "emd": "EMD between source and output style (undirected, higher = more change)",
    "target_style_accuracy": "target-style accuracy (share of outputs classified as the target)",
    "content_preservation": "content preservation",
    "p_human_output": "naturalness: P(human) of outputs (higher = more natural)",
    "p_human_source": "naturalness: P(human) of sources",
    "output_more_natural": "naturalness: share of outputs more natural than their input (higher = better)",
}
INTRO = ("Stronger style transfer usually costs content and fluency (Mir et al. 2019, Figure 2). Each point is one "
         "system setting, averaged over its pairs; lines join the settings of one system in hyper-parameter order, and "
         "the starred points form the Pareto front: no other setting is better on both axes.")


@st.cache_resource(show_spinner=False)
def _classifier(pairs_key: str, kind: str, _dataset):
    # Keyed by the pairs' content: a re-uploaded file with the same name gets its own classifier.
    with ui.progress_bar(f"Training the {kind} style classifier") as report:
        return default_classifier(_dataset, kind, progress=report)


def settings(dataset) -> dict:
    """Classifier, content metric, modification and naturalness model."""
    cols = st.columns([1.1, 1.6, 1.2, 1.3])
    kind = cols[0].radio("Style classifier", ["lr", "transformer"], horizontal=True, key="trade-kind",
                         format_func={"lr": "TF-IDF LR", "transformer": "MiniLM + head"}.get)
    cards = [c for c in available_metrics(dataset.pairs) if c.name != "ne"]
    names = [c.name for c in cards]
    metric = cols[1].selectbox("Content metric", names, index=names.index("cosine:minilm"), key="trade-metric",
                               format_func=lambda n: get_card(n).label)
    lexicons = ui.lexicon_sources(dataset)
    mods = ["none"] + (["masking", "removal"] if lexicons else [])
    modification = cols[2].selectbox("Style words before the content metric", mods, key="trade-mod",
                                     help="Mir et al. mask style-lexicon words before measuring content.")
    naturalness = cols[3].selectbox("Naturalness classifier", list(KIND_LABELS) + ["none"], key="trade-nat",
                                    format_func=lambda k: KIND_LABELS.get(k, "none (skip)"))
    lexicon = ui.lexicon_select(dataset, "trade-lexicon", sources=lexicons) if modification != "none" else None
    return {"kind": kind, "metric": metric, "modification": modification, "lexicon": lexicon,
            "naturalness": None if naturalness == "none" else naturalness}


def tradeoff_plots(table: pd.DataFrame, metric: str) -> None:
    """Two scatter plots whose axes the user picks; intensity vs content and vs naturalness by default."""
    axes = [c for c in table.columns if c != "n" and table[c].notna().any()]
    card = get_card(metric)
    content = (f"content preservation ({card.label}, higher = more similar)" if card.higher_is_better else
               f"content preservation (minus {card.label}, higher = more similar)")
    labels = dict(AXIS_LABELS, content_preservation=content)
    human = " (human, higher = more)"
    fmt = lambda c: labels.get(c, short_name(c) + (human if str(c).startswith("human:") else ""))  # noqa: E731
    second = "p_human_output" if "p_human_output" in axes else next((a for a in axes if "natural" in a), axes[0])
    for k, (x_default, y_default) in enumerate([("direction_corrected_emd", "content_preservation"),
                                                ("direction_corrected_emd", second)]):
        cols = st.columns(2)
        # Short names in the select boxes (long ones are cut off there); the axes carry the full labels.
        short = lambda c: fmt(c).split(" (")[0]  # noqa: E731
        x = cols[0].selectbox("x axis", axes, index=axes.index(x_default), format_func=short, key=f"trade-x{k}")
        y = cols[1].selectbox("y axis", axes, index=axes.index(y_default), format_func=short, key=f"trade-y{k}")
        fig = tradeoff_figure(table, x, y, x_label=fmt(x), y_label=fmt(y))
        st.plotly_chart(fig, key=f"trade-fig{k}")
        ui.download_figure(fig, f"tradeoff-{x}-vs-{y}".replace(":", "_"), key=f"trade-dl{k}")


def reference_histograms(pairs: pd.DataFrame, per_pair: pd.DataFrame, trained, chosen: dict) -> None:
    """Intensity and content of system outputs against reference outputs (Cloudera Figs. 6 and 8)."""
    if "reference" not in pairs or pairs["reference"].isna().all():
        return
    from stviz.metrics import metric_frame

    metric = chosen["metric"]
    refs = pairs[pairs["reference"].notna()].drop_duplicates(["source", "reference"])
    ref_pairs = refs.assign(output=refs["reference"])
    ref_scores = style_transfer_intensity(ref_pairs, trained)
    panels = [("direction_corrected_emd", AXIS_LABELS["direction_corrected_emd"])]
    # A precomputed metric column belongs to the system outputs: it cannot score the references.
    if not get_card(metric).precomputed:
        card = get_card(metric)
        content = metric_frame(ref_pairs, [metric], modification=chosen["modification"], lexicon=chosen["lexicon"])[metric]
        ref_scores["content_preservation"] = content if card.higher_is_better else -content
        panels.append(("content_preservation", f"content preservation ({card.label}, higher = more similar)"))
    st.subheader("System outputs vs references")
    for column, label in panels:
        frame = pd.concat([per_pair[[column]].assign(texts="system outputs"),
                           ref_scores[[column]].assign(texts="references")])
        fig = distribution_figure(frame, column, "texts", label=label)
        st.plotly_chart(fig, key=f"ref-{column}")
        ui.download_figure(fig, f"reference-{column}", key=f"ref-dl-{column}")


def readable_table(table: pd.DataFrame) -> pd.DataFrame:
    """The per-setting table for the screen: every column numeric, human columns named as such."""
    shown = table.apply(pd.to_numeric, errors="coerce")
    return shown.rename(columns=lambda c: f"{short_name(c)} (human)" if str(c).startswith("human:") else c)


def naturalness_vs_raters(pairs: pd.DataFrame, per_pair: pd.DataFrame, kind: str) -> None:
    """How often the adversarial classifier picks the same text of a pair as more natural as the raters did."""
    st.subheader("Naturalness classifier vs raters (Mir et al. section 5)")
    table = naturalness_agreement(pairs, per_pair)
    st.dataframe(table.style.format({"agreement": "{:.3f}", "n_judged": "{:,}"}), key="trade-nat-agreement")
    st.caption(f"Share of rated pairs where the adversarial {KIND_LABELS.get(kind, kind)} and the raters chose the "
               "same text as more natural (chance: 0.5). Mir et al. report 0.68 (unigram) and 0.70 (LSTM) with "
               "their classifiers.")
    ui.download_table(table, "naturalness-agreement")


def main() -> None:
    """Settings, tradeoff plots, the per-setting table, Table 7 correlations and reference histograms."""
    ui.page_setup("Tradeoffs")
    st.caption(INTRO)
    dataset = ui.require_dataset()
    pairs = ui.require_pairs(dataset, "and tradeoffs compare system outputs with their sources")
    if "target_style" not in pairs:
        st.info(f"**{ui.escape(dataset.title or dataset.name)}** has pairs without a target-style column. Tradeoffs "
                "measure how far outputs move toward a target style: choose the demo, Mir et al. Yelp outputs, or "
                "upload pairs with a target-style column on the home page.")
        st.stop()
    ui.require_style_labels(dataset, "style transfer intensity, naturalness, and so the tradeoff plots")
    chosen = settings(dataset)
    try:
        trained = _classifier(fingerprint(pairs), chosen["kind"], dataset)
        with ui.progress_bar("Scoring intensity, content and naturalness") as report:
            per_pair = tradeoff_pairs(pairs, trained, content_metric=chosen["metric"],
                                      modification=chosen["modification"], lexicon=chosen["lexicon"],
                                      naturalness=chosen["naturalness"],
                                      human_texts=human_reference_texts(dataset) if chosen["naturalness"] else (),
                                      progress=report)
    except DataError as exc:
        ui.show_error(exc)
        st.stop()
    ui.classifier_panel(trained, key="trade-confusion", note=f"Naturalness: adversarial "
                        f"{KIND_LABELS.get(chosen['naturalness'], 'not computed')}, cross-fitted per system.")
    table = tradeoff_table(pairs, per_pair)
    tradeoff_plots(table, chosen["metric"])
    st.subheader("One row per " + " and ".join(str(n) for n in table.index.names))
    shown = readable_table(table)
    st.dataframe(shown.style.format("{:.3f}", subset=[c for c in shown.columns if c != "n"], na_rep="–"),
                 key="trade-table")
    if shown.isna().any().any():
        st.caption("*None*: no value for that row (e.g. a human score the raters did not give for that setting).")
    ui.download_table(table, "tradeoff-table")
    if "human:style_transfer_intensity" in pairs:
        st.subheader("Intensity measures vs human intensity: Pearson r (Mir et al. Table 7)")
        corr = correlation_with_humans(pairs, per_pair, measures=("direction_corrected_emd", "normalised_intensity",
                                                                  "target_style_probability", "target_style_accuracy"))
        st.dataframe(corr.style.format("{:.3f}"), key="trade-corr")
        st.caption("Pearson r per system, pooled over its settings; higher = closer to human judgments.")
        ui.download_table(corr, "intensity-vs-human")
    if chosen["naturalness"] and NATURALNESS_RELATIVE in pairs:
        naturalness_vs_raters(pairs, per_pair, chosen["naturalness"])
    reference_histograms(pairs, per_pair, trained, chosen)


main()
