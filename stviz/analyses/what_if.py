"""What if (LIT's counterfactual editing): edit a pair's output or source and re-score it live - every
cheap metric, the style classifier's probabilities and the token attributions - beside the original.

Everything is computed on the texts, through the same code as every view (``compute_metric``,
``predict_proba``, ``attribute_texts``). Those caches are keyed by the texts themselves, never by
a pair's number, so an edit is stored under its own texts and the original pair's values - in the
dataset-wide arrays the other views read - are never touched."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from stviz.analyses.base import AnalysisOptions, option
from stviz.analyses.pair_story import STORY_METRICS, check_pair, style_probabilities
from stviz.data.schema import DataError, Dataset
from stviz.progress import Reporter, reporter

#: Metrics re-scored live: cheap, and none of them reads another pair (sentence-level values).
WHAT_IF_METRICS = STORY_METRICS
SIDES = ("source", "output")


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """What to recompute for an edited pair."""

    metrics: tuple[str, ...] = option(WHAT_IF_METRICS, "metrics re-scored on the edited pair")
    style: str | None = option(None, "style the attributions point toward (default: the original text's predicted "
                                     "style, for both versions)")
    attributions: bool = option(True, "recompute the token attributions of the edited texts")


@dataclass
class WhatIf:
    """An edited pair scored beside its original."""

    pair: int
    original: dict[str, str]  # "source" / "output" -> text
    edited: dict[str, str]
    metrics: pd.DataFrame  # metric (label), name, original, edited, change
    styles: pd.DataFrame | None = None  # style, then the original and edited texts' probabilities
    attributions: dict[tuple[str, str], object] = field(default_factory=dict)  # (original|edited, side) -> attribution
    notes: list[str] = field(default_factory=list)

    @property
    def changed_sides(self) -> list[str]:
        """The sides the user edited ("source", "output")."""
        return [s for s in SIDES if self.original[s] != self.edited[s]]


def applies_to(dataset: Dataset) -> str | None:
    """None when the dataset has pairs to edit."""
    return None if dataset.pairs is not None else f"{dataset.name} has no pairs to edit"


def rescore(names, sources: list[str], outputs: list[str], progress: Reporter | None = None) -> pd.DataFrame:
    """Each metric of ``names`` on aligned texts (one row per text pair, one column per metric), cached by text."""
    from stviz.metrics import compute_metric, computation_order, get_card

    report_to = reporter(progress)
    names = [name for name in names if not get_card(name).precomputed]  # a file's column: the original texts only
    values = {name: compute_metric(name, sources, outputs, progress=report_to.later(
        f"Re-scoring: {get_card(name).label}")) for name in computation_order(names)}
    return pd.DataFrame({name: values[name] for name in names})


def metric_table(values: pd.DataFrame) -> pd.DataFrame:
    """Rows 0 (original) and 1 (edited) of :func:`rescore` as one row per metric with the change."""
    from stviz.metrics import get_card

    table = pd.DataFrame({"metric": [get_card(n).label for n in values.columns], "name": list(values.columns),
                          "original": values.iloc[0].to_numpy(float), "edited": values.iloc[1].to_numpy(float)})
    table["change"] = table["edited"] - table["original"]
    return table


def what_if(dataset: Dataset, pair_id: int, source: str | None = None, output: str | None = None,
            options: Options | None = None, *, trained=None, progress: Reporter | None = None) -> WhatIf:
    """Pair ``pair_id`` with its source and/or output replaced, re-scored beside the original.

    ``trained``: the style classifier (probabilities and attributions); without it only metrics are computed.
    """
    options = options or Options()
    check_pair(dataset, pair_id)
    row = dataset.pairs.loc[pair_id]
    original = {side: str(row[side]) for side in SIDES}
    edited = {"source": original["source"] if source is None else str(source),
              "output": original["output"] if output is None else str(output)}
    if not edited["source"].strip() or not edited["output"].strip():
        raise DataError("an edited text is empty: write something to score")
    # Original and edited in one call: the same batch, so both columns come from the same code.
    values = rescore(options.metrics, [original["source"], edited["source"]],
                     [original["output"], edited["output"]], progress)
    result = WhatIf(pair_id, original, edited, metric_table(values))
    if trained is not None:
        _style(result, trained, options)
    return result


def _style(result: WhatIf, trained, options: Options) -> None:
    """The classifier's probabilities and (when asked) the attributions of the texts that changed and the originals."""
    from stviz.measures.style.attribution import attribute_text

    sides = result.changed_sides or ["output"]
    texts = {f"{version} {side}": getattr(result, version)[side] for side in sides for version in ("original", "edited")}
    result.styles = style_probabilities(trained, texts)
    if not options.attributions:
        return
    for side in sides:
        # Both versions toward one style (the original's, unless chosen), so their colours compare.
        style = options.style or result.styles.set_index("style")[f"original {side}"].idxmax()
        for version in ("original", "edited"):
            result.attributions[(version, side)] = attribute_text(getattr(result, version)[side], trained, style)


__all__ = ["Options", "SIDES", "WHAT_IF_METRICS", "WhatIf", "applies_to", "metric_table", "rescore", "what_if"]
