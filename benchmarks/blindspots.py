"""Blind spots on 2,000 pairs, cold: the time with n-gram content measures and with a sentence encoder, and the
share spent damaging against scoring, in one run.

Each configuration runs in a fresh stviz home (nothing cached: no vector, no metric value, no classifier) on the
same seeded sample of SGDD-TST's pairs, every damage that fits English. The style and fluency measures are always
computed (the view tests every axis); only the content measures differ between the two runs.

    python benchmarks/blindspots.py [--pairs 2000] [--corpora ../shared/corpora]

Needs the sgdd-tst corpus folder (imported into each fresh home).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGURATIONS = {"n-gram": "bleu,chrf,rouge1", "sentence encoder": "cosine:minilm"}


def run_once(pairs: int, metrics: str) -> dict:
    """One cold run in this process (STVIZ_HOME set by the caller): seconds in all, damaging and scoring."""
    sys.path.insert(0, str(ROOT))
    from stviz.analyses import blind_spots
    from stviz.data import load_dataset
    from stviz.progress import Reporter

    class Clock(Reporter):
        """Seconds per stage: a stage lasts until the next one starts (or the run ends)."""

        def __init__(self):
            self.stages, self.last = [], time.perf_counter()

        def stage(self, label):
            self.stages.append([label, time.perf_counter()])
            return lambda done, total: None

        def finish(self):
            self.end = time.perf_counter()

    clock = Clock()
    options = blind_spots.Options(metrics=tuple(metrics.split(",")), max_pairs=pairs, bootstrap=1000)
    start = time.perf_counter()
    result = blind_spots.run(load_dataset("sgdd-tst"), options, clock)
    total = time.perf_counter() - start
    ends = [s[1] for s in clock.stages[1:]] + [clock.end]
    damaging = sum(end - began for (label, began), end in zip(clock.stages, ends) if ": damaging " in label)
    return {"seconds": total, "damaging": damaging, "damages": len(result.damages), "rows": len(result.table),
            "pairs": result.n_pairs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--corpora", default=os.environ.get("STVIZ_CORPORA", str(ROOT.parent / "shared" / "corpora")))
    parser.add_argument("--one", metavar="METRICS", help=argparse.SUPPRESS)  # a child run in its own fresh home
    args = parser.parse_args()
    if args.one:
        found = run_once(args.pairs, args.one)
        print(" ".join(f"{k}={v}" for k, v in found.items()))
        return 0
    for name, metrics in CONFIGURATIONS.items():
        home = Path(tempfile.mkdtemp(prefix="stviz-bench-"))
        corpora = home / "import"
        shutil.copytree(Path(args.corpora) / "sgdd-tst", corpora / "sgdd-tst")
        env = {**os.environ, "STVIZ_HOME": str(home), "STVIZ_WARMUP": "0", "STVIZ_WARM_RESULTS": "0"}
        subprocess.run([sys.executable, "-m", "stviz", "data", "import", str(corpora)], env=env, cwd=ROOT, check=True,
                       capture_output=True)
        done = subprocess.run([sys.executable, __file__, "--pairs", str(args.pairs), "--one", metrics], env=env,
                              cwd=ROOT, check=True, capture_output=True, text=True)
        found = dict(part.split("=") for part in done.stdout.split())
        seconds, damaging = float(found["seconds"]), float(found["damaging"])
        print(f"{name:16s} ({metrics}): {found['pairs']} pairs, {found['damages']} damages, {found['rows']} cells, "
              f"cold {seconds:.1f} s; damaging {damaging:.1f} s ({100 * damaging / seconds:.0f}%), scoring "
              f"{seconds - damaging:.1f} s ({100 * (seconds - damaging) / seconds:.0f}%)")
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
