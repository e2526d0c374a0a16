"""LLM-judge call rate against the local stub server of the tests (tests/llm_stub.py): what stviz adds per call,
and whether a run takes calls x latency / concurrency, the estimate the cost box shows.

    python benchmarks/llm_judge.py [--pairs 400] [--latency 0.1]

The stub answers at once or after a fixed sleep (a stand-in for a model's latency), on 127.0.0.1: these are
stviz's own overheads and its concurrency, not any real model's speed. Each run uses a fresh temporary cache.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def timed_run(pairs: int, latency: float, concurrency: int) -> tuple[float, float]:
    """(seconds for ``pairs`` fresh pairs, the estimate from 3 timed calls) at this latency and concurrency."""
    from llm_stub import StubLLM
    from stviz.cache import Cache
    from stviz.metrics import compute_metric, llm

    sources = [f"source sentence number {i} ." for i in range(pairs)]
    outputs = [f"output sentence number {i} !" for i in range(pairs)]
    with StubLLM(latency=latency) as stub, tempfile.TemporaryDirectory() as folder:
        llm.configure(url=stub.url, concurrency=concurrency)
        llm._latency.clear()
        plan = llm.plan("llm:stub-judge", sources, outputs, cache=Cache(folder))
        start = time.perf_counter()
        compute_metric("llm:stub-judge", sources, outputs, cache=Cache(folder))
        took = time.perf_counter() - start
        llm.reset()
    return took, plan.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.1, help="the stub's sleep per call, in seconds")
    args = parser.parse_args()
    print(f"{args.pairs} pairs per run; stub on 127.0.0.1 (not a model)")
    print("latency  concurrency  run (s)  calls/s  s per call  estimate (s)  per 1,000 pairs (s)")
    for latency, concurrency in ((0.0, 1), (0.0, 4), (args.latency, 1), (args.latency, 4), (args.latency, 8)):
        took, estimate = timed_run(args.pairs, latency, concurrency)
        rate = args.pairs / took
        print(f"{latency:7.3f}  {concurrency:11d}  {took:7.2f}  {rate:7.1f}  {took / args.pairs * concurrency:10.4f}  "
              f"{estimate:12.2f}  {1000 / rate:19.1f}")


if __name__ == "__main__":
    main()
