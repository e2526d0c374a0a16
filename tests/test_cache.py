"""The disk cache: fingerprints, memoised results, vectors, damage and concurrent writers."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3

import numpy as np
import pandas as pd
import pytest

from stviz.cache import Cache, fingerprint, text_key


def test_fingerprint_is_stable_and_type_aware():
    params = {"b": [1, 2.5, "x"], "a": np.arange(4, dtype=np.float32)}
    assert fingerprint(params) == fingerprint({"a": np.arange(4, dtype=np.float32), "b": [1, 2.5, "x"]})
    assert fingerprint(["ab"]) != fingerprint(["a", "b"])
    assert fingerprint(1) != fingerprint("1")
    assert fingerprint(np.arange(4, dtype=np.float32)) != fingerprint(np.arange(4, dtype=np.float64))
    frame = pd.DataFrame({"t": ["x", "y"], "v": [1.0, 2.0]})
    assert fingerprint(frame) == fingerprint(frame.copy())
    assert fingerprint(frame) != fingerprint(frame.assign(v=[1.0, 2.5]))
    with pytest.raises(TypeError):
        fingerprint(object())


def test_memo_computes_once_and_across_instances(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"value": np.arange(3)}

    first = Cache(tmp_path).memo("kind", {"p": 1}, compute)
    again = Cache(tmp_path).memo("kind", {"p": 1}, compute)  # a new object reads from disk
    other = Cache(tmp_path).memo("kind", {"p": 2}, compute)
    assert len(calls) == 2
    np.testing.assert_array_equal(first["value"], again["value"])
    assert other is not None
    assert Cache(tmp_path).has("kind", {"p": 1}) and not Cache(tmp_path).has("kind", {"p": 3})


def test_damaged_result_is_recomputed(tmp_path):
    cache = Cache(tmp_path)
    cache.memo("kind", "x", lambda: 41)
    (entry,) = (tmp_path / "results" / "kind").glob("*.pkl")
    entry.write_bytes(b"not a pickle")
    assert cache.memo("kind", "x", lambda: 42) == 42
    assert cache.memo("kind", "x", lambda: 43) == 42  # the rewritten entry is read back


def test_vectors_round_trip_and_partial_hits(tmp_path):
    cache = Cache(tmp_path)
    vecs = np.random.default_rng(0).normal(size=(3, 5)).astype(np.float32)
    cache.put_vectors("emb", ["a", "b", "c"], vecs)
    got, missing = cache.get_vectors("emb", ["c", "new", "a", "a"])
    assert missing.tolist() == [1]
    np.testing.assert_array_equal(got[[0, 2, 3]], vecs[[2, 0, 0]])
    assert cache.get_vectors("other-embedder", ["a"])[1].tolist() == [0]


def test_truncated_vector_counts_as_missing(tmp_path):
    cache = Cache(tmp_path)
    cache.put_vectors("emb", ["a", "b"], np.ones((2, 4), np.float32))
    with sqlite3.connect(tmp_path / "vectors.sqlite") as conn:
        conn.execute("UPDATE vectors SET vec = ? WHERE text_key = ?", (b"\x00" * 5, text_key("a")))
    _, missing = Cache(tmp_path).get_vectors("emb", ["a", "b"])
    assert missing.tolist() == [0]


def test_corrupt_database_is_set_aside(tmp_path):
    (tmp_path / "vectors.sqlite").write_bytes(b"this is not sqlite" * 100)
    cache = Cache(tmp_path)
    cache.put_vectors("emb", ["a"], np.ones((1, 2), np.float32))
    assert cache.get_vectors("emb", ["a"])[1].size == 0
    assert len(list(tmp_path.glob("vectors.corrupt-*.sqlite"))) == 1


def _writer(root: str, worker: int) -> None:
    cache = Cache(root)
    rng = np.random.default_rng(worker)
    for batch in range(20):
        # Half the texts are shared between workers, half are their own.
        texts = [f"shared {batch} {i}" for i in range(10)] + [f"w{worker} {batch} {i}" for i in range(10)]
        cache.put_vectors("emb", texts, rng.normal(size=(20, 8)).astype(np.float32))
        cache.memo("res", {"worker": worker, "batch": batch}, lambda: batch)


def test_concurrent_writers_lose_nothing(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    cache = Cache(tmp_path)
    texts = [f"shared {b} {i}" for b in range(20) for i in range(10)]
    texts += [f"w{w} {b} {i}" for w in range(3) for b in range(20) for i in range(10)]
    _, missing = cache.get_vectors("emb", texts)
    assert missing.size == 0
    assert cache.summary()["results"] == 60


def test_clear_and_size(tmp_path):
    cache = Cache(tmp_path)
    cache.put_vectors("emb", ["a"], np.ones((1, 2), np.float32))
    cache.memo("k", 1, lambda: "v")
    assert cache.size_bytes() > 0
    cache.clear()
    assert cache.summary()["vectors"] == 0 and cache.summary()["results"] == 0
