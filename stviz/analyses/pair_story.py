"""One pair's story, told the same way from every view (Failure cases, the Embedding map, Token
attributions, the command line): both texts, the entities kept, lost or changed, the style-masked and
-removed texts, every metric's value with its percentile among all the dataset's pairs, the human
judgments, and the style classifier's probabilities for source and output.

The metric values of every pair are computed once per dataset (disk-cached, keyed by the texts), so a
pair's percentiles are read from the same arrays whichever view opened it."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from stviz.data.schema import DataError, Dataset, short_name
from stviz.formatting import format_judgment
from stviz.progress import Reporter, reporter

#: Metrics in every pair's story (cheap ones; the dataset's own metric columns are added).
STORY_METRICS = ("bleu", "chrf", "rouge1", "rougeL", "meteor", "wmd", "cosine:glove-mean", "cosine:minilm", "ne")


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
    styles: pd.DataFrame | None = None  # style, source, output: the classifier's probabilities


def story_metrics(dataset: Dataset, metric: str | None = None) -> list[str]:
    """The metrics computed for every pair's story: the cheap built-ins (and their n-grams against the references, where
    the set has some), ``metric``, the file's own columns; those valid for the texts' language (BLEU with its
    tokeniser: stviz.languages.measures)."""
    from stviz.languages.measures import offered_metrics
    from stviz.metrics import metric_columns
    from stviz.metrics.reference import reference_side

    story = list(STORY_METRICS) + reference_side(STORY_METRICS, dataset)
    names = list(dict.fromkeys(story + ([metric] if metric else []) + metric_columns(dataset)))
    return offered_metrics(names, dataset)


def story_values(dataset: Dataset, names: list[str] | None = None, progress: Reporter | None = None) -> pd.DataFrame:
    """Every story metric for every pair (one column per metric, indexed like the pairs), from the disk cache."""
    from stviz.metrics import computation_order, get_card, metric_frame, verified_metrics

    report_to = reporter(progress)
    # A measure whose model fails its known answer is left out of every story (a view ranking by it says why).
    names = verified_metrics(names or story_metrics(dataset))[0]
    frames = {n: metric_frame(dataset.pairs, [n], progress=report_to.later(
        f"Scoring {len(dataset.pairs):,} pairs: {get_card(n).label}")) for n in computation_order(names)}
    return pd.concat([frames[n] for n in names], axis=1)


def check_pair(dataset: Dataset, pair: int) -> None:
    """DataError unless ``pair`` numbers one of the dataset's pairs (a link may carry any number)."""
    if dataset.pairs is None or pair not in dataset.pairs.index:
        count = 0 if dataset.pairs is None else len(dataset.pairs)
        raise DataError(f"there is no pair {pair}; pairs are numbered 0 to {count - 1}")


def tell_story(dataset: Dataset, values: pd.DataFrame, pair: int, lexicon: str | None = None) -> Story:
    """One pair's full story: facts, entities, masked texts, every metric's percentile, the human judgments.

    ``lexicon``: a style lexicon spec for the masked / removed texts (default: the dataset's own, else none).
    """
    from stviz.measures.style.lexicon import LexiconSpec
    from stviz.metrics.modify import apply_modification

    check_pair(dataset, pair)
    row = dataset.pairs.loc[pair]
    source, output = str(row["source"]), str(row["output"])
    resolved = LexiconSpec.parse(lexicon).resolve(dataset)
    masked = {}
    if resolved:
        for modification in ("masking", "removal"):
            masked[modification] = tuple(apply_modification([source, output], modification, resolved))
    humans = pd.DataFrame({"judgment": [short_name(c) for c in dataset.human_columns],
                           "value": [format_judgment(row[c]) for c in dataset.human_columns]})
    return Story(pair, source, output, pair_facts(row), entity_rows(source, output), masked,
                 metric_percentiles(values, pair), humans)


def pair_facts(row: pd.Series) -> list[str]:
    """System, setting and direction of a pair, as short strings."""
    facts = [str(row[c]) for c in ("system", "setting") if c in row and pd.notna(row[c])]
    if "source_style" in row and "target_style" in row and pd.notna(row["source_style"]):
        facts.append(f"{row['source_style']} → {row['target_style']}")
    return facts


def entity_rows(source: str, output: str) -> list[tuple[str, str, str]]:
    """(kept / lost / changed / added, text, spaCy label) for the named entities of a pair."""
    from stviz.metrics.entities import entity_diff

    diff = entity_diff(source, output)
    return ([("kept", e.text, e.label) for e in diff.kept] + [("lost", e.text, e.label) for e in diff.lost]
            + [("changed", f"{a.text} → {b.text}", a.label) for a, b in diff.changed]
            + [("added", e.text, e.label) for e in diff.added])


def metric_percentiles(values: pd.DataFrame, pair: int) -> pd.DataFrame:
    """Value and percentile among all pairs (higher = more similar; a low distance is a high percentile)."""
    from stviz.metrics import get_card
    from stviz.metrics.reference import side_labels

    rows, labels = [], side_labels(list(values.columns), {n: get_card(n).label for n in values.columns})
    for name in values.columns:
        card = get_card(name)
        column = values[name] if card.higher_is_better else -values[name]
        rows.append({"metric": labels[name], "value": values.loc[pair, name],
                     "percentile": column.rank(pct=True).loc[pair] * 100})
    return pd.DataFrame(rows)


def style_probabilities(trained, texts: dict[str, str]) -> pd.DataFrame:
    """The classifier's probability of each style for each named text: one row per style, one column per text."""
    names = list(texts)
    probabilities = trained.predict_proba([texts[n] for n in names])
    frame = pd.DataFrame(probabilities.T, columns=names)
    frame.insert(0, "style", list(trained.classes))
    return frame


def classifier_reason(dataset: Dataset) -> str | None:
    """Why the dataset has no style classifier for a story (None when it has one: pairs and two styles)."""
    from stviz.analyses.attributions import applies_to

    return applies_to(dataset)


def open_story(dataset: Dataset, pair: int, *, metric: str | None = None, lexicon: str | None = None,
               trained=None, progress: Reporter | None = None) -> Story:
    """A pair's story from any view: every story metric scored (cached), and the classifier's probabilities
    when ``trained`` is given."""
    check_pair(dataset, pair)
    values = story_values(dataset, story_metrics(dataset, metric), progress)
    story = tell_story(dataset, values, pair, lexicon)
    if trained is not None:
        story.styles = style_probabilities(trained, {"source": story.source, "output": story.output})
    return story


__all__ = ["STORY_METRICS", "Story", "check_pair", "classifier_reason", "entity_rows", "metric_percentiles",
           "open_story", "pair_facts", "story_metrics", "story_values", "style_probabilities", "tell_story"]
