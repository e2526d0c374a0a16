"""Leaderboard: whole systems compared the way TST papers do (style accuracy, BLEU, self-BLEU, chrF,
similarity, perplexity, naturalness, G2/H2/J, human ratings), each with a 95% bootstrap interval and a
rank range; a significance matrix of every two systems; any two metrics against each other with the
Pareto front; a per-direction breakdown; the metrics against the raters across systems; and each
system's worst or best outputs, opened in Failure cases. All computation is stviz.analyses.leaderboard."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui
from stviz.analyses import benchmark_board, choices, leaderboard
from stviz.analyses.choices import CLASSIFIER_LABELS, CLASSIFIERS
from stviz.analyses.common import style_scorer_names
from stviz.analyses.leaderboard import (METRICS, difference_matrix, format_interval, format_p_value, format_rank,
                                        metric_card, metric_decimals, significance_matrix)
from stviz.analyses.board_tables import (board_latex, compact_table, failure_link, measure_rows, metric_label,
                                         numeric_table, short_label)
from ui.benchmark import benchmark_section, reported_section
from stviz.plots.leaderboard import (correlation_heatmap, direction_figure, interval_figure, metric_scatter,
                                     significance_heatmap)

#: The content cosine's encoders offered by name (any embedder spec works from the CLI and the URL).
ENCODER_CHOICES = {"auto": "auto (by language)", "minilm": "MiniLM (English)",
                   "usem3": "USE multilingual v3 (16 languages)", "me5": "multilingual-e5-small (about 100)"}

INTRO = ("Which system wins on style, content and fluency, and is the difference real? Every number has a 95% "
         "bootstrap interval over the inputs; systems whose intervals overlap share a **rank range**; every two "
         "systems are compared on the same inputs with a paired bootstrap and an approximate-randomisation test.")


def controls(ds, defaults: leaderboard.Options) -> leaderboard.Options:
    """Metrics, classifier, language model, references, resamples and system names."""
    # The full width for the metrics: in a column, eleven chosen metrics stack into a tall box.
    metrics = st.multiselect("Metrics", list(METRICS), default=list(defaults.metrics), key="board-metrics",
                             format_func=lambda m: METRICS[m].label)
    cols = st.columns([1.2, 1.4, 1])
    classifier = cols[0].radio("Style classifier", CLASSIFIERS, horizontal=True, key="board-classifier",
                               index=CLASSIFIERS.index(defaults.classifier), format_func=CLASSIFIER_LABELS.get)
    lm = cols[1].text_input("Fluency language model", defaults.language_model, key="board-lm",
                            help="'ngram': offline Kneser-Ney trigram trained on target-style texts; hf:MODEL "
                                 "(e.g. hf:gpt2) for a causal LM, which needs internet or a local copy")
    resamples = cols[2].number_input("Resamples", 100, 10_000, defaults.n_resamples, step=100, key="board-resamples")
    cols = st.columns([1.2, 2.4])
    text_form = cols[0].radio("Text form", choices.TEXT_FORMS, horizontal=True, key="board-text-form",
                              index=choices.TEXT_FORMS.index(defaults.text_form),
                              help="auto: when systems, inputs and references are written differently (tokenised "
                                   "and lower-cased or not), every text is tokenised and lower-cased before every "
                                   "measure, so no system is judged by its punctuation")
    offered = choices.style_data(ds)
    style_data = cols[1].selectbox("Style texts (classifier, language model, naturalness)", list(offered),
                                   index=list(offered).index(defaults.style_data) if defaults.style_data in offered
                                   else 0, format_func=offered.get, key="board-style-data")
    scorers = ["auto", "none"] + style_scorer_names()
    scorers += [defaults.style_scorer] if defaults.style_scorer not in scorers else []
    cols = st.columns([1, 2])
    encoders = list(ENCODER_CHOICES) + ([defaults.encoder] if defaults.encoder not in ENCODER_CHOICES else [])
    encoder = cols[0].selectbox("Sentence encoder (cosine, J's SIM)", encoders, key="board-encoder",
                                index=encoders.index(defaults.encoder), format_func=lambda e: ENCODER_CHOICES.get(e, e),
                                help="auto: MiniLM for English; for another language the shipped multilingual encoder "
                                     "that agrees best with people where measured (docs/languages.md)")
    style_scorer = cols[1].selectbox("Style scorer (a style measure per output, turned toward each pair's target)",
                                     scorers, index=scorers.index(defaults.style_scorer), key="board-style-scorer",
                                     help="auto: the PT16 formality regressor when the targets are formal / informal "
                                          "(and PT16 is installed); a saved scorer's name (classify train --ratings); "
                                          "none.")
    references = ds.reference_columns
    chosen_refs = ()
    if len(references) > 1:
        chosen_refs = tuple(st.multiselect("References", references, default=references, key="board-refs"))
    with st.expander("System names (editable)"):
        rename = names_editor(leaderboard.with_system(ds))  # pairs without systems are one system
    return defaults.changed(metrics=tuple(metrics) or leaderboard.Options().metrics, classifier=classifier,
                            language_model=lm.strip() or "ngram", reference_columns=chosen_refs,
                            n_resamples=int(resamples), rename=rename, text_form=text_form, style_data=style_data,
                            style_scorer=style_scorer, encoder=encoder)


def names_editor(ds) -> tuple[str, ...]:
    """A table of the systems as the files name them and the names shown; edits become renames."""
    if "system_file" in ds.pairs:
        found = ds.pairs[["system_file", "system"]].drop_duplicates().astype(str)
        table = pd.DataFrame({"in the files": found["system_file"].to_numpy(), "name": found["system"].to_numpy()})
    else:
        names = pd.unique(ds.pairs["system"].astype(str))
        table = pd.DataFrame({"in the files": names, "name": names})
    if ds.name.startswith("li2018-"):
        from stviz.data.corpora.li2018 import SYSTEM_EVIDENCE

        table["why"] = table["in the files"].map(SYSTEM_EVIDENCE).fillna("")
        st.caption("Li et al.'s repository does not say which file suffix is which system; this mapping is worked "
                   "out from the authors' scripts and other groups' copies of the outputs. Change a name if you "
                   "read the evidence differently.")
    edited = st.data_editor(table, disabled=[c for c in table.columns if c != "name"], hide_index=True,
                            key="board-names", width="stretch")
    return tuple(f"{old}={new.strip()}" for old, new, shown in zip(edited["in the files"], edited["name"], table["name"])
                 if isinstance(new, str) and new.strip() and new.strip() != shown)


def display_table(result: leaderboard.Result) -> tuple[pd.DataFrame, dict[str, str]]:
    """Numbers (sortable), intervals and rank ranges side by side, one row per system, and each number
    column's format (stviz.formatting.metric_decimals: the precision the command line prints)."""
    out, formats = pd.DataFrame(index=pd.Index(result.systems, name="system")), {}
    by_measure = measure_rows(result)
    for metric in result.metrics + result.humans:
        rows = by_measure[metric]
        label = result.label(metric)
        digits = metric_decimals(rows["value"])
        out[label], formats[label] = rows["value"], f"%.{digits}f"
        out[f"{label} · 95% CI"] = [f"[{lo:.{digits}f}, {hi:.{digits}f}]" if pd.notna(lo) else ""
                                    for lo, hi in zip(rows["low"], rows["high"])]
        if len(result.systems) > 1:  # one system has no rank
            out[f"{label} · rank"] = [format_rank(int(b), int(w)) if pd.notna(b) else ""
                                      for b, w in zip(rows["rank_best"], rows["rank_worst"])]
    return out, formats


def full_table(result: leaderboard.Result) -> None:
    """Every measure's value, interval and rank range, one row per system."""
    full, formats = display_table(result)
    st.dataframe(full, width="stretch", placeholder="–", column_config={
        label: st.column_config.NumberColumn(format=number) for label, number in formats.items()})


def systems_section(result: leaderboard.Result, labels: dict[str, str]) -> None:
    """The compact table (sorted, one column per measure, each value over its interval), the full table one click
    away, downloads with numbers as numbers, and the intervals of one measure as a chart."""
    st.subheader("Systems")
    names = result.metrics + result.humans
    cols = st.columns([1, 3])
    # Keyed by the measures computed: when they change (styles given to uploaded outputs add ACC, G2, H2, J),
    # the choices start again from every measure and J, instead of keeping the earlier list without them.
    measures = "|".join(names)
    sort_by = cols[0].selectbox("Sort by", names, format_func=labels.get, key=f"board-sort:{measures}",
                                index=names.index("j") if "j" in names else 0)
    # In a popover: fifteen chips would take more room than the table they choose for.
    shown = cols[1].popover("Columns (also of the LaTeX table)").multiselect(
        "Columns", names, default=names, format_func=labels.get, key=f"board-columns:{measures}") or names
    table = compact_table(result, sort_by, shown)
    digits = {m: metric_decimals(table[(m, "value")]) for m in shown}
    tooltips = {m: f"{labels[m]} ({'higher' if metric_card(m).higher_is_better else 'lower'} is better); bar: "
                   f"95% interval" for m in shown}
    ui.interval_table(table, {m: short_label(m) for m in shown}, tooltips, digits, sort_by, key="board-compact")
    st.caption("Bars: each system's 95% bootstrap interval, on a scale spanning every system's interval; hover a "
               "value for its ends."
               + (" Rank: by the sorted measure; systems whose intervals overlap share ranks."
                  if len(result.systems) > 1 else ""))
    ui.download_table(numeric_table(result), "leaderboard", key="board-table-dl",
                      latex=lambda: board_latex(result, shown, sort_by).encode())
    ui.folded("Full table: every interval and rank range", "board-full-open", lambda: full_table(result))
    metric = st.selectbox("Intervals of", names, format_func=labels.get, key=f"board-interval:{measures}",
                          index=names.index(sort_by))
    fig = interval_figure(result.scores, metric, labels[metric], metric_card(metric).higher_is_better)
    ui.plotly_chart(fig, width="stretch", key="board-intervals")
    ui.download_figure(fig, "leaderboard-intervals", key="board-intervals-dl")


def significance_section(result: leaderboard.Result, labels: dict[str, str]) -> None:
    """Every two systems on one measure: the paired test's p-value and the difference."""
    cols = st.columns(2)
    metric = cols[0].selectbox("Metric", result.metrics + result.humans, format_func=labels.get, key="board-sig-metric")
    test = cols[1].radio("Test", ["p_bootstrap", "p_randomization"], horizontal=True, key="board-sig-test",
                         format_func={"p_bootstrap": "paired bootstrap (Koehn 2004)",
                                      "p_randomization": "approximate randomisation"}.get)
    matrix = significance_matrix(result.tests, metric, result.systems, test)
    diffs = difference_matrix(result.tests, metric, result.systems)
    fig = significance_heatmap(matrix, diffs, title=labels[metric])
    ui.plotly_chart(fig, width="stretch", key="board-heatmap")
    ui.download_figure(fig, "leaderboard-significance", key="board-heatmap-dl")


def main() -> None:
    """Systems scored on every metric, with significance, rankings and links to their failure cases."""
    # ui.open_view's steps, with uploaded outputs' inventory before the dataset is read (a refusal stops here).
    ui.page_setup(leaderboard.TITLE)
    st.markdown(INTRO)
    ui.outputs_section()
    ds = ui.require_dataset()
    ds, benchmark = benchmark_section(ds, ui.current_dataset_name())
    ds = ui.language_facet(ds)  # one language at a time, the largest first (as the server warms it)
    ui.require_applicable(leaderboard, ds)
    defaults = ui.url_options(leaderboard)
    options = controls(ds, defaults)
    if benchmark:  # its style texts and the published systems' text form, whatever the widgets say
        options = benchmark_board.board_options(benchmark, options)
    slices = ui.slices_panel(ds, "board-slices")
    ui.remember(leaderboard, options)
    result = ui.run_analysis(leaderboard, ds, options)
    ds = ui.dataset_of_result(ds)  # a preview's scores are its sample's
    labels = {m: result.label(m) for m in result.metrics + result.humans}
    captions = [result.classifier and f"Style classifier: {ui.literal(result.classifier)}.",
                *(f"{ui.literal(line[0].upper() + line[1:])}." for line in (result.style_texts, result.text_form)
                  if line)]
    captions += [f"sacrebleu {m}: `{s}`" for m, s in result.signatures.items()]
    if result.fluency:
        captions.append(f"Fluency: {ui.literal(result.fluency)}.")
    st.caption("  \n".join(c for c in captions if c))
    ui.show_notes(result.notes)

    systems_section(result, labels)
    if benchmark:
        reported_section(benchmark, ds, result, options)
    # The rest in tabs, of which only the open one is drawn (ui.lazy): five figures and their tables held up the
    # drawing of the page; a tab's choices are kept while another is open.
    tabs = {}
    if len(result.systems) > 1:  # a paired test needs two systems (one system's note says so)
        tabs["Is the difference real?"] = lambda: significance_section(result, labels)
    tabs["Two metrics at once"] = lambda: two_metrics_section(result, labels)
    if result.by_direction["direction"].nunique() > 1:
        tabs["Per direction"] = lambda: direction_section(result, labels)
    if not result.system_meta.empty:
        tabs["Metrics against the raters"] = lambda: raters_section(result, labels)
    if slices:
        tabs["Per slice"] = lambda: slices_section(ds, result, options, slices, labels)
    tabs["Worst and best outputs"] = lambda: outputs_section(result)
    ui.draw_tabs(tabs, key="board-tab", keep={
        "Is the difference real?": ("board-sig-metric", "board-sig-test"), "Two metrics at once": ("board-x", "board-y"),
        "Per direction": ("board-direction-metric",), "Per slice": ("board-slice-metric",),
        "Worst and best outputs": ("board-open-system", "board-open-value", "board-open-which")})


def two_metrics_section(result: leaderboard.Result, labels: dict[str, str]) -> None:
    """Any two measures against each other, with the Pareto front."""
    cols = st.columns(2)
    names = result.metrics + result.humans
    x = cols[0].selectbox("x", names, index=names.index("accuracy") if "accuracy" in names else 0,
                          format_func=labels.get, key="board-x")
    y = cols[1].selectbox("y", names, index=names.index("bleu") if "bleu" in names else min(1, len(names) - 1),
                          format_func=labels.get, key="board-y")
    fig = metric_scatter(result.scores, x, y, x_label=labels[x], y_label=labels[y],
                         x_higher=metric_card(x).higher_is_better, y_higher=metric_card(y).higher_is_better)
    ui.plotly_chart(fig, width="stretch", key="board-scatter")
    st.caption("The dotted line joins the Pareto front: systems no other system beats on both metrics.")
    ui.download_figure(fig, "leaderboard-scatter", key="board-scatter-dl")


def direction_section(result: leaderboard.Result, labels: dict[str, str]) -> None:
    """One measure per system and transfer direction."""
    metric = st.selectbox("Metric", result.metrics + result.humans, format_func=labels.get,
                          key="board-direction-metric")
    fig = direction_figure(result.by_direction, metric, labels[metric])
    ui.plotly_chart(fig, width="stretch", key="board-directions")
    ui.download_figure(fig, "leaderboard-directions", key="board-directions-dl")


def raters_section(result: leaderboard.Result, labels: dict[str, str]) -> None:
    """Do the metrics rank systems as the raters do: across systems, then per output pooled over systems."""
    st.markdown("**Do the metrics rank systems as the raters do?**")
    fig = correlation_heatmap(result.system_meta, labels)
    ui.plotly_chart(fig, width="stretch", key="board-meta")
    ui.download_figure(fig, "leaderboard-metrics-vs-raters", key="board-meta-dl")
    meta = result.system_meta.copy()
    meta["metric"], meta["human"] = meta["metric"].map(labels), meta["human"].map(labels)
    for col in ("pearson_p", "spearman_p", "kendall_p"):
        meta[col] = meta[col].map(format_p_value)
    st.dataframe(meta, width="stretch", hide_index=True, placeholder="–", column_config=_numbers(meta))
    ui.download_table(result.system_meta, "leaderboard-metrics-vs-raters", key="board-meta-table-dl")
    st.caption(f"Across {int(result.system_meta['n_systems'].max())} systems; Pearson's interval resamples the "
               "inputs. Per output (pooled over systems), the same metrics against the raters:")
    if not result.output_meta.empty:
        pooled = result.output_meta.assign(metric=result.output_meta["metric"].map(lambda m: labels.get(m, m)),
                                           human=result.output_meta["human"].map(lambda h: labels.get(h, h)),
                                           p_value=result.output_meta["p_value"].map(format_p_value))
        st.dataframe(pooled, width="stretch", hide_index=True, placeholder="–", column_config=_numbers(pooled))


def slices_section(ds, result: leaderboard.Result, options: leaderboard.Options, slices, labels: dict[str, str]) -> None:
    """The same leaderboard per saved slice (same metrics, resamples and intervals): one measure across the slices
    side by side, then each slice's table."""
    drawn = [("all pairs", "every pair", result, len(ds.pairs))]
    ui.per_slice(leaderboard, ds, options, slices,
                 lambda item, sliced, count: drawn.append((item.name, item.describe(), sliced, count)))
    names = result.metrics + result.humans
    metric = st.selectbox("Measure across the slices", names, format_func=labels.get, key="board-slice-metric",
                          index=names.index("j") if "j" in names else 0)
    st.dataframe(across_slices(drawn, metric), width="stretch", placeholder="–", key="board-slices-across")
    st.caption(f"{labels[metric]} with its 95% interval ({options.n_resamples:,} resamples) on each slice's pairs; "
               "a blank cell: the slice has none of that system's outputs.")
    for name, described, sliced, count in drawn[1:]:
        st.markdown(f"**{ui.literal(name)}** · {count:,} of {len(ds.pairs):,} pairs · {ui.literal(described)}")
        st.dataframe(sliced.wide(), width="stretch", key=f"board-slice-{name}")
        ui.download_table(sliced.wide(with_intervals=False), "leaderboard-slice", key=f"board-slice-dl-{name}")


def across_slices(drawn, metric: str) -> pd.DataFrame:
    """One row per system, one column per slice: ``metric``'s 'value [low, high]' on that slice."""
    columns = {}
    for name, _, sliced, _ in drawn:
        rows = sliced.scores[sliced.scores["metric"] == metric].set_index("system")
        digits = metric_decimals(rows["value"]) if len(rows) else 1
        columns[name] = {s: format_interval(*rows.loc[s, ["value", "low", "high"]], digits=digits) for s in rows.index}
    return pd.DataFrame(columns).rename_axis("system")


def _numbers(table: pd.DataFrame) -> dict:
    """Three decimals for the table's float columns (raw floats show 0.0383 beside -0.3228)."""
    return {c: st.column_config.NumberColumn(format="%.3f") for c in table.columns
            if pd.api.types.is_float_dtype(table[c])}


def outputs_section(result: leaderboard.Result) -> None:
    """A system's worst or best outputs by a per-output value (ties ordered and said), opened in Failure cases."""
    values = [c for c in leaderboard.OUTPUT_VALUES if c in result.per_output and result.per_output[c].notna().any()]
    if not values:
        st.caption("No per-output value to rank the outputs by: choose a measure scored per output above.")
        return
    cols = st.columns(3)
    system = cols[0].selectbox("System", result.systems, key="board-open-system")
    value = cols[1].selectbox("By", values, key="board-open-value", format_func=lambda c: output_label(result, c))
    worst = cols[2].radio("Show", ["worst", "best"], horizontal=True, key="board-open-which") == "worst"
    rows = leaderboard.extreme_outputs(result, system, value, n=10, worst=worst)
    if note := leaderboard.tie_note(result, system, value, rows, worst):
        st.caption(f"ℹ️ {ui.literal(note)}")
    second = leaderboard.tie_breaker(rows, value)
    # Texts get fixed widths so that the values beside them stay in view at 1400 px.
    texts = {c: st.column_config.TextColumn(width=300) for c in ("source", "output")}
    st.dataframe(rows[["source", "output", value] + ([second] if second else [])], width="stretch",
                 column_config=texts | {c: st.column_config.NumberColumn(output_label(result, c), format="%.3f",
                                                                          width="small") for c in (value, second) if c})
    link = failure_link(result, system, value, int(rows.index[0]) if worst and not rows.empty else None)
    st.caption(f"Failure cases opens {ui.literal(system)}'s pairs only, ranking {ui.literal(metric_label(link['metric']))}"
               f" against the raters' {ui.literal(link.get('human', 'main score'))}"
               + (f", with the first output above (pair {link['pair']}) told in full." if "pair" in link else "."))
    if st.button(f"Open {ui.literal(system)} in Failure cases", key="board-open"):
        # The same link a colleague could be sent: the dataset, the system, the metric and rating, the pair.
        st.switch_page("pages/5_Failure_cases.py", query_params={"dataset": ui.current_dataset_name(), **link})


#: The per-output values as the outputs table names them.
OUTPUT_LABELS = {"accuracy": "style accuracy (0/1)",
                 "bertscore": "BERTScore F1 against the source", "naturalness": "naturalness P(human)",
                 "sentence_perplexity": "perplexity", "j": "J (ACC x SIM x FL)",
                 "target_probability": "P(target style)", "style_score": "style score (toward the target)"}


def output_label(result: leaderboard.Result, value: str) -> str:
    """A per-output value's name in the outputs table (the cosine's with its encoder)."""
    return OUTPUT_LABELS.get(value) or result.label(value)


ui.run_page(main)  # in its turn among the server's page scripts (ui.turns)
