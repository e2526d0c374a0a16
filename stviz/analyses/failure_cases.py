"""Failure cases (Babakov et al. 2022, section 4.2): the pairs where a metric and the human raters
disagree most, ranked by the absolute difference between a pair's percentile rank under the metric
and under the human score, with filters; and each pair's full story: the entities kept, lost or
changed, the style-masked and -removed texts, every metric's value and percentile, the human votes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses.common import choose_human, direction_note, humans_reason, pairs_reason
from stviz.analyses.judges import judge_notes
from stviz.analyses.pair_story import (STORY_METRICS, Story, metric_percentiles, story_metrics, story_values,
                                       tell_story)
from stviz.data.schema import Dataset
from stviz.progress import Reporter, reporter
# Names the page shows as they are.
from stviz.analyses.choices import DIRECTIONS
from stviz.formatting import format_judgment  # noqa: F401
from stviz.measures.style.poles import POLES_HELP, parse_poles
from stviz.metrics.registry import metric_label  # noqa: F401

TITLE = "Failure cases"
#: A file of several languages is compared one language at a time (the page's Language facet; the command line
#: prints one table per language in one run): a correlation or a ranking across languages also ranks the languages.
ONE_LANGUAGE_AT_A_TIME = True
TOP_CHOICES = (20, 50, 100, 500)


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """The metric and human score to compare, the filters, and the pair opened (page controls, ``failures`` flags)."""

    metric: str = option("cosine:minilm", "the metric whose disagreement with people is ranked")
    human: str | None = option(None, "human-score column (default: the dataset's main one)")
    # The flag is --disagreement: --direction names a pair file's transfer direction in every command.
    direction: str = option("both", "over-rated: the metric ranks the pair higher than the raters did",
                            choices=DIRECTIONS, flag="--disagreement")
    systems: tuple[str, ...] = option((), "only these systems (default: all)")
    search: str = option("", "only pairs whose source or output contains this text (case-insensitive)")
    metric_min: float | None = option(None, "lowest metric value shown")
    metric_max: float | None = option(None, "highest metric value shown")
    human_min: float | None = option(None, "lowest human score shown")
    human_max: float | None = option(None, "highest human score shown")
    top: int = option(20, "pairs listed", low=1)
    pair: int | None = option(None, "the pair whose story is told (its row number; default: the top one)")
    lexicon: str | None = option(None, "style lexicon for the story's masked / removed texts: 'dataset', "
                                       "learn[:DATASET][:K], a JSON file, or none (default: the dataset's own, "
                                       "else none)")
    poles: tuple[str, ...] = option((), POLES_HELP)

    def __post_init__(self) -> None:
        super().__post_init__()
        parse_poles(self.poles)  # a bad COLUMN=POLE fails here, before any work


@dataclass
class Result:
    """The ranking (all matching pairs, largest disagreement first), the top pairs and one story."""

    values: pd.DataFrame  # every story metric for every pair
    ranked: pd.DataFrame  # every pair with both values, largest disagreement first; indexed by pair
    ranking: pd.DataFrame  # ``ranked`` after the filters
    metric_label: str
    human: str
    story: Story | None
    notes: list[str] = field(default_factory=list)


def metric_choices(dataset: Dataset) -> list[str]:
    """The metrics whose failures can be ranked: the story metrics, every other built-in, the file's columns."""
    from stviz.analyses.choices import metrics

    return list(dict.fromkeys(list(STORY_METRICS) + metrics(dataset)))


def value_ranges(result: "Result") -> dict[str, tuple[float, float]]:
    """(min, max) of the metric and the human score over every ranked pair, for range filters."""
    return {name: (float(result.ranked[name].min()), float(result.ranked[name].max()))
            for name in ("metric value", "human score")}


def applies_to(dataset: Dataset) -> str | None:
    """None when the dataset has pairs with a numeric human score."""
    reason = humans_reason(dataset, "there is no disagreement between a metric and people to rank")
    if reason:
        reason += " The Metrics vs humans page still computes every metric for these pairs."
    return pairs_reason(dataset, "so there is nothing to score or rank") or reason


def estimate(dataset: Dataset, options: Options):
    """The uncached work of :func:`run`: the story metrics the cache does not hold for these pairs."""
    from stviz.costs import Cost

    dataset, _ = scored_dataset(dataset, options)  # the pairs run() scores, no more
    sources, outputs = dataset.pairs["source"].astype(str).tolist(), dataset.pairs["output"].astype(str).tolist()
    cost = Cost()
    for name in story_metrics(dataset, options.metric):  # an LLM judge also counts its calls
        cost.add_metric(name, sources, outputs)
    return cost


def run(dataset: Dataset, options: Options, progress: Reporter | None = None) -> Result:
    """Score every pair, rank the disagreements, filter, and tell the chosen pair's story."""
    from stviz.analyses.metrics_vs_humans import oriented_style
    from stviz.meta import rank_disagreement
    from stviz.metrics import get_card, verify_metric

    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    report_to = reporter(progress)
    from stviz.languages import one_language

    dataset, language_notes = one_language(dataset, "a ranking of disagreements")
    human = choose_human(dataset, options.human)
    dataset, scope = scored_dataset(dataset, options)
    notes = language_notes + [n for n in [direction_note(dataset, human), scope] if n]
    from stviz.languages.measures import fit_metric

    metric, language_notes = fit_metric(dataset, options.metric)  # valid for the texts' language, or chrF
    options, notes = options.changed(metric=metric), notes + language_notes
    verify_metric(options.metric)  # the ranked metric's model passes its known answer, or the view is refused
    names = story_metrics(dataset, options.metric)
    values = story_values(dataset, names, report_to)  # the same arrays every view's pair story reads
    notes += judge_notes(dataset, names, values)  # an LLM judge's unparsed replies are left out of the ranking
    # A style column of one pole is ranked against the raters once turned toward each pair's target.
    style = oriented_style(dataset, values[[options.metric]], options)
    values[options.metric], notes = style.values[options.metric], notes + style.notes
    card = get_card(options.metric)
    ranks = rank_disagreement(values[options.metric].to_numpy(), dataset.oriented_human(human),
                              card.higher_is_better)
    ranks.index = dataset.pairs.index[ranks.index]
    table = ranks.join(dataset.pairs[[c for c in ("system", "setting", "source", "output") if c in dataset.pairs]])
    table.insert(0, "metric value", values.loc[table.index, options.metric].to_numpy())
    table.insert(1, "human score", dataset.pairs.loc[table.index, human].to_numpy(dtype=float))
    ranking = apply_filters(table, options)
    story = None
    opened = options.pair if options.pair in dataset.pairs.index else None  # a pair of a system not scored: the top one
    if opened is not None or not ranking.empty:
        pair = opened if opened is not None else int(ranking.index[0])
        story = tell_story(dataset, values, pair, options.lexicon)
    report_to.finish()
    return Result(values, table, ranking, style.label(options.metric, card.label), human, story, notes)


def scored_dataset(dataset: Dataset, options: Options) -> tuple[Dataset, str | None]:
    """The pairs a run scores - only the chosen systems' when some are chosen (a system's failures, opened from
    the Leaderboard, need not wait for every other system's metrics) - and the note saying so."""
    if not options.systems or "system" not in dataset.pairs:
        return dataset, None
    keep = dataset.pairs["system"].astype(str).isin(options.systems)
    if keep.all() or not keep.any():
        return dataset, None
    note = (f"only {', '.join(options.systems)}'s {int(keep.sum()):,} pairs are scored and ranked (percentiles among "
            f"them); choose every system to rank all {len(dataset.pairs):,} pairs together")
    return dataclasses.replace(dataset, pairs=dataset.pairs[keep]), note


def apply_filters(table: pd.DataFrame, options: Options) -> pd.DataFrame:
    """The ranking restricted by system, direction, value ranges and text (filters never change the ranks)."""
    if options.systems and "system" in table:
        table = table[table["system"].astype(str).isin(options.systems)]
    if options.direction == "over-rated":
        table = table[table["metric_over_human"] > 0]
    elif options.direction == "under-rated":
        table = table[table["metric_over_human"] < 0]
    for column, low, high in (("metric value", options.metric_min, options.metric_max),
                              ("human score", options.human_min, options.human_max)):
        if low is not None:
            table = table[table[column] >= low]
        if high is not None:
            table = table[table[column] <= high]
    needle = options.search.strip()
    if needle:
        hit = (table["source"].astype(str).str.contains(needle, case=False, regex=False)
               | table["output"].astype(str).str.contains(needle, case=False, regex=False))
        table = table[hit]
    return table


#: Column order and names of the ranking as a reader sees it (texts before the bookkeeping).
READABLE_COLUMNS = {"rank_difference": "rank difference", "metric_over_human": "metric − human (points)",
                    "metric value": "metric value", "human score": "human score", "source": "source",
                    "output": "output", "system": "system", "setting": "setting",
                    "metric_percentile": "metric percentile", "human_percentile": "human percentile"}


def readable_ranking(table: pd.DataFrame) -> pd.DataFrame:
    """The ranking with the texts up front and plain column names (for the screen, downloads and the CLI)."""
    out = table[[c for c in READABLE_COLUMNS if c in table]].rename(columns=READABLE_COLUMNS)
    out.index.name = "pair"
    return out


__all__ = ["estimate", "metric_choices", "metric_label", "value_ranges", "DIRECTIONS", "Options", "Result", "STORY_METRICS", "Story", "TITLE", "TOP_CHOICES", "applies_to",
           "apply_filters", "scored_dataset", "format_judgment", "metric_percentiles", "readable_ranking", "run", "story_metrics",
           "tell_story"]
