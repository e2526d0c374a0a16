"""Metrics vs humans (Babakov et al.; Mir et al.): every content-preservation metric for every pair,
its correlation with human scores (95% bootstrap intervals, pooled / per system / averaged as Mir
et al.), the named-entity merge laid out like Babakov et al.'s Table 4, Williams tests between
metrics, and a scatter of any metric against the human scores."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.analyses import choices, judges
from stviz.analyses import metrics_vs_humans as analysis
from stviz.analyses.common import human_columns
from stviz.analyses.metrics_vs_humans import BOOTSTRAP_CHOICES, METHODS, MODIFICATION_LABELS, metric_label
from stviz.data.schema import short_name
from stviz.plots.metrics import forest_plot, metric_human_scatter, ne_change_plot, williams_heatmap
from ui import style_axis

INTRO = (
    "Which content-preservation metric agrees with people on *this* data? Each metric is computed for every "
    "pair (cached on disk), then correlated with the human scores. **Higher = agrees more with humans**; "
    "distances (WMD) are shown as |r| and marked. Intervals are 95% percentile bootstraps over pairs."
)
NUMBER = st.column_config.NumberColumn(format="%.3f")
GROUP_LABELS = {None: "nothing (all pairs pooled)", "system": "system (+ mean |r| over systems, Mir et al.)",
                "setting": "system / setting (+ mean over settings)"}


def controls(ds, defaults: analysis.Options) -> analysis.Options:
    """Metric, text, NE and correlation choices -> Options."""
    default_names, _ = analysis.resolve_metrics(ds, defaults)
    _, left_out = analysis.resolve_metrics(ds, analysis.Options())  # the defaults' notes, whatever is chosen now
    options = list(dict.fromkeys(choices.metrics(ds) + default_names))
    metrics = st.multiselect("Metrics", options, default=[m for m in default_names if m in options],
                             format_func=metric_label, key="mvh-metrics", wrap=True,  # every chosen metric in view
                             help="Precomputed columns of the file are metrics too. BERTScore (MiniLM) is slow on "
                                  "CPU: about 70 s per 10,000 pairs the first time.")
    if left_out:  # what the defaults leave out and why (a measure outside the texts' language, ...), folded
        with st.expander(f"What the default metrics leave out, and why ({len(left_out)})"):
            ui.show_notes(left_out)
    cols = st.columns(3)
    lexicons = choices.can_modify(ds)
    mods = choices.modifications(ds)
    modification = cols[0].radio("Texts", mods, index=mods.index(defaults.modification), key="mvh-mod",
                                 format_func=MODIFICATION_LABELS.get,
                                 help="Mir et al.: remove or mask style words (from the style lexicon) before "
                                      "scoring." + ("" if lexicons else " No style lexicon is available here."))
    compare = cols[0].checkbox("Compare all three side by side", value=defaults.compare_texts, key="mvh-compare",
                               disabled=not lexicons, help="Mir et al.'s comparison: each metric's correlation with "
                                                           "people on unmodified, style-removed and style-masked texts.")
    with_ne = cols[1].checkbox("Named-entity merge (Babakov et al.)", value=defaults.with_ne, key="mvh-ne",
                               help="Adds M*(1-p) + M_NE*p for every metric: M_NE is the Jaccard index of the "
                                    "entities of both texts, p the share of entity tokens.")
    sources = choices.ne_sources(ds)
    ne_source = cols[1].radio("Entities from", sources, horizontal=True, key="mvh-ne-source", disabled=not with_ne,
                              index=sources.index(defaults.ne_source) if defaults.ne_source in sources else 0,
                              format_func=choices.NE_SOURCE_LABELS.get)
    humans = human_columns(ds)
    human = cols[2].selectbox("Human score", humans, format_func=short_name, key="mvh-human", disabled=not humans,
                              placeholder="none in this file", index=_index(humans, defaults.human, prefix="human:"))
    cols = st.columns([3, 3, 2, 2])
    methods = cols[0].multiselect("Correlation", METHODS, default=list(defaults.methods), key="mvh-methods",
                                  disabled=not humans)
    groupings = [None] + [g for g in analysis.GROUPINGS if g in ds.pairs]
    by = cols[1].selectbox("Group pairs by", groupings, key="mvh-by", disabled=not humans, format_func=GROUP_LABELS.get,
                           index=_index(groupings, defaults.by))
    n_boot = cols[2].selectbox("Bootstrap resamples", BOOTSTRAP_CHOICES, key="mvh-boot", disabled=not humans,
                               index=BOOTSTRAP_CHOICES.index(defaults.bootstrap),
                               help="For the 95% confidence intervals. More resamples give steadier interval ends "
                                    "and take longer the first time (results are cached on disk).")
    williams = cols[3].radio("Williams test on", ["pearson", "spearman"], horizontal=True, key="mvh-w-method",
                             index=["pearson", "spearman"].index(defaults.williams_method), disabled=not humans,
                             help="The correlation whose differences between metrics the Williams test checks.")
    levels = st.multiselect("Level", analysis.LEVELS, default=list(defaults.levels), key="mvh-levels",
                            disabled=not humans or not ds.has_systems,
                            help="System level: each metric's system means against the raters' (correlation, and "
                                 "pairwise accuracy: the share of system pairs ordered as the raters do); intervals "
                                 "resample items within systems.")
    lexicon = (ui.lexicon_select(ds, "mvh-lexicon", default=defaults.lexicon) if modification != "none" or compare
               else None)
    poles = style_axis.poles_panel([ds], defaults.poles, "mvh-pole", among={short_name(m) for m in metrics})
    return defaults.changed(metrics=tuple(metrics), modification=modification, with_ne=with_ne, ne_source=ne_source,
                            human=human, methods=tuple(methods), by=by, bootstrap=n_boot, lexicon=lexicon,
                            williams_method=williams, compare_texts=compare, levels=tuple(levels) or ("sentence",),
                            poles=poles)


def _index(options: list, value, prefix: str = "") -> int | None:
    """The position of ``value`` (with or without ``prefix``) among ``options``; the first when absent."""
    for candidate in (value, prefix + str(value)):
        if candidate in options:
            return options.index(candidate)
    return 0 if options else None


def correlations_tab(result: analysis.Result, options: analysis.Options) -> None:
    table = result.correlations
    by_group = table if options.by is None else table[table["group"].str.startswith("mean over")]
    fig = forest_plot(by_group, result.labels, title=ui.preview_title(
        f"Correlation with {result.human_label} ({MODIFICATION_LABELS[options.modification]}; 95% CI from "
        f"{options.bootstrap:,} resamples)"))
    ui.plotly_chart(fig, width="stretch", key="mvh-forest")
    ui.download_figure(fig, "correlations-forest", key="mvh-forest-dl")
    st.caption(f"Intervals: 95% percentile bootstrap, {options.bootstrap:,} resamples of the pairs (the same resamples "
               "for every metric). *direction* says whether the row is r or |r| of a distance.")
    shown = analysis.readable_correlations(result, options.modification).drop(columns="texts")
    st.markdown(f"**{ui.preview_title('Correlations')}**")
    st.dataframe(shown, width="stretch", hide_index=True,
                 column_config={"metric": st.column_config.TextColumn(width=300),  # whole metric names
                                **{c: NUMBER for c in ("r", "95% CI low", "95% CI high")}})
    ui.download_table(shown.set_index("metric"), "correlations", key="mvh-corr-dl")
    if options.by:
        st.caption("'mean over …' rows average the groups' correlations (|r| for distances), as Mir et al. "
                   "report; their interval averages the groups' bootstrap replicates.")


def ne_tab(result: analysis.Result, options: analysis.Options) -> None:
    table = result.ne_table
    method = analysis.ne_method(options)
    st.markdown(f"**{method.title()} correlation without and with the named-entity merge** (Babakov et al., "
                "Table 4 layout). *Williams p* tests whether the higher of the two is significantly higher. "
                "Distances are negated (\"-distance\") so both columns read higher = agrees more with humans.")
    shown = table.assign(**{"Williams p": table["Williams p"].map(analysis.format_p_value)})
    st.dataframe(shown, width="stretch", hide_index=True,
                 column_config={c: NUMBER for c in ("without NE", "with NE", "change")})
    ui.download_table(table.set_index("metric"), "ne-merge-table", key="mvh-ne-dl")
    fig = ne_change_plot(table)
    ui.plotly_chart(fig, width="stretch", key="mvh-ne-plot")
    ui.download_figure(fig, "ne-merge", key="mvh-ne-fig-dl")


def significance_tab(result: analysis.Result, options: analysis.Options) -> None:
    labels, best = result.labels, result.williams_best
    view = st.radio("Show", ["against the best metric", "every pair of metrics"], horizontal=True, key="mvh-w-view")
    if view == "against the best metric":
        st.markdown(f"**Is {ui.literal(labels[best['metric'].iloc[0]])} significantly better than each other "
                    f"metric?** Williams test for dependent correlations on the same pairs ({options.williams_method}; "
                    "one-sided). r is |r| for distances.")
        shown = best.assign(metric=best["metric"].map(labels),
                            **{"p (best > metric)": best["p (best > metric)"].map(analysis.format_p_value)})
        st.dataframe(shown, width="stretch", hide_index=True, column_config={"r": NUMBER},
                     height=min(35 * (len(shown) + 1) + 3, 900))  # every metric visible without scrolling
        ui.download_table(best.assign(metric=best["metric"].map(labels)).set_index("metric"), "williams-vs-best",
                          key="mvh-williams-best")
        return
    fig = williams_heatmap(result.williams, labels)
    ui.plotly_chart(fig, width="stretch", key="mvh-williams")
    ui.download_figure(fig, "williams", key="mvh-williams-dl")
    ui.download_table(result.williams.rename(index=labels, columns=labels), "williams-p-values", key="mvh-williams-tab")


def scatter_tab(ds, result: analysis.Result) -> None:
    metric = st.selectbox("Metric", result.metrics, format_func=result.labels.get, key="mvh-scatter-metric")
    data = ds.pairs[["source", "output"] + (["system"] if ds.has_systems else [])].assign(
        **{metric: result.values[metric].to_numpy(), result.human: result.human_values})
    fig = metric_human_scatter(data, metric, result.human, result.labels[metric],
                               color="system" if ds.has_systems else None, human_label=result.human_label)
    ui.plotly_chart(fig, width="stretch", key="mvh-scatter")
    ui.download_figure(fig, "metric-vs-human", key="mvh-scatter-dl")


def texts_tab(result: analysis.Result, options: analysis.Options) -> None:
    """Each metric's correlation on unmodified, style-removed and style-masked texts, side by side."""
    table = result.text_comparison
    method = table["method"].iloc[0]
    fig = forest_plot(table.assign(method=table["texts"]), result.labels,
                      title=f"{method.title()} correlation with {result.human_label}: unmodified vs style-removed vs "
                            f"style-masked texts (95% CI, {options.bootstrap:,} resamples)")
    ui.plotly_chart(fig, width="stretch", key="mvh-texts")
    ui.download_figure(fig, "texts-compared", key="mvh-texts-dl")
    st.caption("Mir et al. (Tables 8-9): a metric that measures content, not style, should agree more with people "
               "once the style words are removed or masked. Precomputed columns and NE merges are left out here: "
               "they cannot be recomputed on modified texts.")
    wide = table.assign(metric=table["metric"].map(result.labels)).pivot(index="metric", columns="texts", values="r")
    # Columns in the comparison's order (unmodified first, as in the legend), best metric on unmodified texts first.
    wide = wide.reindex(columns=pd.unique(table["texts"]))
    wide = wide.sort_values(wide.columns[0], ascending=False)
    st.dataframe(wide, width="stretch", column_config={c: NUMBER for c in wide.columns},
                 height=35 * (len(wide) + 1) + 3)  # every metric in view
    ui.download_table(wide, "texts-compared", key="mvh-texts-tab")


def slice_table(result: analysis.Result, options: analysis.Options) -> pd.DataFrame:
    """One slice's correlations, compact enough to sit beside the others: metric, method, group, n, r, its CI."""
    table = analysis.readable_correlations(result, options.modification)
    table = table[table["level"] == "sentence"]
    return pd.DataFrame({"metric": table["metric"], "method": table["method"], "group": table["group"],
                         "n": table["n"], "r": table["r"], "95% CI": [
                             f"[{lo:.3f}, {hi:.3f}]" if pd.notna(lo) else "" for lo, hi in
                             zip(table["95% CI low"], table["95% CI high"])], "p": table["p"]})


def slices_section(ds, result: analysis.Result, options: analysis.Options, slices) -> None:
    """The same correlations per saved slice (same metrics, resamples and intervals): one forest plot comparing
    the slices, and a table per slice side by side."""
    st.subheader("Per slice")
    st.caption("Each slice is the same analysis on its pairs only: the same metrics, correlations and "
               f"{options.bootstrap:,} bootstrap resamples, so the intervals compare.")
    drawn = [("all pairs", "every pair", result, len(ds.pairs))]
    ui.per_slice(analysis, ds, options, slices,
                 lambda item, sliced, count: drawn.append((item.name, item.describe(), sliced, count)))
    drawn = [d for d in drawn if d[2].correlations is not None]  # a slice without human scores has none
    method = options.methods[0]
    first = pd.concat([r.correlations[r.correlations["method"] == method].assign(method=name)
                       for name, _, r, _ in drawn], ignore_index=True)
    if options.by is not None:
        first = first[first["group"].str.startswith("mean over")]
    fig = forest_plot(first.assign(group="all"), result.labels, title=ui.preview_title(
        f"{method.title()} correlation with {result.human_label} per slice (95% CI, {options.bootstrap:,} resamples)"))
    ui.plotly_chart(fig, width="stretch", key="mvh-slices-forest")
    ui.download_figure(fig, "correlations-per-slice", key="mvh-slices-forest-dl")
    for start in range(0, len(drawn), 3):  # three tables to a row: readable at 1400 px
        for col, (name, described, sliced, count) in zip(st.columns(3), drawn[start:start + 3]):
            with col:
                st.markdown(f"**{ui.literal(name)}** · {count:,} pairs  \n{ui.literal(described)}")
                st.dataframe(slice_table(sliced, options), hide_index=True, width="stretch",
                             column_config={"r": NUMBER}, key=f"mvh-slice-table-{start}-{name}")
    ui.download_table(pd.concat([slice_table(r, options).assign(slice=name) for name, _, r, _ in drawn])
                      .set_index("slice"), "correlations-per-slice", key="mvh-slices-dl")


def unparsed_box(ds, result: analysis.Result, options: analysis.Options) -> None:
    """An LLM judge's replies that held no score: NaN in every table, so people can read what the judge said."""
    if not judges.llm_metrics(result.metrics):
        return
    lexicon, _ = analysis.resolve_lexicon(ds, options)
    table = judges.unparsed_replies(ds, result.metrics, options.modification, lexicon)
    with st.expander(f"Unparsed LLM replies ({len(table):,})", expanded=False):
        if table.empty:
            st.caption("Every reply of the LLM judges held a score on their scale.")
            return
        st.caption("These replies held no number on the prompt's scale, so the pair has no value (NaN) and is left "
                   "out of correlations; nothing was guessed. A clearer prompt (--llm-prompt) usually fixes them.")
        st.dataframe(table, width="stretch", hide_index=True)
        ui.download_table(table.set_index("pair"), "llm-unparsed-replies", key="mvh-llm-unparsed", latex=False)


def values_tab(ds, result: analysis.Result) -> None:
    values = analysis.readable_values(ds, result)
    st.dataframe(values, width="stretch", column_config={result.labels[m]: NUMBER for m in result.metrics})
    ui.download_table(values, "metric-values", key="mvh-values-dl", latex=False)


def main() -> None:
    """Metrics chosen, then correlations with humans, entities, significance tests and the values."""
    ds, defaults = ui.open_view(analysis, INTRO)
    if not human_columns(ds):
        st.info(f"**{ui.literal(ds.title)} has no human scores**, so there is nothing to correlate the metrics "
                "with: the correlations, named-entity table, Williams tests and scatter need a numeric human-score "
                "column (e.g. `human_content`, 1-5). Every metric is still computed for every pair below (and can be "
                "downloaded). To meta-evaluate, upload the file again with a human-score column.")
        ui.view_link("10_Blind_spots.py", "No ratings? See which damage each metric misses: Blind spots")
    options = controls(ds, defaults)
    slices = ui.slices_panel(ds, "mvh-slices")
    ui.remember(analysis, options)
    if not options.metrics:
        st.info("Choose at least one metric.")
        st.stop()
    result = ui.run_analysis(analysis, ds, options)
    ds = ui.dataset_of_result(ds)  # a preview's values are its sample's, row for row
    if result.lexicon_note:
        st.caption(ui.literal(result.lexicon_note))
    ui.show_notes(result.notes)
    unparsed_box(ds, result, options)
    if result.flags:
        st.warning(f"**{len(result.flags)} sanity flag(s)** on the file's metric columns: a column's values disagree "
                   "with its name.", icon="⚠️")
        with st.expander("Sanity flags (the evidence)"):
            for message in result.flags:
                st.markdown(f"- {ui.literal(message)}")
    if result.human is None:
        values_tab(ds, result)
        st.stop()
    tabs = {"Correlations": lambda: correlations_tab(result, options) if result.correlations is not None
            else st.info("Choose a correlation."),
            "Named entities": lambda: ne_tab(result, options) if result.ne_table is not None
            else st.info("Tick 'Named-entity merge' above to compare every metric with and without it."),
            "Significance": lambda: significance_tab(result, options), "Scatter": lambda: scatter_tab(ds, result),
            "Metric values": lambda: values_tab(ds, result)}
    if result.text_comparison is not None:
        tabs["Texts compared"] = lambda: texts_tab(result, options)
    # Only the open tab is drawn (ui.lazy): the scatter of every pair waits until it is asked for.
    ui.draw_tabs(tabs, key="mvh-tab", keep={"Significance": ("mvh-w-view",), "Scatter": ("mvh-scatter-metric",)})
    if slices and result.correlations is not None:
        slices_section(ds, result, options, slices)


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
