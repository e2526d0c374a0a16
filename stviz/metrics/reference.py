"""Reference-side metrics: ``ref:NAME`` is the content metric NAME computed between the output and the pair's
human reference(s) instead of its source (ParaDetox, RUSSE 2022 and TextDetox judge content by chrF against the
reference).

* One reference column: the metric with the reference in the source's place (same function, same options).
* Several (``reference``, ``reference:2``, ...): BLEU pools every reference's n-grams, as sacrebleu's multi-reference
  sentence BLEU does; every other metric takes the **best** over the pair's references, the maximum of a similarity
  (sacrebleu's sentence chrF does so itself: it keeps the best-scoring reference), the minimum of a distance (WMD);
  empty references left out.
* A pair without a reference gets no value (NaN).

Offered, and the n-gram ones computed by default, only where the set has reference columns; the source-side labels
then say "against the source" (:func:`side_labels`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import METRIC_PREFIX, REFERENCE_PREFIX, DataError
from stviz.metrics.registry import MetricCard, available_metrics, default_metrics, get_card, metric_family

REF_PREFIX = "ref:"
#: Families whose metrics have no reference side (a file's own columns, LLM judges, learned metrics with a reference
#: input of their own, the NE score, and this family itself).
NO_REFERENCE_SIDE = ("metric", "llm", "comet", "bleurt", "ref")
#: Computed by default on a set with references: the reference side of the default metrics of these families.
DEFAULT_FAMILIES = ("n-gram",)


def reference_columns(pairs: pd.DataFrame) -> list[str]:
    """The pairs' reference columns, ``reference`` first, then ``reference:2``, ``reference:3``, ..."""
    extra = [c for c in pairs.columns if str(c).startswith(REFERENCE_PREFIX) and str(c).split(":", 1)[1].isdigit()]
    return (["reference"] if "reference" in pairs else []) + sorted(extra, key=lambda c: int(c.split(":", 1)[1]))


def _has_references(dataset) -> bool:
    """Whether a dataset (or None) has reference columns."""
    return dataset is not None and dataset.pairs is not None and bool(dataset.reference_columns)


def _sided(name: str) -> bool:
    """Whether a metric name has a reference side (a text-to-text metric computed from the texts)."""
    family = name.partition(":")[0] if ":" in name else ""
    if family in NO_REFERENCE_SIDE or name.endswith("+ne"):
        return False
    card = get_card(name)
    return not (card.precomputed or card.on_original_texts)


def _offered(dataset) -> list[str]:
    """``ref:NAME`` for every text metric offered, where the set has references."""
    if not _has_references(dataset):
        return []
    return [REF_PREFIX + n for n in available_metrics(dataset, skip=("ref",)) if _sided(n)]


def _defaults(dataset, modification: str) -> tuple[list[str], list[str]]:
    """The reference side of the default n-gram metrics, where the set has references."""
    if not _has_references(dataset):
        return [], []
    return reference_side(default_metrics(dataset, modification, skip=("ref",))[0], dataset), []


def reference_side(names: Sequence[str], dataset) -> list[str]:
    """``ref:NAME`` for each n-gram metric of ``names`` (the cheap ones), where the set has references; else []."""
    if not _has_references(dataset):
        return []
    return [REF_PREFIX + n for n in names if _sided(n) and get_card(n).family in DEFAULT_FAMILIES]


@metric_family("ref", "ref:METRIC", offered=_offered, defaults=_defaults, after_named=True)
def reference_card(name: str) -> MetricCard:
    """The card of ``ref:METRIC``: METRIC's card, computed against the reference, labelled so."""
    base_name = name[len(REF_PREFIX):]
    if base_name.startswith(METRIC_PREFIX) or not base_name or not _sided(base_name):
        raise DataError(f"'{base_name}' has no reference side: ref: takes a metric computed from two texts")
    base = get_card(base_name)
    how = ("every reference's n-grams pooled (sacrebleu)" if pools(base_name) else
           f"the best of several references ({'maximum' if base.higher_is_better else 'minimum'})")
    derive = (REF_PREFIX + base.derive[0], base.derive[1]) if base.derive else None  # wmd-sim from ref:wmd
    return replace(base, name=name, label=f"{base.label} against the reference", default=False, derive=derive,
                   similarity_form=base.similarity_form and REF_PREFIX + base.similarity_form,
                   feeds=tuple(REF_PREFIX + f for f in base.feeds),
                   description=f"{base.description}; output vs the pair's reference(s), {how}".lstrip("; "))


def pools(name: str) -> bool:
    """Whether a reference-side metric takes several references at once (BLEU pools their n-grams)."""
    base = name[len(REF_PREFIX):] if name.startswith(REF_PREFIX) else name
    return base == "bleu" or base.startswith("bleu:")


def side_labels(names: Sequence[str], labels: dict[str, str]) -> dict[str, str]:
    """``labels`` with 'against the source' added to a metric whose reference side is among ``names`` too."""
    both = {n[len(REF_PREFIX):] for n in names if str(n).startswith(REF_PREFIX)}
    return {n: f"{label} against the source" if n in both else label for n, label in labels.items()}


def reference_values(name: str, pairs: pd.DataFrame, outputs: list[str],
                     compute: Callable[[str, list[str]], np.ndarray], cache=None) -> np.ndarray:
    """``ref:METRIC`` per pair: ``compute(name, references)`` per reference column, the best of them (BLEU: pooled)."""
    columns = reference_columns(pairs)
    if not columns:
        raise DataError(f"{get_card(name).label} needs references: the pairs have no reference column")
    texts = [pairs[c].where(pairs[c].notna(), "").astype(str).str.strip().tolist() for c in columns]
    if len(columns) > 1 and pools(name):
        return pooled_bleu(name, texts, outputs, cache)
    values = []
    for refs in texts:
        scored = np.asarray(compute(name, refs), dtype=np.float64)
        values.append(np.where([bool(r) for r in refs], scored, np.nan))
    return best_of(np.vstack(values), get_card(name).higher_is_better)


def best_of(stacked: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Per column (pair), the best finite value over the rows (references): max, or min for a distance; NaN if none."""
    sign = 1.0 if higher_is_better else -1.0
    scored = np.where(np.isnan(stacked), -np.inf, sign * stacked)
    best = sign * scored.max(axis=0)
    return np.where(np.isnan(stacked).all(axis=0), np.nan, best).astype(np.float64)


def pooled_bleu(name: str, texts: list[list[str]], outputs: list[str], cache=None) -> np.ndarray:
    """Multi-reference sentence BLEU (sacrebleu) of each output against its non-empty references, cached on disk."""
    from stviz.cache import default_cache

    card = get_card(name)
    refs = [[t[i] for t in texts if t[i]] for i in range(len(outputs))]
    params = {"metric": name, "options": card.options, "references": refs, "outputs": outputs}
    return (cache or default_cache()).memo("metric", params, lambda: multi_reference_bleu(refs, outputs,
                                                                                          **card.options))


def multi_reference_bleu(references: list[list[str]], outputs: list[str], smooth_method: str = "exp",
                         tokenize: str = "13a") -> np.ndarray:
    """sacrebleu sentence BLEU of each output against all its references at once (NaN without one)."""
    from sacrebleu.metrics import BLEU

    scorer = BLEU(smooth_method=smooth_method, effective_order=True, tokenize=tokenize)
    return np.array([scorer.sentence_score(o, r).score if r else np.nan for o, r in zip(outputs, references)],
                    dtype=np.float64)


__all__ = ["REF_PREFIX", "best_of", "multi_reference_bleu", "pools", "reference_card", "reference_columns",
           "reference_side", "reference_values",
           "side_labels"]
