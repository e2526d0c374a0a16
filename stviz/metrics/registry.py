"""The metric registry: cards (what a metric is and how it is computed), and nothing else.

The registry knows no metric. Each metric family's module registers its own cards when imported
(:mod:`stviz.metrics.catalog` imports them all), through three decorators:

* :func:`metric`: one named metric (``bleu``, ``rougeL``, ``ne``) computed by the decorated function;
* :func:`metric_family`: metrics named ``PREFIX:PARAMETER`` whose card the family builds from the
  name (``cosine:EMBEDDER`` in :mod:`stviz.metrics.content`, ``metric:COLUMN`` in
  :mod:`stviz.metrics.precomputed`);
* :func:`metric_suffix`: ``NAME+SUFFIX`` cards derived from another metric's card (Babakov et al.'s
  named-entity merge ``NAME+ne`` in :mod:`stviz.metrics.entities`).

Cards are listed in registration order (the catalog's import order, then each module's order).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from stviz.data.schema import DataError
from stviz.languages.cards import ANY

#: What a metric can need; pages warn about ``slow`` ones and say when ``wordnet`` is missing.
NEEDS = ("model", "slow", "wordnet", "spacy")
#: Above this many pairs, ``slow`` metrics are left out of the defaults (and the views say so).
SLOW_PAIR_LIMIT = 3000


@dataclass(frozen=True)
class MetricCard:
    """What a metric is (name, label, direction, range, citation), what it needs, and how it is computed."""

    name: str
    label: str
    higher_is_better: bool
    value_range: tuple[float, float]
    citation: str
    description: str = ""
    family: str = ""
    #: Factor that brings values to about [0, 1] before the named-entity merge (BLEU 0-100 -> 0.01).
    merge_scale: float = 1.0
    #: For a distance, the name of its similarity form (what the NE merge uses).
    similarity_form: str | None = None
    precomputed: bool = False
    #: Keyword options passed to ``compute`` (part of the cache key).
    options: dict = field(default_factory=dict)
    #: ``fn(sources, outputs, progress=None, [cache=None,] **options) -> array``, one value per pair.
    compute: Callable[..., np.ndarray] | None = field(default=None, compare=False, repr=False)
    #: (metric name, fn): values derived from another metric's (cached) values instead of computed.
    derive: tuple[str, Callable[[np.ndarray], np.ndarray]] | None = field(default=None, compare=False, repr=False)
    #: ``fn(name, options) -> str``: '' or the backend whose values differ (int8), part of the cache key.
    variant: Callable[[str, dict], str] | None = field(default=None, compare=False, repr=False)
    #: ``fn() -> str``: a label that depends on this machine (METEOR says whether WordNet was found).
    live_label: Callable[[], str] | None = field(default=None, compare=False, repr=False)
    #: ``fn(**options)``: the known-answer check of the model behind the metric (stviz.models.known_answers),
    #: run before its values are computed; raises KnownAnswerError (the metric is then refused, with the reason).
    verify: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    #: Bump when the metric's values change (part of the cache key from 2 on; 1 leaves older keys as they were).
    version: int = 1
    needs: tuple[str, ...] = ()
    #: In the default list of every view and command.
    default: bool = False
    #: Computed on the original texts whatever the style modification (NER needs their casing and context).
    on_original_texts: bool = False
    #: Languages the metric is valid for: codes, ANY or SPACED (stviz.languages.cards); views leave it out elsewhere.
    languages: tuple[str, ...] = (ANY,)
    #: Metrics whose inputs this metric's own pass leaves in the cache (BERTScore's states are MiniLM's vectors):
    #: asked together, this one is computed first (:func:`stviz.metrics.computation_order`).
    feeds: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """'similarity' (higher = more content kept) or 'distance' (lower = more content kept)."""
        return "similarity" if self.higher_is_better else "distance"

    @property
    def direction(self) -> str:
        """Direction note for labels and tables."""
        return "higher = more similar" if self.higher_is_better else "lower = more similar (distance)"

    @property
    def slow(self) -> bool:
        """Noticeably slow on a CPU (BERTScore): left out of the defaults for large datasets."""
        return "slow" in self.needs

    @property
    def uses_cache(self) -> bool:
        """Whether the compute function takes the cache (it embeds texts, and embeddings are cached per text)."""
        return self.compute is not None and "cache" in inspect.signature(self.compute).parameters

    def cache_variant(self) -> str:
        """'' or the backend that computes this card's values here, when they differ from PyTorch's (int8)."""
        return self.variant(self.name, self.options) if self.variant else ""

    def run(self, sources: list[str], outputs: list[str], cache, progress) -> np.ndarray:
        """Call the compute function with this card's options (and the cache where it takes one)."""
        if self.compute is None:
            raise DataError(f"metric '{self.name}' cannot be computed from texts")
        extra = {"cache": cache} if self.uses_cache else {}
        return np.asarray(self.compute(sources, outputs, progress=progress, **extra, **self.options),
                          dtype=np.float64)


def _no_names(dataset, modification: str = "none") -> tuple[list[str], list[str]]:
    return [], []


@dataclass(frozen=True)
class MetricFamily:
    """Metrics named ``PREFIX:PARAMETER``, whose cards the family's module builds from the name."""

    prefix: str
    #: How the name is written, for messages (``cosine:SPEC``).
    syntax: str
    #: ``fn(name) -> MetricCard``; raises for a malformed parameter.
    card: Callable[[str], MetricCard]
    #: ``fn(dataset) -> names`` offered in metric menus (the dataset may be None).
    offered: Callable[[Any], list[str]] = field(default=lambda dataset: [])
    #: ``fn(dataset, modification) -> (names, notes)``: computed unless the user chooses.
    defaults: Callable[[Any, str], tuple[list[str], list[str]]] = field(default=_no_names)
    #: Listed after the named metrics (a dataset's own columns) rather than before (cosines).
    after_named: bool = False


_REGISTRY: dict[str, MetricCard] = {}
_FAMILIES: dict[str, MetricFamily] = {}
#: suffix -> (how it is written, ``fn(base card, name) -> card``).
_SUFFIXES: dict[str, tuple[str, Callable[[MetricCard, str], MetricCard]]] = {}


def metric(**card: Any) -> Callable[[Callable], Callable]:
    """Register the decorated function as a metric, with the card's fields as keyword arguments.

    Stack several decorators on one function for variants that differ by options (ROUGE-1/2/L);
    decorators apply bottom-up, so the lowest is registered (and listed) first.
    """
    def register(fn: Callable) -> Callable:
        entry = MetricCard(compute=fn, **card)
        if entry.name in _REGISTRY:
            raise ValueError(f"metric '{entry.name}' is registered twice")
        unknown = set(entry.needs) - set(NEEDS)
        if unknown:
            raise ValueError(f"metric '{entry.name}': unknown needs {unknown}; known: {NEEDS}")
        _REGISTRY[entry.name] = entry
        return fn

    return register


def metric_family(prefix: str, syntax: str, **hooks: Any) -> Callable[[Callable], Callable]:
    """Register the decorated ``fn(name) -> MetricCard`` as the card builder of every ``PREFIX:...`` name.

    ``hooks``: the other fields of :class:`MetricFamily` (``offered``, ``defaults``, ``after_named``).
    """
    def register(build: Callable[[str], MetricCard]) -> Callable[[str], MetricCard]:
        if prefix in _FAMILIES:
            raise ValueError(f"metric family '{prefix}:' is registered twice")
        _FAMILIES[prefix] = MetricFamily(prefix=prefix, syntax=syntax, card=build, **hooks)
        return build

    return register


def metric_suffix(suffix: str, syntax: str) -> Callable[[Callable], Callable]:
    """Register the decorated ``fn(base_card, name) -> MetricCard`` for every ``NAME+SUFFIX`` name."""
    def register(build: Callable[[MetricCard, str], MetricCard]) -> Callable[[MetricCard, str], MetricCard]:
        if suffix in _SUFFIXES:
            raise ValueError(f"metric suffix '{suffix}' is registered twice")
        _SUFFIXES[suffix] = (syntax, build)
        return build

    return register


def builtin_cards() -> dict[str, MetricCard]:
    """Every metric registered by name, in registration order."""
    return dict(_REGISTRY)


def get_card(name: str) -> MetricCard:
    """The card of any metric name (registered, ``PREFIX:PARAMETER`` of a family, or ``NAME+SUFFIX``)."""
    for suffix, (_, build) in _SUFFIXES.items():
        if name.endswith(suffix):
            return build(get_card(name[: -len(suffix)]), name)
    if name in _REGISTRY:
        card = _REGISTRY[name]
        return replace(card, label=card.live_label()) if card.live_label else card
    prefix, colon, _ = name.partition(":")
    if colon and prefix in _FAMILIES:
        return _FAMILIES[prefix].card(name)
    known = list(_REGISTRY) + [f.syntax for f in _FAMILIES.values()] + [s for s, _ in _SUFFIXES.values()]
    raise DataError(f"unknown metric '{name}'; known: {', '.join(known)}")


def metric_label(name: str) -> str:
    """A metric's readable label."""
    return get_card(name).label


def _families(after_named: bool, skip: tuple[str, ...] = ()) -> list[MetricFamily]:
    return [f for f in _FAMILIES.values() if f.after_named == after_named and f.prefix not in skip]


def available_metrics(dataset=None, skip: tuple[str, ...] = ()) -> list[str]:
    """Every metric a view can offer for ``dataset``: each family's offer (cosines first), then the named ones.

    ``skip``: family prefixes left out (a family built on the others' offer, ``ref:``, skips itself)."""
    names = [n for f in _families(False, skip) for n in f.offered(dataset)] + list(_REGISTRY)
    names += [n for f in _families(True, skip) for n in f.offered(dataset)]
    return list(dict.fromkeys(names))


def default_metrics(dataset, modification: str = "none", skip: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """The metrics computed unless the user chooses: (names, notes saying what was left out and why).

    The families' defaults and the named metrics marked ``default``; ``slow`` metrics only up to
    SLOW_PAIR_LIMIT pairs on a CPU (a GPU computes BERTScore on 10,000 pairs in seconds: always in). ``skip``: as
    :func:`available_metrics`'s.
    """
    n_pairs = 0 if dataset is None or dataset.pairs is None else len(dataset.pairs)
    named = ([n for n, c in _REGISTRY.items() if c.default], [])
    parts = [f.defaults(dataset, modification) for f in _families(False, skip)] + [named]
    parts += [f.defaults(dataset, modification) for f in _families(True, skip)]
    names, notes = [], []
    for picked, part_notes in parts:
        for name in picked:
            card = get_card(name)
            if card.slow and n_pairs > SLOW_PAIR_LIMIT and not _on_gpu():
                notes.append(f"{card.label} is not computed by default on {n_pairs:,} pairs (more than "
                             f"{SLOW_PAIR_LIMIT:,}; slow on a CPU): choose it to add it")
            else:
                names.append(name)
        notes += part_notes
    return names, notes


def _on_gpu() -> bool:
    from stviz.embedders.base import select_device

    return select_device() == "cuda"


__all__ = ["MetricCard", "MetricFamily", "metric", "metric_family", "metric_suffix", "get_card", "metric_label",
           "builtin_cards", "available_metrics", "default_metrics", "SLOW_PAIR_LIMIT", "NEEDS"]
