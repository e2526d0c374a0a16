"""Content-preservation metrics: compute any registered metric for aligned sources and outputs.

Metric names and cards live in :mod:`stviz.metrics.registry`; each metric is registered where it
is computed (e.g. :mod:`stviz.metrics.content`), and :mod:`stviz.metrics.catalog` imports those
modules, first thing here, so any import of ``stviz.metrics`` sees every metric. :func:`compute_metric` computes one metric after an
optional style modification (Mir et al.) and caches the result on disk per (metric, options,
modification, lexicon, texts); :func:`metric_frame` does the same for a dataset's pairs and also
serves precomputed ``metric:*`` columns and the named-entity merges, so they appear in every
table and plot.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.metrics import catalog  # noqa: F401 - registers every metric before any lookup
from stviz import engine
from stviz.cache import Cache, default_cache, fingerprint
from stviz.data.schema import METRIC_PREFIX, DataError
from stviz.metrics.entities import NE_SUFFIX, entity_scores, merge_with_entities, with_ne_merge
from stviz.metrics import modify
from stviz.metrics.modify import DEFAULT_PLACEHOLDER, MODIFICATIONS, apply_modification
from stviz.metrics.precomputed import AUTHORS_NE_COLUMNS, metric_columns, on_percent_scale
from stviz.metrics.registry import (MetricCard, available_metrics, builtin_cards, default_metrics, get_card,
                                    metric_label)
from stviz.metrics.reference import REF_PREFIX, reference_values
from stviz.cache.pair_values import per_pair
from stviz.progress import Progress

#: Bump when the way metrics are computed from cards changes, to invalidate cached arrays.
CACHE_VERSION = 2


def compute_metric(name: str, sources: Sequence[str], outputs: Sequence[str], *, modification: str = "none",
                   lexicon: dict[str, float] | None = None, cache: Cache | None = None,
                   progress: Progress | None = None, placeholder: str = DEFAULT_PLACEHOLDER) -> np.ndarray:
    """One metric for aligned sources/outputs after a style modification, cached on disk per inputs."""
    if modification not in MODIFICATIONS:
        raise DataError(f"unknown modification '{modification}'; choose one of {', '.join(MODIFICATIONS)}")
    if len(sources) != len(outputs):
        raise DataError(f"{len(sources)} sources but {len(outputs)} outputs: pairs must align")
    cache = cache or default_cache()
    sources, outputs = [str(s) for s in sources], [str(o) for o in outputs]
    card = get_card(name)
    if card.precomputed or name.startswith(METRIC_PREFIX):
        raise DataError(f"'{name}' is a precomputed column: read it with metric_frame(pairs, ...)")
    if name.endswith(NE_SUFFIX):
        base = get_card(name[: -len(NE_SUFFIX)])
        base_name = base.similarity_form or base.name
        values = compute_metric(base_name, sources, outputs, modification=modification, lexicon=lexicon,
                                cache=cache, progress=progress, placeholder=placeholder)
        ne, share = entity_scores(sources, outputs, cache=cache)
        return merge_with_entities(values * get_card(base_name).merge_scale, ne, share)
    if card.on_original_texts:
        # Entities are found in the original texts: NER needs the casing and context that style
        # masking would destroy, and entities are content, not style words.
        return card.run(sources, outputs, cache, progress)
    if card.derive is not None:
        source_metric, transform = card.derive
        return transform(compute_metric(source_metric, sources, outputs, modification=modification, lexicon=lexicon,
                                        cache=cache, progress=progress, placeholder=placeholder))
    params = _memo_params(card, sources, outputs, modification, lexicon, placeholder)
    src = apply_modification(sources, modification, lexicon, placeholder)
    out = apply_modification(outputs, modification, lexicon, placeholder)
    return cache.memo("metric", params, lambda: _compute(card, src, out, params, cache, progress),
                      version=CACHE_VERSION)


def verify_metric(name: str) -> None:
    """Run the known-answer checks of the models behind a metric (stviz.models); KnownAnswerError when one fails."""
    card = get_card(name)
    if card.verify is not None and not card.precomputed:
        card.verify(**card.options)


def verified_metrics(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """The metrics whose models pass their known-answer checks, and a note refusing each of the others.

    Checked once per model (cached on disk): a refused metric is left out with its reason, never computed.
    """
    from stviz.models.known_answers import KnownAnswerError
    from stviz.models.loading import ModelLoadError

    kept, notes = [], []
    for name in names:
        try:
            verify_metric(name)
        except (KnownAnswerError, ModelLoadError) as exc:
            notes.append(f"{metric_label(name)} left out: {exc}")
            continue
        kept.append(name)
    return kept, notes


def _memo_params(card: MetricCard, sources: list[str], outputs: list[str], modification: str, lexicon,
                 placeholder: str) -> dict:
    """The disk-cache key of one metric's values on these texts."""
    params = {"metric": card.name, "options": card.options, "modification": modification,
              "sources": sources, "outputs": outputs}
    if card.version != 1:  # values of an earlier computation are never served
        params["version"] = card.version
    variant = card.cache_variant()
    if variant:  # int8 values differ from PyTorch's (fp32 ONNX equals it and shares the entry)
        params["backend"] = variant
    if modification != "none":
        if lexicon is None:
            raise DataError(f"the modification '{modification}' needs a style lexicon; this dataset has none")
        params["lexicon"] = sorted(str(w).lower() for w in lexicon)
        params["placeholder"] = placeholder if modification == "masking" else None
        params["rewrite"] = modify.CACHE_VERSION
    if "wordnet" in card.needs:
        from stviz.metrics.wordnet import wordnet_status

        params["wordnet"] = wordnet_status().available  # full and exact+stem METEOR differ
    return params


def is_cached(name: str, sources: Sequence[str], outputs: Sequence[str], *, modification: str = "none",
              lexicon: dict[str, float] | None = None, cache: Cache | None = None,
              placeholder: str = DEFAULT_PLACEHOLDER) -> bool:
    """Whether :func:`compute_metric` would read these values from the disk cache (for cost estimates).

    Precomputed columns count as cached; a merge or a derived metric, as its base metric.
    """
    card = get_card(name)
    if card.precomputed:
        return True
    if name.endswith(NE_SUFFIX):
        base = get_card(name[: -len(NE_SUFFIX)])
        return is_cached(base.similarity_form or base.name, sources, outputs, modification=modification,
                         lexicon=lexicon, cache=cache, placeholder=placeholder)
    if card.derive is not None:
        return is_cached(card.derive[0], sources, outputs, modification=modification, lexicon=lexicon, cache=cache,
                         placeholder=placeholder)
    if card.on_original_texts:
        from stviz.metrics.entities import entity_scores_cached

        return entity_scores_cached(sources, outputs, cache=cache)
    params = _memo_params(card, [str(s) for s in sources], [str(o) for o in outputs], modification, lexicon,
                          placeholder)
    return (cache or default_cache()).has("metric", params, version=CACHE_VERSION)


def _compute(card: MetricCard, sources: list[str], outputs: list[str], params: dict, cache: Cache,
             progress: Progress | None) -> np.ndarray:
    """A card's values for these pairs, computed by the engine in force (this process or a Ray cluster)."""
    if card.uses_cache:
        # An embedding cosine: its embedding goes through the engine inside embed(); the cosine is cheap.
        return card.run(sources, outputs, cache, progress)
    score = functools.partial(score_block, card.name, params.get("wordnet"))
    job = fingerprint(["metric", params, CACHE_VERSION])

    def compute(src: list[str], out: list[str], step: Progress | None) -> np.ndarray:
        return engine.map_pairs(score, src, out, job=job, cache=cache, progress=step,
                                needs_model="model" in card.needs)

    # Kept per pair as well as whole: a sampled preview's pairs are then not computed again by the full run.
    pair_job = fingerprint(["metric", {k: v for k, v in params.items() if k not in ("sources", "outputs")},
                            CACHE_VERSION])
    return per_pair(pair_job, sources, outputs, compute, cache.root, progress)


def score_block(name: str, wordnet: bool | None, sources: list[str], outputs: list[str],
                progress: Progress | None = None) -> np.ndarray:
    """One metric's values for a block of pairs, wherever it runs (here, or on a Ray worker).

    ``wordnet``: whether the driver's METEOR has WordNet (part of the cache key); a worker that
    differs would store exact+stem values under the full METEOR key, so it refuses.
    """
    card = get_card(name)
    if wordnet is not None:
        from stviz.metrics.wordnet import wordnet_status

        if wordnet_status().available != wordnet:
            here = "has" if wordnet_status().available else "lacks"
            raise DataError(f"a worker {here} WordNet and the driver does not agree, so its {card.label} would differ: "
                            "install the Debian packages wordnet-base and wordnet-sense-index on every node (or on none)")
    return card.run(sources, outputs, None, progress)


def metric_frame(pairs: pd.DataFrame, names: Sequence[str], *, modification: str = "none",
                 lexicon: dict[str, float] | None = None, ne_source: str = "spacy",
                 cache: Cache | None = None, progress: Progress | None = None) -> pd.DataFrame:
    """One column per metric for a dataset's pairs; precomputed ``metric:*`` columns included.

    ``ne_source`` says where the NE merge takes M_NE and p from: ``spacy`` (this project's NER)
    or ``columns`` (the dataset's own ``metric:scipy_ner`` / ``metric:scipy_proprotion``).
    """
    if ne_source not in ("spacy", "columns"):
        raise DataError(f"unknown ne_source '{ne_source}'; choose spacy or columns")
    if ne_source == "columns" and not all(c in pairs for c in AUTHORS_NE_COLUMNS):
        raise DataError("ne_source='columns' needs the columns " + " and ".join(AUTHORS_NE_COLUMNS))
    sources, outputs = pairs["source"].astype(str).tolist(), pairs["output"].astype(str).tolist()
    n, total = len(pairs), max(len(names), 1)
    columns = {}
    for k, name in enumerate(computation_order(names)):
        step = (lambda d, t, k=k: progress(k * n + int(d / max(t, 1) * n), total * n)) if progress else None
        columns[name] = _metric_column(pairs, name, sources, outputs, modification, lexicon, ne_source, cache, step)
    if progress:
        progress(total * n, total * n)
    frame = pd.DataFrame(index=pairs.index)
    for name in names:  # the columns in the order asked
        frame[name] = columns[name]
    return frame


def computation_order(names: Sequence[str]) -> list[str]:
    """``names`` in the order to compute them: a metric whose pass leaves another's inputs in the cache (a card's
    ``feeds``: BERTScore leaves MiniLM's sentence vectors) before that other, the rest as given."""
    bases = {_base_name(n) for n in names}

    def feeds_one_asked(name: str) -> bool:
        base = _base_name(name)
        return not base.startswith(METRIC_PREFIX) and bool(bases.intersection(get_card(base).feeds))

    return sorted(names, key=lambda name: not feeds_one_asked(name))


def _base_name(name: str) -> str:
    """The metric a ``+ne`` merge is made from (the name itself otherwise)."""
    return name[: -len(NE_SUFFIX)] if name.endswith(NE_SUFFIX) else name


def _metric_column(pairs, name, sources, outputs, modification, lexicon, ne_source, cache, progress) -> np.ndarray:
    base = _base_name(name)
    if name.startswith(REF_PREFIX):  # the metric with each reference in the source's place
        return reference_values(name, pairs, outputs, lambda metric, refs: compute_metric(
            metric, refs, outputs, modification=modification, lexicon=lexicon, cache=cache, progress=progress), cache)
    if not base.startswith(METRIC_PREFIX) and not (name.endswith(NE_SUFFIX) and ne_source == "columns"):
        return compute_metric(name, sources, outputs, modification=modification, lexicon=lexicon,
                              cache=cache, progress=progress)
    if base.startswith(METRIC_PREFIX):
        if base not in pairs:
            raise DataError(f"the pairs have no column '{base}'")
        if modification != "none":
            raise DataError(f"'{base}' was precomputed on the unmodified texts; it cannot be recomputed "
                            f"with '{modification}'")
        values = on_percent_scale(base, pairs[base].astype(float).to_numpy())
        if name.endswith(NE_SUFFIX):  # the merge takes every measure on 0-1
            values = values * get_card(base).merge_scale
    else:
        card = get_card(base)
        values = compute_metric(card.similarity_form or base, sources, outputs, modification=modification,
                                lexicon=lexicon, cache=cache, progress=progress)
        values = values * get_card(card.similarity_form or base).merge_scale
    if not name.endswith(NE_SUFFIX):
        return values
    if ne_source == "columns":
        ne, share = (pairs[c].astype(float).to_numpy() for c in AUTHORS_NE_COLUMNS)
    else:
        ne, share = entity_scores(sources, outputs, cache=cache)
    return merge_with_entities(values, ne, share)


__all__ = ["MetricCard", "available_metrics", "builtin_cards", "compute_metric", "computation_order",
           "default_metrics", "get_card", "is_cached", "metric_columns", "metric_frame", "metric_label",
           "verified_metrics", "verify_metric", "with_ne_merge", "AUTHORS_NE_COLUMNS",
           "NE_SUFFIX", "MODIFICATIONS"]
