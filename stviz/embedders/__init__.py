"""Sentence embedders behind one interface, and cached batch embedding.

Every embedder has ``id`` (a stable cache key), ``label`` (for people) and
``encode(texts, progress=None) -> float32 array``. The modules, bottom up (each imports only those
above it in this list, besides :mod:`stviz.cache`, :mod:`stviz.progress` and :mod:`stviz.shared`):

* :mod:`~stviz.embedders.base` - the protocol, :class:`EmbedderError`, :func:`unit_normalise`, the
  device, model keys and vector cache ids;
* :mod:`~stviz.embedders.onnx_backend` - ONNX Runtime for transformer encoders (fp32, gated int8)
  and the backend choice; :mod:`~stviz.embedders.torch_backend` - loading transformer models and
  running them on PyTorch or ONNX Runtime;
* one module per family: :mod:`~stviz.embedders.transformer` (sentence-transformers, mean-pooled
  Hugging Face encoders), :mod:`~stviz.embedders.word_vectors` (GloVe / word2vec / fastText,
  pooled), :mod:`~stviz.embedders.static` (model2vec);
* :mod:`~stviz.embedders.specs` - :func:`parse_embedder`, the one place a spec becomes an embedder;
* :mod:`~stviz.embedders.cached` - :func:`embed`, the disk cache and the engine in front of any of them.

Callers import the public names from here: ``from stviz.embedders import embed, parse_embedder``.
"""

from stviz.embedders.base import (DEFAULT_SENTENCE_MODEL, Embedder, EmbedderError, batch_size_for, embedder_backend,
                                  local_model_key, select_device, shipped_minilm_path, unit_normalise,
                                  vector_cache_id)
from stviz.embedders.cached import as_encoder, embed
from stviz.embedders.specs import PRESETS, SPEC_HELP, embedder_name, parse_embedder
from stviz.embedders.static import StaticEmbedder
from stviz.embedders.torch_backend import masked_mean_pool
from stviz.embedders.transformer import SentenceTransformerEmbedder, TransformerMeanPoolEmbedder
from stviz.embedders.word_vectors import (DEFAULT_WORD_VECTORS, POOLINGS, TOKEN_PATTERN, WordVectorEmbedder,
                                          load_word_vectors, tokenize)

__all__ = ["embedder_name", "DEFAULT_SENTENCE_MODEL", "DEFAULT_WORD_VECTORS", "Embedder", "EmbedderError", "POOLINGS", "PRESETS",
           "SPEC_HELP", "SentenceTransformerEmbedder", "StaticEmbedder", "TOKEN_PATTERN", "TransformerMeanPoolEmbedder",
           "WordVectorEmbedder", "as_encoder", "batch_size_for", "embed", "embedder_backend", "load_word_vectors", "local_model_key",
           "masked_mean_pool", "parse_embedder", "select_device", "shipped_minilm_path", "tokenize", "unit_normalise",
           "vector_cache_id"]
