"""Refresh tests/weights.json, the order in which `make test` hands out test files, from the last run's seconds.

    python tools/test_weights.py [artifacts/test-durations.json]

Every pytest run writes each file's seconds (set-up, call and tear-down of its tests) to
``artifacts/test-durations.json`` (tests/conftest.py). This merges them into ``tests/weights.json``, rounded to whole
seconds: the files of that run get its figures, the others keep theirs, and files that no longer exist are dropped.
Take them from a whole run on an otherwise idle machine: the weights only decide which file starts first, so a file
that ran beside something else only starts a little early or late.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = ROOT / "tests" / "weights.json"


def merged(weights: dict[str, float], durations: dict[str, float]) -> dict[str, int]:
    """``weights`` updated with ``durations`` (whole seconds), less files that are gone, sorted by path."""
    out = {**weights, **{path: round(seconds) for path, seconds in durations.items()}}
    return {path: int(out[path]) for path in sorted(out) if (ROOT / path).is_file()}


def main() -> int:
    """Merge the given (or the last) run's seconds per file into tests/weights.json."""
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "artifacts" / "test-durations.json"
    if not source.is_file():
        print(f"no {source}: run the tests first (make test writes it)", file=sys.stderr)
        return 1
    weights = json.loads(WEIGHTS.read_text()) if WEIGHTS.is_file() else {}
    result = merged(weights, json.loads(source.read_text()))
    WEIGHTS.write_text(json.dumps(result, indent=1) + "\n")
    heaviest = sorted(result.items(), key=lambda item: -item[1])[:5]
    print(f"{WEIGHTS.relative_to(ROOT)}: {len(result)} files; heaviest: "
          + ", ".join(f"{Path(p).name} {s} s" for p, s in heaviest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
