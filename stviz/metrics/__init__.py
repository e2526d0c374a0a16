"""Content-preservation metrics behind one registry, each with its card.

A metric is named by a string:

* built-in metrics: ``bleu``, ``chrf``, ``chrf++``, ``rouge1``, ``rouge2``, ``rouge3``, ``rougeL``,
  ``meteor``, ``wmd`` (a distance), ``wmd-sim``, ``bertscore``, ``ne`` (named-entity Jaccard);
* ``cosine:SPEC`` - embedding cosine for any embedder spec of :mod:`stviz.embed`
  (``cosine:minilm``, ``cosine:glove-mean``, ``cosine:st:MODEL``, ...);
* ``metric:NAME`` - a precomputed column of the dataset's pairs (e.g. SGDD-TST's BLEURT);
* ``NAME+ne`` - the named-entity merge of any of the above (Babakov et al.):
  ``M * (1 - p) + M_NE * p``.

:func:`compute_metric` computes one built-in metric for aligned lists of sources and outputs,
after an optional style modification (Mir et al.), and caches the result on disk per
(metric, options, modification, lexicon, texts). :func:`metric_frame` does the same for a
dataset's pairs and also serves precomputed columns, so they appear in every table and plot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from stviz.cache import Cache, default_cache
from stviz.data.schema import METRIC_PREFIX, DataError, short_name
from stviz.metrics import content
from stviz.metrics.modify import DEFAULT_PLACEHOLDER, MODIFICATIONS, MODIFY_VERSION, apply_modification

Progress = Callable[[int, int], None]
NE_SUFFIX = "+ne"
#: Bump when a metric's computation changes, to invalidate cached arrays.
METRIC_VERSION = 1


@dataclass(frozen=True)
class MetricCard:
    """What a metric is: name, label, direction, range, citation, and how it is computed."""

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
    options: dict = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """'similarity' (higher = more content kept) or 'distance' (lower = more content kept)."""
        return "similarity" if self.higher_is_better else "distance"

    @property
    def direction(self) -> str:
        """Direction note for labels and tables."""
        return "higher = more similar" if self.higher_is_better else "lower = more similar (distance)"


_C = {
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


def _builtin_cards() -> dict[str, MetricCard]:
    cards = [
        MetricCard("bleu", "BLEU", True, (0, 100), _C["bleu"],
                   f"sentence BLEU, 13a tokens, smoothing '{content.BLEU_SMOOTHING}', effective order",
                   "n-gram", merge_scale=0.01, options={"smooth_method": content.BLEU_SMOOTHING}),
        MetricCard("chrf", "chrF", True, (0, 100), _C["chrf"], "character 6-grams, beta 2",
                   "n-gram", merge_scale=0.01, options={"word_order": 0}),
        MetricCard("chrf++", "chrF++", True, (0, 100), _C["chrf++"], "character 6-grams + word 1-2-grams, beta 2",
                   "n-gram", merge_scale=0.01, options={"word_order": 2}),
        *[MetricCard(r, {"rougeL": "ROUGE-L"}.get(r, f"ROUGE-{r[-1]}"), True, (0, 1), _C["rouge"],
                     "F-measure, Porter stemmer", "n-gram", options={"rouge_type": r}) for r in content.ROUGE_TYPES],
        MetricCard("meteor", "METEOR", True, (0, 1), _C["meteor"],
                   "unigram alignment with stems and WordNet synonyms", "n-gram"),
        MetricCard("wmd", "WMD (GloVe 6B 50d)", False, (0, float("inf")), _C["wmd"],
                   "Word Mover's Distance on unit-normalised GloVe 6B 50d vectors",
                   "word vectors", similarity_form="wmd-sim", options={"vectors": "glove-6b-50d"}),
        MetricCard("wmd-sim", "WMD similarity 1/(1+WMD)", True, (0, 1), _C["wmd"],
                   "1 / (1 + WMD) on GloVe 6B 50d: same ranking as WMD, higher = closer",
                   "word vectors", options={"vectors": "glove-6b-50d"}),
        MetricCard("bertscore", f"BERTScore F1 (MiniLM-L6, layer {content.BERTSCORE_LAYER})", True, (-1, 1),
                   _C["bertscore"], "greedy token matching of contextual embeddings, no idf, no rescaling",
                   "contextual", options={"model": content.BERTSCORE_MODEL, "num_layers": content.BERTSCORE_LAYER}),
        MetricCard("ne", "Named-entity Jaccard", True, (0, 1), _C["ne"],
                   "Jaccard index of lemmatised entity texts (spaCy); 1 when neither text has an entity",
                   "entities"),
    ]
    return {c.name: c for c in cards}


BUILTIN = _builtin_cards()
#: Embedders offered as cosine metrics by default (any ``cosine:SPEC`` works).
DEFAULT_COSINES = ("cosine:minilm", "cosine:glove-mean")
#: What the dashboard and the CLI compute unless told otherwise.
DEFAULT_METRICS = ("cosine:minilm", "cosine:glove-mean", "wmd", "bleu", "chrf", "rouge1", "rouge2",
                   "rougeL", "meteor", "bertscore", "ne")


def _cosine_card(name: str) -> MetricCard:
    from stviz.embed import parse_embedder

    spec = name.split(":", 1)[1]
    embedder = parse_embedder(spec)  # raises EmbedderError for a malformed spec
    return MetricCard(name, f"cosine: {embedder.label}", True, (-1, 1), _C["cosine"],
                      f"cosine similarity of {embedder.label} sentence vectors", "embedding",
                      options={"embedder": spec})


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
    lowered = short.lower()
    # Whole words only: a substring test would call "later_sim" or "water" a TER distance.
    words = set(re.split(r"[^a-z0-9]+", lowered))
    distance = bool(words & {"wmd", "distance", "dist", "ter", "edit"})
    return MetricCard(name, f"{KNOWN_COLUMNS.get(short, short)} (precomputed)", not distance, (float("-inf"), float("inf")),
                      "precomputed column of the dataset", "values as given in the file", "precomputed",
                      precomputed=True)


def get_card(name: str) -> MetricCard:
    """The card of any metric name (built-in, ``cosine:SPEC``, ``metric:NAME``, or ``NAME+ne``)."""
    if name.endswith(NE_SUFFIX):
        base = get_card(name[: -len(NE_SUFFIX)])
        if base.name == "ne":
            raise DataError("'ne+ne' is not a metric: the NE merge of the NE score is the NE score")
        return replace(base, name=name, label=f"{base.label} + NE", family="merged with NE",
                       higher_is_better=True, similarity_form=None,
                       description=f"Babakov et al.'s merge M*(1-p) + M_NE*p of {base.label}"
                                   + (f" (as {base.similarity_form})" if base.similarity_form else ""),
                       citation=_C["ne"] + "; " + base.citation)
    if name in BUILTIN:
        card = BUILTIN[name]
        if name == "meteor":
            from stviz.metrics.wordnet import meteor_label

            card = replace(card, label=meteor_label())
        return card
    if name.startswith("cosine:"):
        return _cosine_card(name)
    if name.startswith(METRIC_PREFIX):
        return _precomputed_card(name)
    known = ", ".join(list(BUILTIN) + ["cosine:SPEC", "metric:COLUMN", "NAME+ne"])
    raise DataError(f"unknown metric '{name}'; known: {known}")


def available_metrics(pairs: pd.DataFrame | None = None, include_merged: bool = False) -> list[MetricCard]:
    """Cards of the metrics on offer: built-ins, default cosines, the pairs' precomputed columns."""
    names = list(DEFAULT_COSINES) + list(BUILTIN)
    if pairs is not None:
        names += [c for c in pairs.columns if str(c).startswith(METRIC_PREFIX)]
    cards = [get_card(n) for n in names]
    if include_merged:
        cards += [get_card(c.name + NE_SUFFIX) for c in list(cards) if c.name != "ne"]
    return cards


# -- computing --------------------------------------------------------------------------------------
def _compute_builtin(card: MetricCard, sources: list[str], outputs: list[str], cache: Cache,
                     progress: Progress | None) -> np.ndarray:
    name, opts = card.name, card.options
    if name.startswith("cosine:"):
        return content.embedding_cosine(sources, outputs, opts["embedder"], cache=cache, progress=progress)
    if name == "bleu":
        return content.bleu(sources, outputs, progress=progress, **opts)
    if name in ("chrf", "chrf++"):
        return content.chrf(sources, outputs, progress=progress, **opts)
    if name in content.ROUGE_TYPES:
        return content.rouge(sources, outputs, progress=progress, **opts)
    if name == "meteor":
        return content.meteor(sources, outputs, progress=progress)
    if name == "wmd":
        return content.wmd_distance(sources, outputs, progress=progress, **opts)
    if name == "wmd-sim":
        return 1.0 / (1.0 + compute_metric("wmd", sources, outputs, cache=cache, progress=progress))
    if name == "bertscore":
        return content.bertscore(sources, outputs, progress=progress, **opts)
    raise DataError(f"metric '{name}' cannot be computed from texts")


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
        ne, share = entity_inputs(sources, outputs, cache=cache)
        return merge_values(values * get_card(base_name).merge_scale, ne, share)
    if name == "ne":
        # Entities are found in the original texts: NER needs the casing and context that style
        # masking would destroy, and entities are content, not style words.
        return entity_inputs(sources, outputs, cache=cache, progress=progress)[0]
    params = {"metric": name, "v": METRIC_VERSION, "options": card.options, "modification": modification,
              "sources": sources, "outputs": outputs}
    variant = content.backend_variant(name, card.options)
    if variant:  # int8 values differ from PyTorch's (fp32 ONNX equals it and shares the entry)
        params["backend"] = variant
    if modification != "none":
        if lexicon is None:
            raise DataError(f"the modification '{modification}' needs a style lexicon; this dataset has none")
        params["lexicon"] = sorted(str(w).lower() for w in lexicon)
        params["placeholder"] = placeholder if modification == "masking" else None
        params["rewrite"] = MODIFY_VERSION
    if name == "meteor":
        from stviz.metrics.wordnet import wordnet_status

        params["wordnet"] = wordnet_status().available  # full and exact+stem METEOR differ
    src = apply_modification(sources, modification, lexicon, placeholder)
    out = apply_modification(outputs, modification, lexicon, placeholder)
    return cache.memo("metric", params, lambda: np.asarray(_compute_builtin(card, src, out, cache, progress),
                                                           dtype=np.float64))


def entity_inputs(sources: Sequence[str], outputs: Sequence[str], cache: Cache | None = None,
                  progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(M_NE, p) per pair from spaCy NER (see :mod:`stviz.metrics.entities`)."""
    from stviz.metrics.entities import entity_scores

    return entity_scores(sources, outputs, cache=cache, progress=progress)


def merge_values(values: np.ndarray, ne: np.ndarray, share: np.ndarray) -> np.ndarray:
    """Babakov et al.'s merge M*(1-p) + M_NE*p."""
    from stviz.metrics.entities import merge_with_entities

    return merge_with_entities(values, ne, share)


#: SGDD-TST's own NE columns (Babakov et al.): M_NE and p.
AUTHORS_NE_COLUMNS = ("metric:scipy_ner", "metric:scipy_proprotion")


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
    frame = pd.DataFrame(index=pairs.index)
    for k, name in enumerate(names):
        step = (lambda d, t, k=k: progress(k * n + int(d / max(t, 1) * n), total * n)) if progress else None
        frame[name] = _metric_column(pairs, name, sources, outputs, modification, lexicon, ne_source, cache, step)
    if progress:
        progress(total * n, total * n)
    return frame


def _metric_column(pairs, name, sources, outputs, modification, lexicon, ne_source, cache, progress) -> np.ndarray:
    base = name[: -len(NE_SUFFIX)] if name.endswith(NE_SUFFIX) else name
    if not base.startswith(METRIC_PREFIX) and not (name.endswith(NE_SUFFIX) and ne_source == "columns"):
        return compute_metric(name, sources, outputs, modification=modification, lexicon=lexicon,
                              cache=cache, progress=progress)
    if base.startswith(METRIC_PREFIX):
        if base not in pairs:
            raise DataError(f"the pairs have no column '{base}'")
        if modification != "none":
            raise DataError(f"'{base}' was precomputed on the unmodified texts; it cannot be recomputed "
                            f"with '{modification}'")
        values = pairs[base].astype(float).to_numpy()
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
        ne, share = entity_inputs(sources, outputs, cache=cache)
    return merge_values(values, ne, share)


def metric_labels(names: Sequence[str]) -> dict[str, str]:
    """Display labels for metric names (METEOR says when it lacks WordNet)."""
    return {n: get_card(n).label for n in names}


__all__ = ["MetricCard", "available_metrics", "compute_metric", "get_card", "metric_frame", "metric_labels",
           "merge_values", "entity_inputs", "BUILTIN", "DEFAULT_METRICS", "NE_SUFFIX", "MODIFICATIONS"]
