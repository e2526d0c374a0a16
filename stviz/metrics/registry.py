"""The metric registry: one card per content-preservation metric, owning how it is computed.

A metric is added in one place: the module that computes it decorates its function with
:func:`metric` (see :mod:`stviz.metrics.content` for BLEU, chrF, ROUGE, METEOR, WMD and BERTScore,
and :mod:`stviz.metrics.entities` for the named-entity score). The card says what the metric is
(label, direction, range, citation), what it needs (a neural model, WordNet, spaCy; whether it is
slow on a CPU), whether it is computed by default, and holds the compute function itself.

Names that are not registered one by one:

* ``cosine:SPEC``: embedding cosine for any embedder spec of :mod:`stviz.embed`;
* ``metric:NAME``: a precomputed column of the dataset's pairs (e.g. SGDD-TST's BLEURT);
* ``NAME+ne``: Babakov et al.'s named-entity merge ``M * (1 - p) + M_NE * p`` of any of them.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np

from stviz.data.schema import METRIC_PREFIX, DataError, short_name

NE_SUFFIX = "+ne"
#: What a metric can need; pages warn about ``slow`` ones and say when ``wordnet`` is missing.
NEEDS = ("model", "slow", "wordnet", "spacy")
#: Embedders offered as cosine metrics by default (any ``cosine:SPEC`` works).
DEFAULT_COSINES = ("cosine:minilm", "cosine:glove-mean")
#: Above this many pairs, ``slow`` metrics are left out of the defaults (and the views say so).
SLOW_PAIR_LIMIT = 3000
#: SGDD-TST's own NE columns (Babakov et al.): M_NE and p, inputs of the merge rather than metrics.
AUTHORS_NE_COLUMNS = ("metric:scipy_ner", "metric:scipy_proprotion")

CITATIONS = {
    "bleu": "Papineni et al. 2002, BLEU; Post 2018, sacrebleu",
    "chrf": "Popovic 2015, chrF; Post 2018, sacrebleu",
    "chrf++": "Popovic 2017, chrF++; Post 2018, sacrebleu",
    "rouge": "Lin 2004, ROUGE (rouge-score)",
    "meteor": "Banerjee & Lavie 2005, METEOR (nltk)",
    "wmd": "Kusner et al. 2015, Word Mover's Distance (gensim, POT); Mir et al. 2019",
    "bertscore": "Zhang et al. 2020, BERTScore (bert-score)",
    "cosine": "cosine of sentence embeddings (e.g. Fitzpatrick et al.; Babakov et al. 2022)",
    "ne": "Babakov et al. 2022, named entities for content preservation (spaCy NER)",
}


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
    needs: tuple[str, ...] = ()
    #: In the default list of every view and command.
    default: bool = False
    #: Computed on the original texts whatever the style modification (NER needs their casing and context).
    on_original_texts: bool = False

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

    def run(self, sources: list[str], outputs: list[str], cache, progress) -> np.ndarray:
        """Call the compute function with this card's options (and the cache where it takes one)."""
        if self.compute is None:
            raise DataError(f"metric '{self.name}' cannot be computed from texts")
        extra = {"cache": cache} if self.uses_cache else {}
        return np.asarray(self.compute(sources, outputs, progress=progress, **extra, **self.options),
                          dtype=np.float64)


_REGISTRY: dict[str, MetricCard] = {}


def metric(**card: Any) -> Callable[[Callable], Callable]:
    """Register the decorated function as a metric, with the card's fields as keyword arguments.

    Stack several decorators on one function for variants that differ by options (ROUGE-1/2/L).
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


#: The order metrics are listed in (a metric not named here follows, in registration order).
DISPLAY_ORDER = ("bleu", "chrf", "chrf++", "rouge1", "rouge2", "rouge3", "rougeL", "meteor", "wmd", "wmd-sim",
                 "bertscore", "ne")


def builtin_cards() -> dict[str, MetricCard]:
    """Every registered metric, by name, in display order."""
    _load_modules()
    rank = {name: i for i, name in enumerate(DISPLAY_ORDER)}
    names = sorted(_REGISTRY, key=lambda n: rank.get(n, len(rank)))  # stable: the rest keep their order
    return {n: _REGISTRY[n] for n in names}


def _load_modules() -> None:
    # Importing the metric modules runs their @metric decorators.
    from stviz.metrics import content, entities  # noqa: F401


def _cosine_card(name: str) -> MetricCard:
    from stviz.embed import parse_embedder
    from stviz.metrics.content import embedding_cosine

    spec = name.split(":", 1)[1]
    embedder = parse_embedder(spec)  # raises EmbedderError for a malformed spec
    needs = () if spec.startswith(("glove", "wv:")) else ("model",)
    return MetricCard(name=name, label=f"cosine: {embedder.label}", higher_is_better=True, value_range=(-1, 1),
                      citation=CITATIONS["cosine"], description=f"cosine similarity of {embedder.label} sentence vectors",
                      family="embedding", options={"embedder": spec}, compute=embedding_cosine, needs=needs,
                      default=name in DEFAULT_COSINES)


#: Readable names for precomputed columns of the bundled corpora (SGDD-TST's, Babakov et al.).
KNOWN_COLUMNS = {
    "Elron/bleurt-large-512": "BLEURT-large-512", "bertscore/roberta-large": "BERTScore RoBERTa-large",
    "bertscore/bert-base-multilingual-cased": "BERTScore mBERT-base",
    "bertscore/microsoft/deberta-xlarge-mnli": "BERTScore DeBERTa-xlarge-MNLI",
    "fasttext_cossim": "fastText cosine", "w2v_cossim": "word2vec cosine", "bleu": "BLEU", "chrf": "chrF",
    "rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rouge3": "ROUGE-3", "rougeL": "ROUGE-L",
    "scipy_ner": "NE score", "scipy_proprotion": "entity-token share p",
}


def _precomputed_card(name: str) -> MetricCard:
    short = short_name(name)
    # Whole words only: a substring test would call "later_sim" or "water" a TER distance.
    words = set(re.split(r"[^a-z0-9]+", short.lower()))
    distance = bool(words & {"wmd", "distance", "dist", "ter", "edit"})
    return MetricCard(name=name, label=f"{KNOWN_COLUMNS.get(short, short)} (precomputed)",
                      higher_is_better=not distance, value_range=(float("-inf"), float("inf")),
                      citation="precomputed column of the dataset", description="values as given in the file",
                      family="precomputed", precomputed=True)


def _merged_card(base: MetricCard, name: str) -> MetricCard:
    if base.name == "ne":
        raise DataError("'ne+ne' is not a metric: the NE merge of the NE score is the NE score")
    return replace(base, name=name, label=f"{base.label} + NE", family="merged with NE", higher_is_better=True,
                   similarity_form=None, default=False, compute=None, derive=None,
                   description=f"Babakov et al.'s merge M*(1-p) + M_NE*p of {base.label}"
                               + (f" (as {base.similarity_form})" if base.similarity_form else ""),
                   citation=CITATIONS["ne"] + "; " + base.citation)


def get_card(name: str) -> MetricCard:
    """The card of any metric name (built-in, ``cosine:SPEC``, ``metric:NAME``, or ``NAME+ne``)."""
    if name.endswith(NE_SUFFIX):
        return _merged_card(get_card(name[: -len(NE_SUFFIX)]), name)
    cards = builtin_cards()
    if name in cards:
        card = cards[name]
        if "wordnet" in card.needs:
            from stviz.metrics.wordnet import meteor_label

            card = replace(card, label=meteor_label())
        return card
    if name.startswith("cosine:"):
        return _cosine_card(name)
    if name.startswith(METRIC_PREFIX):
        return _precomputed_card(name)
    known = ", ".join(list(cards) + ["cosine:SPEC", "metric:COLUMN", "NAME+ne"])
    raise DataError(f"unknown metric '{name}'; known: {known}")


def metric_columns(dataset) -> list[str]:
    """The dataset's precomputed metric columns that are metrics (not the inputs of the authors' NE merge)."""
    return [c for c in dataset.metric_columns if c not in AUTHORS_NE_COLUMNS]


def available_metrics(dataset=None) -> list[str]:
    """Every metric a view can offer for ``dataset``: built-ins, cosines for each embedder preset, its columns."""
    from stviz.embed import PRESETS

    names = list(DEFAULT_COSINES) + [f"cosine:{p}" for p in PRESETS] + list(builtin_cards())
    if dataset is not None and dataset.pairs is not None:
        names += metric_columns(dataset)
    return list(dict.fromkeys(names))


def default_metrics(dataset, modification: str = "none") -> tuple[list[str], list[str]]:
    """The metrics computed unless the user chooses: (names, notes saying what was left out and why).

    The built-ins marked ``default`` and the dataset's own metric columns (these only on unmodified
    texts: they were computed on the originals); ``slow`` metrics only up to SLOW_PAIR_LIMIT pairs.
    """
    n_pairs = 0 if dataset is None or dataset.pairs is None else len(dataset.pairs)
    names, notes = [], []
    for name in list(DEFAULT_COSINES) + [n for n, c in builtin_cards().items() if c.default]:
        card = get_card(name)
        if card.slow and n_pairs > SLOW_PAIR_LIMIT:
            notes.append(f"{card.label} is not computed by default on {n_pairs:,} pairs (more than "
                         f"{SLOW_PAIR_LIMIT:,}; slow on a CPU): choose it to add it")
            continue
        names.append(name)
    if dataset is not None and dataset.pairs is not None:
        columns = metric_columns(dataset)
        if modification == "none":
            names += columns
        elif columns:
            notes.append(f"the file's {len(columns)} precomputed metric columns are left out with modified texts: "
                         "they were computed on the original texts")
    return names, notes


def with_ne_merge(names: Sequence[str]) -> list[str]:
    """``names`` followed by the named-entity merge of each (Babakov et al.)."""
    base = [n for n in names if not n.endswith(NE_SUFFIX)]
    return list(dict.fromkeys(list(names) + [n + NE_SUFFIX for n in base if n != "ne"]))


__all__ = ["MetricCard", "metric", "get_card", "builtin_cards", "available_metrics", "default_metrics",
           "metric_columns", "with_ne_merge", "NE_SUFFIX", "DEFAULT_COSINES", "SLOW_PAIR_LIMIT",
           "AUTHORS_NE_COLUMNS", "CITATIONS"]
