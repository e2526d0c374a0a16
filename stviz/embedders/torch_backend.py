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

from stviz.embedders.base import EmbedderError, model_stamp, select_device, unit_normalise
from stviz.embedders.batching import verified_tokenize
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


def st_features(model, texts: list[str]) -> dict:
    """A sentence-transformers model's own tokenizer features for ``texts`` (padded, truncated tensors)."""
    # sentence-transformers 6 renamed tokenize() to preprocess().
    prepare = getattr(model, "preprocess", None) or model.tokenize
    return prepare(list(texts))


@load_once(maxsize=8)
def st_tokenize(model):
    """The fastest exact ``fn(texts) -> features`` of a sentence-transformers model (see batching.verified_tokenize)."""
    return verified_tokenize(functools.partial(st_features, model), model.tokenizer, None)


@load_once(maxsize=8)
def hf_tokenize(tokenizer, max_length: int):
    """The fastest exact ``fn(texts) -> features`` of a Hugging Face tokenizer, padded and truncated to ``max_length``."""
    def library(texts: list) -> dict:
        return tokenizer(list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="pt")

    return verified_tokenize(library, tokenizer, max_length)


def sentence_transformer_parts(source: str):
    """(torch encoder, ONNX input names, tokenize) of a sentence-transformers model, for the int8 gate."""
    model = load_sentence_transformer(source, "cpu", model_stamp(source))
    tokenize = functools.partial(st_features, model)
    return model[0].auto_model, onnx_input_names(tokenize), tokenize


def transformer_parts(source: str, max_length: int):
    """(torch encoder, ONNX input names, tokenize) of a plain transformer, for the int8 gate."""
    tokenizer, model = load_transformer(source, "cpu", model_stamp(source))

    def tokenize(texts):
        return tokenizer(list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="np")

    return model, onnx_input_names(tokenizer), tokenize


# -- runners ---------------------------------------------------------------------------------------
# A runner takes one tokenized batch (see stviz.embedders.batching) and returns its sentence vectors as a
# float32 tensor, left on the device: the caller collects a chunk's batches before waiting for the device.
def sentence_transformer_runner(model, backend: str, precision: str = "fp32", device: str = "cpu"):
    """``fn(features) -> sentence vectors`` for a loaded sentence-transformers model, or None if it has no transformer.

    Only the transformer runs on ``backend`` and in ``precision``; pooling, normalisation and any dense
    layers stay sentence-transformers' own modules in fp32, so every architecture keeps its exact head.
    """
    import torch

    first = model[0]
    if not hasattr(first, "auto_model"):
        return None  # a static or word-embedding model: the library's own encode() runs it
    rest = list(model)[1:]
    if backend == "torch":
        encoder = at_precision(first, precision)

        def token_states(features: dict):
            return encoder(dict(features))["token_embeddings"]  # a copy: the module writes its output into it
    else:
        onnx = load_encoder(first.auto_model, onnx_input_names(functools.partial(st_features, model)), backend)

        def token_states(features: dict):
            return torch.from_numpy(onnx.token_states(features))

    def run(features: dict):
        with torch.inference_mode(), attention_kernels(device, precision):
            out = _on_device(features, device if backend == "torch" else "cpu")
            out["token_embeddings"] = token_states(out).float()
            for module in rest:
                out = module(out)
        return out["sentence_embedding"].float()

    return run


def mean_pool_runner(model, tokenizer, backend: str, precision: str = "fp32", device: str = "cpu"):
    """``fn(features) -> masked mean of the last hidden states`` (float32) for a plain transformer on ``backend``."""
    import torch

    if backend == "torch":
        encoder = at_precision(model, precision)

        def token_states(features: dict):
            return encoder(**features).last_hidden_state
    else:
        onnx = load_encoder(model, onnx_input_names(tokenizer), backend)

        def token_states(features: dict):
            return torch.from_numpy(onnx.token_states(features))

    def run(features: dict):
        features = _on_device(features, device if backend == "torch" else "cpu")
        with torch.inference_mode(), attention_kernels(device, precision):
            return masked_mean_pool(token_states(features).float(), features["attention_mask"])

    return run


def attention_kernels(device: str, precision: str):
    """The attention kernels a batch may use: on a GPU in half precision, every kernel but cuDNN's.

    Measured on an H200 (benchmarks/gpu.py, docs/benchmarks.md): in bf16 / fp16 the first batch of each
    new shape took about 0.17 s more (5.4-5.7 s over 31 batches, against 0.24-0.27 s once warm), while
    fp32 paid nothing; cuDNN's attention, which PyTorch may pick in half precision only, plans a graph per
    shape. Batches here have a new shape almost every time (rows and length vary), so that cost would be
    paid on every run. Flash and memory-efficient attention take the same inputs without planning.
    """
    import contextlib

    if device != "cuda" or precision == "fp32":
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])


def _on_device(features: dict, device: str) -> dict:
    """Tensors of a batch moved to ``device`` (asynchronously where the device allows); other values kept."""
    return {k: v.to(device, non_blocking=True) if hasattr(v, "to") and hasattr(v, "dtype") else v
            for k, v in features.items()}


@load_once(maxsize=4)
def at_precision(module, precision: str):
    """``module`` itself in fp32; in bf16 / fp16 a half-precision copy of it (made once, the original kept for fp32)."""
    if precision == "fp32":
        return module
    import copy

    from stviz.embedders.precision import torch_dtype

    return copy.deepcopy(module).to(torch_dtype(precision)).eval()


def half_gate_measure(encode_at):
    """``measure(precision)`` for :func:`stviz.embedders.precision.half_gate`: agreement and speed against fp32.

    ``encode_at(precision, texts, rows=...)`` encodes with the model in that precision. Agreement is read
    on the shipped demo sentences (as int8's gate). Speed is one pass over 2,048 texts of varied lengths
    (the demo sentences joined by one to six) in batches of at most 128, fp32 first, after a warm-up on
    eight texts: batch shapes the pass has not met before, as in a real run. A precision whose kernels
    plan anew for each shape is then slower than fp32 and not used, however fast it is once warm.
    """
    import time

    from stviz.embedders.onnx_backend import gate_sentences

    def measure(precision: str) -> dict:
        texts = gate_sentences()
        reference = unit_normalise(encode_at("fp32", texts))
        half = unit_normalise(encode_at(precision, texts))
        cosines = np.einsum("ij,ij->i", reference, half)
        sample = [" ".join(texts[(i * 7 + k) % len(texts)] for k in range(1 + i % 6)) for i in range(2048)]
        seconds = {}
        for name in ("fp32", precision):
            encode_at(name, texts[:8])  # CUDA context, weights, one shape: not what the gate is about
            start = time.perf_counter()
            encode_at(name, sample, rows=128)
            seconds[name] = time.perf_counter() - start
        return {"mean_cosine": float(cosines.mean()), "worst_cosine": float(cosines.min()),
                "speedup": seconds["fp32"] / max(seconds[precision], 1e-9),
                "rate": len(sample) / max(seconds[precision], 1e-9), "n": len(texts)}

    return measure
