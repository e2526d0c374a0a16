"""The Ray engine against the local one, and what 10 million sentences would take on N GPUs.

Measured, from one run, on CDS sentences embedded with MiniLM into fresh caches:

* local engine: ``stviz.embedders.embed`` in this process (torch uses every core);
* Ray engine with 1 and with 2 workers (one CPU and one torch thread each), on a Ray started here
  with as many CPUs as the machine has: wall time of the whole job (actor start-up included) and the
  steady rate once the first block is back;
* the driver's merge rate: vectors written into the SQLite store per second (serial, on the driver).

Then a projection, not a measurement, for ``--sentences`` texts: per-block cost x blocks / workers,
with each block's cost taken from the measured 1-worker rate (CPU workers) or from ``--gpu-rate``
(sentences per second one GPU embeds; an assumption stated in the output), bounded below by the
driver's measured merge rate when vectors come back to the cache (the per-style-sums path returns
none). Data moved is computed from the measured mean text size and the vector size.

Usage: python benchmarks/scale.py [--limit 2000] [--batch-size 250] [--gpus 1,2,4,8,16,32]
(needs Ray: pip install -r requirements-ray.txt, and the CDS corpus imported)
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from stviz import engine  # noqa: E402
from stviz.cache import Cache  # noqa: E402
from stviz.data import load_dataset  # noqa: E402
from stviz.embedders import embed  # noqa: E402
from stviz.progress import format_seconds  # noqa: E402

#: stviz's MiniLM on one H200 in fp32, tokenizing included, measured by benchmarks/gpu.py (docs/benchmarks.md).
from stviz.costs import GPU_TRANSFORMER_SENTENCES_PER_SECOND as MEASURED_GPU_RATE  # noqa: E402


class Arrivals:
    """A progress callback that records when each block's results arrive."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.times: list[tuple[float, int]] = []

    def __call__(self, done: int, total: int) -> None:
        self.times.append((time.perf_counter() - self.start, done))

    def steady_rate(self) -> float:
        """Texts per second from the first block's arrival to the last (actor start-up left out)."""
        points = [(t, d) for t, d in self.times if d > 0]
        (t0, d0), (t1, d1) = points[0], points[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 else float("nan")


def run_engine(texts: list[str], chosen: engine.Engine) -> tuple[float, float, np.ndarray]:
    """(wall seconds, steady texts/s, vectors) embedding ``texts`` into a fresh cache with ``chosen``."""
    with tempfile.TemporaryDirectory() as folder, engine.use(chosen):
        arrivals = Arrivals()
        vectors = embed(texts, "minilm", cache=Cache(folder), progress=arrivals)
        wall = time.perf_counter() - arrivals.start
    return wall, arrivals.steady_rate(), vectors


def merge_rate(texts: list[str], vectors: np.ndarray) -> float:
    """Vectors per second the driver writes into a fresh SQLite store (what every Ray block costs it)."""
    with tempfile.TemporaryDirectory() as folder:
        cache = Cache(folder)
        start = time.perf_counter()
        for i in range(0, len(texts), 250):
            cache.put_vectors("bench", texts[i:i + 250], vectors[i:i + 250])
        return len(texts) / (time.perf_counter() - start)


def gigabytes(n: float) -> str:
    """Bytes as GB with one decimal."""
    return f"{n / 1e9:.1f} GB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=2000, help="CDS sentences to embed in each run")
    parser.add_argument("--batch-size", type=int, default=250, help="texts per Ray block")
    parser.add_argument("--sentences", type=int, default=10_000_000, help="corpus size of the projection")
    parser.add_argument("--gpus", default="1,2,4,8,16,32", help="GPU counts of the projection")
    parser.add_argument("--gpu-rate", type=float, default=MEASURED_GPU_RATE,
                        help="sentences/s of one GPU embedding with MiniLM (default: measured on an H200 by "
                             "benchmarks/gpu.py)")
    parser.add_argument("--startup", type=float, default=None,
                        help="actor start-up seconds in the projection (default: as measured here with 2 workers)")
    args = parser.parse_args()

    import ray

    corpus = load_dataset("cds").texts["text"].tolist()
    texts = corpus[:: max(1, len(corpus) // args.limit)][: args.limit]  # every style, evenly
    cores = os.cpu_count() or 1
    print(f"{len(texts):,} CDS sentences (evenly spaced over the 11 styles), MiniLM-L6 on the CPU, {cores} cores, blocks of {args.batch_size}")
    ray.init(address="local", num_cpus=cores, object_store_memory=200 * 2**20, include_dashboard=False,
             log_to_driver=False, logging_level=logging.WARNING)

    runs = {}
    local_wall, local_rate, reference = run_engine(texts, engine.Engine("local"))
    runs["local engine (this process, all cores)"] = (local_wall, local_rate)
    for workers in (1, 2):
        wall, rate, vectors = run_engine(texts, engine.Engine("ray", workers=workers, batch_size=args.batch_size))
        runs[f"Ray, {workers} worker{'s' * (workers > 1)} (1 CPU each)"] = (wall, rate)
        worst = float(np.abs(vectors - reference).max())
        print(f"  Ray with {workers} worker(s): largest difference from the local vectors {worst:.1e}")
    ray.shutdown()

    print("\n| engine | wall time (start-up included) | sentences/s overall | steady sentences/s | vs local |")
    print("|---|---|---|---|---|")
    for name, (wall, rate) in runs.items():
        print(f"| {name} | {wall:.1f} s | {len(texts) / wall:,.0f} | {rate:,.0f} | {local_wall / wall:.2f}x |")
    one = runs["Ray, 1 worker (1 CPU each)"]
    two = runs["Ray, 2 workers (1 CPU each)"]
    print(f"\n2 workers / 1 worker: {one[0] / two[0]:.2f}x wall, {two[1] / one[1]:.2f}x steady rate")

    merged = merge_rate(texts, reference)
    text_bytes = float(np.mean([len(t.encode("utf-8")) for t in texts]))
    dim = reference.shape[1]
    startup = args.startup if args.startup is not None else max(two[0] - len(texts) / two[1], 0.0)
    cpu_block = args.batch_size / one[1]
    n, blocks = args.sentences, -(-args.sentences // args.batch_size)
    print(f"\nDriver merge into SQLite: {merged:,.0f} vectors/s. Mean text {text_bytes:.0f} bytes; "
          f"vectors {dim} x float32. Measured block cost on one CPU worker: {cpu_block:.2f} s "
          f"({args.batch_size} texts).")
    print(f"\nProjection for {n:,} sentences ({blocks:,} blocks of {args.batch_size}), not measured. Assumptions: "
          f"each GPU embeds {args.gpu_rate:,.0f} sentences/s (MiniLM-L6; measured on an H200 unless "
          f"--gpu-rate says otherwise), blocks spread evenly, start-up {startup:.0f} s as measured here, "
          f"the driver merges vectors serially at the rate measured here while the cluster works, no node fails.")
    print(f"Data moved: texts to the cluster {gigabytes(n * text_bytes)}; vectors back {gigabytes(n * dim * 4)} "
          f"(embed / cached vectors); per-style sums back {gigabytes(blocks * 11 * dim * 8)} "
          "(11 styles, float64; no vectors).\n")
    print("| workers | embed, vectors cached | style matrix from per-style sums |")
    print("|---|---|---|")
    merge_time = n / merged
    for label, count, block in ([(f"{c} CPU worker{'s' * (c > 1)}", c, cpu_block) for c in (16, 64)]
                                + [(f"{g} GPU{'s' * (g > 1)}", g, args.batch_size / args.gpu_rate)
                                   for g in map(int, args.gpus.split(","))]):
        compute = startup + -(-blocks // count) * block
        print(f"| {label} | {format_seconds(max(compute, merge_time + startup))} | {format_seconds(compute)} |")
    print(f"\n(The driver's merge alone takes {format_seconds(merge_time)}: beyond the GPU count where compute is "
          "shorter, more GPUs do not speed up a run that caches its vectors.)")


if __name__ == "__main__":
    main()
