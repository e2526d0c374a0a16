"""The ``--slice NAME=SPEC`` flag of ``correlate`` and ``leaderboard``: the same analysis run again on each slice
of the dataset (stviz.analyses.slices), as the pages draw it per slice."""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import Iterator

import pandas as pd

from stviz.analyses.slices import EmptySlice, Slice, parse_slice
from stviz.cli.common import print_table, run_analysis
from stviz.data.schema import DataError

#: What the CSV's ``slice`` column says for the rows of every pair.
ALL_PAIRS = "all pairs"


def add_slice_argument(parser: argparse.ArgumentParser) -> None:
    """``--slice NAME=SPEC``, repeatable; a bad spec (regex, number, field) stops with argparse's one line."""
    def parse(text: str) -> Slice:
        try:
            return parse_slice(text)
        except DataError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "slice"
    parser.add_argument("--slice", dest="slices", action="append", type=parse, default=[], metavar="NAME=SPEC",
                        help="also compute per slice of the pairs, e.g. long='length>=20' or "
                             "neg='target_style=negative;output~(?i)not' (filters joined by ';': system=A,B, "
                             "source_style/target_style/style=S, length=5..20, human:NAME>=3, METRIC<0.5, "
                             "entity=source|output|either|both, source~REGEX, output~REGEX, ids=1,2,3|#HASH); "
                             "repeatable")


def slice_results(analysis: ModuleType, dataset, options, slices: list[Slice]) -> Iterator[tuple[Slice, object, int]]:
    """(slice, result, pairs kept) for each slice that keeps pairs; an empty or failing slice is a note on stderr
    and the others still run."""
    for item in slices:
        try:
            part = item.apply(dataset)
            yield item, run_analysis(analysis, part, options), len(part.pairs)
        except EmptySlice as exc:
            print(f"note: {exc}", file=sys.stderr)
        except (DataError, ValueError) as exc:
            print(f"note: slice '{item.name}' not computed: {exc}", file=sys.stderr)


def print_tables(whole: pd.DataFrame, per_slice: list[tuple[Slice, pd.DataFrame, int]], fmt: str,
                 total: int, float_format: str = "{:.3f}") -> None:
    """The whole dataset's table, then each slice's: headed in md/latex; with slices, CSV is one table whose
    ``slice`` column says which rows are whose (stdout stays one table)."""
    if fmt == "csv" and per_slice:
        frames = [(ALL_PAIRS, whole)] + [(item.name, table) for item, table, _ in per_slice]
        print_table(with_slice_column(frames).set_index("slice"), "csv", float_format)
        return
    print_table(whole, fmt, float_format)
    for item, table, count in per_slice:
        sys.stdout.write(f"\nSlice {item.name}: {item.describe()} ({count:,} of {total:,} pairs)\n\n")
        print_table(table, fmt, float_format)


def with_slice_column(frames: list[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The tables of every pair and of each slice as one, a ``slice`` column first (the CSV form)."""
    return pd.concat([frame.reset_index().assign(slice=name) for name, frame in frames], ignore_index=True).pipe(
        lambda t: t[["slice"] + [c for c in t.columns if c != "slice"]])


__all__ = ["ALL_PAIRS", "add_slice_argument", "print_tables", "slice_results", "with_slice_column"]
