"""What the meta-evaluation measures on one human-rated set: each human column's aspect, and the automatic
measures of each aspect, computed through the code paths of the other views (so their caches are shared).

* content: the content-preservation metrics of Metrics vs humans (``metric_frame``, the registry's defaults);
* style: the style classifier's target-style probability and accuracy, and style transfer intensity
  (direction-corrected EMD, Mir et al. 2019), from the Tradeoffs view's classifier;
* fluency: perplexity under the offline n-gram language model and adversarial naturalness, as the
  Leaderboard computes them;
* overall: every measure above.

A measure that does not apply or cannot be computed is said, with the reason, never silently left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import pandas as pd

from stviz.data.schema import DataError, Dataset, short_name
from stviz.progress import Reporter

ASPECTS = ("content", "style", "fluency", "overall")
#: A human column that is not meta-evaluated (e.g. a rating of the *input*, which no output measure explains).
NO_ASPECT = "none"
#: Name patterns -> aspect, tried in order (lower-case column names); unmatched columns are read as content.
ASPECT_PATTERNS = (
    (r"input|source", NO_ASPECT), (r"gramm|fluen|natural|perplex", "fluency"),
    (r"style|attribute|intensity|formal|sentiment|polarity", "style"),
    (r"success|overall|quality|total|joint", "overall"),
    (r"content|meaning|similar|preserv|average|vote|adequa", "content"),
)
STYLE_MEASURES = ("target_style_probability", "target_style_accuracy", "direction_corrected_emd")
FLUENCY_MEASURES = ("perplexity", "naturalness")
MEASURE_LABELS = {"target_style_probability": "target-style probability", "target_style_accuracy":
                  "target-style accuracy", "direction_corrected_emd": "style transfer intensity (EMD)",
                  "perplexity": "−perplexity (n-gram LM)", "naturalness": "naturalness (adversarial)"}
#: Measures where lower is better (negated before any statistic).
LOWER_IS_BETTER = {"perplexity"}


def guess_aspect(column: str) -> str:
    """The aspect a human column rates, guessed from its name (content when nothing matches)."""
    name = short_name(column).lower()
    for pattern, aspect in ASPECT_PATTERNS:
        if re.search(pattern, name):
            return aspect
    return "content"


def parse_aspects(entries: Sequence[str]) -> dict[str, str]:
    """``COLUMN=ASPECT`` entries (``--aspects``) -> {column short name: aspect}; DataError on a bad one."""
    out = {}
    for entry in entries:
        column, _, aspect = entry.partition("=")
        column, aspect = short_name(column.strip()), aspect.strip().lower()
        if not column or aspect not in ASPECTS + (NO_ASPECT,):
            raise DataError(f"aspect '{entry}' is not COLUMN=ASPECT with ASPECT one of "
                            f"{', '.join(ASPECTS + (NO_ASPECT,))}")
        out[column] = aspect
    return out


def human_aspects(dataset: Dataset, overrides: dict[str, str]) -> dict[str, str]:
    """Each numeric human column of the set -> its aspect (an override by short name wins over the guess)."""
    from stviz.analyses.common import human_columns

    return {c: overrides.get(short_name(c), guess_aspect(c)) for c in human_columns(dataset)}


@dataclass
class Measures:
    """One set's measures: values (oriented, higher = better), raw values, labels, per aspect, and what is missing."""

    oriented: pd.DataFrame
    raw: pd.DataFrame
    labels: dict[str, str]
    by_aspect: dict[str, list[str]]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (measure or aspect, why not)


def content_measures(dataset: Dataset, names: Sequence[str] | None, progress: Reporter,
                     skipped: list) -> tuple[pd.DataFrame, dict[str, str], dict[str, bool]]:
    """Content metrics for every pair, as Metrics vs humans computes them (values, labels, lower-is-better)."""
    from stviz.analyses import metrics_vs_humans
    from stviz.metrics import get_card

    options = metrics_vs_humans.Options(metrics=tuple(names) if names else None)
    chosen, notes = metrics_vs_humans.resolve_metrics(dataset, options)
    skipped += [("content", note) for note in notes]
    values = metrics_vs_humans.metric_values(dataset, chosen, options, None, progress)
    return (values, {n: get_card(n).label for n in chosen}, {n: not get_card(n).higher_is_better for n in chosen})


def style_measures(dataset: Dataset, progress: Reporter, skipped: list) -> pd.DataFrame:
    """Target-style probability, accuracy and intensity per pair, from the Tradeoffs view's style classifier."""
    from stviz.analyses import tradeoffs
    from stviz.data.labels import StyleTexts
    from stviz.metrics.style import style_transfer_intensity

    if reason := tradeoffs.applies_to(dataset):
        skipped.append(("style", f"no style measures: {reason}"))
        return pd.DataFrame(index=dataset.pairs.index)
    try:
        trained = tradeoffs.classifier(dataset, tradeoffs.Options(), progress, StyleTexts.resolve(dataset))
        scores = style_transfer_intensity(dataset.pairs, trained, progress=progress.later("Style distributions"))
    except DataError as exc:
        skipped.append(("style", f"no style measures: {exc}"))
        return pd.DataFrame(index=dataset.pairs.index)
    return scores[list(STYLE_MEASURES)]


def fluency_measures(dataset: Dataset, progress: Reporter, skipped: list) -> pd.DataFrame:
    """n-gram perplexity and adversarial naturalness per output, as the Leaderboard computes them."""
    from stviz.analyses.leaderboard import output_fluency

    if "system" not in dataset.pairs or "target_style" not in dataset.pairs:
        skipped.append(("fluency", "no fluency measures: the n-gram LM needs a target style per pair and "
                                   "naturalness a system per pair"))
        return pd.DataFrame(index=dataset.pairs.index)
    frame, notes = output_fluency(dataset, progress)
    skipped += [("fluency", note) for note in notes]
    return frame


def measure_set(dataset: Dataset, aspects: dict[str, str], metrics: Sequence[str] | None,
                progress: Reporter) -> Measures:
    """Every measure the set's aspects need, computed once (an aspect without human columns costs nothing)."""
    wanted = set(aspects.values())
    overall = "overall" in wanted
    skipped: list[tuple[str, str]] = []
    parts, labels, lower = [], {}, set(LOWER_IS_BETTER)
    by_aspect = {a: [] for a in ASPECTS}
    if overall or "content" in wanted:
        values, content_labels, distances = content_measures(dataset, metrics, progress, skipped)
        parts.append(values)
        labels.update(content_labels)
        lower |= {n for n, d in distances.items() if d}
        by_aspect["content"] = list(values.columns)
    for aspect, compute in (("style", style_measures), ("fluency", fluency_measures)):
        if overall or aspect in wanted:
            values = compute(dataset, progress, skipped)
            parts.append(values)
            by_aspect[aspect] = list(values.columns)
    labels.update({m: MEASURE_LABELS[m] for m in STYLE_MEASURES + FLUENCY_MEASURES})
    by_aspect["overall"] = [m for a in ("content", "style", "fluency") for m in by_aspect[a]]
    raw = pd.concat(parts, axis=1) if parts else pd.DataFrame(index=dataset.pairs.index)
    oriented = raw.apply(lambda s: -s.astype(float) if s.name in lower else s.astype(float))
    labels = {m: ("−" + labels[m] if m in lower and m not in LOWER_IS_BETTER else labels[m]) for m in raw.columns}
    return Measures(oriented, raw, labels, by_aspect, skipped)


__all__ = ["ASPECTS", "FLUENCY_MEASURES", "MEASURE_LABELS", "Measures", "NO_ASPECT", "STYLE_MEASURES",
           "guess_aspect", "human_aspects", "measure_set", "parse_aspects"]
