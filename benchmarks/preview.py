"""Time to a first answer with a sampled preview, against the full cold run, and whether the preview's ranking
agrees with the full result's top 3 across 20 seeds.

For each view (Metrics vs humans on SGDD-TST, Leaderboard on li2018-yelp, Style similarity on CDS) in one
process: in a fresh STVIZ_HOME (corpora imported, empty cache) the preview, then the full run after it; in
another fresh STVIZ_HOME the full run alone (the cold time the preview is compared with). The preview is
timed as in the dashboard: after the server's warm-up (stviz.warmup, timed on its own line) has loaded the
default models, which a server does while the researcher is still on the Home page. Then, with the full
run cached, 20 seeded previews: how many give the full result's top-3 order (and the same top-3 set).

    .venv/bin/python benchmarks/preview.py [--views mvh,board,sim] [--seeds 20] [--corpora /work/shared/corpora]

Ratios matter, not seconds: the machine may be shared. Prints one line per measurement.
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
VIEWS = {"mvh": ("metrics_vs_humans", "sgdd-tst"), "board": ("leaderboard", "li2018-yelp"), "sim": ("similarity", "cds")}


def fresh_home(corpora: str) -> str:
    """A temporary STVIZ_HOME with the corpora imported and an empty cache."""
    home = tempfile.mkdtemp(prefix="stviz-preview-bench-")
    subprocess.run([sys.executable, "-m", "stviz", "data", "import", corpora], cwd=ROOT, check=True,
                   env={**os.environ, "STVIZ_HOME": home}, capture_output=True)
    return home


def top3(analysis, result, dataset):
    """The first three of a result's ranking (metrics, systems or styles)."""
    from stviz.analyses.preview_rankings import ranking

    found = ranking(analysis, result, dataset, stability=False)
    return found.order[:3] if found else []


def step(key: str, what: str, seeds: int) -> None:
    """One measurement in this process (STVIZ_HOME set by the caller): 'cold' = the full run alone; 'preview' = the
    preview, then the full run, then the seeded previews against the full top 3."""
    import importlib

    from stviz.analyses.preview import preview_dataset, preview_options
    from stviz.analyses.preview_rankings import ranking
    from stviz.data import load_dataset

    name, dataset_name = VIEWS[key]
    analysis = importlib.import_module(f"stviz.analyses.{name}")
    dataset, options = load_dataset(dataset_name), analysis.Options()
    if what == "cold":
        start = time.perf_counter()
        analysis.run(dataset, options)
        print(f"COLD {time.perf_counter() - start:.1f}")
        return
    from stviz.warmup import warm_up

    start = time.perf_counter()
    warm_up()  # what the dashboard server does in the background when it starts, before any view is opened
    print(f"WARMUP {time.perf_counter() - start:.1f}", flush=True)
    start = time.perf_counter()
    frozen = preview_options(analysis, dataset, options)
    sample, info = preview_dataset(analysis, dataset, frozen)
    preview = analysis.run(sample, frozen)
    first = time.perf_counter() - start
    stability = ranking(analysis, preview, sample)
    start = time.perf_counter()
    full = analysis.run(dataset, options)
    print(f"FIRST {first:.1f}\nAFTER {time.perf_counter() - start:.1f}\nLABEL {info.label}\n"
          f"STABLE {stability.describe() if stability else ''}", flush=True)
    if key == "sim":
        return
    want = top3(analysis, full, dataset)
    same_order = same_set = 0
    # The leaderboard's system ranking is by G2 (style accuracy and BLEU point values): the seeds need only those,
    # not 1,000 bootstrap resamples of every measure per sample (intervals do not change a point value).
    light = frozen.changed(metrics=("accuracy", "bleu", "g2"), n_resamples=100) if key == "board" else frozen
    for seed in range(seeds):
        sample, _ = preview_dataset(analysis, dataset, frozen, seed=seed)
        got = top3(analysis, analysis.run(sample, light), sample)
        same_order += got == want
        same_set += set(got) == set(want)
    print(f"AGREE full top 3 {' > '.join(want)}; preview top 3 in the same order for {same_order}/{seeds} seeds, "
          f"the same three for {same_set}/{seeds}", flush=True)


def measure(key: str, corpora: str, seeds: int) -> None:
    """Both measurements of a view, each in a new process and a fresh STVIZ_HOME, and the line reporting them."""
    found: dict[str, str] = {}
    for what in ("cold", "preview"):
        home = fresh_home(corpora)
        try:
            out = subprocess.run([sys.executable, __file__, "--step", f"{key}:{what}", "--seeds", str(seeds)], cwd=ROOT,
                                 env={**os.environ, "STVIZ_HOME": home}, capture_output=True, text=True)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        if out.returncode:
            print(f"{key} {what} failed:\n{out.stderr[-3000:]}", flush=True)
            return
        for line in out.stdout.splitlines():
            tag, _, value = line.partition(" ")
            found[tag] = value
    name, dataset_name = VIEWS[key]
    first, cold = float(found["FIRST"]), float(found["COLD"])
    warm = float(found["WARMUP"])
    print(f"{name} {dataset_name}: {found['LABEL']}; first result {first:.1f} s in a warmed-up server (its start-up "
          f"loaded the models in {warm:.1f} s; {first + warm:.1f} s from a fresh process), full cold {cold:.1f} s "
          f"(ratio {first / cold:.3f}); full after the preview {found['AFTER']} s. {found['STABLE']}", flush=True)
    if "AGREE" in found:
        print(f"{name} {dataset_name}: {found['AGREE']}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", default="mvh,board,sim")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--corpora", default="/work/shared/corpora")
    parser.add_argument("--step", help=argparse.SUPPRESS)  # one measurement, in a process of its own
    args = parser.parse_args()
    if args.step:
        key, what = args.step.split(":")
        return step(key, what, args.seeds)
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    for key in args.views.split(","):
        measure(key, args.corpora, args.seeds)


if __name__ == "__main__":
    main()
