"""The Leaderboard on a big upload, cold: DualRL's 15 Yelp systems (11 models and 4 human rewrites, 1,000 outputs
each) zipped as a user uploads them, with its four references, on 2 cores (issue 34).

Prints, each in a new process on an empty cache (corpora linked in):
* the first table: ``leaderboard --preview-only`` (a seeded sample, what the page shows first);
* the full table: ``leaderboard`` with the default metrics;
* per metric, a full run with that metric alone (what dropping or keeping it costs), and the sum;
with the load average, since the machine may be shared. Ratios matter more than seconds. Figures from this
machine: docs/benchmarks.md ("A big upload's leaderboard").

    .venv/bin/python benchmarks/leaderboard.py [--corpora ../shared/corpora] [--metrics bleu,accuracy,...]
"""

from __future__ import annotations

import argparse
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


def upload_zip(corpora: Path, folder: Path) -> Path:
    """DualRL's yelp outputs and references in one zip, as a researcher would upload the release."""
    release = corpora / "dualrl"
    path = folder / "dualrl-yelp.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted((release / "outputs" / "yelp").rglob("*.tsf")):
            archive.write(file, f"yelp/{file.relative_to(release / 'outputs' / 'yelp')}")
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


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=str(ROOT.parent / "shared" / "corpora"))
    parser.add_argument("--metrics", default=",".join(AUTOMATIC), help="metrics timed one by one")
    args = parser.parse_args()
    corpora = Path(args.corpora).resolve()
    with tempfile.TemporaryDirectory() as folder:
        upload = upload_zip(corpora, Path(folder))
        # The human rewrites stay systems (scored leave-one-out against the other references), as released.
        common = ["--dataset", str(upload), "--directions", "0=negative>positive,1=positive>negative",
                  "--benchmark", "none"]
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
