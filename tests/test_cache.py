"""The disk cache: fingerprints, memoised results, vectors, damage and concurrent writers."""

from __future__ import annotations

import json
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


def test_a_column_of_texts_keeps_the_digest_of_feeding_each_text_alone():
    # Lists of strings take a fast path (one update for the whole column); every cache key users hold on disk must
    # stay the one each text fed alone as JSON gave, or an upgrade would silently recompute every metric.
    import hashlib

    texts = ["plain", "é and 😀", 'quotes " and \\ back', "line\nbreak\u2028", "", "\x00"]

    def fed_alone(items):
        h = hashlib.blake2b(digest_size=20)
        h.update(b"l" + len(items).to_bytes(8, "little"))
        for item in items:
            h.update(b"j" + json.dumps(item).encode())
        return h.hexdigest()

    assert fingerprint(texts) == fed_alone(texts)
    assert fingerprint(tuple(texts)) == fed_alone(texts)
    assert fingerprint(pd.Series(texts, dtype=object)) == fed_alone(texts)
    assert fingerprint(texts + [1]) != fingerprint(texts + ["1"])  # a mixed list goes item by item, still typed


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


def _computer(root: str, log: str, seconds: float, out: str) -> None:
    """Compute one result of the cache at ``root``, logging each computation; write what memo returned to ``out``."""
    import time
    from pathlib import Path

    def compute():
        with open(log, "a") as fh:
            fh.write("computed\n")
        time.sleep(seconds)
        return "the result"

    Path(out).write_text(Cache(root).memo("slow", {"k": 1}, compute))


def _wait_for_lines(path, n: int, seconds: float = 300.0) -> None:
    import time
    from pathlib import Path

    end = time.monotonic() + seconds  # a child that died before its first line fails the test, not hangs the suite
    while not (Path(path).exists() and len(Path(path).read_text().splitlines()) >= n):
        assert time.monotonic() < end, f"no line {n} in {path} after {seconds:.0f} s: the child died?"
        time.sleep(0.05)


def test_a_result_another_process_is_computing_is_waited_for_not_computed_again(tmp_path):
    ctx, log = mp.get_context("spawn"), tmp_path / "log"
    first = ctx.Process(target=_computer, args=(str(tmp_path / "c"), str(log), 2.0, str(tmp_path / "a")))
    first.start()
    _wait_for_lines(log, 1)  # the first is computing, its lock held
    second = ctx.Process(target=_computer, args=(str(tmp_path / "c"), str(log), 0.0, str(tmp_path / "b")))
    second.start()
    for proc in (first, second):
        proc.join(120)
        assert proc.exitcode == 0
    assert (tmp_path / "b").read_text() == "the result" and log.read_text().splitlines() == ["computed"]
    assert not list((tmp_path / "c").rglob("*.lock"))  # no empty lock file left per result


def test_a_killed_computation_leaves_no_lock_and_the_next_computes(tmp_path):
    import os
    import signal

    ctx, log = mp.get_context("spawn"), tmp_path / "log"
    holder = ctx.Process(target=_computer, args=(str(tmp_path / "c"), str(log), 600.0, str(tmp_path / "a")))
    holder.start()
    _wait_for_lines(log, 1)
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(60)
    _computer(str(tmp_path / "c"), str(log), 0.0, str(tmp_path / "b"))  # would wait for ever on a lock left behind
    assert (tmp_path / "b").read_text() == "the result" and len(log.read_text().splitlines()) == 2


def test_threads_asking_for_one_result_compute_it_once_and_a_computation_may_ask_for_its_own_key(tmp_path):
    import threading
    import time

    cache, computed, start = Cache(tmp_path), [], threading.Barrier(4)

    def compute():
        computed.append(1)
        time.sleep(0.5)
        return 42

    def ask():
        start.wait()
        assert cache.memo("shared", 1, compute) == 42

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(computed) == 1
    # A computation asking for its own key again computes it in place instead of waiting for itself.
    assert cache.memo("nested", 1, lambda: cache.memo("nested", 1, lambda: "inner")) == "inner"


def test_a_file_system_without_locks_computes_unlocked(tmp_path, monkeypatch):
    import errno

    from stviz.cache import computing

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")  # as some network mounts answer

    monkeypatch.setattr(computing.fcntl, "flock", no_locks)
    assert Cache(tmp_path).memo("k", 1, lambda: "computed") == "computed"
    assert Cache(tmp_path).memo("k", 1, lambda: "again") == "computed"  # stored all the same


class _SlowEncoder:
    """A text encoder that logs each text it encodes and takes its time (what two processes race for)."""

    vector_id, label = "slow-encoder", "slow encoder"

    def __init__(self, log: str, seconds: float):
        self.log, self.seconds = log, seconds

    def encode(self, texts, progress=None):
        import time

        with open(self.log, "a") as fh:
            fh.writelines(f"{t}\n" for t in texts)
        time.sleep(self.seconds)
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def _vectors(root: str, log: str, seconds: float, out: str) -> None:
    from stviz import engine

    np.save(out, engine.cached_vectors(_SlowEncoder(log, seconds), ["a text", "another text"], Cache(root)))


def test_texts_another_process_is_embedding_are_waited_for_not_embedded_again(tmp_path):
    ctx, log = mp.get_context("spawn"), tmp_path / "log"
    first = ctx.Process(target=_vectors, args=(str(tmp_path / "c"), str(log), 2.0, str(tmp_path / "a.npy")))
    first.start()
    _wait_for_lines(log, 2)  # the first is encoding both texts
    second = ctx.Process(target=_vectors, args=(str(tmp_path / "c"), str(log), 0.0, str(tmp_path / "b.npy")))
    second.start()
    for proc in (first, second):
        proc.join(120)
        assert proc.exitcode == 0
    assert log.read_text().splitlines() == ["a text", "another text"]  # encoded once
    assert not list((tmp_path / "c").rglob("*.lock"))
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), [[6, 1], [12, 1]])


def test_clear_and_size(tmp_path):
    cache = Cache(tmp_path)
    cache.put_vectors("emb", ["a"], np.ones((1, 2), np.float32))
    cache.memo("k", 1, lambda: "v")
    assert cache.size_bytes() > 0
    assert cache.summary(max_age=60)["vectors"] == 1
    cache.clear()
    assert cache.summary(max_age=60)["vectors"] == 0 and cache.summary()["results"] == 0  # cleared: counted again


def test_the_sidebars_counts_are_reused_for_a_while_and_exact_when_asked(tmp_path):
    # The sidebar asks on every page run; counting the vectors scans their table.
    cache = Cache(tmp_path)
    cache.put_vectors("emb", ["a"], np.ones((1, 2), np.float32))
    assert cache.summary(max_age=60)["vectors"] == 1
    cache.put_vectors("emb", ["b"], np.ones((1, 2), np.float32))
    assert cache.summary(max_age=60)["vectors"] == 1  # reused
    assert cache.summary()["vectors"] == 2  # the command line's count is always exact


def test_the_sidebars_areas_are_reused_for_a_while_and_listed_again_after_clearing(tmp_path):
    # "Clear cache" lists the areas on every page run; listing them walks every file of the cache.
    cache = Cache(tmp_path)
    cache.memo("k", 1, lambda: "v" * 1000)
    results = {a.name: a.bytes for a in cache.areas(max_age=60)}["results"]
    cache.memo("k", 2, lambda: "w" * 5000)
    assert {a.name: a.bytes for a in cache.areas(max_age=60)}["results"] == results  # reused
    assert {a.name: a.bytes for a in cache.areas()}["results"] > results  # the command line's listing: exact
    cache.clear()
    assert {a.name: a.bytes for a in cache.areas(max_age=60)}["results"] == 0  # cleared: listed again


# -- issue 9: damage, replaced models, read-only folders, full disks, SIGKILL ----------------------
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from stviz.embedders import EmbedderError, WordVectorEmbedder, embed  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = [f"the food at place number {i} was {'great' if i % 2 else 'awful'} , said guest {i % 37}"
             for i in range(3000)]


def _damage_a_page(db: Path, page: int = 20) -> None:
    """Overwrite one 4 KB page in the middle of the database file, as a failing disk or a bad copy does."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert db.stat().st_size > (page + 2) * 4096
    with open(db, "r+b") as fh:
        fh.seek(page * 4096)
        fh.write(b"\xff" * 4096)


def test_damaged_page_is_detected_on_open_set_aside_and_results_identical(tmp_path):
    first = embed(SENTENCES, "glove-sum", cache=Cache(tmp_path))
    _damage_a_page(tmp_path / "vectors.sqlite")
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):  # the reproduction: every read failed
        sqlite3.connect(tmp_path / "vectors.sqlite").execute("SELECT COUNT(*), SUM(dim) FROM vectors").fetchone()
    cache = Cache(tmp_path)  # a new process opening the damaged file
    again = embed(SENTENCES, "glove-sum", cache=cache)
    np.testing.assert_array_equal(first, again)
    (aside,) = tmp_path.glob("vectors.corrupt-*.sqlite")
    assert cache.take_notices() == [
        f"The vector cache {tmp_path / 'vectors.sqlite'} was damaged (database disk image is malformed); it was set "
        f"aside as {aside.name} and a new one started: embeddings are recomputed when needed."]
    assert cache.take_notices() == []  # said once
    assert Cache(tmp_path).get_vectors("wv:glove-6b-50d:sum", SENTENCES)[1].size == 0  # the rebuilt cache is used


def test_damage_found_during_work_is_repaired_once(tmp_path):
    cache = Cache(tmp_path)
    first = embed(SENTENCES, "glove-sum", cache=cache)
    _damage_a_page(tmp_path / "vectors.sqlite")
    results = {}
    # Another session's thread opens its own connection after the damage: the error is met mid-work.
    worker = threading.Thread(target=lambda: results.update(v=embed(SENTENCES, "glove-sum", cache=cache),
                                                            s=cache.summary()))
    worker.start()
    worker.join()
    np.testing.assert_array_equal(first, results["v"])
    notices = cache.take_notices()
    assert len(notices) == 1 and "was damaged (database disk image is malformed)" in notices[0]
    assert len(list(tmp_path.glob("vectors.corrupt-*.sqlite"))) == 1


def test_summary_never_raises_on_a_damaged_cache(tmp_path):
    embed(SENTENCES, "glove-sum", cache=Cache(tmp_path))
    _damage_a_page(tmp_path / "vectors.sqlite")
    summary = Cache(tmp_path).summary()
    assert summary["vectors"] == 0 and summary["bytes"] > 0


def _word2vec_file(path: Path, vectors: dict[str, list[float]]) -> None:
    dim = len(next(iter(vectors.values())))
    lines = [f"{len(vectors)} {dim}"] + [w + " " + " ".join(map(str, v)) for w, v in vectors.items()]
    path.write_text("\n".join(lines) + "\n")


def test_replaced_local_vector_file_gives_new_vectors(tmp_path):
    cache = Cache(tmp_path / "cache")
    path = tmp_path / "vectors.vec"
    _word2vec_file(path, {"good": [1.0, 0.0], "food": [0.0, 1.0]})
    old = embed(["good food"], f"wv:{path}:sum", cache=cache)
    np.testing.assert_allclose(old, [[1.0, 1.0]])
    time.sleep(0.01)
    _word2vec_file(path, {"good": [2.0, 0.0], "food": [0.0, 3.0]})  # same name, new content
    np.testing.assert_allclose(embed(["good food"], f"wv:{path}:sum", cache=cache), [[2.0, 3.0]])
    _word2vec_file(path, {"good": [1.0, 1.0, 1.0], "food": [0.0, 0.0, 1.0]})  # another dimension
    np.testing.assert_allclose(embed(["good food"], f"wv:{path}:sum", cache=cache), [[1.0, 1.0, 2.0]])
    # The old content again: its vectors come back from the cache under its content key.
    _word2vec_file(path, {"good": [1.0, 0.0], "food": [0.0, 1.0]})
    assert WordVectorEmbedder(str(path)).id == WordVectorEmbedder(str(path)).id
    np.testing.assert_allclose(embed(["good food"], f"wv:{path}:sum", cache=cache), [[1.0, 1.0]])


def test_mixed_dimensions_under_one_id_are_refused(tmp_path):
    cache = Cache(tmp_path)
    cache.put_vectors("wv:glove-6b-50d:sum", ["a"], np.ones((1, 3), np.float32))
    with pytest.raises(EmbedderError, match="now gives 50-dimensional vectors but the cache holds 3-dimensional"):
        embed(["a", "b"], "glove-sum", cache=cache)
    cache.put_vectors("wv:glove-6b-50d:sum", ["b"], np.ones((1, 4), np.float32))
    with pytest.raises(EmbedderError, match=r"vectors of 2 different sizes \(3, 4\)"):
        embed(["a", "b"], "glove-sum", cache=cache)


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"these tests need to mount small file systems (run as root): {done.stderr.strip()}")


@pytest.fixture
def small_disk(tmp_path):
    """A real 1 MB file system (tmpfs), for full-disk and read-only tests; unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount))
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _leftovers(root: Path) -> list[str]:
    return [p.name for p in root.rglob("*") if p.name.startswith(".tmp-") or ".part" in p.name or
            p.name.startswith(f".{os.getpid()}-")]


def test_full_disk_computes_without_storing_and_leaves_no_temp_files(small_disk):
    cache = Cache(small_disk / "cache")
    big = np.random.default_rng(0).normal(size=(400, 400))  # 1.3 MB pickled: more than the disk holds
    assert np.array_equal(cache.memo("big", 1, lambda: big), big)
    many = SENTENCES * 3
    texts = [f"{t} {i}" for i, t in enumerate(many)]  # 9,000 x 50-d vectors: more than the disk holds
    np.testing.assert_array_equal(embed(texts, "glove-mean", cache=cache), WordVectorEmbedder(pooling="mean").encode(texts))
    notices = cache.take_notices()
    assert notices == [f"The cache folder {small_disk / 'cache'} is not used for storing because the disk holding "
                       "it is full: results are computed without being cached. Free space, or set STVIZ_HOME to a "
                       "writable folder."]
    assert _leftovers(small_disk) == []
    # The 80 MB memory-mappable GloVe copy cannot be saved there either: nothing partial is left.
    from stviz.embedders.word_vectors import _save_glove_copy, load_word_vectors

    _save_glove_copy(load_word_vectors("glove-6b-50d"), small_disk / "cache" / "wordvectors" / "glove-6b-50d.kv", cache)
    assert not list((small_disk / "cache" / "wordvectors").glob("*glove*"))
    from stviz.cache import default_cache

    assert default_cache().writable  # only the full disk's cache stops storing, never the process's own


def test_read_only_cache_reads_what_it_has_and_computes_the_rest(small_disk):
    known = embed(SENTENCES[:100], "glove-sum", cache=Cache(small_disk / "cache"))
    Cache(small_disk / "cache").memo("k", 1, lambda: "stored")
    view = small_disk.parent / "read-only"  # the same folder seen through a read-only bind mount
    view.mkdir()
    _mount("--bind", str(small_disk), str(view))
    try:
        _mount("-o", "remount,bind,ro", str(view))
        _read_only_checks(view / "cache", known)
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)


def _read_only_checks(root: Path, known: np.ndarray) -> None:
    cache = Cache(root)
    np.testing.assert_array_equal(embed(SENTENCES[:100], "glove-sum", cache=cache), known)
    assert cache.memo("k", 1, lambda: "recomputed") == "stored"
    fresh = embed(SENTENCES[100:200], "glove-sum", cache=cache)
    np.testing.assert_array_equal(fresh, WordVectorEmbedder().encode(SENTENCES[100:200]))
    assert cache.memo("k", 2, lambda: "computed") == "computed"
    notices = cache.take_notices()
    assert len(notices) == 1 and notices[0].startswith(f"The cache folder {root} is not used for storing because "
                                                       "it is read-only")
    assert _leftovers(root) == []
    with pytest.raises(OSError):  # truly read-only: nothing could have been written
        (root / "probe").write_text("x")


WRITER = """
import sys, numpy as np
sys.path.insert(0, {root!r})
from stviz.cache import Cache
from stviz.embedders import embed
cache = Cache({cache!r})
texts = {texts!r}
print("ready", flush=True)
for round in range(10_000):
    embed([f"{{t}} {{round}}" for t in texts], "glove-sum", cache=cache)
    cache.memo("big", round, lambda: np.random.default_rng(round).normal(size=(300, 300)))
"""


def test_sigkill_during_writes_then_rerun_gives_identical_results(tmp_path):
    texts = SENTENCES[:500]
    child = subprocess.Popen([sys.executable, "-c", WRITER.format(root=str(ROOT), cache=str(tmp_path), texts=texts)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(3)  # several rounds of vector transactions and result files are under way
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    cache = Cache(tmp_path)  # the rerun
    for round in range(3):
        batch = [f"{t} {round}" for t in texts]
        np.testing.assert_array_equal(embed(batch, "glove-sum", cache=cache), WordVectorEmbedder().encode(batch))
        stored = cache.memo("big", round, lambda: None)
        if stored is not None:  # a result written before the kill is whole
            np.testing.assert_array_equal(stored, np.random.default_rng(round).normal(size=(300, 300)))
    assert cache.take_notices() == []  # nothing was damaged
    assert sqlite3.connect(tmp_path / "vectors.sqlite").execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_sessions_meeting_the_damage_at_once_set_it_aside_once(tmp_path):
    cache = Cache(tmp_path)
    first = embed(SENTENCES, "glove-sum", cache=cache)
    _damage_a_page(tmp_path / "vectors.sqlite")
    barrier, results = threading.Barrier(4), []

    def session() -> None:
        barrier.wait()
        results.append(embed(SENTENCES, "glove-sum", cache=cache))

    threads = [threading.Thread(target=session) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(np.array_equal(r, first) for r in results)
    assert len(list(tmp_path.glob("vectors.corrupt-*.sqlite"))) == 1  # the rebuilt database was never set aside
    assert len(cache.take_notices()) == 1
    assert Cache(tmp_path).get_vectors("wv:glove-6b-50d:sum", SENTENCES)[1].size == 0


# -- issue 22: every entry checked on read; clearing says what it clears ---------------------------
from stviz.cache import VECTOR_SCHEMA, vector_checksum  # noqa: E402
from stviz.embedders import parse_embedder, vector_cache_id  # noqa: E402

GLOVE_ID = vector_cache_id(parse_embedder("glove-mean"))


def _checkpoint(db: Path) -> bytes:
    """Move the WAL into the main file (as a closed database is), and return its bytes."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.read_bytes()


def test_overwritten_vector_blob_is_found_deleted_recomputed_and_equal(tmp_path):
    texts = SENTENCES[:300]
    clean = embed(texts, "glove-mean", cache=Cache(tmp_path / "clean"))
    embed(texts, "glove-mean", cache=Cache(tmp_path / "probed"))
    db = tmp_path / "probed" / "vectors.sqlite"
    blob = Cache(tmp_path / "clean").get_vectors(GLOVE_ID, [texts[7]])[0][0].tobytes()
    data = _checkpoint(db)
    at = data.find(blob)
    assert at > 0 and data.find(blob, at + 1) == -1
    with open(db, "r+b") as fh:  # part of one vector's bytes overwritten in the file, as a bad disk or copy does
        fh.seek(at + 40)
        fh.write(b"\x7f" * 24)
    assert sqlite3.connect(db).execute("PRAGMA quick_check").fetchone()[0] == "ok"  # SQLite itself sees nothing
    cache = Cache(tmp_path / "probed")
    _, missing = cache.get_vectors(GLOVE_ID, texts)
    assert missing.tolist() == [7]  # never served
    np.testing.assert_array_equal(embed(texts, "glove-mean", cache=cache), clean)
    (notice,) = cache.take_notices()
    assert notice.startswith(f"1 cached vectors for '{GLOVE_ID}' in {db} failed their checksum")
    later = Cache(tmp_path / "probed")  # a later run: the row was recomputed and stored again
    np.testing.assert_array_equal(embed(texts, "glove-mean", cache=later), clean)
    assert later.get_vectors(GLOVE_ID, texts)[1].size == 0 and later.take_notices() == []


def test_vector_blobs_swapped_between_rows_are_both_refused(tmp_path):
    cache = Cache(tmp_path)
    vectors = np.random.default_rng(1).normal(size=(3, 384)).astype(np.float32)
    cache.put_vectors("emb", ["a", "b", "c"], vectors)
    with sqlite3.connect(tmp_path / "vectors.sqlite") as conn:  # each blob (and its checksum) in the other's row
        rows = {k: r for k, *r in conn.execute("SELECT text_key, checksum, vec FROM vectors")}
        for mine, theirs in ((text_key("a"), text_key("b")), (text_key("b"), text_key("a"))):
            conn.execute("UPDATE vectors SET checksum = ?, vec = ? WHERE text_key = ?", (*rows[theirs], mine))
    reader = Cache(tmp_path)
    got, missing = reader.get_vectors("emb", ["a", "b", "c"])
    assert missing.tolist() == [0, 1]
    np.testing.assert_array_equal(got[2], vectors[2])
    assert len(reader.take_notices()) == 1
    assert reader.get_vectors("emb", ["a", "b"])[1].tolist() == [0, 1] and reader.take_notices() == []  # deleted


def test_vector_rows_written_before_checksums_are_migrated_once(tmp_path):
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    with sqlite3.connect(tmp_path / "vectors.sqlite") as conn:  # the schema stviz wrote before issue 22
        conn.execute("CREATE TABLE vectors (embedder TEXT NOT NULL, text_key BLOB NOT NULL, dim INTEGER NOT NULL,"
                     " vec BLOB NOT NULL, PRIMARY KEY (embedder, text_key)) WITHOUT ROWID")
        conn.executemany("INSERT INTO vectors VALUES (?, ?, ?, ?)",
                         [("emb", text_key(t), 4, v.tobytes()) for t, v in zip("ab", vectors)]
                         + [("emb", text_key("c"), 4, b"\x00" * 5)])  # a truncated row: dropped
    cache = Cache(tmp_path)
    got, missing = cache.get_vectors("emb", ["a", "b", "c"])
    assert missing.tolist() == [2]
    np.testing.assert_array_equal(got[:2], vectors[:2])
    (notice,) = cache.take_notices()
    assert "upgraded to checksummed rows (2 vectors kept" in notice
    conn = sqlite3.connect(tmp_path / "vectors.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == VECTOR_SCHEMA
    key, dim, dtype, checksum, blob = conn.execute(
        "SELECT text_key, dim, dtype, checksum, vec FROM vectors WHERE text_key = ?", (text_key("a"),)).fetchone()
    assert checksum == vector_checksum("emb", key, dim, dtype, blob)
    assert Cache(tmp_path).take_notices() == []  # migrated once


PAIR_SOURCES, PAIR_OUTPUTS = SENTENCES[:60], SENTENCES[60:120]


def _metric_files(root: Path, names: tuple[str, ...]) -> dict[str, Path]:
    """Compute each metric through the real code path, and return the result file each one wrote."""
    from stviz.metrics import compute_metric

    files: dict[str, Path] = {}
    for name in names:
        before = set((root / "results").rglob("*.pkl"))
        compute_metric(name, PAIR_SOURCES, PAIR_OUTPUTS, cache=Cache(root))
        (files[name],) = set((root / "results").rglob("*.pkl")) - before
    return files


def _scores(root: Path, names: tuple[str, ...]) -> tuple[dict[str, np.ndarray], list[str]]:
    from stviz.metrics import compute_metric

    cache = Cache(root)
    values = {name: compute_metric(name, PAIR_SOURCES, PAIR_OUTPUTS, cache=cache) for name in names}
    return values, cache.take_notices()


def test_result_files_swapped_on_disk_are_both_refused_and_recomputed(tmp_path):
    names = ("bleu", "chrf")
    clean, _ = _scores(tmp_path / "clean", names)
    assert not np.array_equal(clean["bleu"], clean["chrf"])
    files = _metric_files(tmp_path / "probed", names)
    bleu, chrf = files["bleu"].read_bytes(), files["chrf"].read_bytes()
    files["bleu"].write_bytes(chrf)  # BLEU's file under chrF's key and the other way round
    files["chrf"].write_bytes(bleu)
    values, notices = _scores(tmp_path / "probed", names)
    for name in names:
        np.testing.assert_array_equal(values[name], clean[name])
    assert len(notices) == 2 and all("was not used: it holds another entry (metric " in n for n in notices)
    values, notices = _scores(tmp_path / "probed", names)  # a later run reads the rewritten entries, silently
    assert notices == [] and all(np.array_equal(values[n], clean[n]) for n in names)


@pytest.mark.parametrize("damage", ["truncated", "one byte changed", "header cut", "another length"])
def test_damaged_result_file_is_refused_said_once_and_recomputed(tmp_path, damage):
    clean, _ = _scores(tmp_path / "clean", ("bleu",))
    path = _metric_files(tmp_path / "probed", ("bleu",))["bleu"]
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "one byte changed":
        path.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
    elif damage == "header cut":
        path.write_bytes(data[:30])
    else:  # the user's case: a result of another length (BLEU of fewer pairs) under this key
        from stviz.metrics import compute_metric

        other = Cache(tmp_path / "other")
        compute_metric("bleu", PAIR_SOURCES[:10], PAIR_OUTPUTS[:10], cache=other)
        (shorter,) = (tmp_path / "other" / "results").rglob("*.pkl")
        path.write_bytes(shorter.read_bytes())
    values, notices = _scores(tmp_path / "probed", ("bleu",))
    np.testing.assert_array_equal(values["bleu"], clean["bleu"])
    assert len(notices) == 1 and notices[0].startswith(f"The cached result {path} was not used")
    for _ in range(2):  # never said again, never an error
        values, notices = _scores(tmp_path / "probed", ("bleu",))
        assert notices == [] and np.array_equal(values["bleu"], clean["bleu"])


def test_result_entry_header_says_what_it_is(tmp_path):
    from stviz.cache import decode_result, encode_result

    value = np.arange(6, dtype=np.float64)
    data = encode_result("metric", "k" * 40, value)
    header = json.loads(data.split(b"\n")[1])
    assert {k: header[k] for k in ("kind", "key", "shape", "dtype", "type")} == {
        "kind": "metric", "key": "k" * 40, "shape": [6], "dtype": "float64", "type": "ndarray"}
    np.testing.assert_array_equal(decode_result(data, "metric", "k" * 40), value)
    with pytest.raises(ValueError, match="another entry"):
        decode_result(data, "projection", "k" * 40)


def test_result_written_by_an_older_stviz_is_recomputed_with_one_notice(tmp_path):
    import pickle

    cache = Cache(tmp_path)
    for p in (1, 2):
        cache.memo("kind", p, lambda: "new")
    for path in (tmp_path / "results" / "kind").glob("*.pkl"):
        path.write_bytes(pickle.dumps("old"))  # a plain pickle, as stviz wrote before headers
    reader = Cache(tmp_path)
    assert [reader.memo("kind", p, lambda: "again") for p in (1, 2)] == ["again", "again"]
    assert reader.take_notices() == ["Cached results written by an older stviz (without checksums) are recomputed "
                                     "once each."]


def _fill_every_area(root: Path) -> None:
    """A cache folder with something in each area, written where stviz's modules write it."""
    cache = Cache(root)
    cache.put_vectors("emb", ["a", "b"], np.ones((2, 8), np.float32))
    cache.memo("metric", 1, lambda: np.arange(10))
    for folder, name in (("onnx/abc", "model.onnx"), ("model2vec/minilm-pca256-v1", "config.json"),
                         ("wordvectors", "glove-6b-50d.kv"), ("numba", "umap_layout.nbi"),
                         ("shards/job1", "part-0.parquet")):
        Cache.write_file(root / folder / name, b"x" * 1000)
    Cache.write_file(root / "uploads" / ("f" * 40) / "data", b"source,output\na,b\n")
    from stviz.metrics.judgments import JudgmentStore

    JudgmentStore(root).put("judge", [(b"k" * 16, 3.0, "3")])  # an LLM judge's per-pair judgments
    from stviz.cache.pair_values import PairValueStore

    PairValueStore(root).put("metric", [b"k" * 16], np.ones(1))  # a metric's per-pair values
    (root / "vectors.corrupt-20250101-000000.sqlite").write_bytes(b"y" * 500)


def test_clear_empties_every_area_but_uploads_and_says_what_it_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    (tmp_path / "corpora" / "cds").mkdir(parents=True)
    (tmp_path / "corpora" / "cds" / "train.txt").write_text("data, not cache")
    root = tmp_path / "cache"
    _fill_every_area(root)
    cache = Cache(root)
    assert all(a.bytes > 0 for a in cache.areas())
    report = cache.clear()
    assert [a.name for a in report.cleared] == ["vectors", "results", "set-aside", "onnx", "model2vec",
                                                 "wordvectors", "numba", "judgments", "pair-values", "shards"]
    assert report.failed == [] and [a.name for a in report.kept] == ["uploads"]
    message = report.message()
    assert message.startswith("Cleared vectors (") and "Kept uploads (18 B: asked for separately)." in message
    left = {p.relative_to(root).as_posix() for p, _ in cache._files()}
    # What is left: the uploads it said it kept, and the emptied vector database other sessions keep open.
    assert {p for p in left if not p.startswith("uploads/")} <= {"vectors.sqlite", "vectors.sqlite-wal",
                                                                  "vectors.sqlite-shm"}
    assert cache.summary()["vectors"] == 0 and cache.get_vectors("emb", ["a"])[1].tolist() == [0]
    assert (tmp_path / "corpora" / "cds" / "train.txt").read_text() == "data, not cache"

    report = cache.clear(["uploads"])
    assert not (root / "uploads").exists() and report.kept == []
    assert report.message() == "Cleared uploads (18 B)."
    with pytest.raises(ValueError, match="unknown cache area corpora: the areas are vectors, results"):
        cache.clear(["corpora"])


def test_files_the_cache_did_not_write_are_listed_and_never_cleared(tmp_path):
    cache = Cache(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    (other,) = [a for a in cache.areas() if a.name == "other"]
    assert other.bytes == 4 and not other.clearable
    assert "Kept other (4 B: not made by the cache)." in cache.clear().message()
    assert (tmp_path / "notes.txt").exists()
    with pytest.raises(ValueError):
        cache.clear(["other"])


def test_cache_info_and_clear_commands_name_every_area(tmp_path, monkeypatch, capsys):
    from stviz.cli import main

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    (tmp_path / "corpora" / "cds").mkdir(parents=True)
    (tmp_path / "corpora" / "cds" / "train.txt").write_text("data, not cache")
    _fill_every_area(tmp_path / "cache")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"cache folder: {tmp_path / 'cache'}")
    for name in ("vectors", "results", "set-aside", "onnx", "model2vec", "wordvectors", "numba", "judgments", "pair-values",
                 "shards", "uploads"):
        assert f"\n{name} " in out
    assert "[cleared only with --uploads]" in out

    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Cleared vectors (") and "Kept uploads (18 B: asked for separately)." in out
    assert (tmp_path / "cache" / "uploads").is_dir() and not (tmp_path / "cache" / "onnx").exists()
    assert main(["cache", "clear", "--uploads"]) == 0
    assert "uploads (18 B)" in capsys.readouterr().out and not (tmp_path / "cache" / "uploads").exists()
    assert (tmp_path / "corpora" / "cds" / "train.txt").exists()
    assert main(["cache", "clear", "--only", "corpora"]) == 2
    assert capsys.readouterr().err.startswith("error: unknown cache area corpora")


def test_kept_upload_is_checked_against_its_name_and_a_damaged_copy_refused_once(tmp_path, monkeypatch):
    from stviz.data.intake.kept_uploads import load_upload, save_upload, uploads_dir
    from stviz.data.intake.mapping import detect_mapping
    from stviz.data.intake.readers import read_pairs_file
    from stviz.data.schema import DataError

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    data = b"source,output,human_score\nthe food was bad,the food was good,4\nrude staff,kind staff,3.5\n"
    frame, _ = read_pairs_file("pairs.csv", data)
    name = save_upload("pairs.csv", data, detect_mapping(frame))
    assert load_upload(name).pairs["output"].tolist() == ["the food was good", "kind staff"]
    kept = uploads_dir() / name.split(":", 1)[1] / "data"
    kept.write_bytes(data.replace(b"4", b"1"))  # one score changed on disk
    with pytest.raises(DataError, match="was damaged .* and was deleted: upload the file again"):
        load_upload(name)
    assert not kept.parent.exists()
    assert save_upload("pairs.csv", data, detect_mapping(frame)) == name  # uploading again restores the link
    assert load_upload(name).pairs["output"].tolist() == ["the food was good", "kind staff"]


def test_clearing_a_read_only_cache_says_what_it_could_not_clear(small_disk):
    _fill_every_area(small_disk / "cache")
    view = small_disk.parent / "read-only"
    view.mkdir()
    _mount("--bind", str(small_disk), str(view))
    try:
        _mount("-o", "remount,bind,ro", str(view))
        report = Cache(view / "cache").clear()
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)
    assert report.failed == ["vectors", "results", "set-aside", "onnx", "model2vec", "wordvectors", "numba",
                             "judgments", "pair-values", "shards"]
    assert report.message().startswith("Cleared nothing. Kept uploads (18 B: asked for separately). Could not "
                                       "clear vectors (")
    assert report.message().endswith(": the cache folder cannot be written.")


def test_per_pair_entries_carry_checksums_and_a_damaged_one_reads_as_missing(tmp_path):
    import sqlite3

    from stviz.cache.pair_values import PairValueStore, pair_key
    from stviz.metrics.judgments import JudgmentStore

    keys = [pair_key("a", "b"), pair_key("c", "d")]
    judgments, values = JudgmentStore(tmp_path), PairValueStore(tmp_path)
    judgments.put("judge", [(keys[0], 4.0, "Score: 4"), (keys[1], float("nan"), "I cannot rate this")])
    values.put("bleu", keys, np.array([12.5, 40.0]))
    got = judgments.get("judge", keys)
    assert got[keys[0]] == (4.0, "Score: 4") and np.isnan(got[keys[1]][0]) and got[keys[1]][1] == "I cannot rate this"
    assert values.get("bleu", keys)[keys[1]].tolist() == [40.0]
    for store in (judgments, values):  # one byte changed on disk in the second row of each store
        with sqlite3.connect(store.path) as conn:
            conn.execute(f"UPDATE {store.table} SET vals = CAST(vals || x'00' AS BLOB) WHERE pair = ?", [keys[1]])
    assert list(judgments.get("judge", keys)) == [keys[0]] and list(values.get("bleu", keys)) == [keys[0]]


def test_a_truncated_per_pair_store_is_set_aside_once_and_rebuilt(tmp_path, caplog):
    from stviz.cache.pair_values import PairValueStore, pair_key, per_pair

    keys = [pair_key(f"s{i}", f"o{i}") for i in range(400)]
    PairValueStore(tmp_path).put("bleu", keys, np.arange(400.0))
    path = tmp_path / "pairvalues.sqlite"
    path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])  # a copy cut short (a full disk, a crash)
    calls = []

    def compute(sources, outputs, progress):
        calls.append(len(sources))
        return np.ones(len(sources))

    with caplog.at_level("WARNING", logger="stviz.cache.pair_values"):
        for _ in range(3):  # every later run reads the rebuilt store: nothing said, nothing recomputed
            assert per_pair("bleu", ["s1", "s2"], ["o1", "o2"], compute, tmp_path).tolist() == [1.0, 1.0]
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "set aside as pairvalues.corrupt-" in said[0], said
    assert calls == [2]
    assert len(list(tmp_path.glob("pairvalues.corrupt-*.sqlite"))) == 1
    from stviz.cache import Cache

    assert "set-aside" in {a.name for a in Cache(tmp_path).areas() if a.bytes}  # listed by `cache info`, clearable


def test_two_damaged_copies_set_aside_in_the_same_second_are_both_kept(tmp_path):
    from stviz.cache.sqlite_files import move_aside

    store = tmp_path / "pairvalues.sqlite"
    kept = []
    for content in (b"first damage", b"second damage"):
        store.write_bytes(content)
        kept.append(move_aside(store))
    assert kept[0] != kept[1] and not store.exists()
    assert kept[0].read_bytes() == b"first damage" and kept[1].read_bytes() == b"second damage"
