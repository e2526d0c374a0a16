"""Start-up of a command: the seconds before any work, this tree against an earlier commit, in one run.

Each command line runs in a new process, the two trees alternating, five times each (medians): ``--help``,
a command's ``--help`` (its parser: the imports it needs), and ``data list`` (a whole small command, which
also chooses the device). ``--against REF`` checks the commit out into a temporary worktree beside this one.

Usage: python benchmarks/startup.py [--against REF] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINES = (["--help"], ["similarity", "--help"], ["correlate", "--help"], ["data", "list"])


def seconds(tree: Path, argv: list[str]) -> float:
    """Wall seconds of ``python -m stviz ARGV`` run from ``tree`` (its own stviz first on the path)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stviz", *argv], cwd=tree, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(tree)))
    return time.perf_counter() - start


def main() -> None:
    """Print median start-up seconds per command line for each tree, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="01ed5a4", help="the earlier commit (default: before issue 44's cut)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.against], cwd=ROOT, check=True)
        try:
            print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
            print(f"{'command':24} {args.against:>10} {'now':>8} {'ratio':>6}")
            for argv in LINES:
                times = {"base": [], "now": []}
                for _ in range(args.runs):  # alternate, so a busy moment hits both
                    times["base"].append(seconds(base, argv))
                    times["now"].append(seconds(ROOT, argv))
                old, new = statistics.median(times["base"]), statistics.median(times["now"])
                print(f"{' '.join(argv):24} {old:9.2f}s {new:7.2f}s {old / new:5.1f}x")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
