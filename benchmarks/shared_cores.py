"""Processes that share the cores: each with every core's threads, or with its share of them.

``make test`` runs one test process per core (pytest-xdist), and ``tests/conftest.py`` gives each process its share
of the cores' threads (OMP/MKL/OpenBLAS = cores // processes). This measures why, in one run: N processes at once
(default: one per core) each embed the same CDS sentences with MiniLM into an empty cache, first with torch's default
threads (every core, so the processes' threads outnumber the cores), then with their share, then one process alone
with every core (the figure a lone process would give up).

    python benchmarks/shared_cores.py [--sentences 3000] [--processes N] [--rounds 2]

Prints each setting's seconds per process (median of the rounds) and the ratios. Needs the CDS corpus imported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ONE_PROCESS = """
import sys, tempfile, time
sys.path.insert(0, {root!r})
import torch
from stviz.cache import Cache
from stviz.data import load_dataset
from stviz.embedders import embed
texts = load_dataset("cds").style_texts()["text"].tolist()[:{sentences}]
embed(texts[:8], "minilm", cache=Cache(tempfile.mkdtemp()))  # the model loaded before the clock starts
start = time.perf_counter()
embed(texts, "minilm", cache=Cache(tempfile.mkdtemp()))
print(torch.get_num_threads(), time.perf_counter() - start)
"""


def run_together(processes: int, sentences: int, threads: int | None) -> list[float]:
    """Seconds each of ``processes`` simultaneous processes took to embed ``sentences`` (threads None: torch's)."""
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.pop(name, None)
        if threads is not None:
            env[name] = str(threads)
    code = ONE_PROCESS.format(root=str(ROOT), sentences=sentences)
    started = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
               for _ in range(processes)]
    seconds = []
    for process in started:
        out, _ = process.communicate()
        if process.returncode:
            raise SystemExit(f"a measuring process failed (exit code {process.returncode})")
        seconds.append(float(out.split()[-1]))
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=3000)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    share = max(1, cores // args.processes)
    settings = {f"{args.processes} at once, torch's threads each": (args.processes, None),
                f"{args.processes} at once, {share} thread(s) each": (args.processes, share),
                "1 alone, torch's threads": (1, None)}
    medians = {}
    print(f"{args.sentences:,} CDS sentences, MiniLM, {cores} cores, {args.rounds} rounds")
    for name, (processes, threads) in settings.items():
        rounds = [statistics.median(run_together(processes, args.sentences, threads)) for _ in range(args.rounds)]
        medians[name] = statistics.median(rounds)
        print(f"{name:40s} {medians[name]:6.1f} s per process  (rounds: {', '.join(f'{r:.1f}' for r in rounds)})")
    default, shared, alone = medians.values()
    print(f"sharing the cores, against torch's threads in every process: {default / shared:.2f}x faster")
    print(f"a process with its share, against one alone with every core: {shared / alone:.2f}x the time")


if __name__ == "__main__":
    main()
