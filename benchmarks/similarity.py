"""Benchmark: exact-fast style-similarity matrix vs brute force, and each 2-D reduction, on CDS.

    .venv/bin/python benchmarks/similarity.py [--embedders glove-sum minilm] [--methods pca umap tsne]

On the 11,000 CDS sentences: the O(n d) matrix (dot products of per-style sums of unit vectors)
against the paper's procedure done literally (every pairwise cosine, formed blockwise so memory
stays at 2,048 x 11,000 floats), both self-pair rules, with the largest difference; the
permutation test and bootstrap; then t-SNE, UMAP (first call in the process includes numba
compilation) and PCA on unit-normalised MiniLM vectors, uncached and then read from the cache.
Prints measured ratios from this one run; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stviz.cache import Cache  # noqa: E402
from stviz.data import load_dataset  # noqa: E402
from stviz.data.schema import DataError  # noqa: E402
from stviz.embedders import embed  # noqa: E402
from stviz.reduce import project  # noqa: E402
from stviz.similarity import (bootstrap_intervals, brute_force_similarity_matrix, permutation_test,  # noqa: E402
                              similarity_matrix)


def cds_texts():
    """The CDS sentences, importing the corpus from ../shared/corpora (or $STVIZ_CORPORA) if needed."""
    try:
        return load_dataset("cds").style_texts()
    except DataError:
        from stviz.data.corpora.sources import import_folder

        folder = os.environ.get("STVIZ_CORPORA", str(Path(__file__).resolve().parents[2] / "shared" / "corpora"))
        print(f"importing CDS from {folder}", flush=True)
        import_folder(folder, ["cds"])
        return load_dataset("cds").style_texts()


def timed(fn, repeat: int = 1):
    """(result, best wall-clock seconds over ``repeat`` runs)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return result, best


def bench_matrix(vectors, styles, label: str) -> None:
    """Fast vs brute force, both self-pair rules."""
    for include_self in (False, True):
        fast, t_fast = timed(lambda: similarity_matrix(vectors, styles, include_self), repeat=5)
        slow, t_slow = timed(lambda: brute_force_similarity_matrix(vectors, styles, include_self))
        diff = float(np.abs(fast.to_numpy() - slow.to_numpy()).max())
        rule = "self-pairs included" if include_self else "self-pairs excluded"
        print(f"  {label:10s} {rule:20s} fast {t_fast * 1000:8.1f} ms | brute force {t_slow:6.2f} s | "
              f"ratio {t_slow / t_fast:7.0f}x | max |diff| {diff:.1e}", flush=True)


def bench_tests(vectors, styles, label: str) -> None:
    """Permutation test (999 shuffles) and bootstrap (200 resamples)."""
    _, t_perm = timed(lambda: permutation_test(vectors, styles, n_permutations=999))
    _, t_boot = timed(lambda: bootstrap_intervals(vectors, styles, n_bootstrap=200))
    print(f"  {label:10s} permutation test 999 shuffles {t_perm:6.2f} s | bootstrap 200 resamples {t_boot:6.2f} s",
          flush=True)


def bench_reductions(vectors, styles, methods) -> None:
    """Each reduction uncached (fresh cache folder), then the cached read."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(tmp)
        for method in methods:
            proj, t_cold = timed(lambda: project(vectors, method, strata=styles, cache=cache))
            _, t_warm = timed(lambda: project(vectors, method, strata=styles, cache=cache), repeat=3)
            extra = ""
            if method == "umap":  # numba compiles on the first call in a process; a second fit shows the rest
                _, t_again = timed(lambda: project(vectors, method, seed=1, strata=styles, cache=cache))
                extra = f" | second fit (compiled) {t_again:6.1f} s"
            print(f"  {method:5s} {len(proj.rows):,} points: {t_cold:7.2f} s uncached | {t_warm * 1000:7.1f} ms cached "
                  f"| ratio {t_cold / t_warm:8.0f}x{extra}", flush=True)


def main() -> None:
    """Run every measurement once and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", nargs="+", default=["glove-sum", "minilm"])
    parser.add_argument("--methods", nargs="+", default=["pca", "umap", "tsne"])
    parser.add_argument("--map-embedder", default="minilm")
    args = parser.parse_args()

    texts = cds_texts()
    styles = texts["style"].tolist()
    print(f"CDS: {len(texts):,} sentences, {len(set(styles))} styles; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    vectors = {}
    for spec in dict.fromkeys(args.embedders + [args.map_embedder]):
        vectors[spec], t_embed = timed(lambda: embed(texts["text"].tolist(), spec))
        print(f"embedding with {spec}: {vectors[spec].shape}, {t_embed:.1f} s (disk cache)", flush=True)
    print("style x style matrix (11 x 11):")
    for spec in args.embedders:
        bench_matrix(vectors[spec], styles, spec)
    print("uncertainty:")
    for spec in args.embedders:
        bench_tests(vectors[spec], styles, spec)
    print(f"reductions of {args.map_embedder} vectors:")
    bench_reductions(vectors[args.map_embedder], styles, args.methods)


if __name__ == "__main__":
    main()
