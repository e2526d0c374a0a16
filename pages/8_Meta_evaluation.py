"""Meta-evaluation: which automatic measure agrees with people, per aspect (content, style, fluency,
overall), across every chosen human-rated set, at the sentence and the system level, with intervals,
pairwise accuracy, best groups, an aggregate over sets, and sanity flags on precomputed columns. All
computation is stviz.analyses.meta_evaluation."""

from __future__ import annotations

from functools import partial

import streamlit as st

import ui
from stviz.analyses import meta_evaluation as analysis
from stviz.analyses.meta_evaluation import ASPECTS, LEVELS, METHODS, STATISTIC_LABELS
from stviz.analyses.meta_notes import NOT_COMPUTED, skipped_kind
from stviz.data import load_dataset
from stviz.data.meanings import NO_ASPECT, guess_aspect, parse_aspects
from stviz.data.schema import short_name
from stviz.plots.meta_evaluation import agreement_heatmap, sets_heatmap
from ui import style_axis

INTRO = ("**Which metric should I trust?** Every measure of an aspect is correlated with the human ratings of that "
         "aspect on every chosen set: per sentence, and per system (system means, and **pairwise accuracy**: the "
         "share of system pairs a measure orders as the raters do). Intervals are 95% bootstraps (items resampled "
         "within systems at the system level); the **best group** holds the measures not significantly worse than "
         "the best (paired resampling test). Higher = agrees more with people; distances and perplexity are negated, "
         "and a style measure of one pole (P(formal), a formality score) is turned toward each pair's target.")
NUMBER = st.column_config.NumberColumn(format="%.3f")
#: The interval columns of readable_table, and the columns of its per-aspect table.
INTERVAL_NUMBERS = {c: NUMBER for c in ("r", "95% CI low", "95% CI high")}
MEASURE_COLUMNS = ["set", "language", "human", "level", "measure", "r", "95% CI low", "95% CI high", "best group",
                   "measure's axis", "n"]
BOOTSTRAP_CHOICES = (100, 200, 500, 1000)


def _human_columns(names: list[str], current) -> list[str]:
    """The human columns of the chosen sets, by short name (the name ``--aspects`` takes)."""
    from stviz.analyses.common import human_columns

    from stviz.data.intake.rated_sentences import sentence_ratings

    columns = []
    for ds in _sets(names, current):
        columns += [short_name(c) for c in human_columns(ds) + sentence_ratings(ds)]
    return list(dict.fromkeys(columns))


def _sets(names: list[str], current) -> list:
    """The chosen sets, the current one as the session holds it."""
    return [current if current is not None and current.name == name else load_dataset(name) for name in names]


def _suggestion(sets) -> str:
    """The direction the first set's name or values suggest (never a fixed example), else 'SOURCE>TARGET'."""
    from stviz.data.intake.file_direction import suggest_direction

    found = next((s for d in sets if (s := suggest_direction(d.name, d.pairs)[0])), "")
    return found or "SOURCE>TARGET"


def set_up_controls(names: list[str], current, defaults: analysis.Options) -> tuple[str, tuple[str, ...],
                                                                                    tuple[str, ...], tuple[str, ...]]:
    """The direction of pair sets without style columns, the style scorers, what each style column measures (its pole)
    and what each set's own measure measures (its axis)."""
    sets = _sets(names, current)
    direction = defaults.direction
    undirected = [d.name for d in sets if d.pairs is not None and "target_style" not in d.pairs]
    if undirected:
        direction = st.text_input(
            "Direction of " + ", ".join(ui.literal(n) for n in undirected), value=defaults.direction,
            key="meta-direction", placeholder=_suggestion([d for d in sets if d.name in undirected]),
            help="These pairs have no style columns: stviz's style and fluency measures need each pair's target "
                 "style (the set's own measures are compared without it). SOURCE>TARGET for every pair, or "
                 "SYSTEM=SOURCE>TARGET;... per system (meta-eval --direction).")
    scorers = style_axis.scorers_input(defaults.style_scorers, "meta-scorers")
    poles = style_axis.poles_panel(sets, defaults.poles, "meta-pole")
    axes = style_axis.axes_panel(sets, defaults.axes, "meta-axis")
    offered = [n for n in analysis.dataset_choices(current) if n in analysis.RATED_SENTENCES
               or (current is not None and n == current.name and current.pairs is None)]
    rated = {n: d for n in offered for d in _sets([n], current)}
    style_axis.scorer_training(rated, "meta-train")
    return direction.strip(), scorers, poles, axes


def controls(ds, defaults: analysis.Options) -> analysis.Options:
    """Sets, aspects, levels, statistics and resamples -> Options."""
    choices = analysis.dataset_choices(ds)
    # A first visit evaluates the current dataset when it is rated (seconds to minutes), not every set at once
    # (a quarter of an hour cold): the other sets are one click away, and a link keeps what was chosen.
    start = [ds.name] if ds is not None and ds.name in choices else analysis.default_sets(ds)
    chosen = [n for n in (defaults.datasets or start) if n in choices]
    # Option labels are plain text, not Markdown: a name is shown as written (escaping would show 'a\\_b').
    names = st.multiselect("Human-rated sets", choices, default=chosen, key="meta-sets",
                           help="The public sets installed here, the demo, and the current dataset when it has human "
                                "scores. Add sets to compare metrics across them.")
    raters_line(names, ds)
    cols = st.columns([2, 2, 1])
    levels = cols[0].multiselect("Levels", LEVELS, default=list(defaults.levels), key="meta-levels")
    methods = cols[1].multiselect("Correlations", METHODS, default=list(defaults.methods), key="meta-methods",
                                  format_func=STATISTIC_LABELS.get)
    n_boot = cols[2].selectbox("Resamples", BOOTSTRAP_CHOICES, index=BOOTSTRAP_CHOICES.index(defaults.bootstrap),
                               key="meta-boot", help="For the intervals and the paired tests; cached on disk.")
    overrides = parse_aspects(defaults.aspects)
    aspects = []
    with st.expander("Aspect of each human column (guessed from its name)"):
        for column in _human_columns(names, ds):
            options = list(ASPECTS) + [NO_ASPECT]
            guess = guess_aspect(column)
            value = st.selectbox(ui.literal(column), options, index=options.index(overrides.get(column, guess)),
                                 key=f"meta-aspect-{column}")
            if value != guess:
                aspects.append(f"{column}={value}")
    direction, scorers, poles, axes = set_up_controls(names, ds, defaults)
    pooled = languages_control(names, ds, defaults)
    return defaults.changed(datasets=tuple(names) or None, levels=tuple(levels) or LEVELS,
                            methods=tuple(methods) or METHODS, bootstrap=int(n_boot), aspects=tuple(aspects),
                            direction=direction, style_scorers=scorers, poles=poles, axes=axes, pooled=pooled)


def raters_line(names: list[str], current) -> None:
    """How far the raters of each chosen set agree (Krippendorff's alpha), where the set keeps each rater's answers
    (a rating study, InFormal, a file with one column per rater): a correlation with people is capped by it. Per
    language for a set of several, as the tables are (each language had its own raters)."""
    parts = analysis.raters_agreement(_sets(names, current))
    if parts:
        st.caption("Raters' agreement (Krippendorff's alpha, interval): " + ui.literal("; ".join(parts)))


def languages_control(names: list[str], current, defaults: analysis.Options) -> bool:
    """For sets of several languages: say them, and offer a pooled evaluation beside the per-language ones."""
    from stviz.languages import dataset_language, language_name

    mixed = {d.name: dataset_language(d) for d in _sets(names, current) if d.pairs is not None}
    mixed = {name: report for name, report in mixed.items() if report.mixed and not report.chosen}
    if not mixed:
        return defaults.pooled
    lines = [f"{name}: " + ", ".join(f"{language_name(c)} {n:,}" for c, n in sorted(r.languages.items(),
                                                                                   key=lambda x: -x[1]))
             + f" ({r.origin()})" for name, r in mixed.items()]
    st.caption("One table per language: " + ui.literal("; ".join(lines)))
    return st.checkbox("Also pool each set's languages (a correlation across languages also ranks the languages)",
                       value=defaults.pooled, key="meta-pooled")


def language_facet(result: analysis.Result) -> analysis.Result:
    """With several languages, the languages to show (every one by default): the result's rows of those only."""
    from stviz.languages import language_name

    present = [c for c in dict.fromkeys(result.table["language"]) if c]
    if len(present) < 2:
        return result
    chosen = st.multiselect("Languages shown", present, default=present, key="meta-languages",
                            format_func=lambda c: c if c == analysis.POOLED else language_name(c),
                            help="Each language is evaluated on its own (one table per language, as in the "
                                 "multilingual studies); choose which to show.")
    return analysis.only_languages(result, chosen or present)


def axes_tab(result: analysis.Result, options: analysis.Options) -> None:
    """Per aspect (axis): the best measure and best group of every rated column, at each level, and its flags."""
    method = options.methods[0]
    if result.undirected:  # what needs no direction is shown below; the direction adds stviz's own measures
        st.info(f"**Style and fluency** of {', '.join(ui.literal(n) for n in analysis.undirected_names(result))}: "
                "compared with the "
                "set's own measures only. stviz's style and fluency measures need each pair's target style: type "
                "the pairs' direction in the *Direction* box above (e.g. toxic>neutral) to add them.", icon="ℹ️")
    for aspect in (a for a in ASPECTS if (result.table["aspect"] == a).any()):
        st.subheader(f"{aspect.title()}")
        if aspect == "style":
            for line in result.orientation:  # what each style measure measures, and how it was turned
                st.caption(f"↻ {ui.literal(line)}")
        ranked = False
        for level in options.levels:
            groups = analysis.best_groups(result, level, method)
            groups = groups[groups["aspect"] == aspect] if not groups.empty else groups
            if groups.empty:
                continue
            ranked = True
            st.markdown(f"*{level} level, {STATISTIC_LABELS[method]}*: best measure and the group not "
                        "significantly worse")
            st.dataframe(groups.drop(columns=["aspect"]), width="stretch", hide_index=True)
        if not ranked:
            st.caption(f"No measure of the {aspect} axis (nor one whose axis is unsaid) to rank here: the sets' other "
                       "measures stand beside the ratings in the list below, marked with their axis.")
        ui.folded(f"Every {aspect} measure, {STATISTIC_LABELS[method]}, with its 95% interval",
                  f"meta-every-{aspect}", partial(aspect_measures, result, aspect, method))
        flagged = result.flags[result.flags["set"].isin(result.sets)] if not result.flags.empty else result.flags
        measures = set(result.table.loc[result.table["aspect"] == aspect, "metric"])
        mine = flagged[flagged["column"].isin(measures)] if not flagged.empty else flagged
        for message in (mine["message"] if not mine.empty else []):
            st.warning(ui.literal(message), icon="⚠️")


def aspect_measures(result: analysis.Result, aspect: str, method: str) -> None:
    """Every measure of one aspect with one statistic: its correlation, interval and best group, per set."""
    rows = analysis.readable_table(result)
    rows = rows[(result.table["aspect"] == aspect).to_numpy() & (result.table["statistic"] == method).to_numpy()]
    rows = rows.sort_values(["set", "human", "level", "r"], ascending=[True, True, True, False], kind="stable")
    st.dataframe(rows[MEASURE_COLUMNS], width="stretch", hide_index=True, column_config=INTERVAL_NUMBERS)


def heatmap_tab(result: analysis.Result, options: analysis.Options) -> None:
    """Sets x measures for one aspect, level and statistic, exportable."""
    present = result.table
    cols = st.columns(3)
    aspects = [a for a in ASPECTS if (present["aspect"] == a).any()]
    aspect = cols[0].radio("Aspect", aspects, horizontal=True, key="meta-aspect")
    levels = [lv for lv in options.levels if ((present["aspect"] == aspect) & (present["level"] == lv)).any()]
    level = cols[1].radio("Level", levels, horizontal=True, key="meta-level")
    statistics = list(options.methods) + (["pairwise_accuracy"] if level == "system" else [])
    statistic = cols[2].radio("Statistic", statistics, horizontal=True, key="meta-statistic",
                              format_func=STATISTIC_LABELS.get)
    rows = analysis.heatmap_frame(result, aspect, level, statistic)
    if rows.empty:
        st.info("No rows for this choice.")
        return
    fig = sets_heatmap(rows, STATISTIC_LABELS[statistic],
                       title=f"{aspect.title()} · {level} level · {STATISTIC_LABELS[statistic]} (● best group)")
    ui.plotly_chart(fig, width="stretch", key="meta-heatmap")
    ui.download_figure(fig, f"meta-evaluation-{aspect}-{level}-{statistic}", key="meta-heatmap-dl")
    st.caption("Rows: one human column of one set (of one language of a set of several: a languages x measures "
               "table). Hover a cell for its 95% interval. A dot marks the best group; an empty cell is a measure the "
               "set does not have, or one not valid for its language. 'cosine (the language's encoder)' is each "
               "language's own (MiniLM for English, USE for Russian, multilingual-e5 for most others), named on "
               "hover; the tables keep each encoder's rows.")
    groups = analysis.best_groups(result, level, statistic)
    groups = groups[groups["aspect"] == aspect]
    st.dataframe(groups, width="stretch", hide_index=True)
    ui.download_table(groups.set_index("set"), f"best-groups-{aspect}-{level}-{statistic}", key="meta-groups-dl")


def aggregate_tab(result: analysis.Result) -> None:
    """Mean rank, wins and best-group share per aspect, over the chosen sets."""
    table = analysis.readable_aggregate(result)
    st.markdown("**Across sets.** Each human column of each set is a task; in each, the measures are ranked by their "
                "agreement (1 = best). *in best group* is the share of tasks where the measure is not significantly "
                "worse than the best. Measures found in every task are ranked among themselves first; a measure "
                "some sets lack is ranked apart, after them, with its coverage (*tasks*: k of N).")
    st.dataframe(table, width="stretch", hide_index=True,
                 column_config={"mean rank": st.column_config.NumberColumn(format="%.2f"),
                                "in best group": st.column_config.NumberColumn(format="%.2f")})
    ui.download_table(table.set_index("aspect"), "meta-evaluation-aggregate", key="meta-agg-dl")


def rows_tab(result: analysis.Result) -> None:
    """Every row, as ``meta-eval --format csv`` writes it."""
    table = analysis.readable_table(result)
    st.dataframe(table, width="stretch", hide_index=True,
                 column_config=INTERVAL_NUMBERS)
    ui.download_table(table.set_index("set"), "meta-evaluation", key="meta-rows-dl")


def sets_tab(result: analysis.Result) -> None:
    """Per set: sanity flags, what was not computed, and the measure x measure agreement matrix."""
    for name in result.sets:
        st.subheader(ui.literal(name))
        flags = result.flags[result.flags["set"] == name] if not result.flags.empty else result.flags
        for message in (flags["message"] if not flags.empty else []):
            st.warning(ui.literal(message), icon="⚠️")
        skipped = result.skipped[result.skipped["set"] == name] if not result.skipped.empty else result.skipped
        for why in (skipped["why"] if not skipped.empty else []):  # a fallback's model is how, not what is missing
            told = "Not computed: " if skipped_kind(why) == NOT_COMPUTED else ""
            st.caption(f"ℹ️ {told}{ui.literal(why)}")
        aspects = ", ".join(f"{short_name(h)} → {a}" for h, a in result.aspects[name].items())
        st.caption(f"Aspects: {ui.literal(aspects)}")
        matrix = result.agreement[name]
        if len(matrix) > 1:
            fig = agreement_heatmap(matrix, title=f"{name}: measure x measure Spearman ρ over all pairs")
            ui.plotly_chart(fig, width="stretch", key=f"meta-agree-{name}")
            ui.download_figure(fig, f"agreement-{name}", key=f"meta-agree-dl-{name}")


def notes_panel(result: analysis.Result) -> None:
    """The notes, folded by kind (not computed, not checked, how it was computed) so the results stay in view; each
    said once per set with the languages it concerns."""
    for title, notes in analysis.notes_by_title(result).items():
        with st.expander(f"Notes: {title.lower()} ({len(notes)})"):
            ui.show_notes(notes)


def unrated_pairs(ds) -> bool:
    """Whether the current dataset has outputs but no human ratings (Blind spots then answers without them)."""
    from stviz.analyses.common import human_columns
    from stviz.data.intake.rated_sentences import sentence_ratings

    return ds is not None and ds.pairs is not None and not human_columns(ds) and not sentence_ratings(ds)


def main() -> None:
    """Sets and options, then the heatmap, the aggregate, every row and each set's checks."""
    ds, defaults = ui.open_view(analysis, INTRO)
    if unrated_pairs(ds):
        ui.view_link("10_Blind_spots.py", f"{ui.literal(ds.title or ds.name)} has no ratings? See which damage "
                                          "each measure misses on it: Blind spots")
    options = controls(ds, defaults)
    ui.remember(analysis, options)
    if not options.datasets:
        st.info("Choose at least one human-rated set.")
        st.stop()
    result = ui.run_analysis(analysis, ds, options)
    if not result.flags.empty:
        st.warning(f"**{len(result.flags)} sanity flag(s)** on precomputed columns: see *Sets and flags*.", icon="⚠️")
    if result.table.empty:
        notes_panel(result)
        st.info("No human column with measures to compare.")
        st.stop()
    result = language_facet(result)
    notes_panel(result)  # of the languages shown, as every text below
    # Only the open tab is drawn (ui.lazy); the heatmap's choices are kept while another tab is open.
    ui.draw_tabs({"By axis": lambda: axes_tab(result, options), "Heatmap": lambda: heatmap_tab(result, options),
                  "Across sets": lambda: aggregate_tab(result), "Every row": lambda: rows_tab(result),
                  "Sets and flags": lambda: sets_tab(result)},
                 key="meta-tab", keep={"Heatmap": ("meta-aspect", "meta-level", "meta-statistic")})


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
