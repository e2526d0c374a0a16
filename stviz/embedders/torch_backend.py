"""Transformer models in PyTorch: loading them once, and running them on PyTorch or ONNX Runtime.

The two transformer embedders (:mod:`stviz.embedders.transformer`) load their model here and ask
for a runner: ``fn(batch) -> vectors`` (sentence-transformers) or ``fn(encoded batch) -> token
states`` (a plain transformer). On the ``torch`` backend the runner calls the model; on ``onnx`` /
``onnx-int8`` only the transformer's encoder runs in ONNX Runtime
(:mod:`stviz.embedders.onnx_backend`) and the rest (pooling, normalisation, dense heads) stays the
library's own. Which backend runs a model is decided by :func:`transformer_backend`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Callable

import numpy as np

from stviz.embedders.base import EmbedderError, model_stamp, select_device
from stviz.embedders.onnx_backend import effective_backend, load_encoder, onnx_input_names
from stviz.shared import load_once


# -- loading ------------------------------------------------------------------------------------
@load_once(maxsize=4)
def load_sentence_transformer(source: str, device: str, stamp: str = ""):
    """A sentence-transformers model, loaded once per (source, device, content stamp), its transformer verified.

    sentence-transformers' own loader builds the modules (pooling, normalisation, dense heads) and picks the
    transformer's class from the config; the transformer's weights are then loaded again by
    :func:`stviz.models.loading.load_pretrained` with that class, refused if incomplete, and put in its place.
    """
    from sentence_transformers import SentenceTransformer

    # stviz.models imports this package's base: imported here, when the package is whole.
    from stviz.models.loading import ModelLoadError, load_pretrained, quiet_transformers

    quiet_transformers()
    try:
        model = SentenceTransformer(source, device="cpu")
        first = model[0]
        if hasattr(first, "auto_model"):
            verified = load_pretrained(source, "encoder", label=f"'{source}' (sentence-transformers)",
                                       model_class=type(first.auto_model), subfolder=_module_folder(source))
            _replace_child(first, first.auto_model, verified)
    except ModelLoadError:
        raise
    except Exception as exc:  # noqa: BLE001 - every loading failure gets the same clear message
        raise EmbedderError(load_message(source, exc)) from exc
    return model.to(device).eval()


def _replace_child(module, old, new) -> None:
    """Put ``new`` where ``module`` holds ``old`` (``model`` in sentence-transformers 6, ``auto_model`` in 5)."""
    name = next(name for name, child in module.named_children() if child is old)
    setattr(module, name, new)
    if module.auto_model is not new:  # a layout this code does not know: never run the unverified copy silently
        raise EmbedderError("could not hand the verified transformer to sentence-transformers' "
                            f"{type(module).__name__}")


def _module_folder(source: str) -> str:
    """The folder (relative to the model's) of a sentence-transformers model's first module: its transformer."""
    path = Path(source) / "modules.json"
    if not path.is_file():
        return ""
    modules = json.loads(path.read_text(encoding="utf-8"))
    return str(modules[0].get("path", "")) if modules else ""


@load_once(maxsize=2)
def load_transformer(source: str, device: str, stamp: str = ""):
    """(tokenizer, model) of a Hugging Face encoder, loaded verified once per (source, device, content stamp)."""
    from stviz.models.loading import ModelLoadError, load_pretrained, load_tokenizer

    try:
        tokenizer = load_tokenizer(source)
        model = load_pretrained(source, "encoder", label=f"'{source}'", device=device)
    except ModelLoadError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise EmbedderError(load_message(source, exc)) from exc
    return tokenizer, model


def load_message(source: str, exc: Exception) -> str:
    """The message for a model that could not be loaded, with what to do instead."""
    return (
        f"could not load the model '{source}': {type(exc).__name__}: {str(exc)[:300]}. "
        "A hub id needs internet access (or a copy in the Hugging Face cache); "
        "give a local folder instead, or use the embedded default 'minilm'."
    )


def masked_mean_pool(hidden, attention_mask):
    """Mean of a transformer's token states over the real tokens (padding masked out), per text.

    The pooling of all-MiniLM-L6-v2 and of ``hf:`` embedders; the style classifier's torch model
    uses it too, so that its gradients explain exactly what :func:`stviz.embedders.embed` computes.
    """
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


# -- choosing the backend -------------------------------------------------------------------------
def transformer_backend(model_id: str, loader: Callable[[], tuple]) -> str:
    """The backend for a transformer here (int8 only once its quality gate passed); see onnx_backend."""
    return effective_backend(model_id, select_device(), loader)


def _st_features(model, texts: list[str]) -> dict:
    # sentence-transformers 6 renamed tokenize() to preprocess().
    prepare = getattr(model, "preprocess", None) or model.tokenize
    return prepare(list(texts))


def sentence_transformer_parts(source: str):
    """(torch encoder, ONNX input names, tokenize) of a sentence-transformers model, for the int8 gate."""
    model = load_sentence_transformer(source, "cpu", model_stamp(source))
    tokenize = functools.partial(_st_features, model)
    return model[0].auto_model, onnx_input_names(tokenize), tokenize


def transformer_parts(source: str, max_length: int):
    """(torch encoder, ONNX input names, tokenize) of a plain transformer, for the int8 gate."""
    tokenizer, model = load_transformer(source, "cpu", model_stamp(source))

    def tokenize(texts):
        return tokenizer(list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="np")

    return model, onnx_input_names(tokenizer), tokenize


# -- runners --------------------------------------------------------------------------------------
def sentence_transformer_runner(model, backend: str, batch: int):
    """``fn(texts) -> vectors`` for a loaded sentence-transformers model on ``backend``.

    On ONNX Runtime only the transformer runs there; pooling, normalisation and any dense layers
    stay sentence-transformers' own modules, so every model architecture keeps its exact head.
    """
    first = model[0]
    if backend == "torch" or not hasattr(first, "auto_model"):
        return lambda chunk: model.encode(list(chunk), batch_size=batch, show_progress_bar=False, convert_to_numpy=True)
    import torch

    encoder = load_encoder(first.auto_model, onnx_input_names(functools.partial(_st_features, model)), backend)

    def run(chunk: list[str]) -> np.ndarray:
        parts = []
        for start in range(0, len(chunk), batch):
            features = _st_features(model, chunk[start:start + batch])
            features["token_embeddings"] = torch.from_numpy(encoder.token_states(features))
            with torch.inference_mode():
                for module in list(model)[1:]:
                    features = module(features)
            parts.append(features["sentence_embedding"].float().numpy())
        return np.concatenate(parts)

    return run


def token_states_runner(model, tokenizer, backend: str):
    """``fn(encoded batch) -> last hidden states`` (a torch tensor) on ``backend``."""
    if backend == "torch":
        return lambda enc: model(**enc).last_hidden_state
    import torch

    encoder = load_encoder(model, onnx_input_names(tokenizer), backend)
    return lambda enc: torch.from_numpy(encoder.token_states(enc))
