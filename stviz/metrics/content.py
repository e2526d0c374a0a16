"""Content-preservation metrics between a source text and a style-transferred output.

Every function has the shape ``compute(sources, outputs, **options) -> float array`` (one value
per pair), is batched over the whole list, takes an optional ``progress(done, total)`` callback,
and treats the *source* as the reference and the *output* as the hypothesis. Caching per
(metric, options, texts) happens one level up, in :func:`stviz.metrics.compute_metric`.

Conventions stated once:

* BLEU: sacrebleu sentence BLEU (Papineni et al., 2002; Post, 2018), 13a tokenisation, case
  sensitive, effective n-gram order, smoothing ``exp`` (sacrebleu's default for sentence BLEU:
  the exponential-decay smoothing of Chen & Cherry, 2014, method 3); scale 0-100.
* chrF: sacrebleu sentence chrF (Popovic, 2015): character 6-grams, beta 2, no word n-grams
  (``chrf++`` adds word uni- and bigrams, Popovic 2017, as Babakov et al. used); scale 0-100.
* ROUGE: rouge-score F-measure (Lin, 2004) with the Porter stemmer, as Babakov et al.
* METEOR: nltk ``meteor_score`` (Banerjee & Lavie, 2005) with WordNet 3.0 synonyms where
  available (see :mod:`stviz.metrics.wordnet`), else exact + stem only, labelled as such.
* WMD: gensim ``wmdistance`` (Kusner et al., 2015; POT solver) on unit-normalised word vectors,
  as Mir et al.; a distance (lower = more similar), also offered as the similarity 1 / (1 + WMD).
* BERTScore: bert-score F1 (Zhang et al., 2020) with the shipped all-MiniLM-L6-v2, layer 6 (its
  last), no idf weighting, no baseline rescaling (bert-score ships no baseline for MiniLM).
"""

from __future__ import annotations

import functools
import types
from typing import Callable, Sequence

import numpy as np

from stviz.cache import Cache
from stviz.embedders import embed, load_word_vectors, tokenize
from stviz.languages.cards import ANY, SPACED
from stviz.metrics.registry import MetricCard, metric, metric_family
from stviz.metrics.wordnet import meteor_label
from stviz.progress import Progress
from stviz.shared import exclusive, load_once

CITATIONS = {
    "bleu": "Papineni et al. 2002, BLEU; Post 2018, sacrebleu",
    "chrf": "Popovic 2015, chrF; Post 2018, sacrebleu",
    "chrf++": "Popovic 2017, chrF++; Post 2018, sacrebleu",
    "rouge": "Lin 2004, ROUGE (rouge-score)",
    "meteor": "Banerjee & Lavie 2005, METEOR (nltk)",
    "wmd": "Kusner et al. 2015, Word Mover's Distance (gensim, POT); Mir et al. 2019",
    "bertscore": "Zhang et al. 2020, BERTScore (bert-score)",
    "cosine": "cosine of sentence embeddings (e.g. Fitzpatrick et al.; Babakov et al. 2022)",
}
#: Embedders offered as cosine metrics by default (any ``cosine:SPEC`` works).
DEFAULT_COSINES = ("cosine:minilm", "cosine:glove-mean")

#: Shipped model used by BERTScore and the layer whose embeddings it matches.
BERTSCORE_MODEL = "minilm"
BERTSCORE_LAYER = 6
BLEU_SMOOTHING = "exp"


def _report(progress: Progress | None, done: int, total: int) -> None:
    if progress:
        progress(done, total)


def _check_lengths(sources: Sequence[str], outputs: Sequence[str]) -> None:
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs: pairs must align")


# -- embedding cosine -----------------------------------------------------------------------
def embedding_cosine(sources: Sequence[str], outputs: Sequence[str], embedder: str = "minilm",
                     cache: Cache | None = None, progress: Progress | None = None) -> np.ndarray:
    """Cosine similarity of the two texts' embeddings, for any embedder spec (stviz.embedders)."""
    _check_lengths(sources, outputs)
    n = len(sources)
    # One embed call over both sides: each distinct text is encoded (or read from cache) once.
    vectors = embed(list(sources) + list(outputs), embedder, cache=cache,
                    progress=(lambda d, t: _report(progress, d, t)) if progress else None)
    a, b = vectors[:n].astype(np.float64), vectors[n:].astype(np.float64)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a, b)
    # A text with no known word (zero vector) has no direction: its cosine is undefined.
    return np.where(norms > 0, dots / np.where(norms > 0, norms, 1), np.nan)


def _cosines_offered(dataset) -> list[str]:
    from stviz.embedders import PRESETS

    return list(DEFAULT_COSINES) + [f"cosine:{p}" for p in PRESETS]


def _cosine_defaults(dataset, modification: str) -> tuple[list[str], list[str]]:
    """MiniLM's and GloVe's cosines (English), and for a dataset in another language the multilingual encoder chosen
    for it (:func:`stviz.languages.measures.multilingual_encoder`)."""
    if dataset is None or dataset.pairs is None:
        return list(DEFAULT_COSINES), []
    from stviz.languages import dataset_language
    from stviz.languages.measures import multilingual_encoder

    encoder = multilingual_encoder(dataset_language(dataset).language)
    return list(DEFAULT_COSINES) + ([f"cosine:{encoder}"] if encoder else []), []


@metric_family("cosine", "cosine:SPEC", offered=_cosines_offered, defaults=_cosine_defaults)
def cosine_card(name: str) -> MetricCard:
    """The card of ``cosine:SPEC``: embedding cosine for any embedder spec of :mod:`stviz.embedders`."""
    from stviz.embedders import parse_embedder

    spec = name.split(":", 1)[1]
    embedder = parse_embedder(spec)  # raises EmbedderError for a malformed spec
    needs = () if spec.startswith(("glove", "wv:")) else ("model",)
    from stviz.languages.measures import embedder_languages

    return MetricCard(name=name, label=f"cosine: {embedder.label}", higher_is_better=True, value_range=(-1, 1),
                      citation=CITATIONS["cosine"], description=f"cosine similarity of {embedder.label} sentence vectors",
                      family="embedding", options={"embedder": spec}, compute=embedding_cosine, needs=needs,
                      variant=backend_variant, default=name in DEFAULT_COSINES,
                      languages=embedder_languages(spec), verify=lambda embedder: parse_embedder(embedder).verify())


# Named metrics are listed in registration order: n-gram overlap, word vectors, contextual embeddings.
# -- n-gram overlap -----------------------------------------------------------------------------
def _per_pair(score: Callable[[str, str], float], sources, outputs, progress) -> np.ndarray:
    _check_lengths(sources, outputs)
    out = np.empty(len(sources), dtype=np.float64)
    for i, (src, hyp) in enumerate(zip(sources, outputs)):
        out[i] = score(str(src), str(hyp))
        if progress and (i + 1) % 1000 == 0:
            progress(i + 1, len(sources))
    _report(progress, len(sources), len(sources))
    return out


@metric(name="bleu", label="BLEU (0-100)", higher_is_better=True, value_range=(0, 100), citation=CITATIONS["bleu"],
        description=f"sentence BLEU, 13a tokens, smoothing '{BLEU_SMOOTHING}', effective order", family="n-gram",
        merge_scale=0.01, options={"smooth_method": BLEU_SMOOTHING}, default=True, languages=(ANY,))
def bleu(sources: Sequence[str], outputs: Sequence[str], smooth_method: str = BLEU_SMOOTHING, tokenize: str = "13a",
         progress: Progress | None = None) -> np.ndarray:
    """Sentence BLEU (Papineni et al., 2002) by sacrebleu, 0-100, smoothing 'exp' by default; ``tokenize``: sacrebleu's.

    >>> bleu(["the cat sat on the mat"], ["the cat sat on the mat"]).round(6).tolist()
    [100.0]
    """
    from sacrebleu.metrics import BLEU

    scorer = BLEU(smooth_method=smooth_method, effective_order=True, tokenize=tokenize)
    return _per_pair(lambda s, h: scorer.sentence_score(h, [s]).score, sources, outputs, progress)


#: sacrebleu tokenisers a ``bleu:TOKENISER`` metric may name (flores101/200 and spm download a model: not offered).
BLEU_TOKENISERS = ("13a", "intl", "zh", "char", "ja-mecab", "ko-mecab", "none")


@metric_family("bleu", "bleu:TOKENISER")
def bleu_card(name: str) -> MetricCard:
    """The card of ``bleu:TOKENISER``: sentence BLEU with another sacrebleu tokeniser (``bleu:zh`` for Chinese)."""
    from stviz.data.schema import DataError

    tokenize = name.split(":", 1)[1]
    if tokenize not in BLEU_TOKENISERS:
        raise DataError(f"unknown BLEU tokeniser '{tokenize}'; choose one of {', '.join(BLEU_TOKENISERS)}")
    return MetricCard(name=name, label=f"BLEU (0-100, tok {tokenize})", higher_is_better=True, value_range=(0, 100),
                      citation=CITATIONS["bleu"], family="n-gram", merge_scale=0.01,
                      description=f"sentence BLEU, sacrebleu '{tokenize}' tokens, smoothing '{BLEU_SMOOTHING}'",
                      options={"smooth_method": BLEU_SMOOTHING, "tokenize": tokenize}, compute=bleu)


@metric(name="chrf++", label="chrF++ (0-100)", higher_is_better=True, value_range=(0, 100), citation=CITATIONS["chrf++"],
        description="character 6-grams + word 1-2-grams, beta 2", family="n-gram", merge_scale=0.01,
        options={"word_order": 2}, languages=(SPACED,))
@metric(name="chrf", label="chrF (0-100)", higher_is_better=True, value_range=(0, 100), citation=CITATIONS["chrf"],
        description="character 6-grams, beta 2", family="n-gram", merge_scale=0.01, options={"word_order": 0},
        default=True)
def chrf(sources: Sequence[str], outputs: Sequence[str], word_order: int = 0,
         progress: Progress | None = None) -> np.ndarray:
    """Sentence chrF (Popovic, 2015) by sacrebleu, 0-100; ``word_order=2`` gives chrF++.

    >>> chrf(["good food"], ["good food"]).tolist()
    [100.0]
    """
    from sacrebleu.metrics import CHRF

    scorer = CHRF(char_order=6, word_order=word_order, beta=2)
    return _per_pair(lambda s, h: scorer.sentence_score(h, [s]).score, sources, outputs, progress)


ROUGE_TYPES = ("rouge1", "rouge2", "rouge3", "rougeL")


def _rouge_card(rouge_type: str, default: bool):
    label = "ROUGE-L" if rouge_type == "rougeL" else f"ROUGE-{rouge_type[-1]}"
    return metric(name=rouge_type, label=label, higher_is_better=True, value_range=(0, 1),
                  citation=CITATIONS["rouge"], description="F-measure, Porter stemmer", family="n-gram",
                  options={"rouge_type": rouge_type}, default=default, languages=("en",))


@functools.cache
def porter_stemmer():
    """nltk's Porter stemmer (the one rouge-score and METEOR use) with each word's stem remembered.

    Stemming was 85% of ROUGE's time and half of METEOR's: both stem every word on every call, and
    words repeat across texts and across ROUGE-1, -2 and -L. The stemmer is a pure function of the
    word, so remembering its answers changes no score.
    """
    from nltk.stem import porter

    return types.SimpleNamespace(stem=functools.lru_cache(maxsize=1 << 18)(porter.PorterStemmer().stem))


@functools.cache
def _rouge_tokenizer():
    """rouge-score's own tokenizer with Porter stemming (its ``use_stemmer=True``), through :func:`porter_stemmer`."""
    from rouge_score import tokenize, tokenizers

    class StemmedOnce(tokenizers.Tokenizer):
        def tokenize(self, text):
            return tokenize.tokenize(text, porter_stemmer())

    return StemmedOnce()


@_rouge_card("rougeL", default=True)
@_rouge_card("rouge3", default=False)
@_rouge_card("rouge2", default=True)
@_rouge_card("rouge1", default=True)
def rouge(sources: Sequence[str], outputs: Sequence[str], rouge_type: str = "rougeL",
          progress: Progress | None = None) -> np.ndarray:
    """ROUGE-N / ROUGE-L F-measure (Lin, 2004) by rouge-score, Porter stemming on.

    >>> rouge(["the cats sat"], ["the cat sat"], rouge_type="rouge1").tolist()
    [1.0]
    """
    from rouge_score import rouge_scorer

    if rouge_type not in ROUGE_TYPES:
        raise ValueError(f"unknown ROUGE type '{rouge_type}'; choose one of {', '.join(ROUGE_TYPES)}")
    scorer = rouge_scorer.RougeScorer([rouge_type], tokenizer=_rouge_tokenizer())
    return _per_pair(lambda s, h: scorer.score(s, h)[rouge_type].fmeasure, sources, outputs, progress)


@metric(name="meteor", label="METEOR", higher_is_better=True, value_range=(0, 1), citation=CITATIONS["meteor"],
        description="unigram alignment with stems and WordNet synonyms", family="n-gram", needs=("wordnet",),
        live_label=meteor_label, default=True, languages=("en",), verify=lambda: verify_meteor())
def meteor(sources: Sequence[str], outputs: Sequence[str], progress: Progress | None = None) -> np.ndarray:
    """METEOR (Banerjee & Lavie, 2005) by nltk; WordNet synonyms if found, else exact + stem only."""
    from nltk.translate.meteor_score import meteor_score

    from stviz.metrics.wordnet import load_wordnet

    verify_meteor()
    wordnet, _ = load_wordnet()
    # nltk's METEOR wants pre-tokenised input; punkt (word_tokenize) cannot be downloaded here,
    # so the project tokenizer is used; nltk lower-cases itself.
    stemmer = porter_stemmer()  # nltk's default for METEOR, each stem remembered
    return _per_pair(lambda s, h: meteor_score([tokenize(s, lowercase=False)], tokenize(h, lowercase=False),
                                               wordnet=wordnet, stemmer=stemmer), sources, outputs, progress)


def verify_meteor():
    """METEOR's known-answer check: with WordNet 3.0 synonyms when found, else exact + stem (KnownAnswerError)."""
    from stviz.metrics.wordnet import load_wordnet
    from stviz.models import known_answers as ka
    from stviz.models.loading import content_key

    status = load_wordnet()[1]
    label = "WordNet 3.0" if status.available else "no WordNet (exact + stem only)"
    use = ka.ModelUse("METEOR", label, status.path or "nltk (no WordNet found)",
                      content_key(status.path) if status.available else "",
                      "nltk")
    name = "meteor-wordnet" if status.available else "meteor-exact-stem"
    return ka.verify(use, name, lambda pairs: meteor([p[0] for p in pairs], [p[1] for p in pairs]))


# -- Word Mover's Distance --------------------------------------------------------------------
def _wmd_vocabulary(token_lists: list[list[str]], vectors: str, placeholder: str | None):
    """A small KeyedVectors with just the words of these texts (plus a placeholder vector)."""
    from gensim.models import KeyedVectors

    full = load_word_vectors(vectors)
    words = sorted({t for toks in token_lists for t in toks if t in full.key_to_index})
    small = KeyedVectors(vector_size=full.vector_size)
    if words:
        small.add_vectors(words, np.asarray(full[words], dtype=np.float32))
    if placeholder and placeholder not in small.key_to_index and any(placeholder in toks for toks in token_lists):
        # Without a vector the placeholder would be dropped and masking would equal removal.
        # A fixed random direction makes masked slots match each other at no cost and every
        # real word at a typical distance (Mir et al. trained word2vec with the placeholder in).
        rng = np.random.default_rng(20190602)
        vec = rng.standard_normal(full.vector_size).astype(np.float32)
        mean_norm = float(np.linalg.norm(full[words], axis=1).mean()) if words else 1.0
        small.add_vectors([placeholder], (vec / np.linalg.norm(vec) * mean_norm)[None, :])
    return small


@metric(name="wmd", label="WMD (GloVe 6B 50d)", higher_is_better=False, value_range=(0, float("inf")),
        citation=CITATIONS["wmd"], description="Word Mover's Distance on unit-normalised GloVe 6B 50d vectors",
        family="word vectors", similarity_form="wmd-sim", options={"vectors": "glove-6b-50d"}, default=True,
        languages=("en",), verify=lambda vectors: verify_wmd(vectors))
def wmd_distance(sources: Sequence[str], outputs: Sequence[str], vectors: str = "glove-6b-50d",
                 placeholder: str | None = "customstyle", progress: Progress | None = None) -> np.ndarray:
    """Word Mover's Distance (Kusner et al., 2015) over unit-normalised word vectors; NaN if a side has no known word.

    >>> wmd_distance(["the cat sat"], ["the cat sat"]).round(3).tolist()
    [0.0]
    """
    _check_lengths(sources, outputs)
    verify_wmd(vectors)
    src_toks = [tokenize(str(t)) for t in sources]
    out_toks = [tokenize(str(t)) for t in outputs]
    kv = _wmd_vocabulary(src_toks + out_toks, vectors, placeholder)
    known = kv.key_to_index
    out = np.empty(len(sources), dtype=np.float64)
    for i, (a, b) in enumerate(zip(src_toks, out_toks)):
        a = [t for t in a if t in known]
        b = [t for t in b if t in known]
        out[i] = np.nan if not a or not b else kv.wmdistance(a, b, norm=True)
        if progress and (i + 1) % 500 == 0:
            progress(i + 1, len(sources))
    _report(progress, len(sources), len(sources))
    return out


def verify_wmd(vectors: str = "glove-6b-50d"):
    """WMD's known-answer check on its word vectors (the shipped GloVe's recorded distances; KnownAnswerError)."""
    from stviz.embedders.word_vectors import DEFAULT_WORD_VECTORS, word_vectors_use
    from stviz.models import known_answers as ka
    from stviz.models.loading import rounding_bound

    use = word_vectors_use("WMD", vectors, "gensim")
    name = ka.answer_for("wmd-glove", vectors == DEFAULT_WORD_VECTORS, use.content)
    return ka.verify(use, name, lambda pairs: wmd_distance([p[0] for p in pairs], [p[1] for p in pairs], vectors),
                     inputs="pairs", bound=rounding_bound(1, 64))


def wmd_similarity(distance: np.ndarray) -> np.ndarray:
    """WMD turned into a similarity in (0, 1]: 1 / (1 + WMD); same ranking, higher = closer.

    >>> wmd_similarity(np.array([0.0, 1.0])).tolist()
    [1.0, 0.5]
    """
    return 1.0 / (1.0 + np.asarray(distance, dtype=np.float64))


# WMD similarity is derived from the cached WMD values rather than computed again.
metric(name="wmd-sim", label="WMD similarity 1/(1+WMD)", higher_is_better=True, value_range=(0, 1),
       citation=CITATIONS["wmd"], description="1 / (1 + WMD) on GloVe 6B 50d: same ranking as WMD, higher = closer",
       family="word vectors", derive=("wmd", wmd_similarity), languages=("en",),
       verify=lambda: verify_wmd())(wmd_similarity)


# -- BERTScore ------------------------------------------------------------------------------------
def bertscore_backend(model: str = BERTSCORE_MODEL, num_layers: int = BERTSCORE_LAYER) -> str:
    """The backend BERTScore's encoder runs on here (``torch``, ``onnx`` or ``onnx-int8``)."""
    from stviz.embedders.onnx_backend import onnx_input_names
    from stviz.embedders.torch_backend import transformer_backend
    from stviz.metrics.bertscore_model import bert_scorer

    def parts():
        scorer = bert_scorer(model, num_layers, "torch")
        return scorer.model, onnx_input_names(scorer.tokenizer), lambda texts: scorer.tokenizer(
            list(texts), padding=True, return_tensors="np")

    return transformer_backend(f"bertscore:{model}:{num_layers}", parts)


def verify_bertscore(model: str = BERTSCORE_MODEL, num_layers: int = BERTSCORE_LAYER, precision: str = "fp32"):
    """BERTScore's known-answer check on the backend and device it runs on (KnownAnswerError when it fails)."""
    from stviz.embedders import select_device
    from stviz.embedders.base import resolve_model
    from stviz.models import known_answers as ka
    from stviz.models.loading import config_bound, content_key

    backend = bertscore_backend(model, num_layers)
    source = resolve_model(model)[0]
    content = content_key(source)
    use = ka.ModelUse("BERTScore", f"{'MiniLM-L6' if model == BERTSCORE_MODEL else model}, layer {num_layers}", source,
                      content, backend, select_device() if backend == "torch" else "cpu", precision)
    name = ka.answer_for("bertscore-minilm-l6", model == BERTSCORE_MODEL and num_layers == BERTSCORE_LAYER,
                         content if num_layers == BERTSCORE_LAYER else "", source if num_layers == BERTSCORE_LAYER else "")
    return ka.verify(use, name, lambda pairs: bertscore([p[0] for p in pairs], [p[1] for p in pairs], model=model,
                                                        num_layers=num_layers), inputs="pairs",
                     bound=lambda: config_bound(source, precision))


def backend_variant(metric: str, options: dict) -> str:
    """'' or what made a neural metric's numbers differ from fp32's: int8 on a CPU class, half precision on a GPU, the
    converted mE5's route."""
    from stviz.embedders.base import cache_variant

    if metric.startswith("cosine:"):
        from stviz.embedders import parse_embedder
        from stviz.embedders.base import numeric_variant

        embedder = parse_embedder(options["embedder"])
        # The converted mE5's values are kept apart from the engine's and from an earlier conversion's (values_key).
        parts = (numeric_variant(embedder), getattr(embedder, "values_key", lambda: "")())
        return "-".join(part for part in parts if part)
    if metric == "bertscore":
        return cache_variant(bertscore_backend(options.get("model", BERTSCORE_MODEL),
                                               options.get("num_layers", BERTSCORE_LAYER)))
    return ""


@metric(name="bertscore", label=f"BERTScore F1 (MiniLM-L6, layer {BERTSCORE_LAYER})", higher_is_better=True,
        value_range=(-1, 1), citation=CITATIONS["bertscore"],
        description="greedy token matching of contextual embeddings, no idf, no rescaling", family="contextual",
        options={"model": BERTSCORE_MODEL, "num_layers": BERTSCORE_LAYER}, needs=("model", "slow"), variant=backend_variant,
        default=True, languages=("en",), verify=lambda model, num_layers: verify_bertscore(model, num_layers),
        feeds=("cosine:minilm",),  # its states, mean-pooled, are MiniLM's sentence vectors (minilm_vector_sharing)
        # 2: the model loaded by stviz; before, BERTScorer(model_type=PATH) gave noise under a path holding "t5"
        version=2)
def bertscore(sources: Sequence[str], outputs: Sequence[str], model: str = BERTSCORE_MODEL,
              num_layers: int = BERTSCORE_LAYER, progress: Progress | None = None,
              chunk: int | None = None) -> np.ndarray:
    """BERTScore F1 (Zhang et al., 2020) with a local model (default MiniLM-L6, layer 6)."""
    _check_lengths(sources, outputs)
    from stviz.metrics.bertscore_model import bert_scorer

    verify_bertscore(model, num_layers)
    backend = bertscore_backend(model, num_layers)
    scorer = bert_scorer(model, num_layers, backend)
    chunk = chunk or 8 * scorer.batch_size  # pairs between two progress reports
    sources, outputs = [str(t) for t in sources], [str(t) for t in outputs]
    # Pairs that share an input (one input, each system's output) go into the same chunk: its states are computed once.
    order = sorted(range(len(sources)), key=sources.__getitem__)
    share = minilm_vector_sharing(model, num_layers, backend)
    out = np.empty(len(sources), dtype=np.float64)
    for start in range(0, len(order), chunk):
        rows = order[start:start + chunk]
        with exclusive(scorer):  # one session's thread at a time (the model's tokenizer is shared)
            f1, texts, vectors, lengths = scorer.score([outputs[i] for i in rows], [sources[i] for i in rows])
        out[rows] = f1.numpy()
        if share is not None:
            share(texts, vectors, lengths)
        _report(progress, start + len(rows), len(sources))
    return out


def minilm_vector_sharing(model: str, num_layers: int, backend: str):
    """``fn(texts, vectors, token counts)`` that keeps BERTScore's mean-pooled states as MiniLM's sentence vectors, or None.

    BERTScore on the shipped MiniLM with all 6 layers computes the very token states MiniLM's sentence vectors
    are the normalised mean of (measured equal to 3e-7): kept in the vector cache, the cosine to the input (and
    every view that embeds the same texts) needs no second pass of the model over them. Only where the numbers are
    the same: fp32 on both sides (not int8, not a GPU's half precision), texts within MiniLM's 256 tokens.
    """
    if model != BERTSCORE_MODEL or num_layers != BERTSCORE_LAYER or backend == "onnx-int8":
        return None
    from stviz.cache import default_cache
    from stviz.embedders import SentenceTransformerEmbedder
    from stviz.embedders.base import numeric_variant

    embedder = SentenceTransformerEmbedder("minilm")
    if numeric_variant(embedder):
        return None
    limit, cache = _minilm_max_tokens(), default_cache()

    def share(texts: list[str], vectors: np.ndarray, lengths: list[int]) -> None:
        within = [i for i, n in enumerate(lengths) if n <= limit]
        _, missing = cache.get_vectors(embedder.vector_id, [texts[i] for i in within])
        keep = [within[j] for j in missing]
        if keep:
            cache.put_vectors(embedder.vector_id, [texts[i] for i in keep], vectors[keep])

    return share


def _minilm_max_tokens() -> int:
    """The shipped MiniLM's token limit as sentence-transformers applies it (its sentence_bert_config.json)."""
    import json

    from stviz.embedders import shipped_minilm_path

    return int(json.loads((shipped_minilm_path() / "sentence_bert_config.json").read_text())["max_seq_length"])
