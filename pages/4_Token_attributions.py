"""Token attributions and style masking (Cloudera Fast Forward Labs 2022; Mir et al. 2019).

Integrated Gradients from the MiniLM style classifier colour each word of a pair's source and
output; the words making up the top X% of attribution mass are removed or replaced, and content
preservation (embedding cosine) is shown on the masked texts next to the unmasked ones.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.analyses import attributions as analysis
from stviz.analyses.attributions import STRATEGIES, setting_value
from stviz.plots.style import sweep_figure, tokens_html

INTRO = ("Which words make a text sound like its style? A MiniLM style classifier is explained word by word with "
         "Integrated Gradients; the words carrying most of the attribution are then masked, and content preservation "
         "is measured again without them (Cloudera Fast Forward Labs 2022), so that a rewrite is not penalised for "
         "changing exactly the words it was asked to change.")
STRATEGY_LABELS = {"remove": "remove", "placeholder": "placeholder", "lexicon-remove": "lexicon: remove",
                   "lexicon-placeholder": "lexicon: placeholder"}


def choose_pair(pairs: pd.DataFrame, default: int | None) -> int:
    """A system / setting filter and one pair; returns its row number."""
    rows = pairs
    filters = [c for c in ("system", "setting") if c in pairs]
    cols = st.columns(len(filters) + 1)
    for col, column in zip(cols, filters):
        values = ["(all)"] + sorted(rows[column].astype(str).unique(), key=lambda v: (setting_value(v), v))
        value = col.selectbox(column.capitalize(), values, key=f"attr-{column}")
        if value != "(all)":
            rows = rows[rows[column].astype(str) == value]
    needle = cols[-1].text_input("Find a pair", key="attr-find", placeholder="a word or phrase",
                                 help="Pairs whose source or output contains this text (case-insensitive)")
    if needle.strip():
        hit = (rows["source"].astype(str).str.contains(needle.strip(), case=False, regex=False)
               | rows["output"].astype(str).str.contains(needle.strip(), case=False, regex=False))
        if hit.any():
            rows = rows[hit]
        else:  # an empty list would leave no pair to show: keep them all and say so
            st.caption(f"No pair contains “{ui.literal(needle.strip())}”.")
    labels = {i: _pair_label(i, r, filters) for i, r in rows.iterrows()}
    keys = list(labels)
    return st.selectbox(f"Pair ({len(rows):,})", keys, index=keys.index(default) if default in keys else 0,
                        format_func=labels.get, key="attr-pair")


def _pair_label(index, row: pd.Series, filters: list[str]) -> str:
    """'12 · ARAE lambda=1: source → output', texts cut to fit a select box."""
    tag = " ".join(str(row[c]) for c in filters)
    return f"{index}{' · ' + tag if tag else ''}: {_clip(row['source'])} → {_clip(row['output'])}"


def _clip(text, width: int = 60) -> str:
    """Text cut to ``width`` characters, with an ellipsis when it was cut."""
    text = str(text)
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def masking_controls(dataset, styles: list[str], defaults: analysis.Options) -> analysis.Options:
    """Style to attribute toward, threshold, strategy, placeholder, 'stand out' and lexicon -> Options."""
    predicted = "(each text's predicted style)"
    style = st.selectbox("Attribute toward", [predicted] + styles, key="attr-style",
                         index=1 + styles.index(defaults.style) if defaults.style in styles else 0)
    cols = st.columns([3, 4, 2])
    threshold = cols[0].slider("Mask the top share of attribution mass", 0.05, 0.9, defaults.threshold, 0.05,
                               key="attr-threshold",
                               help="Words are ranked by |attribution| share; those making up this much mass are masked.")
    strategies = [s for s in STRATEGIES if not s.startswith("lexicon-") or analysis.has_lexicon_source(dataset)]
    strategy = cols[1].radio("Strategy", strategies, index=strategies.index(defaults.strategy), horizontal=True,
                             format_func=STRATEGY_LABELS.get, key="attr-strategy",
                             help="Lexicon strategies mask the words of a style lexicon instead (Mir et al.); "
                                  "the threshold does not apply to them.")
    placeholder = cols[2].text_input("Placeholder", defaults.placeholder, key="attr-placeholder",
                                     disabled=not strategy.endswith("placeholder"))
    standout = st.checkbox("Never mask when no word stands out", value=defaults.standout, key="attr-standout",
                           help=f"Mask nothing when the top word's share is below {analysis.STANDOUT}x an even spread "
                                "(the post always masks at least one token).")
    lexicon = (ui.lexicon_select(dataset, "attr-lexicon", default=defaults.lexicon) if strategy.startswith("lexicon")
               else defaults.lexicon)
    return defaults.changed(style=style if style in styles else None, threshold=float(threshold), strategy=strategy,
                            placeholder=placeholder or defaults.placeholder, standout=standout, lexicon=lexicon)


def masked_view(view: analysis.PairView, side: str, label: str) -> None:
    """Coloured words of one text and its masked form."""
    attribution = view.attributions[side]
    st.markdown(f"**{label}** · attributions toward *{ui.literal(attribution.style)}* "
                f"(p = {attribution.probability:.2f}, IG convergence δ = {attribution.delta:+.1e})")
    st.markdown(tokens_html(attribution.text, attribution.spans, attribution.scores, view.chosen[side]),
                unsafe_allow_html=True)
    st.caption("Masked text")
    st.text(view.masked[side] or "(every word masked)")
    ui.folded("Word scores", f"attr-{side}-words-open", lambda: st.dataframe(
        attribution.frame().assign(masked=list(view.chosen[side])), key=f"attr-{side}-words"))


def content_scores(view: analysis.PairView) -> None:
    """Content preservation on the unmasked and the masked pair."""
    cols = st.columns(2)
    cols[0].metric("Content preservation, unmasked", f"{view.content_unmasked:.3f}")
    cols[1].metric("Content preservation, masked", f"{view.content_masked:.3f}",
                   delta=f"{view.content_masked - view.content_unmasked:+.3f}",
                   delta_color="off")  # a change, not a verdict: masking is meant to move the score
    st.caption("MiniLM embedding cosine (higher = more similar).")


def sweep_section(dataset, options: analysis.Options, trained) -> None:
    """The Cloudera sweep: 10-50% x {remove, placeholder} x no masking, on a stratified sample, with human correlations."""
    st.subheader("Masking sweep (Cloudera Fig. 5)")
    pairs = len(dataset.pairs)
    sample = st.number_input("Pairs to include (a sample across systems and settings)", 1, pairs,
                             min(options.sample, pairs), step=10, key="sweep-n",
                             help="Drawn at random (seeded), stratified by system and setting, so that every system "
                                  "is represented. Attributions are computed once per text and cached on disk.")
    if not st.button("Run the sweep", key="sweep-run") and not options.sweep and not st.session_state.get("sweep-done"):
        return
    st.session_state["sweep-done"] = True
    options = options.changed(sample=int(sample), sweep=True)
    ui.remember(analysis, options)  # a link to this page reruns the sweep
    result = ui.run_analysis(analysis, dataset, options.changed(pair=None), trained=trained)
    ui.show_notes(result.notes)
    fig = sweep_figure(result.sweep)
    st.plotly_chart(fig, key="sweep-fig")
    ui.download_figure(fig, "masking-sweep")
    if result.sweep_correlations is not None:
        st.markdown(f"Correlation of each setting with **{ui.literal(analysis.human_label(result))}** "
                    "(higher r = closer to humans):")
        st.dataframe(result.sweep_correlations.style.format("{:.3f}", subset=["pearson_r", "spearman_r"]),
                     key="sweep-corr")
        ui.download_table(result.sweep_correlations, "masking-sweep-correlations")
    ui.folded(f"The {len(result.masked):,} sampled pairs, masked at the chosen setting", "sweep-masked-open",
              lambda: masked_pairs(result.masked))


def masked_pairs(masked) -> None:
    """The sampled pairs as masked at the chosen setting, downloadable."""
    st.dataframe(masked, key="sweep-masked")
    ui.download_table(masked, "masked-pairs", key="sweep-masked-dl", latex=False)


def main() -> None:
    """Classifier, one pair coloured and masked side by side, content scores, and the sweep."""
    dataset, defaults = ui.open_view(analysis, INTRO, small_intro=True)
    trained = ui.style_classifier(dataset)
    ui.classifier_panel(trained, key="attr-confusion")
    pair = choose_pair(dataset.pairs, defaults.pair)
    options = masking_controls(dataset, trained.classes, defaults).changed(pair=pair)
    ui.remember(analysis, options)
    result = ui.run_analysis(analysis, dataset, options, trained=trained)
    left, right = st.columns(2)
    with left:
        masked_view(result.pair, "source", "Source")
    with right:
        masked_view(result.pair, "output", "Output")
    content_scores(result.pair)
    st.caption("Red: the word pushes toward the style named; blue: against it. Struck-through words are masked.")
    with st.expander(f"Pair #{pair}: its story, and what if it were edited", expanded=True):
        ui.open_pair_story(dataset, pair, key="attr-story", lexicon=options.lexicon, attributions=False)
    sweep_section(dataset, options, trained)


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
