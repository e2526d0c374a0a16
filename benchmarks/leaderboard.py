"""The Leaderboard on a big upload, cold: DualRL's 15 Yelp systems (11 models and 4 human rewrites, 1,000 outputs
each) zipped as a user uploads them, with its four references, on 2 cores (issue 34).

Prints, each in a new process on an empty cache (corpora linked in):
* the first table: ``leaderboard --preview-only`` (a seeded sample, what the page shows first);
* the full table: ``leaderboard`` with the default metrics;
* per metric, a full run with that metric alone (what dropping or keeping it costs), and the sum;
* ``--later-upload``: instead, a later upload's first table. The 15 systems are split in two zips of 7 and 8; the
  8-system zip's preview is timed in a fresh home, then in a home where the 7-system zip's preview ran first, so
  the trained style classifier, the language models and the loaded checks are kept, as on any install that has
  computed one leaderboard of the benchmark before (the built-in views' warm jobs do that on a server);
* ``--served``: instead, the first table as a server's worker process computes it after a click: one process that
  has loaded the models (``stviz.warmup``, as every worker does before its first job) and computed the 7-system
  zip's first table, then the 8-system zip's and the 15-system zip's, each a new upload to it;
with the load average, since the machine may be shared. Ratios matter more than seconds. Figures from this
machine: docs/benchmarks.md ("A big upload's leaderboard").

    .venv/bin/python benchmarks/leaderboard.py [--corpora ../shared/corpora] [--metrics bleu,accuracy,...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stviz.systems import AUTOMATIC  # noqa: E402


def upload_zip(corpora: Path, folder: Path, systems: slice = slice(None), name: str = "dualrl-yelp") -> Path:
    """DualRL's yelp outputs (the ``systems`` slice of its 15 folders, sorted) and references in one zip, as a
    researcher would upload the release."""
    release = corpora / "dualrl"
    path = folder / f"{name}.zip"
    outputs = release / "outputs" / "yelp"
    chosen = sorted(p for p in outputs.iterdir() if p.is_dir())[systems]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(f for system in chosen for f in system.rglob("*.tsf")):
            archive.write(file, f"yelp/{file.relative_to(outputs)}")
        for file in sorted((release / "references" / "yelp").glob("reference*")):
            archive.write(file, f"yelp/{file.name}")
    return path


def fresh_env(corpora: Path) -> tuple[dict, str]:
    """An environment whose STVIZ_HOME has the corpora linked in and an empty cache."""
    home = tempfile.mkdtemp(prefix="stviz-board-bench-")
    os.symlink(corpora, Path(home) / "corpora")
    return dict(os.environ, STVIZ_HOME=home, STVIZ_WARMUP="0"), home


def timed(env: dict, args: list[str]) -> float:
    """Seconds for one ``leaderboard`` command in a new process (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "stviz", "leaderboard", *args, "--format", "csv"], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"leaderboard {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def later_upload(corpora: Path, folder: Path, common: list[str]) -> None:
    """Time an 8-system zip's first table in a fresh home and after a 7-system zip's in the same home."""
    first = upload_zip(corpora, folder, slice(0, 7), "first-7")
    later = upload_zip(corpora, folder, slice(7, None), "later-8")
    env, home = fresh_env(corpora)
    try:
        fresh = timed(env, ["--dataset", str(later), *common, "--preview-only"])
        print(f"8-system zip, first table, fresh home: {fresh:.1f} s   (load average {os.getloadavg()[0]:.1f})")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    env, home = fresh_env(corpora)
    try:
        before = timed(env, ["--dataset", str(first), *common, "--preview-only"])
        kept = timed(env, ["--dataset", str(later), *common, "--preview-only"])
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"7-system zip, first table, fresh home: {before:.1f} s")
    print(f"8-system zip, first table, after the 7-system one: {kept:.1f} s   (load average {os.getloadavg()[0]:.1f})")
    print(f"later / fresh: {kept / fresh:.2f}")


def served(corpora: Path, folder: Path, common: list[str]) -> None:
    """Time uploads' first tables in one process that has warmed up and computed another upload's (``--served``)."""
    env, home = fresh_env(corpora)
    try:
        zips = {"7-system zip (the process's first upload)": upload_zip(corpora, folder, slice(0, 7), "first-7"),
                "8-system zip": upload_zip(corpora, folder, slice(7, None), "later-8"),
                "15-system zip": upload_zip(corpora, folder)}
        code = (f"import json, sys, time; from stviz import warmup; from stviz.cli import main; t = time.perf_counter(); "
                f"warmup.warm_up(); print(json.dumps({{'warm-up': time.perf_counter() - t}}), file=sys.stderr)\n"
                f"for label, path in {[(k, str(v)) for k, v in zips.items()]!r}:\n"
                f"    t = time.perf_counter(); assert main(['leaderboard', '--dataset', path, *{common!r}, "
                f"'--preview-only', '--format', 'csv']) == 0\n"
                f"    print(json.dumps({{label: time.perf_counter() - t}}), file=sys.stderr)")
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"the served run failed:\n{done.stderr[-2000:]}")
        for line in done.stderr.splitlines():
            if line.startswith("{"):
                (label, seconds), = json.loads(line).items()
                print(f"{label}: {seconds:.1f} s")
        print(f"(load average {os.getloadavg()[0]:.1f})")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=str(ROOT.parent / "shared" / "corpora"))
    parser.add_argument("--metrics", default=",".join(AUTOMATIC), help="metrics timed one by one")
    parser.add_argument("--later-upload", action="store_true",
                        help="time a later upload's first table instead (see the module's docstring)")
    parser.add_argument("--served", action="store_true",
                        help="time uploads' first tables as a warmed-up worker computes them (module's docstring)")
    args = parser.parse_args()
    corpora = Path(args.corpora).resolve()
    # The human rewrites stay systems (scored leave-one-out against the other references), as released.
    directions = ["--directions", "0=negative>positive,1=positive>negative", "--benchmark", "none"]
    with tempfile.TemporaryDirectory() as folder:
        if args.later_upload:
            return later_upload(corpora, Path(folder), directions)
        if args.served:
            return served(corpora, Path(folder), directions)
        upload = upload_zip(corpora, Path(folder))
        common = ["--dataset", str(upload), *directions]
        runs = {"first table (preview)": common + ["--preview-only"], "full table (default metrics)": common}
        runs.update({f"only {m}": common + ["--metrics", m] for m in args.metrics.split(",")})
        print(f"upload: {upload.stat().st_size / 1e6:.1f} MB zip: 15 systems (11 models, 4 human rewrites) x 1,000 "
              "outputs, 4 references")
        seconds = {}
        for label, argv in runs.items():
            env, home = fresh_env(corpora)
            try:
                seconds[label] = timed(env, argv)
            finally:
                shutil.rmtree(home, ignore_errors=True)
            print(f"{label}: {seconds[label]:.1f} s   (load average {os.getloadavg()[0]:.1f})", flush=True)
    alone = sum(v for k, v in seconds.items() if k.startswith("only "))
    full = seconds["full table (default metrics)"]
    print(f"first table / full table: {seconds['first table (preview)'] / full:.2f}")
    print(f"sum of the metrics alone: {alone:.1f} s (each run pays the process start and the reading again)")


if __name__ == "__main__":
    main()
