"""The leaderboard's resampling statistics, vectorised against the loops they replaced, in one run.

* corpus BLEU and chrF of every bootstrap resample: ``stviz.bleu_stats.corpus_scores`` (one numpy pass) against
  sacrebleu's ``_compute_score_from_stats`` called row by row (what stviz did before);
* the system-level Pearson interval: one ``scipy.stats.pearsonr(..., axis=0)`` call against one call per replicate.

    .venv/bin/python benchmarks/corpus_scores.py [--rows 20000] [--systems 8] [--replicates 1000]

Prints each pair of timings, their ratio and the largest difference between the two answers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats as scipy_stats

from stviz.bleu_stats import corpus_scores
from stviz.systems import _replicate_pearson, _sacrebleu


def summed_stats(kind: str, rows: int, seed: int = 0) -> np.ndarray:
    """Realistic summed statistics: 100 sentences' worth of n-gram counts per row."""
    rng = np.random.default_rng(seed)
    if kind == "bleu":
        total = rng.integers(800, 1200, size=(rows, 4)) - np.arange(4) * 100
        correct = (total * rng.uniform(0.05, 0.6, size=(rows, 1)) * 0.8 ** np.arange(4)).astype(int)
        return np.column_stack([total[:, 0], total[:, 0] + rng.integers(-100, 100, rows), correct, total]).astype(float)
    hyp = rng.integers(3000, 5000, size=(rows, 6))
    ref = hyp + rng.integers(-300, 300, size=(rows, 6))
    match = (np.minimum(hyp, ref) * rng.uniform(0.3, 0.9, size=(rows, 1))).astype(int)
    return np.stack([hyp, ref, match], axis=2).reshape(rows, 18).astype(float)


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--replicates", type=int, default=1_000)
    args = parser.parse_args()
    for kind in ("bleu", "chrf"):
        scorer, rows = _sacrebleu(kind, True), summed_stats(kind, args.rows)
        fast, t_fast = timed(corpus_scores, scorer, rows)
        slow, t_slow = timed(lambda: np.array([scorer._compute_score_from_stats(list(r)).score for r in rows]))
        print(f"{kind}: {args.rows:,} resamples, sacrebleu row by row {t_slow:.3f} s, vectorised {t_fast:.4f} s, "
              f"speed-up {t_slow / t_fast:.0f}x, largest difference {np.max(np.abs(fast - slow)):.2e}")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(args.systems, args.replicates))
    y = x + rng.normal(size=x.shape)
    fast, t_fast = timed(_replicate_pearson, x, y)
    slow, t_slow = timed(lambda: np.array([scipy_stats.pearsonr(x[:, b], y[:, b])[0] for b in range(x.shape[1])]))
    print(f"pearson: {args.replicates:,} replicates of {args.systems} systems, one call per replicate {t_slow:.3f} s, "
          f"one call {t_fast:.4f} s, speed-up {t_slow / t_fast:.0f}x, largest difference {np.max(np.abs(fast - slow)):.2e}")


if __name__ == "__main__":
    main()
