"""Reading uploaded pair files: the vectorised JSONL reader against the per-line one it replaced.

Prints, from one run, lines per second and their ratio for:
* before: the previous reader, one ``pandas.read_json`` call per line (kept here verbatim as the
  baseline; run on the first ``--before-lines`` lines only, since it is ~2 ms per line);
* after: ``stviz.data.intake.readers.read_pairs_file`` on all ``--lines`` lines (one vectorised parse,
  line numbers kept for every row);
and, for reference, the CSV reader on the same rows.

Usage: python benchmarks/intake.py [--lines N] [--before-lines M]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stviz.data.intake.readers import read_pairs_file  # noqa: E402


def previous_jsonl_reader(text: str) -> pd.DataFrame:
    """The reader before issue 9: each line parsed by its own pandas call."""
    rows = []
    for line in text.splitlines():
        if line.strip():
            rows.append(pd.read_json(io.StringIO(f"[{line}]"), dtype=False).iloc[0].to_dict())
    return pd.DataFrame(rows)


def make_rows(n: int) -> list[dict]:
    """Pairs shaped like real uploads: two sentences, a system, three rater scores and a metric."""
    return [{"source": f"the food at place {i} was really not that great , honestly .",
             "output": f"the food at place {i} was wonderful , honestly !", "system": f"sys{i % 4}",
             "label_1": i % 5 + 1, "label_2": (i + 1) % 5 + 1, "label_3": (i * 7) % 5 + 1, "bleu": (i % 97) / 97}
            for i in range(n)]


def rate(seconds: float, lines: int) -> float:
    return lines / seconds if seconds else float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--before-lines", type=int, default=2_000)
    args = parser.parse_args()
    rows = make_rows(args.lines)
    jsonl = "".join(json.dumps(r) + "\n" for r in rows)
    before_text = "".join(json.dumps(r) + "\n" for r in rows[: args.before_lines])

    start = time.perf_counter()
    previous_jsonl_reader(before_text)
    before = rate(time.perf_counter() - start, args.before_lines)

    start = time.perf_counter()
    frame, _ = read_pairs_file("pairs.jsonl", jsonl.encode())
    after_s = time.perf_counter() - start
    after = rate(after_s, args.lines)
    assert len(frame) == args.lines and frame.index[-1] == args.lines

    csv_bytes = pd.DataFrame(rows).to_csv(index=False).encode()
    start = time.perf_counter()
    read_pairs_file("pairs.csv", csv_bytes)
    csv_rate = rate(time.perf_counter() - start, args.lines)

    print(f"JSONL before (per-line pandas, {args.before_lines:,} lines): {before:,.0f} lines/s "
          f"({1000 / before:.2f} ms per line; 1M lines would take {1e6 / before / 60:.0f} min)")
    print(f"JSONL after (vectorised, {args.lines:,} lines): {after:,.0f} lines/s ({after_s:.2f} s; "
          f"1M lines ~{1e6 / after:.0f} s)")
    print(f"JSONL after / before: {after / before:,.0f}x")
    print(f"CSV reader on the same {args.lines:,} rows: {csv_rate:,.0f} rows/s")


if __name__ == "__main__":
    main()
