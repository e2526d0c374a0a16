"""Failure cases (Babakov et al., section 4.2): the pairs where a metric and the human raters disagree
most - ranked by the absolute difference between a pair's percentile rank under the metric and under
the human score - with filters, text search, and each pair's full story: a word-level diff, the
entities kept / lost / changed, the style-masked and -removed texts, every metric's value and
percentile, and the human votes. All user text is HTML-escaped before any markup."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.analyses import failure_cases as analysis
from stviz.analyses.common import human_columns
from stviz.analyses.failure_cases import DIRECTIONS, TOP_CHOICES, metric_choices, metric_label
from stviz.data.schema import short_name
from stviz.plots.metrics import rank_difference_histogram
from ui import style_axis

INTRO = (
    "Where does a metric fail? Each pair gets a percentile rank under the metric and under the human score "
    "(0 = least similar, 100 = most similar); pairs are listed by how far apart the two ranks are "
    "(Babakov et al., section 4.2). *Over-rated*: the metric finds the texts more similar than the raters did. "
    "Click a row to open the pair's full story below."
)
TABLE_FORMAT = {
    "rank difference": st.column_config.NumberColumn(format="%.1f", help="|metric percentile - human percentile|"),
    "metric − human (points)": st.column_config.NumberColumn(format="%+.1f", help="> 0: the metric over-rates the pair"),
    "metric value": st.column_config.NumberColumn(format="%.3f"),
    "human score": st.column_config.NumberColumn(format="%.2f"),
    "metric percentile": st.column_config.NumberColumn(format="%.1f"),
    "human percentile": st.column_config.NumberColumn(format="%.1f"),
    "source": st.column_config.TextColumn(width=260),
    "output": st.column_config.TextColumn(width=260),
}
#: On screen the texts come first and the percentiles last (they scroll into view); the download keeps every column.
TABLE_ORDER = ("source", "output", "metric − human (points)", "metric value", "human score", "system", "setting",
               "rank difference", "metric percentile", "human percentile")
ROW_HEIGHT = 72  # Streamlit wraps cell text only in rows taller than 64 px: about three lines of each text


def controls(ds, defaults: analysis.Options) -> analysis.Options:
    """Metric, human score and filters -> Options."""
    choices = metric_choices(ds)
    cols = st.columns(3)
    metric = cols[0].selectbox("Metric", choices, index=choices.index(defaults.metric) if defaults.metric in choices
                               else 0, format_func=metric_label, key="fail-metric")
    humans = human_columns(ds)
    human = cols[1].selectbox("Human score", humans, format_func=short_name, key="fail-human",
                              index=next((i for i, h in enumerate(humans) if defaults.human in (h, short_name(h))), 0))
    direction = cols[2].radio("Show", DIRECTIONS, index=DIRECTIONS.index(defaults.direction), horizontal=True,
                              key="fail-direction", help="over-rated: the metric ranks the pair higher than the raters did")
    cols = iter(st.columns(3))
    systems = ()
    if ds.has_systems:
        names = sorted(ds.pairs["system"].astype(str).unique())
        chosen = next(cols).multiselect("Systems", names, default=list(defaults.systems) or names, key="fail-systems",
                                        wrap=True)
        systems = () if set(chosen) == set(names) else tuple(chosen)
    search = next(cols).text_input("Search the texts", defaults.search, key="fail-search",
                                   placeholder="a word or phrase")
    top = next(cols).selectbox("Pairs listed", TOP_CHOICES, index=TOP_CHOICES.index(defaults.top)
                               if defaults.top in TOP_CHOICES else 0, key="fail-top")
    poles = style_axis.poles_panel([ds], defaults.poles, "fail-pole", among={short_name(metric)})
    return defaults.changed(metric=metric, human=human, direction=direction, systems=systems, search=search, top=top,
                            poles=poles)


RANGES = {"metric value": ("metric_min", "metric_max"), "human score": ("human_min", "human_max")}


def range_options(options: analysis.Options) -> analysis.Options:
    """The range sliders' current values (drawn below, after the ranking exists) as options."""
    values = {}
    if st.session_state.get("fail-range-for") != (options.metric, options.human):
        return options  # the sliders belong to another metric or human score: no range filter yet
    for name, fields in RANGES.items():
        chosen = st.session_state.get(f"fail-range-{name}")
        full = st.session_state.get(f"fail-range-{name}-full")
        if chosen is not None and full is not None:
            values.update({f: None if chosen[end] == full[end] else float(chosen[end]) for end, f in enumerate(fields)})
    return options.changed(**values)


def range_sliders(result: analysis.Result, options: analysis.Options, defaults: analysis.Options) -> None:
    """Sliders over the metric and human score ranges of every ranked pair (so they do not jump with filters)."""
    st.session_state["fail-range-for"] = (options.metric, options.human)
    cols = st.columns(2)
    for col, (name, (lo, hi)) in zip(cols, analysis.value_ranges(result).items()):
        full_key = f"fail-range-{name}-full"
        if st.session_state.get(full_key) != (lo, hi):  # another metric or human score: start at the full range
            low, high = (getattr(defaults, f) for f in RANGES[name])  # or at a link's range
            st.session_state[full_key] = (lo, hi)
            st.session_state[f"fail-range-{name}"] = (max(lo, low if low is not None else lo),
                                                      min(hi, high if high is not None else hi))
        if lo < hi:
            col.slider(f"{name.capitalize()} range", lo, hi, key=f"fail-range-{name}")


def selected_pair(event, shown: pd.DataFrame) -> int | None:
    """The pair of the row clicked in the ranking, if any."""
    rows = event.selection.rows if event and event.selection else []
    return int(shown.index[rows[0]]) if rows else None


def main() -> None:
    """Ranges and metrics chosen, the ranked failures, then one pair's story."""
    ds, defaults = ui.open_view(analysis, INTRO)
    options = range_options(controls(ds, defaults))
    lexicon = ui.lexicon_select(ds, "fail-lexicon", default=defaults.lexicon, optional=True)
    # A row just clicked, else the pair of the link (?pair=ID) or of this session's last visit.
    options = options.changed(lexicon=lexicon, pair=st.session_state.pop("fail-pair", defaults.pair))
    ui.remember(analysis, options)
    result = ui.run_analysis(analysis, ds, options)
    ui.show_notes(result.notes)
    range_sliders(result, options, defaults)
    fig = rank_difference_histogram(result.ranking, result.metric_label)
    ui.plotly_chart(fig, width="stretch", key="fail-hist")
    ui.download_figure(fig, "rank-differences", key="fail-hist-dl")
    st.markdown(ui.preview_title(f"**{len(result.ranking):,} pairs** match; the {min(options.top, len(result.ranking))} "
                                 f"with the largest rank difference under *{ui.literal(result.metric_label)}*") + ":")
    shown = analysis.readable_ranking(result.ranking.head(options.top))
    event = st.dataframe(shown, width="stretch", column_config=TABLE_FORMAT, on_select="rerun",
                         column_order=[c for c in TABLE_ORDER if c in shown], selection_mode="single-row",
                         key="fail-table", row_height=ROW_HEIGHT, height=38 + ROW_HEIGHT * min(len(shown), 8))
    ui.download_table(shown, "failure-cases", key="fail-dl")
    clicked = selected_pair(event, shown)
    if clicked is not None and clicked != options.pair:
        st.session_state["fail-pair"] = clicked
        st.rerun()
    if result.story is None:
        st.stop()
    st.subheader(f"Pair #{result.story.pair}")
    ui.story_section(ds, result.story, key="fail-story", trained=ui.style_classifier(ds))


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
