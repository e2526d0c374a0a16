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
from stviz.meta import METHODS, correlation_table, ne_table, williams_matrix
from stviz.metrics import AUTHORS_NE_COLUMNS, BUILTIN, DEFAULT_METRICS, NE_SUFFIX, get_card, metric_frame
from stviz.metrics.modify import MODIFICATION_LABELS
from stviz.metrics.wordnet import wordnet_status
from stviz.plots.metrics import forest_plot, metric_human_scatter, ne_change_plot, williams_heatmap

BERTSCORE_AUTO_LIMIT = 3000  # BERTScore on CPU is the slow one: off by default above this many pairs

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


def controls(ds) -> dict:
    """Metric, text, NE and correlation choices."""
    pairs = ds.pairs
    options = metric_options(ds)
    default = [m for m in DEFAULT_METRICS if m != "bertscore" or len(pairs) <= BERTSCORE_AUTO_LIMIT]
    default += [c for c in ds.metric_columns if c not in AUTHORS_NE_COLUMNS]
    label = lambda n: get_card(n).label  # noqa: E731
    metrics = st.multiselect("Metrics", options, default=default, format_func=label, key="mvh-metrics",
                             help="Precomputed columns of the file are metrics too. BERTScore (MiniLM) is slow on "
                                  f"CPU: about 70 s per 10,000 pairs the first time.")
    cols = st.columns(3)
    mods = ["none", "removal", "masking"] if ds.lexicon else ["none"]
    modification = cols[0].radio("Texts", mods, format_func=MODIFICATION_LABELS.get, key="mvh-mod",
                                 help="Mir et al.: remove or mask style words (from the style lexicon) before "
                                      "scoring." + ("" if ds.lexicon else " This dataset ships no lexicon."))
    with_ne = cols[1].checkbox("Named-entity merge (Babakov et al.)", value=True, key="mvh-ne",
                               help="Adds M*(1-p) + M_NE*p for every metric: M_NE is the Jaccard index of the "
                                    "entities of both texts, p the share of entity tokens.")
    has_columns = all(c in pairs for c in AUTHORS_NE_COLUMNS)
    ne_source = cols[1].radio("Entities from", ["spacy", "columns"] if has_columns else ["spacy"], horizontal=True,
                              key="mvh-ne-source", disabled=not with_ne,
                              format_func={"spacy": "spaCy NER (ours)", "columns": "the file's NE columns"}.get)
    numeric = [c for c in ds.human_columns if pd.api.types.is_numeric_dtype(pairs[c])]
    human = cols[2].selectbox("Human score", numeric, format_func=short_name, key="mvh-human")
    cols = st.columns(3)
    methods = cols[0].multiselect("Correlation", METHODS, default=["pearson", "spearman"], key="mvh-methods")
    groupings = ["none"] + (["system"] if ds.has_systems else []) + (["setting"] if "setting" in pairs else [])
    by = cols[1].selectbox("Group pairs by", groupings, key="mvh-by",
                           format_func={"none": "nothing (all pairs pooled)",
                                        "system": "system (+ mean |r| over systems, Mir et al.)",
                                        "setting": "system / setting (+ mean over settings)"}.get)
    n_boot = cols[2].selectbox("Bootstrap resamples", [200, 1000, 2000], index=1, key="mvh-boot")
    if modification != "none":
        dropped = [m for m in metrics if m.startswith("metric:")]
        if dropped:
            st.caption(f"Precomputed columns are left out with modified texts ({len(dropped)}): they were "
                       "computed on the original texts.")
        metrics = [m for m in metrics if not m.startswith("metric:")]
    if with_ne:
        metrics = metrics + [m + NE_SUFFIX for m in metrics if m != "ne"]
    return {"metrics": metrics, "modification": modification, "with_ne": with_ne, "ne_source": ne_source,
            "human": human, "methods": methods, "by": None if by == "none" else by, "n_boot": n_boot}


def compute(ds, opt: dict) -> pd.DataFrame | None:
    """Metric values for every pair (disk-cached per metric), with a progress bar."""
    try:
        with ui.progress_bar(f"Scoring {len(ds.pairs):,} pairs with {len(opt['metrics'])} metrics") as report:
            return metric_frame(ds.pairs, opt["metrics"], modification=opt["modification"], lexicon=ds.lexicon,
                                ne_source=opt["ne_source"], progress=report)
    except (DataError, EmbedderError, ValueError) as exc:
        ui.show_error(exc)
        return None


@st.cache_data(show_spinner="Bootstrapping correlations…", max_entries=32)
def cached_correlations(frame: pd.DataFrame, metrics: list[str], human: str, methods: list[str], by,
                        distances: dict, n_boot: int) -> pd.DataFrame:
    return correlation_table(frame, metrics, [human], methods, by=by, distances=distances, n_boot=n_boot)


@st.cache_data(show_spinner="Williams tests…", max_entries=32)
def cached_williams(frame: pd.DataFrame, metrics: list[str], human: str, method: str, distances: dict) -> pd.DataFrame:
    return williams_matrix(frame, metrics, human, method, distances)


def correlations_tab(frame, opt, labels, distances) -> None:
    table = cached_correlations(frame, opt["metrics"], opt["human"], opt["methods"], opt["by"], distances,
                                opt["n_boot"])
    by_group = table if opt["by"] is None else table[table["group"].str.startswith("mean over")]
    fig = forest_plot(by_group, labels, title=f"Correlation with {short_name(opt['human'])} "
                      f"({MODIFICATION_LABELS[opt['modification']]})")
    st.plotly_chart(fig, width="stretch", key="mvh-forest")
    ui.download_figure(fig, "correlations-forest", key="mvh-forest-dl")
    shown = table.assign(metric=table["metric"].map(labels)).rename(columns={"shown": "value shown"})
    st.dataframe(shown, width="stretch", hide_index=True)
    ui.download_table(shown.set_index("metric"), "correlations", key="mvh-corr-dl")
    if opt["by"]:
        st.caption("'mean over …' rows average the groups' correlations (|r| for distances), as Mir et al. "
                   "report; their interval averages the groups' bootstrap replicates.")


def ne_tab(frame, opt, labels, distances) -> None:
    base = [m for m in opt["metrics"] if not m.endswith(NE_SUFFIX) and m != "ne"]
    method = "spearman" if "spearman" in opt["methods"] else (opt["methods"] or ["pearson"])[0]
    if method == "kendall":
        method = "spearman"
    table = ne_table(frame, base, opt["human"], method, labels=labels, distances=distances)
    st.markdown(f"**{method.title()} correlation without and with the named-entity merge** (Babakov et al., "
                "Table 4 layout). *Williams p* tests whether the higher of the two is significantly higher.")
    st.dataframe(table, width="stretch", hide_index=True)
    ui.download_table(table.set_index("metric"), "ne-merge-table", key="mvh-ne-dl")
    fig = ne_change_plot(table)
    st.plotly_chart(fig, width="stretch", key="mvh-ne-plot")
    ui.download_figure(fig, "ne-merge", key="mvh-ne-fig-dl")


def significance_tab(frame, opt, labels, distances) -> None:
    method = st.radio("Correlation for the test", ["pearson", "spearman"], horizontal=True, key="mvh-w-method")
    mat = cached_williams(frame, opt["metrics"], opt["human"], method, distances)
    fig = williams_heatmap(mat, labels)
    st.plotly_chart(fig, width="stretch", key="mvh-williams")
    ui.download_figure(fig, "williams", key="mvh-williams-dl")
    ui.download_table(mat.rename(index=labels, columns=labels), "williams-p-values", key="mvh-williams-tab")


def scatter_tab(frame, ds, opt, labels) -> None:
    metric = st.selectbox("Metric", opt["metrics"], format_func=labels.get, key="mvh-scatter-metric")
    data = ds.pairs[["source", "output"] + (["system"] if ds.has_systems else [])].assign(
        **{metric: frame[metric].to_numpy(), opt["human"]: ds.pairs[opt["human"]].to_numpy()})
    fig = metric_human_scatter(data, metric, opt["human"], labels[metric], color="system" if ds.has_systems else None)
    st.plotly_chart(fig, width="stretch", key="mvh-scatter")
    ui.download_figure(fig, "metric-vs-human", key="mvh-scatter-dl")


def main() -> None:
    ui.page_setup("Metrics vs humans")
    st.markdown(INTRO)
    ds = ui.require_dataset()
    if ds.pairs is None:
        st.info("This dataset has style-labelled sentences but no (source, output) pairs. Choose a pair dataset "
                "(demo, SGDD-TST, Mir-Yelp) or upload pairs on the home page.")
        st.stop()
    status = wordnet_status()
    if not status.available:
        st.warning(status.message)
    if not [c for c in ds.human_columns if pd.api.types.is_numeric_dtype(ds.pairs[c])]:
        st.info("No human-score columns: the metrics are computed below, but there is nothing to correlate with. "
                "Upload a file with a human score column (e.g. human_content) on the home page.")
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
        st.dataframe(frame.rename(columns=labels), width="stretch")
        ui.download_table(frame, "metric-values", key="mvh-values-dl", latex=False)
        st.stop()
    frame = frame.assign(**{opt["human"]: ds.pairs[opt["human"]].to_numpy()})
    if ds.has_systems:
        frame = frame.assign(system=ds.pairs["system"].to_numpy())
    if "setting" in ds.pairs:
        frame = frame.assign(setting=ds.pairs["setting"].to_numpy())
    tabs = st.tabs(["Correlations", "Named entities", "Significance", "Scatter", "Metric values"])
    try:
        with tabs[0]:
            correlations_tab(frame, opt, labels, distances) if opt["methods"] else st.info("Choose a correlation.")
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
            values = frame[opt["metrics"]].rename(columns=labels)
            st.dataframe(values, width="stretch")
            ui.download_table(values, "metric-values", key="mvh-values-dl", latex=False)
    except DataError as exc:
        ui.show_error(exc)


main()
