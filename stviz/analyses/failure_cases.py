"""Failure cases (Babakov et al. 2022, section 4.2): the pairs where a metric and the human raters
disagree most, ranked by the absolute difference between a pair's percentile rank under the metric
and under the human score, with filters; and each pair's full story: the entities kept, lost or
changed, the style-masked and -removed texts, every metric's value and percentile, the human votes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses.common import choose_human, direction_note, humans_reason, pairs_reason
from stviz.analyses.judges import judge_notes
from stviz.data.schema import DataError, Dataset, short_name
from stviz.progress import Reporter, reporter
# Names the page shows as they are.
from stviz.analyses.choices import DIRECTIONS
from stviz.formatting import format_judgment  # noqa: F401
from stviz.metrics.registry import metric_label  # noqa: F401

TITLE = "Failure cases"
#: Metrics in every pair's story (cheap ones; the dataset's own metric columns are added).
STORY_METRICS = ("bleu", "chrf", "rouge1", "rougeL", "meteor", "wmd", "cosine:glove-mean", "cosine:minilm", "ne")
TOP_CHOICES = (20, 50, 100, 500)


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """The metric and human score to compare, the filters, and the pair opened (page controls, ``failures`` flags)."""

    metric: str = option("cosine:minilm", "the metric whose disagreement with people is ranked")
    human: str | None = option(None, "human-score column (default: the dataset's main one)")
    direction: str = option("both", "over-rated: the metric ranks the pair higher than the raters did",
                            choices=DIRECTIONS)
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


@dataclass
class Story:
    """One pair told in full."""

    pair: int
    source: str
    output: str
    facts: list[str]  # system, setting, direction
    entities: list[tuple[str, str, str]]  # (kept / lost / changed / added, text, spaCy label)
    masked: dict[str, tuple[str, str]]  # modification -> (source, output), with a lexicon
    metrics: pd.DataFrame  # metric, value, percentile (higher = more similar)
    humans: pd.DataFrame  # judgment, value


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


def story_metrics(dataset: Dataset, metric: str) -> list[str]:
    """The metrics computed for every pair's story: the cheap built-ins, the chosen one, the file's own columns."""
    from stviz.metrics import metric_columns

    return list(dict.fromkeys(list(STORY_METRICS) + [metric] + metric_columns(dataset)))


def estimate(dataset: Dataset, options: Options):
    """The uncached work of :func:`run`: the story metrics the cache does not hold for these pairs."""
    from stviz.costs import Cost

    sources, outputs = dataset.pairs["source"].astype(str).tolist(), dataset.pairs["output"].astype(str).tolist()
    cost = Cost()
    for name in story_metrics(dataset, options.metric):  # an LLM judge also counts its calls
        cost.add_metric(name, sources, outputs)
    return cost


def run(dataset: Dataset, options: Options, progress: Reporter | None = None) -> Result:
    """Score every pair, rank the disagreements, filter, and tell the chosen pair's story."""
    from stviz.meta import rank_disagreement
    from stviz.metrics import get_card, metric_frame

    if reason := applies_to(dataset):
        raise NotApplicable(reason)
    report_to = reporter(progress)
    human = choose_human(dataset, options.human)
    notes = [n for n in [direction_note(dataset, human)] if n]
    names = story_metrics(dataset, options.metric)
    values = pd.concat([metric_frame(dataset.pairs, [n], progress=report_to.later(
        f"Scoring {len(dataset.pairs):,} pairs: {get_card(n).label}")) for n in names], axis=1)
    notes += judge_notes(dataset, names, values)  # an LLM judge's unparsed replies are left out of the ranking
    card = get_card(options.metric)
    ranks = rank_disagreement(values[options.metric].to_numpy(), dataset.oriented_human(human),
                              card.higher_is_better)
    ranks.index = dataset.pairs.index[ranks.index]
    table = ranks.join(dataset.pairs[[c for c in ("system", "setting", "source", "output") if c in dataset.pairs]])
    table.insert(0, "metric value", values.loc[table.index, options.metric].to_numpy())
    table.insert(1, "human score", dataset.pairs.loc[table.index, human].to_numpy(dtype=float))
    ranking = apply_filters(table, options)
    story = None
    if options.pair is not None or not ranking.empty:
        pair = options.pair if options.pair is not None else int(ranking.index[0])
        story = tell_story(dataset, values, pair, options)
    report_to.finish()
    return Result(values, table, ranking, card.label, human, story, notes)


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


def tell_story(dataset: Dataset, values: pd.DataFrame, pair: int, options: Options) -> Story:
    """One pair's full story: facts, entities, masked texts, every metric's percentile, the human judgments."""
    from stviz.lexicon import LexiconSpec
    from stviz.metrics.entities import entity_diff
    from stviz.metrics.modify import apply_modification

    if pair not in dataset.pairs.index:
        raise DataError(f"there is no pair {pair}; pairs are numbered 0 to {len(dataset.pairs) - 1}")
    row = dataset.pairs.loc[pair]
    source, output = str(row["source"]), str(row["output"])
    facts = [str(row[c]) for c in ("system", "setting") if c in row and pd.notna(row[c])]
    if "source_style" in row and "target_style" in row and pd.notna(row["source_style"]):
        facts.append(f"{row['source_style']} → {row['target_style']}")
    diff = entity_diff(source, output)
    entities = ([("kept", e.text, e.label) for e in diff.kept] + [("lost", e.text, e.label) for e in diff.lost]
                + [("changed", f"{a.text} → {b.text}", a.label) for a, b in diff.changed]
                + [("added", e.text, e.label) for e in diff.added])
    lexicon = LexiconSpec.parse(options.lexicon).resolve(dataset)  # the dataset's own by default, else none
    masked = {}
    if lexicon:
        for modification in ("masking", "removal"):
            masked[modification] = tuple(apply_modification([source, output], modification, lexicon))
    humans = pd.DataFrame({"judgment": [short_name(c) for c in dataset.human_columns],
                           "value": [format_judgment(row[c]) for c in dataset.human_columns]})
    return Story(pair, source, output, facts, entities, masked, metric_percentiles(values, pair), humans)


def metric_percentiles(values: pd.DataFrame, pair: int) -> pd.DataFrame:
    """Value and percentile among all pairs (higher = more similar; a low distance is a high percentile)."""
    from stviz.metrics import get_card

    rows = []
    for name in values.columns:
        card = get_card(name)
        column = values[name] if card.higher_is_better else -values[name]
        rows.append({"metric": card.label, "value": values.loc[pair, name],
                     "percentile": column.rank(pct=True).loc[pair] * 100})
    return pd.DataFrame(rows)


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
           "apply_filters", "format_judgment", "metric_percentiles", "readable_ranking", "run", "story_metrics",
           "tell_story"]
