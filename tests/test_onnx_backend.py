"""The ONNX Runtime backend, the backend choice (CLI, home page, environment) and the model2vec embedder.

Run on the shipped MiniLM: fp32 ONNX must equal PyTorch, int8 must pass its gate and be cached
apart, BERTScore must agree, and every choice must be visible to the user.
"""

from __future__ import annotations

import numpy as np
import pytest

from stviz.embedders import onnx_backend
from stviz.cache import Cache
from stviz.embedders import SentenceTransformerEmbedder, embed, parse_embedder, vector_cache_id

SENTENCES = ["The cat sat on the mat.", "Thou art a villain, and I shall not forgive thee!",
             "omg that's sooo good lol", "Please find attached the report you asked for on Monday, 3 May.",
             "Where are you going?", "a"]


@pytest.fixture
def backend(monkeypatch):
    """Set STVIZ_BACKEND for one test."""
    def use(name: str) -> None:
        monkeypatch.setenv(onnx_backend.BACKEND_ENV, name)
    return use


def test_backend_choice_is_validated(backend):
    backend("nonsense")
    with pytest.raises(onnx_backend.BackendError, match="unknown backend"):
        onnx_backend.requested_backend()
    with pytest.raises(onnx_backend.BackendError):
        onnx_backend.set_backend("gpu-magic")


def test_auto_is_torch_on_a_gpu_and_fp32_onnx_on_a_cpu(backend, monkeypatch):
    backend("auto")
    assert onnx_backend.resolve_backend("cuda") == "torch"
    assert onnx_backend.resolve_backend("cpu") == "onnx"  # PyTorch's vectors; int8 is opt-in
    monkeypatch.setattr(onnx_backend, "onnx_runtime_available", lambda: False)
    assert onnx_backend.resolve_backend("cpu") == "torch"  # the fallback without the optional extras
    assert "requirements-fast.txt" in onnx_backend.backend_note("cpu")


def test_fp32_onnx_equals_pytorch_and_shares_its_cache(backend, tmp_path):
    minilm = SentenceTransformerEmbedder("minilm")
    backend("torch")
    reference = minilm.encode(SENTENCES)
    backend("onnx")
    assert minilm.backend() == "onnx"
    np.testing.assert_allclose(minilm.encode(SENTENCES), reference, atol=2e-6)
    assert vector_cache_id(minilm) == minilm.id  # same vectors, same cache entries
    cache = Cache(tmp_path)
    embed(SENTENCES, minilm, cache=cache)
    backend("torch")
    assert cache.get_vectors(vector_cache_id(minilm), SENTENCES)[1].size == 0


def test_int8_passes_its_gate_and_is_cached_apart(backend, tmp_path):
    minilm = SentenceTransformerEmbedder("minilm")
    backend("onnx")
    fp32 = minilm.encode(SENTENCES)
    backend("onnx-int8")
    assert minilm.backend() == "onnx-int8"
    gate = onnx_backend.measured_gate(minilm.id)
    assert gate is not None and gate.passed and gate.n > 100
    int8 = minilm.encode(SENTENCES)
    cosines = np.einsum("ij,ij->i", fp32, int8)
    # int8 numbers depend on the CPU's kernels: judge them by the gate this machine measured, never
    # by a fixed tolerance (an AVX-512 VNNI CPU lands elsewhere than an AVX2 one).
    assert 1 - cosines.min() <= int8_slack(gate) and not np.allclose(fp32, int8, atol=1e-5)  # close, really int8
    assert vector_cache_id(minilm) == minilm.id + "@onnx-int8-" + onnx_backend.int8_platform()
    cache = Cache(tmp_path)
    embed(SENTENCES, minilm, cache=cache)
    assert cache.get_vectors(minilm.id, SENTENCES)[0] is None  # nothing stored under the fp32 key
    assert "int8 quality gate passed" in onnx_backend.describe_backend(minilm.id, "cpu")
    # Quantizing silences onnxruntime's hint only: stviz's own warnings (a damaged store) still get through.
    import logging

    assert logging.getLogger("stviz.cache.pair_values").isEnabledFor(logging.WARNING)


def test_a_model_that_misses_the_gate_runs_fp32(backend, monkeypatch):
    backend("onnx-int8")
    failed = onnx_backend.GateResult(mean_cosine=0.95, worst_cosine=0.7, n=10)
    monkeypatch.setattr(onnx_backend, "int8_gate", lambda model_id, loader: failed)
    assert onnx_backend.effective_backend("st:any", "cpu", lambda: None) == "onnx"


def test_mean_pooled_transformer_on_onnx(backend):
    from stviz.embedders import TransformerMeanPoolEmbedder, shipped_minilm_path

    hf = TransformerMeanPoolEmbedder(str(shipped_minilm_path()))
    backend("torch")
    reference = hf.encode(SENTENCES)
    backend("onnx")
    np.testing.assert_allclose(hf.encode(SENTENCES), reference, atol=5e-6)


def test_bertscore_on_every_backend(backend):
    from stviz.metrics import content

    sources, outputs = SENTENCES[:4], SENTENCES[1:5]
    backend("torch")
    reference = content.bertscore(sources, outputs)
    backend("onnx")
    assert content.bertscore_backend() == "onnx" and content.backend_variant("bertscore", {}) == ""
    np.testing.assert_allclose(content.bertscore(sources, outputs), reference, atol=1e-5)
    backend("onnx-int8")
    assert content.backend_variant("bertscore", {}) == "onnx-int8-" + onnx_backend.int8_platform()
    gate = onnx_backend.measured_gate(f"bertscore:{content.BERTSCORE_MODEL}:{content.BERTSCORE_LAYER}")
    np.testing.assert_allclose(content.bertscore(sources, outputs), reference, atol=int8_slack(gate))


def test_int8_metrics_are_cached_apart(backend, tmp_path):
    from stviz.metrics import compute_metric

    sources, outputs = SENTENCES[:3], SENTENCES[1:4]
    cache = Cache(tmp_path)
    backend("onnx-int8")
    int8 = compute_metric("cosine:minilm", sources, outputs, cache=cache)
    minilm = parse_embedder("minilm")
    int8_sources, int8_outputs = (cache.get_vectors(vector_cache_id(minilm), texts)[0] for texts in (sources, outputs))
    backend("torch")
    torch_values = compute_metric("cosine:minilm", sources, outputs, cache=cache)
    assert not np.array_equal(int8, torch_values)  # the torch run did not read int8's entry
    # The int8 cosines are the cosines of the int8 vectors it stored (float rounding only) ...
    np.testing.assert_allclose(int8, np.einsum("ij,ij->i", int8_sources, int8_outputs), atol=1e-6)
    # ... and differ from PyTorch's by at most how far this CPU's int8 kernels moved each vector
    # (|a'.b' - a.b| <= |a' - a| + |b' - b| for unit vectors): a bound measured here, not a constant.
    torch_sources, torch_outputs = (minilm.encode(texts) for texts in (sources, outputs))
    moved = (np.linalg.norm(int8_sources - torch_sources, axis=1) + np.linalg.norm(int8_outputs - torch_outputs, axis=1))
    assert np.all(np.abs(int8 - torch_values) <= moved + 1e-6)


def test_cli_backend_flag(capsys, monkeypatch):
    from stviz.cli import main

    monkeypatch.setenv(onnx_backend.BACKEND_ENV, "auto")  # undone after the test, whatever --backend sets
    assert main(["--backend", "onnx", "data", "list"]) == 0
    assert "transformer models run on onnx" in capsys.readouterr().err


def test_home_page_offers_the_backend(monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv(onnx_backend.BACKEND_ENV, "auto")  # undone after the test, whatever the page sets
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120).run()
    box = next(s for s in at.selectbox if s.key == "home-backend")
    assert box.value == "auto"
    box.set_value("torch").run()
    assert not at.exception
    assert any("PyTorch" in c.value for c in at.caption)


@pytest.mark.slow  # distils MiniLM (about 2 minutes) the first time in a cache
def test_model2vec_embedder():
    static = parse_embedder("model2vec")
    assert parse_embedder("m2v:minilm").id == static.id
    vectors = static.encode(SENTENCES)
    assert vectors.shape == (len(SENTENCES), onnx_backend_dims())
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    # It keeps MiniLM's sense of similarity: a sentence is nearer itself re-worded than a stranger.
    pair = static.encode(["The cat sat on the mat.", "A cat was sitting on the mat.", "Stock markets fell sharply."])
    assert pair[0] @ pair[1] > pair[0] @ pair[2]


def int8_slack(gate: onnx_backend.GateResult) -> float:
    """How far int8 may move a number on this machine: twice the distance its own gate measured."""
    assert gate is not None and gate.passed
    return 2 * (1 - gate.worst_cosine)


def onnx_backend_dims() -> int:
    from stviz.embedders.static import DISTILL

    return DISTILL["pca_dims"]
