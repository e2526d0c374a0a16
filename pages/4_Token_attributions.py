"""Token attributions and style masking (Cloudera Fast Forward Labs 2022; Mir et al. 2019).

Integrated Gradients from the MiniLM style classifier colour each word of a pair's source and
output; the words making up the top X% of attribution mass are removed or replaced, and content
preservation (embedding cosine) is shown on the masked texts next to the unmasked ones.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.attribute import (DEFAULT_PLACEHOLDER, attribute_text, mask_by_attribution, mask_by_lexicon, masking_sweep,
                             sweep_correlations)
from stviz.cache import fingerprint
from stviz.classify import default_classifier
from stviz.data.schema import DataError, short_name
from stviz.metrics import compute_metric
from stviz.metrics.style import setting_value
from stviz.plots.style import sweep_figure, tokens_html

CONTENT_METRIC = "cosine:minilm"
INTRO = ("Which words make a text sound like its style? A MiniLM style classifier is explained word by word with "
         "Integrated Gradients; the words carrying most of the attribution are then masked, and content preservation "
         "is measured again without them (Cloudera Fast Forward Labs 2022), so that a rewrite is not penalised for "
         "changing exactly the words it was asked to change.")


@st.cache_resource(show_spinner=False)
def _classifier(pairs_key: str, _dataset):
    # One classifier object per dataset (keyed by its pairs' content, so a re-uploaded file with the
    # same name is not confused with the old one) and process: its torch model is built once and kept.
    with ui.progress_bar("Training the MiniLM style classifier (embeddings are cached)") as report:
        return default_classifier(_dataset, "transformer", progress=report)


def choose_pair(pairs: pd.DataFrame) -> pd.Series:
    """A system filter and one pair."""
    rows = pairs
    filters = [c for c in ("system", "setting") if c in pairs]
    cols = st.columns(len(filters) or 1)
    for col, column in zip(cols, filters):
        values = ["(all)"] + sorted(rows[column].astype(str).unique(), key=lambda v: (setting_value(v), v))
        value = col.selectbox(column.capitalize(), values, key=f"attr-{column}")
        if value != "(all)":
            rows = rows[rows[column].astype(str) == value]
    labels = {i: _pair_label(i, r, filters) for i, r in rows.iterrows()}
    index = st.selectbox(f"Pair ({len(rows):,})", list(labels), format_func=labels.get, key="attr-pair")
    return pairs.loc[index]


def _pair_label(index, row: pd.Series, filters: list[str]) -> str:
    """'12 · ARAE lambda=1: source → output', texts cut to fit a select box."""
    tag = " ".join(str(row[c]) for c in filters)
    return f"{index}{' · ' + tag if tag else ''}: {_clip(row['source'])} → {_clip(row['output'])}"


def _clip(text, width: int = 60) -> str:
    """Text cut to ``width`` characters, with an ellipsis when it was cut."""
    text = str(text)
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def masking_controls(dataset, styles: list[str]) -> dict:
    """Style to attribute toward, threshold, strategy, placeholder and the 'stand out' option."""
    style = st.selectbox("Attribute toward", ["(each text's predicted style)"] + styles, key="attr-style")
    cols = st.columns([3, 4, 2])
    threshold = cols[0].slider("Mask the top share of attribution mass", 0.05, 0.9, 0.3, 0.05, key="attr-threshold",
                               help="Words are ranked by |attribution| share; those making up this much mass are masked.")
    lexicons = ui.lexicon_sources(dataset)
    options = ["remove", "placeholder"] + (["lexicon: remove", "lexicon: placeholder"] if lexicons else [])
    strategy = cols[1].radio("Strategy", options, horizontal=True, key="attr-strategy",
                             help="Lexicon strategies mask the words of a style lexicon instead (Mir et al.); "
                                  "the threshold does not apply to them.")
    placeholder = cols[2].text_input("Placeholder", DEFAULT_PLACEHOLDER, key="attr-placeholder",
                                     disabled=not strategy.endswith("placeholder"))
    standout = st.checkbox("Never mask when no word stands out", key="attr-standout",
                           help="Mask nothing when the top word's share is below 1.5x an even spread "
                                "(the post always masks at least one token).")
    lexicon = ui.lexicon_select(dataset, "attr-lexicon", sources=lexicons) if strategy.startswith("lexicon") else None
    return {"lexicon": lexicon, "threshold": threshold, "strategy": strategy, "placeholder": placeholder or DEFAULT_PLACEHOLDER,
            "standout": 1.5 if standout else None, "style": style if style in styles else None}


def masked_view(text: str, trained, options: dict, label: str, key: str) -> str:
    """Coloured words of one text, its masked form; returns the masked text."""
    attribution = attribute_text(text, trained, options["style"])
    if options["strategy"].startswith("lexicon"):
        lexicon = options["lexicon"] or {}  # none could be had: the select box said why; nothing is masked
        strategy = options["strategy"].split(": ")[1]
        masked_text = mask_by_lexicon([text], lexicon, strategy, options["placeholder"])[0] if lexicon else text
        chosen = [w.lower() in {k.lower() for k in lexicon} for w in attribution.words]
    else:
        masked_text, chosen = mask_by_attribution(attribution, options["threshold"], options["strategy"],
                                                  placeholder=options["placeholder"], standout=options["standout"])
    st.markdown(f"**{label}** · attributions toward *{ui.escape(attribution.style)}* "
                f"(p = {attribution.probability:.2f}, IG convergence δ = {attribution.delta:+.1e})")
    st.markdown(tokens_html(text, attribution.spans, attribution.scores, chosen), unsafe_allow_html=True)
    st.caption("Masked text")
    st.text(masked_text or "(every word masked)")
    with st.expander("Word scores"):
        st.dataframe(attribution.frame().assign(masked=list(chosen)), key=f"{key}-words")
    return masked_text


def content_scores(source: str, output: str, masked_source: str, masked_output: str) -> None:
    """Content preservation on the unmasked and the masked pair."""
    unmasked = compute_metric(CONTENT_METRIC, [source], [output])[0]
    masked = compute_metric(CONTENT_METRIC, [masked_source], [masked_output])[0]
    cols = st.columns(2)
    cols[0].metric("Content preservation, unmasked", f"{unmasked:.3f}")
    cols[1].metric("Content preservation, masked", f"{masked:.3f}", delta=f"{masked - unmasked:+.3f}",
                   delta_color="off")  # a change, not a verdict: masking is meant to move the score
    st.caption("MiniLM embedding cosine (higher = more similar).")


def sweep_section(pairs: pd.DataFrame, trained) -> None:
    """The Cloudera sweep: 10-50% x {remove, placeholder} x no masking, with human correlations."""
    st.subheader("Masking sweep (Cloudera Fig. 5)")
    limit = st.number_input("Pairs to include (first N)", 1, len(pairs), min(100, len(pairs)), step=10,
                            key="sweep-n", help="Attributions are computed once per text and cached on disk.")
    if not st.button("Run the sweep", key="sweep-run"):
        return
    subset = pairs.head(int(limit))
    with ui.progress_bar(f"Attributing {len(subset):,} pairs") as report:
        sweep = masking_sweep(subset, trained, progress=report)
    fig = sweep_figure(sweep)
    st.plotly_chart(fig, key="sweep-fig")
    ui.download_figure(fig, "masking-sweep")
    humans = [c for c in subset.columns if (str(c).startswith("human:") and "content" in str(c)) or c == "human:average"]
    if humans:
        table = sweep_correlations(sweep, subset[humans[0]].to_numpy())
        st.markdown(f"Correlation of each setting with **{short_name(humans[0])}** (higher r = closer to humans):")
        st.dataframe(table.style.format("{:.3f}", subset=["pearson_r", "spearman_r"]), key="sweep-corr")
        ui.download_table(table, "masking-sweep-correlations")
    else:
        st.info("This dataset has no human content score, so the settings cannot be compared with people.")


def main() -> None:
    """Classifier, one pair coloured and masked side by side, content scores, and the sweep."""
    ui.page_setup("Token attributions")
    st.caption(INTRO)
    dataset = ui.require_dataset()
    ui.require_pairs(dataset, "and this page compares a source with its rewrite")
    ui.require_style_labels(dataset, "token attributions, masking by attribution, style transfer intensity, "
                                     "naturalness")
    try:
        trained = _classifier(fingerprint(dataset.pairs), dataset)
    except DataError as exc:
        ui.show_error(exc)
        st.stop()
    ui.classifier_panel(trained, key="attr-confusion")
    row = choose_pair(dataset.pairs)
    options = masking_controls(dataset, trained.classes)
    left, right = st.columns(2)
    with left:
        masked_source = masked_view(str(row["source"]), trained, options, "Source", "src")
    with right:
        masked_output = masked_view(str(row["output"]), trained, options, "Output", "out")
    content_scores(str(row["source"]), str(row["output"]), masked_source, masked_output)
    st.caption("Red: the word pushes toward the style named; blue: against it. Struck-through words are masked.")
    sweep_section(dataset.pairs, trained)


main()
