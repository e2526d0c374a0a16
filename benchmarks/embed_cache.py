"""Embedding through stviz's cache vs directly, on the 11,000 CDS sentences with MiniLM.

Prints, from one run:
* cold / warm: the same texts embedded through ``stviz.embedders.embed`` with an empty cache, then
  again in a fresh process-like state (a new Cache object reading the same folder);
* pipeline / direct: the cold pipeline's throughput against sentence-transformers' own
  ``encode`` on the same texts and model in the same process (aim: >= 0.9x).

Usage: python benchmarks/embed_cache.py [--limit N]   (needs the CDS corpus imported)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stviz.cache import Cache  # noqa: E402
from stviz.data import load_dataset  # noqa: E402
from stviz.embedders import batch_size_for, embed, select_device, shipped_minilm_path  # noqa: E402

WARM_IN_NEW_PROCESS = """
import sys, time
sys.path.insert(0, {root!r})
from stviz.cache import Cache
from stviz.data import load_dataset
from stviz.embedders import embed
texts = load_dataset("cds").texts["text"].tolist()[:{limit}]
start = time.perf_counter()
embed(texts, "minilm", cache=Cache({cache!r}))
print(time.perf_counter() - start)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=11000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    texts = load_dataset("cds").texts["text"].tolist()[: args.limit]
    device = select_device()
    print(f"{len(texts):,} CDS sentences, MiniLM-L6, device {device}, batch {batch_size_for(device)}")

    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(shipped_minilm_path()), device=device)
    model.encode(texts[:64])  # warm-up, so neither side pays for first-call set-up
    # Direct and cold runs alternate, ROUNDS times each, and the best of each is kept: on a shared
    # machine the load drifts, and alternating exposes both sides to the same drift.
    direct = cold = float("inf")
    for _ in range(args.rounds):
        start = time.perf_counter()
        model.encode(texts, batch_size=batch_size_for(device), show_progress_bar=False)
        direct = min(direct, time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            embed(texts, "minilm", cache=Cache(folder))
            cold = min(cold, time.perf_counter() - start)
            start = time.perf_counter()
            embed(texts, "minilm", cache=Cache(folder))
            warm = time.perf_counter() - start
            code = WARM_IN_NEW_PROCESS.format(root=str(Path(__file__).resolve().parents[1]), limit=args.limit,
                                              cache=folder)
            warm_process = float(subprocess.check_output([sys.executable, "-c", code], text=True).strip().splitlines()[-1])

    print(f"direct sentence-transformers encode: {direct:8.2f} s  ({len(texts) / direct:,.0f} sentences/s)")
    print(f"stviz cold (empty cache):            {cold:8.2f} s  ({len(texts) / cold:,.0f} sentences/s)")
    print(f"stviz warm (same process):           {warm:8.3f} s")
    print(f"stviz warm (new process, from disk): {warm_process:8.3f} s")
    print(f"ratio cold / warm (new process):     {cold / warm_process:8.1f}x   (aim >= 20x)")
    print(f"ratio pipeline / direct throughput:  {direct / cold:8.2f}x   (aim >= 0.9x)")


if __name__ == "__main__":
    main()
