"""Failure cases (Babakov et al., section 4.2): the pairs where a metric and the human raters disagree
most - ranked by the absolute difference between a pair's percentile rank under the metric and under
the human score - with filters, text search, and each pair's full story: a word-level diff, the
entities kept / lost / changed, the style-masked and -removed texts, every metric's value and
percentile, and the human votes. All user text is HTML-escaped before any markup."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.data.schema import DataError, short_name
from stviz.embed import EmbedderError
from stviz.meta import rank_disagreement
from stviz.metrics import AUTHORS_NE_COLUMNS, get_card, metric_frame
from stviz.metrics.entities import entity_diff
from stviz.metrics.modify import apply_modification
from stviz.plots.metrics import rank_difference_histogram, word_diff_html

#: Metrics shown in every pair's story (cheap ones; precomputed columns are added).
STORY_METRICS = ["bleu", "chrf", "rouge1", "rougeL", "meteor", "wmd", "cosine:glove-mean", "cosine:minilm", "ne"]

INTRO = (
    "Where does a metric fail? Each pair gets a percentile rank under the metric and under the human score "
    "(0 = least similar, 100 = most similar); pairs are listed by how far apart the two ranks are "
    "(Babakov et al., section 4.2). *Over-rated*: the metric finds the texts more similar than the raters did."
)


def controls(ds) -> dict:
    """Metric, human score and filters."""
    pairs = ds.pairs
    options = STORY_METRICS + [c for c in ds.metric_columns if c not in AUTHORS_NE_COLUMNS]
    cols = st.columns(3)
    metric = cols[0].selectbox("Metric", options, format_func=lambda n: get_card(n).label, key="fail-metric")
    numeric = [c for c in ds.human_columns if pd.api.types.is_numeric_dtype(pairs[c])]
    human = cols[1].selectbox("Human score", numeric, format_func=short_name, key="fail-human")
    direction = cols[2].radio("Show", ["both", "over-rated", "under-rated"], horizontal=True, key="fail-direction",
                              help="over-rated: the metric ranks the pair higher than the raters did")
    cols = st.columns(3)
    systems = []
    if ds.has_systems:
        names = sorted(pairs["system"].astype(str).unique())
        opened = st.session_state.pop("leaderboard:open-system", None)  # set by the Leaderboard page
        if opened in names:
            st.session_state.pop("fail-systems", None)
        systems = cols[0].multiselect("Systems", names, default=[opened] if opened in names else names,
                                      key="fail-systems")
    search = cols[1].text_input("Search the texts", key="fail-search", placeholder="a word or phrase")
    top = cols[2].selectbox("Pairs listed", [20, 50, 100, 500], key="fail-top")
    return {"metric": metric, "human": human, "direction": direction, "systems": systems, "search": search,
            "top": top}


def story_frame(ds, metric: str) -> pd.DataFrame | None:
    """Every story metric (and the chosen one) for every pair, disk-cached, with a progress bar."""
    names = list(dict.fromkeys(STORY_METRICS + [metric] + [c for c in ds.metric_columns if c not in AUTHORS_NE_COLUMNS]))
    try:
        with ui.progress_bar(f"Scoring {len(ds.pairs):,} pairs with {len(names)} metrics") as report:
            return metric_frame(ds.pairs, names, progress=report)
    except (DataError, EmbedderError, ValueError) as exc:
        ui.show_error(exc)
        return None


def ranked(ds, values: pd.DataFrame, opt: dict) -> pd.DataFrame:
    """The disagreement ranking over all pairs, then filtered (filters never change the ranks)."""
    card = get_card(opt["metric"])
    ranks = rank_disagreement(values[opt["metric"]].to_numpy(), ds.pairs[opt["human"]].to_numpy(),
                              card.higher_is_better)
    ranks.index = ds.pairs.index[ranks.index]
    table = ranks.join(ds.pairs[[c for c in ("system", "setting", "source", "output") if c in ds.pairs]])
    table.insert(0, "metric value", values.loc[table.index, opt["metric"]].to_numpy())
    table.insert(1, "human score", ds.pairs.loc[table.index, opt["human"]].to_numpy())
    if opt["systems"] and "system" in table:
        table = table[table["system"].astype(str).isin(opt["systems"])]
    if opt["direction"] == "over-rated":
        table = table[table["metric_over_human"] > 0]
    elif opt["direction"] == "under-rated":
        table = table[table["metric_over_human"] < 0]
    return table


def range_filters(table: pd.DataFrame) -> pd.DataFrame:
    """Sliders on the metric and human score ranges."""
    cols = st.columns(2)
    for col, name in zip(cols, ("metric value", "human score")):
        lo, hi = float(table[name].min()), float(table[name].max())
        if lo < hi:
            chosen = col.slider(f"{name.capitalize()} range", lo, hi, (lo, hi), key=f"fail-range-{name}")
            table = table[table[name].between(*chosen)]
    return table


def search(table: pd.DataFrame, text: str) -> pd.DataFrame:
    """Pairs whose source or output contains ``text`` (case-insensitive, literal)."""
    if not text.strip():
        return table
    needle = text.strip()
    hit = (table["source"].str.contains(needle, case=False, regex=False)
           | table["output"].str.contains(needle, case=False, regex=False))
    return table[hit]


#: Column order and names of the ranking as a reader sees it (texts before the bookkeeping).
TABLE_COLUMNS = {"rank_difference": "rank difference", "metric_over_human": "metric − human (points)",
                 "metric value": "metric value", "human score": "human score", "source": "source",
                 "output": "output", "system": "system", "setting": "setting",
                 "metric_percentile": "metric percentile", "human_percentile": "human percentile"}
TABLE_FORMAT = {
    "rank difference": st.column_config.NumberColumn(format="%.1f", help="|metric percentile - human percentile|"),
    "metric − human (points)": st.column_config.NumberColumn(format="%+.1f", help="> 0: the metric over-rates the pair"),
    "metric value": st.column_config.NumberColumn(format="%.3f"),
    "human score": st.column_config.NumberColumn(format="%.2f"),
    "metric percentile": st.column_config.NumberColumn(format="%.1f"),
    "human percentile": st.column_config.NumberColumn(format="%.1f"),
    "source": st.column_config.TextColumn(width="medium"),
    "output": st.column_config.TextColumn(width="medium"),
}


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """The ranking with the texts up front and plain column names (for the screen and downloads)."""
    cols = [c for c in TABLE_COLUMNS if c in table]
    out = table[cols].rename(columns=TABLE_COLUMNS)
    out.index.name = "pair"
    return out


def story(ds, values: pd.DataFrame, row_id, opt: dict) -> None:
    """One pair's full story."""
    pair = ds.pairs.loc[row_id]
    source, output = str(pair["source"]), str(pair["output"])
    left, right = word_diff_html(source, output)  # escapes every word
    facts = [str(pair[c]) for c in ("system", "setting") if c in pair and pd.notna(pair[c])]
    if "source_style" in pair and "target_style" in pair and pd.notna(pair["source_style"]):
        facts.append(f"{pair['source_style']} → {pair['target_style']}")
    if facts:
        st.caption(" · ".join(ui.escape(f) for f in facts))  # escaped: entities render, tags never do
    if source.split() == output.split():
        st.caption("The output repeats the source word for word.")
    st.markdown("**Source** (struck: lost; yellow: replaced)", help="Word-level diff, case-insensitive")
    st.markdown(f'<div style="font-size:1.05rem;line-height:1.8;margin-bottom:0.9rem">{left}</div>', unsafe_allow_html=True)
    st.markdown("**Output** (green: new; yellow: replacing)")
    st.markdown(f'<div style="font-size:1.05rem;line-height:1.8;margin-bottom:0.9rem">{right}</div>', unsafe_allow_html=True)
    cols = st.columns(2)
    with cols[0]:
        st.markdown("**Named entities** (spaCy)")
        diff = entity_diff(source, output)
        rows = ([("kept", ui.escape(e.text), e.label) for e in diff.kept]
                + [("lost", ui.escape(e.text), e.label) for e in diff.lost]
                + [("changed", f"{ui.escape(a.text)} → {ui.escape(b.text)}", a.label) for a, b in diff.changed]
                + [("added", ui.escape(e.text), e.label) for e in diff.added])
        if rows:
            st.markdown("\n".join(f"- **{kind}**: {text} <small>({label})</small>" for kind, text, label in rows),
                        unsafe_allow_html=True)
        else:
            st.caption("No entities in either text.")
        st.markdown("**Style words masked / removed** (Mir et al.)")
        lexicon = ui.lexicon_select(ds, "fail-lexicon", optional=True)
        if lexicon:
            for mod in ("masking", "removal"):
                masked = apply_modification([source, output], mod, lexicon)
                st.text(f"{mod}:\n  source: {masked[0]}\n  output: {masked[1]}")  # st.text never renders HTML
    with cols[1]:
        st.markdown("**Every metric** (value, and percentile among all pairs; for distances a low value "
                    "is a high percentile)")
        table = metric_percentiles(values, row_id)
        st.dataframe(table, width="stretch", hide_index=True, height=35 * (len(table) + 1) + 3,
                     column_config={"metric": st.column_config.TextColumn(width="large"),
                                    "value": st.column_config.NumberColumn(format="%.3f"),
                                    "percentile": st.column_config.ProgressColumn(
                                        format="%.0f", min_value=0, max_value=100,
                                        help="share of all pairs this pair beats (higher = more similar)")})
        st.markdown("**Human judgments**")
        humans = {short_name(c): pair[c] for c in ds.human_columns}
        st.dataframe(pd.DataFrame({"judgment": list(humans), "value": [fmt_vote(v) for v in humans.values()]}),
                     width="stretch", hide_index=True)


def fmt_vote(value) -> str:
    """A human judgment for display: numbers to 2 decimals, missing as 'not rated'."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "not rated"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"
    return str(value)


def metric_percentiles(values: pd.DataFrame, row_id) -> pd.DataFrame:
    """Value and percentile (higher = more similar) of one pair under every metric."""
    rows = []
    for name in values.columns:
        card = get_card(name)
        column = values[name] if card.higher_is_better else -values[name]
        pct = column.rank(pct=True).loc[row_id] * 100
        rows.append({"metric": card.label, "value": values.loc[row_id, name], "percentile": pct})
    return pd.DataFrame(rows)


def main() -> None:
    ui.page_setup("Failure cases")
    st.markdown(INTRO)
    ds = ui.require_dataset()
    ui.require_pairs(ds, "so there is nothing to score or rank")
    if not [c for c in ds.human_columns if pd.api.types.is_numeric_dtype(ds.pairs[c])]:
        st.info(f"**{ds.title} has pairs but no numeric human score.** A failure case is a pair where a metric "
                "and the human raters disagree, so this page needs a human-score column (e.g. `human_content`, "
                "1-5). The *Metrics vs humans* page still computes every metric for these pairs.")
        st.stop()
    opt = controls(ds)
    values = story_frame(ds, opt["metric"])
    if values is None:
        st.stop()
    table = search(range_filters(ranked(ds, values, opt)), opt["search"])
    label = get_card(opt["metric"]).label
    fig = rank_difference_histogram(table, label)
    st.plotly_chart(fig, width="stretch", key="fail-hist")
    ui.download_figure(fig, "rank-differences", key="fail-hist-dl")
    st.markdown(f"**{len(table):,} pairs** match; the {min(opt['top'], len(table))} with the largest rank "
                f"difference under *{label}*:")
    top = table.head(opt["top"])
    shown = readable(top)
    st.dataframe(shown, width="stretch", column_config=TABLE_FORMAT)
    ui.download_table(shown, "failure-cases", key="fail-dl")
    if top.empty:
        st.stop()
    row_id = st.selectbox("Open a pair", list(top.index), key="fail-open",
                          format_func=lambda i: f"#{i} · rank difference {top.loc[i, 'rank_difference']:.0f} · "
                                                f"{str(top.loc[i, 'source'])[:70]}")
    st.subheader(f"Pair #{row_id}")
    try:
        story(ds, values, row_id, opt)
    except DataError as exc:
        ui.show_error(exc)


main()
