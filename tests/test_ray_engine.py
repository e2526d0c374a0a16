"""The Ray engine gives the local engine's results, into the same cache, even when workers die.

One local Ray with 2 CPUs and a small object store is started in this process for the module;
the data are small slices of the real CDS and SGDD-TST, since equality is what is tested (speed is
measured in benchmarks/scale.py).
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stviz import engine
from stviz.cache import Cache
from stviz.cli import build_parser, main
from stviz.data.schema import DataError
from stviz.embedders import embed
from stviz.engine import Engine
from stviz.metrics import compute_metric, metric_frame
from stviz.similarity import similarity_matrix, style_matrix

MINILM_ID = "st:sentence-transformers/all-MiniLM-L6-v2"
#: Model metrics may differ in the last float32 bits with the batch a text is padded in.
MODEL_TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def ray_cluster(one_ray_at_a_time):
    """A 2-CPU Ray started here (address 'local': never a developer's own cluster), stopped after the module."""
    import ray

    ray.init(address="local", num_cpus=2, object_store_memory=120 * 2**20, include_dashboard=False,
             log_to_driver=False, logging_level=logging.WARNING)
    yield
    ray.shutdown()


def _actor_pids(actor: str) -> list[int]:
    """PIDs of this test process's descendants running a Ray actor of class ``actor`` (from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    mine, pids = {os.getpid()}, []
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                changed = True
    for pid in mine - {os.getpid()}:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if actor in cmdline:
            pids.append(pid)
    return pids


@pytest.mark.slow
def test_ray_embeddings_and_style_matrix_equal_local_on_cds(cds, ray_cluster, tmp_path):
    texts = cds.style_texts().groupby("style").head(25)
    sentences, styles = texts["text"].tolist(), texts["style"].astype(str).tolist()
    local = embed(sentences, "minilm", cache=Cache(tmp_path / "local"))

    cache = Cache(tmp_path / "ray")
    with engine.use(Engine("ray", workers=2, batch_size=50)):
        vectors = embed(sentences, "minilm", cache=cache)
    np.testing.assert_allclose(vectors, local, atol=1e-6)
    # Merged into the cache: a later local run (or the dashboard) reads every vector.
    stored, missing = cache.get_vectors(MINILM_ID, sentences)
    assert len(missing) == 0
    np.testing.assert_array_equal(stored, vectors)

    # The matrix from per-style sums made on the workers (fresh cache: every text goes), 1 worker, other blocks.
    with engine.use(Engine("ray", workers=1, batch_size=120)):
        matrix = style_matrix(sentences, styles, "minilm", cache=Cache(tmp_path / "sums"))
    expected = similarity_matrix(local, styles)
    assert list(matrix.index) == list(expected.index) and len(matrix) == 11
    np.testing.assert_allclose(matrix.to_numpy(), expected.to_numpy(), atol=1e-6)
    # Locally, style_matrix reads the vectors the Ray run cached and gives the same matrix.
    np.testing.assert_allclose(style_matrix(sentences, styles, "minilm", cache=cache).to_numpy(),
                               similarity_matrix(vectors, styles).to_numpy(), atol=1e-12)


@pytest.mark.slow
def test_ray_metrics_equal_local_on_sgdd_even_when_workers_are_killed(sgdd, ray_cluster, tmp_path):
    pairs = sgdd.pairs.iloc[:240]
    names = ["bleu", "meteor", "wmd", "ne", "bertscore"]  # each family once (cosine: in the CLI test)
    local = metric_frame(pairs, names, cache=Cache(tmp_path / "local"))

    cache = Cache(tmp_path / "ray")
    sources, outputs = pairs["source"].tolist(), pairs["output"].tolist()
    killed: list[int] = []

    def kill_workers(done: int, total: int) -> None:
        # At the first finished block, SIGKILL every actor of the pool: Ray must restart them and
        # redo the blocks they held.
        if not killed and done < total:
            for pid in _actor_pids("PairActor"):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    with engine.use(Engine("ray", workers=2, batch_size=20)):
        bertscore = compute_metric("bertscore", sources, outputs, cache=cache, progress=kill_workers)
        remote = metric_frame(pairs, names, cache=cache)
    assert killed, "no Ray actor was found to kill"
    np.testing.assert_allclose(bertscore, local["bertscore"], atol=MODEL_TOLERANCE)
    for name in names:
        tolerance = MODEL_TOLERANCE if name == "bertscore" else 0
        np.testing.assert_allclose(remote[name], local[name], atol=tolerance, rtol=0, err_msg=name)
    assert not (cache.root / "shards").exists() or not any((cache.root / "shards").iterdir())


@pytest.mark.slow
def test_ray_resumes_a_metric_from_its_shards(sgdd, ray_cluster, tmp_path):
    from stviz.engine import ray_engine
    from stviz.metrics import score_block

    pairs = sgdd.pairs.iloc[300:400]
    sources, outputs = pairs["source"].tolist(), pairs["output"].tolist()
    expected = score_block("chrf", None, sources, outputs)
    cache = Cache(tmp_path)
    # A run interrupted after its first 60 pairs left one shard behind.
    ray_engine._write_shard(cache.root / "shards" / "job", pd.DataFrame({"index": np.arange(60),
                                                                         "value0": expected[:60]}))
    seen: list[int] = []
    values = ray_engine.map_pairs(Engine("ray", workers=1, batch_size=25), functools.partial(score_block, "chrf", None),
                                  sources, outputs, "job", cache, lambda d, t: seen.append(d), False)
    assert seen[0] == 60 and seen[-1] == 100  # only the 40 missing pairs were sent
    np.testing.assert_array_equal(values, expected)
    assert not (cache.root / "shards" / "job").exists()


@pytest.mark.slow
def test_a_worker_error_reaches_the_user_as_one_message(sgdd, ray_cluster, tmp_path):
    from stviz.engine import ray_engine
    from stviz.metrics import score_block
    from stviz.metrics.wordnet import wordnet_status

    pairs = sgdd.pairs.iloc[:10]
    # A worker whose WordNet differs from the driver's must refuse rather than store other METEOR values.
    refuse = functools.partial(score_block, "meteor", not wordnet_status().available)
    with pytest.raises(DataError, match="WordNet and the driver does not agree") as raised:
        ray_engine.map_pairs(Engine("ray", workers=1), refuse, pairs["source"].tolist(), pairs["output"].tolist(),
                             "refused", Cache(tmp_path), None, False)
    assert "\n" not in str(raised.value)  # the worker's own message, not Ray's traceback


@pytest.mark.slow
def test_cli_engine_ray_metrics_fill_the_cache_a_local_run_reads(sgdd, ray_cluster, tmp_path, monkeypatch, capsys):
    pairs = sgdd.pairs.iloc[400:460][["source", "output"]]
    data = tmp_path / "pairs.csv"
    pairs.to_csv(data, index=False)
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))  # a fresh cache: everything goes to Ray
    names = "chrf,cosine:minilm"
    ray_out, local_out = tmp_path / "ray.csv", tmp_path / "local.csv"
    assert main(["--engine", "ray", "--workers", "2", "--batch-size", "16", "metrics", "--dataset", str(data),
                 "--metrics", names, "--out", str(ray_out)]) == 0
    assert "engine: ray" in capsys.readouterr().err
    assert engine.current().is_local  # the command's engine ends with the command

    # The later local run computes nothing: every value and vector comes from the cache.
    def no_work(*args, **kwargs):
        raise AssertionError("the local run recomputed what the Ray run had cached")

    monkeypatch.setattr(engine, "map_pairs", no_work)
    monkeypatch.setattr(engine, "embed_missing", no_work)
    assert main(["metrics", "--dataset", str(data), "--metrics", names, "--out", str(local_out)]) == 0
    remote, cached = pd.read_csv(ray_out), pd.read_csv(local_out)
    pd.testing.assert_frame_equal(remote, cached)
    monkeypatch.undo()

    fresh = metric_frame(pairs.reset_index(drop=True), names.split(","), cache=Cache(tmp_path / "local"))
    for name in names.split(","):  # the metrics command names its columns by metric
        np.testing.assert_allclose(remote[name], fresh[name], atol=MODEL_TOLERANCE, rtol=0, err_msg=name)


def test_engine_ray_without_ray_installed_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if not installed
    monkeypatch.setitem(sys.modules, "ray.data", None)
    code = main(["--engine", "ray", "embed", "--dataset", "demo", "--out", str(tmp_path / "v.npy")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == ["error: --engine ray needs Ray, which is not installed here: pip install -r requirements-ray.txt"]
    assert not (tmp_path / "v.npy").exists()


def test_a_ray_client_address_without_its_extra_says_what_to_install(monkeypatch):
    from stviz.engine import ray_engine

    class NeverStarted:  # stands in for the ray module: joining must be refused before ray.init
        def init(self, **kwargs):
            raise AssertionError("ray.init was called")

    monkeypatch.setattr(ray_engine, "ray_client_installed", lambda: False)
    with pytest.raises(engine.EngineError, match=r'Ray Client, which needs its extra: pip install "ray\[client\]==2.60.0"'):
        ray_engine._start(NeverStarted(), Engine("ray", address="ray://head:10001"))


def test_engine_from_environment_is_for_the_command_line(monkeypatch):
    monkeypatch.setenv("STVIZ_ENGINE", "ray")
    monkeypatch.setenv("RAY_ADDRESS", "ray://head:10001")
    assert engine.from_env() == Engine("ray", address="ray://head:10001")
    assert engine.current().is_local  # the library (and so the dashboard) stays local unless told
    args = build_parser().parse_args(["embed", "--dataset", "demo", "--out", "x.npy"])
    assert (args.engine, args.address) == ("ray", "ray://head:10001")  # the CLI's defaults
    with engine.use(Engine("ray", workers=3)):
        assert engine.current().workers == 3
    assert engine.current().is_local
    monkeypatch.setenv("STVIZ_ENGINE", "spark")
    with pytest.raises(engine.EngineError, match="unknown engine 'spark'"):
        engine.from_env()



def test_style_matrix_from_sums_equals_the_matrix_of_the_vectors_locally(tmp_path):
    from stviz.data import load_dataset
    from stviz.embedders import parse_embedder
    from stviz.similarity import style_codes

    texts = load_dataset("demo").style_texts()
    sentences, styles = texts["text"].tolist(), texts["style"].astype(str).tolist()
    vectors = embed(sentences, "glove-sum", cache=Cache(tmp_path / "reference"))
    cache = Cache(tmp_path / "partial")
    embed(sentences[::2], "glove-sum", cache=cache)  # half of them cached already
    matrix = style_matrix(sentences, styles, "glove-sum", cache=cache)
    np.testing.assert_allclose(matrix.to_numpy(), similarity_matrix(vectors, styles).to_numpy(), atol=1e-12)
    names, codes, sizes = style_codes(styles)
    chunked = engine.style_sums(parse_embedder("glove-sum"), sentences, codes, len(names), cache, chunk=7)
    whole = engine.sum_by_style(vectors, codes, len(names))
    np.testing.assert_allclose(chunked.sums, whole.sums, atol=1e-12)
    np.testing.assert_array_equal(chunked.counts, sizes)
