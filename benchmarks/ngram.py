"""The offline fluency model (interpolated Kneser-Ney trigram) fitted with numpy tables, against counting word
tuples in dictionaries (what stviz did before; the reference in ``tests/test_systems.py``), in one run.

A leaderboard fits one model per target style on up to 50,000 sentences of the style corpus, leaving out the texts
of the upload, so each new upload fits them again: this is part of an upload's first table.

    .venv/bin/python benchmarks/ngram.py [--dataset yelp-sentiment] [--style positive] [--sentences 51000]

Prints both fitting times, their ratio, the scoring times of 2,000 other sentences and the largest difference
between the two models' answers (0: the same operations in the same order).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from stviz.data import load_dataset  # noqa: E402
from stviz.data.labels import labelled_texts  # noqa: E402
from stviz.measures.fluency.language_models import KneserNeyLM  # noqa: E402
from test_systems import _kneser_ney_by_tuples  # noqa: E402


def main() -> None:
    """Time and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="yelp-sentiment")
    parser.add_argument("--style", default="positive")
    parser.add_argument("--sentences", type=int, default=51_000)
    args = parser.parse_args()
    frame = labelled_texts(load_dataset(args.dataset))
    styled = frame["style"].astype(str) == args.style
    training = frame.loc[styled, "text"].astype(str).sample(frac=1.0, random_state=0).tolist()[:args.sentences]
    scored = frame.loc[~styled, "text"].astype(str).tolist()[:2000]
    start = time.perf_counter()
    model = KneserNeyLM(3).fit(training)
    tables = time.perf_counter() - start
    start = time.perf_counter()
    direct = _kneser_ney_by_tuples(training, 3)  # counts and tables: the dictionaries are filled here
    tuples = time.perf_counter() - start
    start = time.perf_counter()
    ours = [model.sentence_nll(t) for t in scored]
    scoring = time.perf_counter() - start
    start = time.perf_counter()
    theirs = [direct(t) for t in scored]
    scoring_direct = time.perf_counter() - start
    print(f"{len(training):,} {args.style} sentences of {args.dataset}: fit with numpy tables {tables:.2f} s, "
          f"with word tuples {tuples:.2f} s: {tuples / tables:.1f}x")
    print(f"scoring {len(scored):,} other sentences: {scoring:.2f} s against {scoring_direct:.2f} s")
    print(f"largest difference in summed NLL: {max(abs(a[0] - b[0]) for a, b in zip(ours, theirs)):.3g} nats")


if __name__ == "__main__":
    main()
