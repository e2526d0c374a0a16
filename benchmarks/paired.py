"""A board's paired tests: each system's resampled statistics made once and shared by its pairs, against each pair
tested alone (the code before), on a board like the 15-system upload's: 15 systems x 1,000 inputs, BLEU's 10
statistics and a mean metric, 1,000 resamples and shuffles. Both compute into a fresh cache (the board writes its
per-pair entries, as a user's first board does). Prints each run and the ratio of the medians.

    python benchmarks/paired.py [--systems 15] [--inputs 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np
import pandas as pd


def board(n_systems: int, n_inputs: int, seed: int = 0):
    """A SystemScores of random BLEU statistics and mean-metric values, every system on every input."""
    from stviz import systems as S

    rng = np.random.default_rng(seed)
    names = [f"system {j}" for j in range(n_systems)]
    frame = pd.DataFrame([{"system": s, "item": f"{i:05d}", "direction": "x"} for s in names for i in range(n_inputs)])
    bleu = {s: np.column_stack([rng.integers(5, 20, (n_inputs, 2)), rng.integers(0, 5, (n_inputs, 8))]).astype(float)
            for s in names}
    mean = {s: S.mean_stats(rng.random(n_inputs)) for s in names}
    return S.SystemScores(frame, {"bleu": bleu, "cosine": mean})


def each_pair_alone(scores, n_resamples: int) -> None:
    """Every pair's two tests, each drawing its own products (the computation before sharing)."""
    from stviz import significance as T

    names = scores.systems
    for metric, per_system in scores.stats.items():
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                T.paired_bootstrap_p(metric, per_system[a], per_system[b], n_resamples)
                T.randomization_p(metric, per_system[a], per_system[b], n_resamples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=15)
    parser.add_argument("--inputs", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ["STVIZ_HOME"] = tempfile.mkdtemp(prefix="stviz-paired-")
    from stviz import significance as T
    from stviz.cache import default_cache

    scores = board(args.systems, args.inputs)
    pairs = args.systems * (args.systems - 1) // 2 * len(scores.stats)
    T.paired_tests(board(3, args.inputs, seed=1), n_resamples=1000)  # imports and the shared draws, untimed
    shared, alone = [], []
    for run in range(args.runs):
        default_cache().clear()
        started = time.perf_counter()
        T.paired_tests(scores, n_resamples=1000)
        shared.append(time.perf_counter() - started)
        started = time.perf_counter()
        each_pair_alone(scores, 1000)
        alone.append(time.perf_counter() - started)
        print(f"run {run + 1}: board {shared[-1]:.2f} s, each pair alone {alone[-1]:.2f} s", flush=True)
    print(f"{pairs} pair tests: board median {statistics.median(shared):.2f} s, each pair alone "
          f"{statistics.median(alone):.2f} s: {statistics.median(alone) / statistics.median(shared):.1f}x")


if __name__ == "__main__":
    main()
