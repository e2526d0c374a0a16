"""Metrics vs humans (Babakov et al.; Mir et al.): every content-preservation metric for every pair,
its correlation with human scores (95% bootstrap intervals, pooled / per system / averaged as Mir
et al.), the named-entity merge laid out like Babakov et al.'s Table 4, Williams tests between
metrics, and a scatter of any metric against the human scores."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.data.schema import DataError, short_name
from stviz.embed import PRESETS, EmbedderError
from stviz.meta import (METHODS, cached_correlation_table, cached_ne_table, cached_williams_matrix,
                        format_p_value, williams_against_best)
from stviz.metrics import AUTHORS_NE_COLUMNS, BUILTIN, DEFAULT_METRICS, NE_SUFFIX, get_card, metric_frame
from stviz.metrics.modify import MODIFICATION_LABELS
from stviz.metrics.wordnet import wordnet_status
from stviz.plots.metrics import forest_plot, metric_human_scatter, ne_change_plot, williams_heatmap

BERTSCORE_AUTO_LIMIT = 3000  # BERTScore on CPU is the slow one: off by default above this many pairs
#: Built-ins shown first; a file's own metric columns are added (they then stand in for BLEU/chrF/ROUGE).
PAGE_DEFAULTS = ("cosine:minilm", "cosine:glove-mean", "wmd", "bleu", "chrf", "rougeL", "meteor", "bertscore", "ne")
WITH_COLUMNS_DEFAULTS = ("cosine:minilm", "wmd", "meteor", "ne")
#: Resamples on offer; 200 keeps a first visit to SGDD-TST (10,287 pairs x ~30 metrics) to seconds.
BOOTSTRAP_CHOICES = (100, 200, 500, 1000, 2000)
DEFAULT_BOOTSTRAP = 200

INTRO = (
    "Which content-preservation metric agrees with people on *this* data? Each metric is computed for every "
    "pair (cached on disk), then correlated with the human scores. **Higher = agrees more with humans**; "
    "distances (WMD) are shown as |r| and marked. Intervals are 95% percentile bootstraps over pairs."
)


def metric_options(ds) -> list[str]:
    """Every metric this dataset can show: built-ins, cosines for each preset, precomputed columns."""
    cosines = [f"cosine:{spec}" for spec in PRESETS]
    names = list(dict.fromkeys(list(DEFAULT_METRICS) + cosines + list(BUILTIN)))
    return names + [c for c in ds.metric_columns]


#: Human columns where a higher value means *less* content kept (SGDD-TST's vote shares).
REVERSED_HINTS = ("different", "lost", "distance", "changed")


def reversed_human(human: str | None) -> bool:
    """Whether to negate a human column so that higher = more content kept (asked when the name suggests it)."""
    if human is None:
        return False
    guess = any(h in short_name(human).lower() for h in REVERSED_HINTS)
    return st.checkbox(f"Higher '{short_name(human)}' means less content kept (negate it)", value=guess,
                       key=f"mvh-reverse-{human}",
                       help="E.g. SGDD-TST's vote_different: the share of raters who found the meaning different. "
                            "Negated, every correlation still reads higher = agrees more with humans.")


def human_title(opt: dict) -> str:
    """The human column as named in titles, with a minus sign when it was negated."""
    return ("−" if opt.get("reversed") else "") + short_name(opt["human"])


def controls(ds) -> dict:
    """Metric, text, NE and correlation choices."""
    pairs = ds.pairs
    options = metric_options(ds)
    columns = [c for c in ds.metric_columns if c not in AUTHORS_NE_COLUMNS]
    default = [m for m in (WITH_COLUMNS_DEFAULTS if columns else PAGE_DEFAULTS)
               if m != "bertscore" or len(pairs) <= BERTSCORE_AUTO_LIMIT] + columns
    label = lambda n: get_card(n).label  # noqa: E731
    metrics = st.multiselect("Metrics", options, default=default, format_func=label, key="mvh-metrics",
                             help="Precomputed columns of the file are metrics too. BERTScore (MiniLM) is slow on "
                                  "CPU: about 70 s per 10,000 pairs the first time.")
    cols = st.columns(3)
    lexicons = ui.lexicon_sources(ds)
    mods = ["none", "removal", "masking"] if lexicons else ["none"]
    modification = cols[0].radio("Texts", mods, format_func=MODIFICATION_LABELS.get, key="mvh-mod",
                                 help="Mir et al.: remove or mask style words (from the style lexicon) before "
                                      "scoring." + ("" if lexicons else " No style lexicon is available here."))
    with_ne = cols[1].checkbox("Named-entity merge (Babakov et al.)", value=True, key="mvh-ne",
                               help="Adds M*(1-p) + M_NE*p for every metric: M_NE is the Jaccard index of the "
                                    "entities of both texts, p the share of entity tokens.")
    has_columns = all(c in pairs for c in AUTHORS_NE_COLUMNS)
    ne_source = cols[1].radio("Entities from", ["spacy", "columns"] if has_columns else ["spacy"], horizontal=True,
                              key="mvh-ne-source", disabled=not with_ne,
                              format_func={"spacy": "spaCy NER (ours)", "columns": "the file's NE columns"}.get)
    numeric = [c for c in ds.human_columns if pd.api.types.is_numeric_dtype(pairs[c])]
    human = cols[2].selectbox("Human score", numeric, format_func=short_name, key="mvh-human", disabled=not numeric,
                              placeholder="none in this file")
    with cols[2]:
        reversed_ = reversed_human(human)
    cols = st.columns(3)
    methods = cols[0].multiselect("Correlation", METHODS, default=["pearson", "spearman"], key="mvh-methods",
                                 disabled=not numeric)
    groupings = ["none"] + (["system"] if ds.has_systems else []) + (["setting"] if "setting" in pairs else [])
    by = cols[1].selectbox("Group pairs by", groupings, key="mvh-by", disabled=not numeric,
                           format_func={"none": "nothing (all pairs pooled)",
                                        "system": "system (+ mean |r| over systems, Mir et al.)",
                                        "setting": "system / setting (+ mean over settings)"}.get)
    n_boot = cols[2].selectbox("Bootstrap resamples", BOOTSTRAP_CHOICES, key="mvh-boot", disabled=not numeric,
                               index=BOOTSTRAP_CHOICES.index(DEFAULT_BOOTSTRAP),
                               help="For the 95% confidence intervals. More resamples give steadier interval ends "
                                    "and take longer the first time (results are cached on disk).")
    lexicon = ui.lexicon_select(ds, "mvh-lexicon", sources=lexicons) if modification != "none" else None
    if modification != "none":
        dropped = [m for m in metrics if m.startswith("metric:")]
        if dropped:
            st.caption(f"Precomputed columns are left out with modified texts ({len(dropped)}): they were "
                       "computed on the original texts.")
        metrics = [m for m in metrics if not m.startswith("metric:")]
    if with_ne:
        metrics = metrics + [m + NE_SUFFIX for m in metrics if m != "ne"]
    return {"metrics": metrics, "modification": modification, "with_ne": with_ne, "ne_source": ne_source,
            "human": human, "methods": methods, "by": None if by == "none" else by, "n_boot": n_boot,
            "reversed": reversed_, "lexicon": lexicon}


def compute(ds, opt: dict) -> pd.DataFrame | None:
    """Metric values for every pair (disk-cached per metric), with a progress bar."""
    try:
        with ui.progress_bar(f"Scoring {len(ds.pairs):,} pairs with {len(opt['metrics'])} metrics") as report:
            return metric_frame(ds.pairs, opt["metrics"], modification=opt["modification"], lexicon=opt["lexicon"],
                                ne_source=opt["ne_source"], progress=report)
    except (DataError, EmbedderError, ValueError) as exc:
        ui.show_error(exc)
        return None


def correlations(frame, opt, distances) -> pd.DataFrame:
    """The correlation table, from the disk cache when these values and options were seen before."""
    args = dict(metrics=opt["metrics"], humans=[opt["human"]], methods=opt["methods"], by=opt["by"],
                distances=distances, n_boot=opt["n_boot"])
    label = (f"Bootstrapping {len(opt['metrics'])} metrics x {len(opt['methods'])} correlations "
             f"({opt['n_boot']:,} resamples)")
    with ui.progress_bar(label) as report:
        return cached_correlation_table(frame, progress=report, **args)


NUMBER = st.column_config.NumberColumn(format="%.3f")


def readable_correlations(table: pd.DataFrame, labels: dict) -> pd.DataFrame:
    """The correlation table with labels, short human names and formatted p-values (for the screen)."""
    # One human column per page: it is in the title, not repeated on every row.
    shown = table.drop(columns="human").assign(metric=table["metric"].map(labels), p_value=table["p_value"].map(format_p_value))
    return shown.rename(columns={"shown": "direction", "ci_low": "95% CI low", "ci_high": "95% CI high",
                                 "p_value": "p"})


def correlations_tab(frame, opt, labels, distances) -> None:
    table = correlations(frame, opt, distances)
    by_group = table if opt["by"] is None else table[table["group"].str.startswith("mean over")]
    fig = forest_plot(by_group, labels, title=f"Correlation with {human_title(opt)} "
                      f"({MODIFICATION_LABELS[opt['modification']]}; 95% CI from {opt['n_boot']:,} resamples)")
    st.plotly_chart(fig, width="stretch", key="mvh-forest")
    ui.download_figure(fig, "correlations-forest", key="mvh-forest-dl")
    st.caption(f"Intervals: 95% percentile bootstrap, {opt['n_boot']:,} resamples of the pairs (the same resamples "
               "for every metric). *direction* says whether the row is r or |r| of a distance.")
    st.dataframe(readable_correlations(table, labels), width="stretch", hide_index=True,
                 column_config={c: NUMBER for c in ("r", "95% CI low", "95% CI high")})
    ui.download_table(table.assign(metric=table["metric"].map(labels)).set_index("metric"), "correlations",
                      key="mvh-corr-dl")
    if opt["by"]:
        st.caption("'mean over …' rows average the groups' correlations (|r| for distances), as Mir et al. "
                   "report; their interval averages the groups' bootstrap replicates.")


def ne_tab(frame, opt, labels, distances) -> None:
    base = [m for m in opt["metrics"] if not m.endswith(NE_SUFFIX) and m != "ne"]
    method = "spearman" if "spearman" in opt["methods"] else (opt["methods"] or ["pearson"])[0]
    if method == "kendall":
        method = "spearman"
    table = cached_ne_table(frame, base, opt["human"], method, labels=labels, distances=distances)
    st.markdown(f"**{method.title()} correlation without and with the named-entity merge** (Babakov et al., "
                "Table 4 layout). *Williams p* tests whether the higher of the two is significantly higher. "
                "Distances are negated (\"-distance\") so both columns read higher = agrees more with humans.")
    st.dataframe(table.assign(**{"Williams p": table["Williams p"].map(format_p_value)}), width="stretch", hide_index=True,
                 column_config={c: NUMBER for c in ("without NE", "with NE", "change")})
    ui.download_table(table.set_index("metric"), "ne-merge-table", key="mvh-ne-dl")
    fig = ne_change_plot(table)
    st.plotly_chart(fig, width="stretch", key="mvh-ne-plot")
    ui.download_figure(fig, "ne-merge", key="mvh-ne-fig-dl")


def significance_tab(frame, opt, labels, distances) -> None:
    cols = st.columns(2)
    method = cols[0].radio("Correlation for the test", ["pearson", "spearman"], horizontal=True, key="mvh-w-method")
    view = cols[1].radio("Show", ["against the best metric", "every pair of metrics"], horizontal=True,
                         key="mvh-w-view")
    mat = cached_williams_matrix(frame, opt["metrics"], opt["human"], method, distances)
    best = williams_against_best(frame, mat, opt["human"], method, distances)
    if view == "against the best metric":
        st.markdown(f"**Is {labels[best['metric'].iloc[0]]} significantly better than each other metric?** "
                    f"Williams test for dependent correlations on the same pairs ({method}; one-sided). "
                    "r is |r| for distances.")
        shown = best.assign(metric=best["metric"].map(labels), **{"p (best > metric)": best["p (best > metric)"].map(format_p_value)})
        st.dataframe(shown, width="stretch", hide_index=True, column_config={"r": NUMBER},
                     height=min(35 * (len(shown) + 1) + 3, 900))  # every metric visible without scrolling
        ui.download_table(best.assign(metric=best["metric"].map(labels)).set_index("metric"), "williams-vs-best",
                          key="mvh-williams-best")
        return
    order = list(best["metric"])  # strongest first, so the significant cells form a triangle
    mat = mat.loc[order, order]
    fig = williams_heatmap(mat, labels)
    st.plotly_chart(fig, width="stretch", key="mvh-williams")
    ui.download_figure(fig, "williams", key="mvh-williams-dl")
    ui.download_table(mat.rename(index=labels, columns=labels), "williams-p-values", key="mvh-williams-tab")


def scatter_tab(frame, ds, opt, labels) -> None:
    metric = st.selectbox("Metric", opt["metrics"], format_func=labels.get, key="mvh-scatter-metric")
    data = ds.pairs[["source", "output"] + (["system"] if ds.has_systems else [])].assign(
        **{metric: frame[metric].to_numpy(), opt["human"]: ds.pairs[opt["human"]].to_numpy()})
    fig = metric_human_scatter(data, metric, opt["human"], labels[metric], color="system" if ds.has_systems else None,
                               human_label=short_name(opt["human"]))
    st.plotly_chart(fig, width="stretch", key="mvh-scatter")
    ui.download_figure(fig, "metric-vs-human", key="mvh-scatter-dl")


def metric_values(ds, frame, opt, labels) -> pd.DataFrame:
    """Every pair's texts, human score and metric values (the page's raw data)."""
    texts = ds.pairs[[c for c in ("system", "setting", "source", "output") if c in ds.pairs]]
    human = {} if opt["human"] is None else {short_name(opt["human"]): ds.pairs[opt["human"]]}
    return texts.assign(**human).join(frame[opt["metrics"]].rename(columns=labels))


def main() -> None:
    ui.page_setup("Metrics vs humans")
    st.markdown(INTRO)
    ds = ui.require_dataset()
    ui.require_pairs(ds, "and content preservation compares an output with its source")
    status = wordnet_status()
    if not status.available:
        st.warning(status.message)
    if not [c for c in ds.human_columns if pd.api.types.is_numeric_dtype(ds.pairs[c])]:
        st.info(f"**{ds.title} has no human scores**, so there is nothing to correlate the metrics with: the "
                "correlations, named-entity table, Williams tests and scatter need a numeric human-score column "
                "(e.g. `human_content`, 1-5). Every metric is still computed for every pair below (and can be "
                "downloaded). To meta-evaluate, upload the file again with a human-score column.")
    opt = controls(ds)
    if not opt["metrics"]:
        st.info("Choose at least one metric.")
        st.stop()
    frame = compute(ds, opt)
    if frame is None:
        st.stop()
    labels = {m: get_card(m).label for m in opt["metrics"]}
    distances = {m: not get_card(m).higher_is_better for m in opt["metrics"]}
    if opt["human"] is None:
        values = metric_values(ds, frame, opt, labels)
        st.dataframe(values, width="stretch", column_config={labels[m]: NUMBER for m in opt["metrics"]})
        ui.download_table(values, "metric-values", key="mvh-values-dl", latex=False)
        st.stop()
    human_values = ds.pairs[opt["human"]].to_numpy(float)
    frame = frame.assign(**{opt["human"]: -human_values if opt["reversed"] else human_values})
    if ds.has_systems:
        frame = frame.assign(system=ds.pairs["system"].to_numpy())
    if "setting" in ds.pairs:
        frame = frame.assign(setting=ds.pairs["setting"].to_numpy())
    tabs = st.tabs(["Correlations", "Named entities", "Significance", "Scatter", "Metric values"])
    try:
        with tabs[0]:
            if opt["methods"]:
                correlations_tab(frame, opt, labels, distances)
            else:
                st.info("Choose a correlation.")
        with tabs[1]:
            if opt["with_ne"]:
                ne_tab(frame, opt, labels, distances)
            else:
                st.info("Tick 'Named-entity merge' above to compare every metric with and without it.")
        with tabs[2]:
            significance_tab(frame, opt, labels, distances)
        with tabs[3]:
            scatter_tab(frame, ds, opt, labels)
        with tabs[4]:
            values = metric_values(ds, frame, opt, labels)
            st.dataframe(values, width="stretch", column_config={labels[m]: NUMBER for m in opt["metrics"]})
            ui.download_table(values, "metric-values", key="mvh-values-dl", latex=False)
    except DataError as exc:
        ui.show_error(exc)


main()
