"""Blind spots (Sai et al. 2021; He et al. 2023): every output damaged on purpose in known ways, and which measures
notice. Needs no human ratings: a measure that should see a damage and scores the damaged output no worse has a
blind spot on this data."""

from __future__ import annotations

import streamlit as st

import ui
from stviz.analyses import blind_spots as analysis
from stviz.analyses import choices
from stviz.analyses.metrics_vs_humans import metric_label
from stviz.plots.blind_spots import detection_heatmap
from stviz.plots.metrics import word_diff_html

INTRO = (
    "No human ratings? Ask each measure whether it **sees damage done on purpose**: every output is damaged in a "
    "known way (a negation flipped, half of it deleted, the input copied, its words shuffled, ...), seeded, and "
    "scored again by the same measures. **Detected** = the share of pairs whose damaged output scores worse (ties "
    "count as missed). A framed cell is damage the measure *should* notice (its axis is what the damage breaks): "
    "pale and framed is a blind spot. Perturbation checklists after Sai et al. (2021) and He et al. (2023)."
)
PAIR_CHOICES = (250, 500, 1000, 2000, 0)
NUMBER = st.column_config.NumberColumn(format="%.1f")
#: Blind spots listed in the warning; the rest are folded under it.
SHOWN = 8


def controls(ds, defaults: analysis.Options) -> analysis.Options:
    """Damages, content measures, pairs and seed -> Options (nothing chosen: every damage, the standard set)."""
    names = {d.name: d for d in analysis.all_damages()}
    cols = st.columns([3, 3])
    damages = cols[0].multiselect(
        "Damages", list(names), default=list(defaults.damages or ()), key="bs-damages",
        format_func=lambda n: f"{names[n].label} ({names[n].breaks})", placeholder="every damage that fits the language",
        help="Left empty: every damage that applies to the texts' language (the notes say which do not, and why).")
    metrics = cols[1].multiselect(
        "Content measures", choices.metrics(ds), default=list(defaults.metrics or ()), key="bs-metrics",
        format_func=metric_label, placeholder="the standard set",
        help="The style, fluency and joint measures are always tested. The file's own measure columns cannot be "
             "recomputed on damaged texts and are left out.")
    cols = st.columns(3)
    pairs = cols[0].selectbox("Pairs damaged", PAIR_CHOICES, key="bs-pairs",
                              index=PAIR_CHOICES.index(defaults.max_pairs) if defaults.max_pairs in PAIR_CHOICES else 1,
                              format_func=lambda n: "every pair" if n == 0 else f"{n:,} (a seeded sample)",
                              help="A seeded sample stratified by system when the set has more pairs.")
    seed = cols[1].number_input("Seed", value=defaults.seed, step=1, key="bs-seed",
                                help="Seeds the sample and every damage: the same seed gives the same damaged texts.")
    boot = cols[2].selectbox("Bootstrap resamples", (200, 500, 1000, 2000), key="bs-boot",
                             index=(200, 500, 1000, 2000).index(defaults.bootstrap)
                             if defaults.bootstrap in (200, 500, 1000, 2000) else 2)
    return defaults.changed(damages=tuple(damages) or None, metrics=tuple(metrics) or None, max_pairs=pairs,
                            seed=int(seed), bootstrap=boot)


def heatmap_section(result: analysis.Result) -> None:
    """The measures x damages heatmap, its download, and the blind spots in words."""
    labels = result.damages["label"].to_dict()
    fig = detection_heatmap(result.table, result.labels, labels, title=ui.preview_title(
        f"Share of {result.n_pairs:,} pairs whose damaged output scores worse (framed: the measure should notice)"))
    ui.plotly_chart(fig, width="stretch", key="bs-heatmap")
    ui.download_figure(fig, "blind-spots", key="bs-heatmap-dl")
    missed = analysis.blind_spots(result)
    if gap := analysis.uncovered(result):
        st.info(ui.literal(gap[0].upper() + gap[1:] + "."))
    if missed.empty:
        st.success("No blind spot: every measure notices the damage of its own axis in at least half of the pairs.")
        return
    lines = [f"- **{ui.literal(result.labels.get(r.measure, r.measure))}** misses *{ui.literal(labels[r.damage])}*: "
             f"{100 * r.detected:.0f}% detected [{100 * r.low:.0f}, {100 * r.high:.0f}], {100 * r.ties:.0f}% ties"
             for r in missed.itertuples()]
    st.warning(f"**{len(missed)} blind spot(s)**: a measure that should notice the damage sees it in fewer than half "
               "of the pairs" + (", the worst first:" if len(lines) > SHOWN else ":") + "\n\n" + "\n".join(lines[:SHOWN]))
    if len(lines) > SHOWN:
        with st.expander(f"The other {len(lines) - SHOWN} blind spots"):
            st.markdown("\n".join(lines[SHOWN:]))


def table_section(result: analysis.Result) -> None:
    """Every cell as a row: detected with its interval, ties, effect, pairs."""
    shown = analysis.readable_table(result)
    st.dataframe(shown, width="stretch", hide_index=True,
                 column_config={c: NUMBER for c in ("detected %", "95% CI low", "95% CI high", "ties %")} |
                 {"effect (SD)": st.column_config.NumberColumn(format="%+.2f")})
    ui.download_table(result.table.set_index("language"), "blind-spots", key="bs-table-dl")
    st.caption("effect: the mean change of the score after the damage, in standard deviations of the measure over "
               "the intact outputs (negative: scored worse). Intervals: 95% percentile bootstrap over pairs.")
    with st.expander("The damages applied"):
        st.dataframe(result.damages.reset_index(), hide_index=True, width="stretch")


def examples_section(ds, result: analysis.Result) -> None:
    """One cell's pairs, missed ones first: the output and its damaged copy with their word diff, both scores."""
    st.subheader("Examples of a cell")
    if result.table.empty:
        return
    first = analysis.blind_spots(result)
    first = first.iloc[0] if len(first) else result.table.iloc[0]
    measures = list(dict.fromkeys(result.table["measure"]))
    damages = list(dict.fromkeys(result.table["damage"]))
    cols = st.columns(2)
    measure = cols[0].selectbox("Measure", measures, index=measures.index(first["measure"]), key="bs-ex-measure",
                                format_func=lambda m: result.labels.get(m, m))
    damage = cols[1].selectbox("Damage", damages, index=damages.index(first["damage"]), key="bs-ex-damage",
                               format_func=result.damages["label"].get)
    frame = analysis.examples(result, damage, measure)
    st.caption(ui.literal(result.damages.loc[damage, "description"]))
    label = ui.literal(result.labels.get(measure, measure))
    for pair, row in frame.iterrows():
        left, right = word_diff_html(row["output"], row["damaged"])  # every word escaped
        with st.container(border=True):
            st.markdown(f"**Pair {pair}** · {ui.literal(row['verdict'])} · {label}: {row['intact']:.3f} → "
                        f"{row['after damage']:.3f}")
            st.markdown(f"<div style='line-height:1.7'>output: {left}<br>damaged: {right}</div>",
                        unsafe_allow_html=True)
    if len(frame):
        story_box(ds, list(frame.index))


def story_box(ds, pairs: list) -> None:
    """The story of one of the cell's pairs (intact): both texts, every metric, the human scores, the what-if box."""
    pair = st.selectbox("Open a pair's story (as it is, undamaged)", [None] + pairs, key="bs-story-pair",
                        format_func=lambda p: "(none)" if p is None else f"pair {p}")
    if pair is not None:
        ui.open_pair_story(ds, int(pair), key="bs-story")


def main() -> None:
    """Options, then the heatmap, the blind spots, the table and the examples."""
    ds, defaults = ui.open_view(analysis, INTRO)
    options = controls(ds, defaults)
    ui.remember(analysis, options)
    result = ui.run_analysis(analysis, ds, options)
    if len(result.notes) > 3:  # a language's many left-out measures: folded, so the heatmap stays in view
        with st.expander(f"Notes: what was sampled, left out or not tested ({len(result.notes)})"):
            ui.show_notes(result.notes)
    else:
        ui.show_notes(result.notes)
    if result.table.empty:
        st.info("No measure could be compared on damaged outputs here (the notes say why).")
        st.stop()
    heatmap_section(result)
    table_section(result)
    examples_section(ds, result)


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
