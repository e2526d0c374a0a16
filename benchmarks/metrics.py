"""Pairs per second for every content metric on all SGDD-TST pairs, uncached vs cached, and the
count-based bootstrap against explicit resampling, and the Metrics-vs-humans correlation table
(bootstrap CIs for many metrics) uncached at 1,000 / 200 resamples against a disk-cache hit.

    python benchmarks/metrics.py [--pairs N] [--skip-bertscore] [--tables-only]

Uncached runs use a fresh, temporary cache (so embeddings are recomputed too); the cached run
reads the same cache again, as a second page load or CLI run would. Needs the sgdd-tst corpus
under $STVIZ_HOME/corpora (python -m stviz data import ../shared/corpora).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stviz.cache import Cache  # noqa: E402
from stviz.cli.common import progress_printer  # noqa: E402
from stviz.data import load_dataset  # noqa: E402
from stviz.meta import bootstrap_replicates, cached_correlation_table  # noqa: E402
from stviz.metrics import AUTHORS_NE_COLUMNS, NE_SUFFIX, compute_metric, get_card, metric_frame  # noqa: E402
from stviz.metrics.wordnet import load_wordnet  # noqa: E402

METRICS = ["bleu", "chrf", "chrf++", "rouge1", "rouge2", "rouge3", "rougeL", "meteor", "wmd", "cosine:glove-mean",
           "cosine:minilm", "ne", "bertscore"]


def time_metric(name: str, sources, outputs, cache: Cache) -> tuple[float, float]:
    """(uncached seconds, cached seconds) for one metric."""
    start = time.perf_counter()
    first = compute_metric(name, sources, outputs, cache=cache, progress=progress_printer(f"  {name}"))
    cold = time.perf_counter() - start
    start = time.perf_counter()
    second = compute_metric(name, sources, outputs, cache=cache)
    warm = time.perf_counter() - start
    assert np.array_equal(first, second, equal_nan=True)
    return cold, warm


def bench_bootstrap(x, y, n_boot: int = 200) -> None:
    """Count-based (vectorised) bootstrap against resampling and re-ranking explicitly."""
    for method, fn in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        start = time.perf_counter()
        bootstrap_replicates(x, y, method, n_boot)
        fast = time.perf_counter() - start
        rng = np.random.default_rng(0)
        start = time.perf_counter()
        for _ in range(n_boot):
            idx = rng.integers(0, len(x), len(x))
            fn(x[idx], y[idx])
        naive = time.perf_counter() - start
        print(f"bootstrap {method:8s} {n_boot} resamples: vectorised {fast:6.2f} s, explicit {naive:6.2f} s, "
              f"ratio {naive / fast:5.1f}x")


def bench_correlation_table(pairs) -> None:
    """The page's correlation table on the file's own metric columns and their NE merges (authors'
    NE columns, so nothing but the bootstrap is timed): uncached at 1,000 and 200 resamples, then cached."""
    columns = [c for c in pairs.columns if c.startswith("metric:") and c not in AUTHORS_NE_COLUMNS]
    names = columns + [c + NE_SUFFIX for c in columns]
    frame = metric_frame(pairs, names, ne_source="columns").assign(human=pairs["human:average"].to_numpy())
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp) / "cache")
        times = {}
        for n_boot in (1000, 200, 200):
            start = time.perf_counter()
            cached_correlation_table(frame, names, ["human"], ["pearson", "spearman"], n_boot=n_boot, cache=cache)
            times.setdefault(n_boot, []).append(time.perf_counter() - start)
    cold_1000, (cold_200, warm_200) = times[1000][0], times[200]
    print(f"correlation table, {len(names)} metrics x pearson+spearman on {len(pairs):,} pairs: "
          f"1000 resamples {cold_1000:.1f} s, 200 resamples {cold_200:.1f} s ({cold_1000 / cold_200:.1f}x faster), "
          f"cached {warm_200:.3f} s ({cold_1000 / warm_200:.0f}x faster than 1000 uncached)")


def bench_stemming(sources, outputs) -> None:
    """ROUGE-1, -2, -L and METEOR with the libraries' own Porter stemmer (every word stemmed on every
    call) against stviz's (each word's stem remembered); the scores' equality is checked too."""
    from nltk.translate.meteor_score import meteor_score
    from rouge_score import rouge_scorer

    from stviz.embedders import tokenize
    from stviz.metrics.content import meteor, rouge

    wordnet, _ = load_wordnet()
    types = ("rouge1", "rouge2", "rougeL")
    libraries = {
        "ROUGE-1/2/L": lambda: [[rouge_scorer.RougeScorer([t], use_stemmer=True).score(s, o)[t].fmeasure
                                 for s, o in zip(sources, outputs)] for t in types],
        "METEOR": lambda: [[meteor_score([tokenize(s, lowercase=False)], tokenize(o, lowercase=False), wordnet=wordnet)
                            for s, o in zip(sources, outputs)]],
    }
    ours = {"ROUGE-1/2/L": lambda: [rouge(sources, outputs, rouge_type=t) for t in types],
            "METEOR": lambda: [meteor(sources, outputs)]}
    for name, library in libraries.items():
        start = time.perf_counter()
        expected = library()
        library_s = time.perf_counter() - start
        start = time.perf_counter()
        got = ours[name]()
        ours_s = time.perf_counter() - start
        same = all(np.array_equal(a, b) for a, b in zip(got, expected))
        print(f"{name} on {len(sources):,} pairs: the library's stemmer {library_s:.1f} s, each stem remembered "
              f"{ours_s:.1f} s ({library_s / ours_s:.1f}x faster), identical scores: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=None, help="use the first N pairs (default: all 10,287)")
    parser.add_argument("--skip-bertscore", action="store_true", help="leave out BERTScore (the slow one on CPU)")
    parser.add_argument("--tables-only", action="store_true", help="only time the correlation table")
    args = parser.parse_args()
    pairs = load_dataset("sgdd-tst").pairs
    if args.pairs:
        pairs = pairs.iloc[: args.pairs]
    bench_correlation_table(pairs)
    if args.tables_only:
        return
    sources, outputs = pairs["source"].tolist(), pairs["output"].tolist()
    load_wordnet()  # one-off WordNet load (a few seconds) is not METEOR's per-pair cost
    bench_stemming(sources, outputs)
    names = [m for m in METRICS if not (args.skip_bertscore and m == "bertscore")]
    print(f"{len(pairs):,} SGDD-TST pairs, {len(names)} metrics, fresh cache (models loaded on first use)")
    print(f"{'metric':22s} {'uncached s':>10s} {'pairs/s':>10s} {'cached s':>9s} {'cached/uncached speed-up':>26s}")
    total_cold = total_warm = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp) / "cache")
        for name in names:
            cold, warm = time_metric(name, sources, outputs, cache)
            total_cold, total_warm = total_cold + cold, total_warm + warm
            label = get_card(name).label
            print(f"{name:22s} {cold:10.2f} {len(pairs) / cold:10.0f} {warm:9.3f} {cold / warm:25.0f}x   ({label})")
    print(f"{'all metrics':22s} {total_cold:10.1f} {len(pairs) * len(names) / total_cold:10.0f} {total_warm:9.2f} "
          f"{total_cold / total_warm:25.0f}x")
    human = pairs["human:average"].to_numpy(float)
    bench_bootstrap(compute_metric("chrf", sources, outputs), human)


if __name__ == "__main__":
    main()
