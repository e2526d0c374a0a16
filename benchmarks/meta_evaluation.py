"""Cold and warm ``meta-eval`` over the five public human-rated sets, each in a new process: every axis the
sets' ratings cover (content, style, fluency, overall), at sentence and system level.

Prints the rows per aspect, and the seconds of
* a cold run: a new process on an empty stviz cache (corpora linked in), so every metric, embedding,
  classifier, language model, naturalness classifier and statistic is computed;
* a warm run: the same command again on that cache (what a second visit or the page costs);
and their ratio, with the load average, since the machine may be shared.

Usage: python benchmarks/meta_evaluation.py [--datasets a,b,...] [--warm-only]
(needs sgdd-tst, mir-yelp, li2018 and yelp-sentiment imported; --warm-only times two runs on the
current cache instead of an empty one).

Measured (2 shared cores, load about 2; 5 sets, defaults: 200 resamples, 3 correlations, both levels):
see docs/reproduction-meta-evaluation.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stviz.data.corpora.sources import corpora_dir  # noqa: E402

SETS = "sgdd-tst,mir-yelp,li2018-yelp,li2018-amazon,li2018-captions"


def fresh_home(folder: Path) -> dict:
    """Environment for a new process on an empty stviz cache with the corpora linked in."""
    os.symlink(corpora_dir(), folder / "corpora")
    return dict(os.environ, STVIZ_HOME=str(folder))


def meta_eval(env: dict, datasets: str) -> tuple[float, str]:
    """Seconds for one ``meta-eval --format csv`` in a new process, and its CSV."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "stviz", "meta-eval", "--datasets", datasets, "--format", "csv"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"meta-eval failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - start, done.stdout


def rows_per_aspect(csv: str) -> str:
    """'content 420, style 96, ...': the rows of each aspect and level in a meta-eval CSV."""
    import io

    import pandas as pd

    table = pd.read_csv(io.StringIO(csv))
    counts = table.groupby(["aspect", "level"]).size()
    return ", ".join(f"{aspect}/{level} {n}" for (aspect, level), n in counts.items())


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=SETS)
    parser.add_argument("--warm-only", action="store_true", help="time two runs on the current cache")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ) if args.warm_only else fresh_home(Path(folder))
        first, csv = meta_eval(env, args.datasets)
        warm, _ = meta_eval(env, args.datasets)
    label = "first (current cache)" if args.warm_only else "cold (empty cache)"
    print(f"meta-eval --datasets {args.datasets}")
    print(f"rows per aspect and level: {rows_per_aspect(csv)}")
    print(f"{label}: {first:.1f} s")
    print(f"warm (second run): {warm:.1f} s")
    print(f"ratio: {first / warm:.1f}x   (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
