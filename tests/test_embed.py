"""Embedders: specs, pooling, caching in front of any embedder, the shipped models, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from stviz.cache import Cache
from stviz.embedders import (EmbedderError, SentenceTransformerEmbedder, TransformerMeanPoolEmbedder,
                         WordVectorEmbedder, embed, parse_embedder, select_device, tokenize, unit_normalise)

SENTENCES = ["The cat sat on the mat.", "Thou art a villain!", "omg that's sooo good lol", "zxqv blorft"]


class CountingEmbedder:
    """A tiny deterministic embedder that records what it was asked to encode."""

    id = "test:counting"
    label = "counting"

    def __init__(self):
        self.seen: list[str] = []

    def encode(self, texts, progress=None):
        self.seen.extend(texts)
        return np.array([[len(t), t.count(" "), 1.0] for t in texts], dtype=np.float32)


def test_parse_specs():
    assert isinstance(parse_embedder("minilm"), SentenceTransformerEmbedder)
    glove = parse_embedder("glove-mean")
    assert isinstance(glove, WordVectorEmbedder) and glove.pooling == "mean"
    assert parse_embedder("wv:some-vectors").pooling == "sum"
    assert parse_embedder("wv:some-vectors:max").vectors == "some-vectors"
    assert isinstance(parse_embedder("hf:distilroberta-base"), TransformerMeanPoolEmbedder)
    assert parse_embedder("glove-sum").id != parse_embedder("glove-mean").id
    for bad in ("", "nonsense", "glove-median", "st:"):
        with pytest.raises(EmbedderError):
            parse_embedder(bad)


def test_word_vector_pooling_matches_the_vectors():
    kv = parse_embedder("glove-sum").keyed_vectors
    words = tokenize(SENTENCES[0])
    assert words == ["the", "cat", "sat", "on", "the", "mat", "."]
    matrix = np.stack([kv[w] for w in words])
    expected = {"sum": matrix.sum(0), "mean": matrix.mean(0), "max": matrix.max(0), "min": matrix.min(0),
                "concat": np.concatenate([matrix.max(0), matrix.min(0), matrix.mean(0)])}
    for pooling, vec in expected.items():
        got = WordVectorEmbedder(pooling=pooling).encode([SENTENCES[0]])[0]
        np.testing.assert_allclose(got, vec, rtol=1e-5, atol=1e-5)


def test_oov_rate_and_all_oov_sentence():
    glove = WordVectorEmbedder()
    vecs = glove.encode(SENTENCES)
    assert not vecs[3].any()  # no known word: the zero vector, not NaN
    assert 0 < glove.oov_rate(SENTENCES) < 0.5
    assert glove.oov_rate(["zxqv blorft"]) == 1.0


def test_embed_reads_the_cache_and_encodes_only_new_texts(tmp_path):
    cache = Cache(tmp_path)
    model = CountingEmbedder()
    first = embed(["a b", "c", "a b"], model, cache=cache)
    assert model.seen == ["a b", "c"]  # a repeated text is encoded once
    progress = []
    second = embed(["c", "d e f", "a b"], model, cache=Cache(tmp_path), progress=lambda d, t: progress.append((d, t)))
    assert model.seen == ["a b", "c", "d e f"]
    np.testing.assert_array_equal(second[[0, 2]], first[[1, 0]])
    assert progress[-1] == (3, 3)


@pytest.mark.parametrize("backend", ["torch", "onnx", "onnx-int8"])
def test_minilm_matches_sentence_transformers_directly(tmp_path, monkeypatch, backend):
    from sentence_transformers import SentenceTransformer

    from stviz.embedders import onnx_backend
    from stviz.embedders import shipped_minilm_path

    monkeypatch.setenv("STVIZ_BACKEND", backend)  # fp32 backends are exact; int8 is close (its gate)
    ours = embed(SENTENCES, "minilm", cache=Cache(tmp_path))
    direct = SentenceTransformer(str(shipped_minilm_path()), device="cpu").encode(SENTENCES)
    if backend == "onnx-int8":  # int8 kernels differ by CPU: bound by the gate this machine measured
        gate = onnx_backend.measured_gate(parse_embedder("minilm").id)
        assert gate is not None and gate.passed
        assert 1 - np.einsum("ij,ij->i", ours, direct).min() <= 2 * (1 - gate.worst_cosine)
    else:
        np.testing.assert_allclose(ours, direct, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-5)
    cached = embed(SENTENCES, "minilm", cache=Cache(tmp_path))
    np.testing.assert_array_equal(ours, cached)


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_plain_transformer_mean_pooling_reproduces_minilm_before_normalising(tmp_path, monkeypatch, backend):
    # MiniLM is a mean-pooled encoder, so the plain path must give its vectors up to length.
    monkeypatch.setenv("STVIZ_BACKEND", backend)
    plain = TransformerMeanPoolEmbedder("minilm").encode(SENTENCES)
    st = embed(SENTENCES, "minilm", cache=Cache(tmp_path))
    np.testing.assert_allclose(unit_normalise(plain), st, atol=1e-4)


def test_unloadable_models_give_clear_errors(tmp_path):
    with pytest.raises(EmbedderError, match="could not load the model 'no-such-org/no-such-model'"):
        embed(["x"], "st:no-such-org/no-such-model", cache=Cache(tmp_path))
    with pytest.raises(EmbedderError, match="could not load word vectors"):
        embed(["x"], "wv:no-such-vectors-xyz:sum", cache=Cache(tmp_path))
    bad = tmp_path / "vectors.txt"
    bad.write_text("not a vector file at all\n")
    with pytest.raises(EmbedderError):
        WordVectorEmbedder(str(bad)).encode(["x"])


def test_vector_file_formats(tmp_path):
    # A GloVe-style text file (no header) and a word2vec-style one (header line) both load.
    glove_file = tmp_path / "tiny.glove.txt"
    glove_file.write_text("hello 1 0 0\nworld 0 1 0\n")
    w2v_file = tmp_path / "tiny.vec"
    w2v_file.write_text("2 3\nhello 1 0 0\nworld 0 1 0\n")
    for path in (glove_file, w2v_file):
        vec = WordVectorEmbedder(str(path), "sum").encode(["hello world"])[0]
        np.testing.assert_allclose(vec, [1, 1, 0])


def test_binary_word2vec_and_native_fasttext_files(tmp_path):
    # Both end in .bin; a native fastText model must go to gensim's fastText reader, not word2vec's.
    from gensim.models import FastText, KeyedVectors
    from gensim.models.fasttext import save_facebook_model

    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["hello", "world"], np.array([[1, 0, 0], [0, 1, 0]], dtype=np.float32))
    w2v_bin = tmp_path / "tiny.w2v.bin"
    kv.save_word2vec_format(str(w2v_bin), binary=True)
    np.testing.assert_allclose(WordVectorEmbedder(str(w2v_bin), "sum").encode(["hello world"])[0], [1, 1, 0])

    model = FastText(vector_size=4, min_count=1, epochs=1, bucket=1000)
    model.build_vocab([["hello", "world"], ["hello", "there"]])
    model.train([["hello", "world"], ["hello", "there"]], total_examples=2, epochs=1)
    ft_bin = tmp_path / "tiny.fasttext.bin"
    save_facebook_model(model, str(ft_bin))
    vec = WordVectorEmbedder(str(ft_bin), "sum").encode(["hello world"])[0]
    np.testing.assert_allclose(vec, model.wv["hello"] + model.wv["world"], rtol=1e-5)


def test_device_is_chosen_once():
    assert select_device() in ("cpu", "cuda", "mps")
    assert select_device() is select_device()
