"""The GPU fast path, checked on a CPU: tokenize once, length-sorted batches, the half-precision gate, device-aware defaults.

What only a GPU can show (speeds, half-precision agreement) is measured by ``benchmarks/gpu.py`` on a lent
device (docs/benchmarks.md); here every decision that code takes is exercised with the real model, and the
GPU itself (``torch.cuda``) is the one border replaced.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stviz.embedders import SentenceTransformerEmbedder, TransformerMeanPoolEmbedder, select_device, shipped_minilm_path
from stviz.embedders import precision as precision_module
from stviz.embedders.batching import (CHECK_TEXTS, BatchLimits, FastFeatures, batch_limits, encode_batches,
                                      split_batches, token_batches, verified_tokenize)
from stviz.embedders.precision import HalfGate, known_precision, resolve_precision
from stviz.embedders.torch_backend import (hf_tokenize, load_sentence_transformer, load_transformer, st_features,
                                           st_tokenize)

TEXTS = ["a", "a somewhat longer sentence here", "", "mid length text", "x " * 300, "Café 😀 naïve", "b c"] * 5


@pytest.fixture(scope="module")
def minilm():
    return load_sentence_transformer(str(shipped_minilm_path()), "cpu", "")


def test_fast_features_equal_the_librarys_on_every_check_text(minilm):
    fast = st_tokenize(minilm)
    assert isinstance(fast, FastFeatures)  # MiniLM's tokenizer passed its check
    for texts in (list(CHECK_TEXTS), TEXTS, ["one"]):
        reference, ours = st_features(minilm, texts), fast(texts)
        for key in ("input_ids", "attention_mask", "token_type_ids"):
            assert np.array_equal(reference[key].numpy(), ours[key].numpy()), key
        assert ours["modality"] == reference["modality"]


def test_a_tokenizer_whose_fast_features_differ_falls_back_to_the_library(minilm):
    # A reference that adds a token the Rust core never produces: the check must notice and keep the reference.
    def reference(texts):
        features = st_features(minilm, texts)
        features["input_ids"] = features["input_ids"] + 1
        return features

    assert verified_tokenize(reference, minilm.tokenizer, None) is reference
    assert verified_tokenize(reference, object(), None) is reference  # not a fast tokenizer at all


def test_hf_tokenize_truncates_at_the_embedders_own_length():
    tokenizer, _ = load_transformer(str(shipped_minilm_path()), "cpu", "")
    features = hf_tokenize(tokenizer, 16)(["word " * 50, "short"])
    assert isinstance(hf_tokenize(tokenizer, 16), FastFeatures)
    assert features["input_ids"].shape == (2, 16)


def test_batches_are_length_sorted_within_limits_and_trimmed(minilm):
    features = st_features(minilm, TEXTS)
    lengths = features["attention_mask"].sum(1).numpy()
    limits = BatchLimits(rows=4, tokens=64)
    seen = []
    for batch in split_batches(np.arange(len(TEXTS)), features, limits):
        mask = batch.features["attention_mask"].numpy()
        assert len(batch.rows) <= 4 and (len(batch.rows) == 1 or mask.size <= 64)
        assert mask.shape[1] == lengths[batch.rows].max()  # trimmed to its own longest text
        assert mask[:, -1].any()
        seen += batch.rows.tolist()
    assert sorted(seen) == list(range(len(TEXTS)))
    assert lengths[seen].tolist() == sorted(lengths.tolist())  # shortest first


def test_token_batches_cover_every_text_once_across_chunks(minilm):
    rows = [b.rows for b in token_batches(TEXTS, st_tokenize(minilm), BatchLimits(8, 4096), chunk=6)]
    assert sorted(np.concatenate(rows).tolist()) == list(range(len(TEXTS)))


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_encoding_in_sorted_batches_gives_the_librarys_vectors(minilm, backend, monkeypatch):
    monkeypatch.setenv("STVIZ_BACKEND", backend)
    ours = SentenceTransformerEmbedder("minilm").encode(TEXTS)
    reference = minilm.encode(TEXTS, batch_size=64, convert_to_numpy=True)
    assert np.abs(ours - reference).max() < 1e-5  # float32 rounding: other batches, same operations


def test_progress_counts_every_text_and_small_chunks_change_nothing(minilm, monkeypatch):
    monkeypatch.setenv("STVIZ_BACKEND", "torch")
    embedder = SentenceTransformerEmbedder("minilm")
    whole = embedder.encode(TEXTS)
    reports = []
    from stviz.embedders.torch_backend import sentence_transformer_runner

    run = sentence_transformer_runner(minilm, "torch", "fp32", "cpu")
    chunked = encode_batches(TEXTS, st_tokenize(minilm), run, BatchLimits(3, 10_000),
                             progress=lambda done, total: reports.append((done, total)), chunk=5)
    assert np.abs(whole - chunked).max() < 1e-5
    assert reports[-1] == (len(TEXTS), len(TEXTS)) and all(a <= b for (a, _), (b, _) in zip(reports, reports[1:]))


def test_mean_pooled_embedder_still_equals_minilm_before_normalising(monkeypatch):
    monkeypatch.setenv("STVIZ_BACKEND", "torch")
    pooled = TransformerMeanPoolEmbedder(str(shipped_minilm_path()), max_length=256).encode(TEXTS[:7])
    vectors = SentenceTransformerEmbedder("minilm").encode(TEXTS[:7])
    unit = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    assert np.abs(unit - vectors).max() < 1e-5


def test_cpu_batch_limits_and_gpu_budget_from_free_memory(monkeypatch):
    assert batch_limits("cpu") == BatchLimits(64, 64 * 512)
    import torch

    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (80 * 2**30, 96 * 2**30))
    limits = batch_limits("cuda", hidden_size=384, dtype_bytes=2)
    assert limits.rows == 1024 and limits.tokens == int(80 * 2**30 * 0.25 // (80 * 384 * 2))


# -- the half-precision gate ------------------------------------------------------------------------------
def _gate(mean=0.99999, worst=0.9999, speedup=2.0):
    return lambda precision: {"mean_cosine": mean, "worst_cosine": worst, "speedup": speedup, "rate": 5000.0, "n": 100}


@pytest.fixture
def fresh_home(tmp_path, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    from stviz.embedders import base

    for module in (base, precision_module):  # the GPU is the border replaced: its name keys half-precision values
        monkeypatch.setattr(module, "gpu_name", lambda: "Test-GPU-sm90-torch2")
    monkeypatch.delenv("STVIZ_PRECISION", raising=False)
    return tmp_path


def test_a_cpu_always_runs_fp32_and_never_measures(fresh_home):
    def never(precision):
        raise AssertionError("a CPU must not measure a half-precision gate")

    assert resolve_precision("m", "cpu", "torch", never) == "fp32"
    assert resolve_precision("m", "cuda", "onnx", never) == "fp32"  # ONNX Runtime runs on the CPU


def test_the_gate_picks_the_faster_passing_precision_and_remembers_it(fresh_home):
    calls = []

    def measure(precision):
        calls.append(precision)
        return _gate(speedup=1.6 if precision == "bf16" else 1.9)(precision)

    assert resolve_precision("m", "cuda", "torch", measure) == "fp16"
    assert resolve_precision("m", "cuda", "torch", measure) == "fp16"
    assert calls == ["bf16", "fp16"]  # measured once each, then read from the cache
    assert known_precision("m") == "fp16"


@pytest.mark.parametrize("values", [dict(mean=0.999), dict(worst=0.99), dict(speedup=1.05)])
def test_a_gate_that_fails_on_agreement_or_speed_leaves_fp32(fresh_home, values):
    assert resolve_precision("m", "cuda", "torch", _gate(**values)) == "fp32"
    assert known_precision("m") == "fp32"


def test_asking_for_fp32_or_one_half_precision(fresh_home, monkeypatch):
    monkeypatch.setenv("STVIZ_PRECISION", "fp32")
    assert resolve_precision("m", "cuda", "torch", _gate()) == "fp32"
    monkeypatch.setenv("STVIZ_PRECISION", "bf16")
    assert resolve_precision("m", "cuda", "torch", _gate()) == "bf16"
    monkeypatch.setenv("STVIZ_PRECISION", "fp8")
    with pytest.raises(ValueError, match="unknown precision 'fp8'"):
        resolve_precision("m", "cuda", "torch", _gate())


def test_half_precision_vectors_are_cached_under_the_gpus_name(fresh_home, monkeypatch):
    from stviz.embedders.base import vector_cache_id

    embedder = SentenceTransformerEmbedder("minilm")
    assert vector_cache_id(embedder) == embedder.id  # fp32 on the CPU: the CPU's vectors, one key
    monkeypatch.setattr(SentenceTransformerEmbedder, "precision", lambda self: "bf16")
    monkeypatch.setattr(SentenceTransformerEmbedder, "backend", lambda self: "torch")
    assert vector_cache_id(embedder) == f"{embedder.id}@bf16-Test-GPU-sm90-torch2"


def test_gate_line_says_the_numbers(fresh_home):
    gate = HalfGate("fp16", 0.99999, 0.9999, 1.6, 5000.0, 144)
    assert gate.passed and "fp16 gate passed: mean cosine to fp32 0.99999, worst 0.99990, 1.60x" in gate.describe()


# -- defaults and estimates that know the device -------------------------------------------------------------
@pytest.fixture
def on_gpu(monkeypatch):
    select_device.cache_clear()
    monkeypatch.setenv("STVIZ_DEVICE", "cuda")
    yield
    select_device.cache_clear()


def _big_dataset():
    from stviz.data.schema import Dataset

    pairs = pd.DataFrame({"source": [f"text {i}" for i in range(4000)], "output": [f"out {i}" for i in range(4000)]})
    return Dataset(name="big", title="big", pairs=pairs)


def test_bertscore_is_a_default_on_a_gpu_and_not_on_a_cpu(monkeypatch):
    from stviz.metrics import default_metrics

    select_device.cache_clear()
    monkeypatch.setenv("STVIZ_DEVICE", "cpu")
    names, notes = default_metrics(_big_dataset())
    assert "bertscore" not in names and any("slow on a CPU" in n for n in notes)
    select_device.cache_clear()
    monkeypatch.setenv("STVIZ_DEVICE", "cuda")
    names, notes = default_metrics(_big_dataset())
    select_device.cache_clear()
    assert "bertscore" in names and not any("BERTScore" in n for n in notes)


def test_estimates_use_the_gpus_rates(on_gpu, fresh_home):
    from stviz import costs

    assert costs.transformer_rate() == costs.GPU_TRANSFORMER_SENTENCES_PER_SECOND
    assert costs.pairs_rate("bertscore") == costs.GPU_PAIRS_PER_SECOND["bertscore"]
    resolve_precision(f"st:{'sentence-transformers/all-MiniLM-L6-v2'}", "cuda", "torch", _gate(speedup=2.0))
    assert costs.transformer_rate() == 5000.0  # the rate this GPU's own gate measured


def test_estimates_on_a_cpu_are_the_reference_machines():
    from stviz import costs

    assert select_device() == "cpu"
    assert costs.transformer_rate() == costs.TRANSFORMER_SENTENCES_PER_SECOND
    assert costs.pairs_rate("bertscore") == costs.PAIRS_PER_SECOND["bertscore"]
