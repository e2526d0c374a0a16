"""``blindspots``: which damage each measure misses (the Blind spots page, headless): one table per language."""

from __future__ import annotations

import sys

from stviz.analyses import blind_spots, tables
from stviz.analyses.base import add_arguments, from_args
from stviz.cli.common import TABLE_FORMATS, add_dataset_argument, for_each_language, load_dataset_arg, print_table
from stviz.cli.llm_flags import add_llm_arguments


def register(sub) -> None:
    """Add the ``blindspots`` command (flags from the analysis's Options)."""
    cmd = sub.add_parser("blindspots", help="damage every output on purpose and see which measures notice (no human "
                                            "ratings needed)")
    add_dataset_argument(cmd)
    add_arguments(cmd, blind_spots.Options)
    cmd.add_argument("--format", choices=TABLE_FORMATS, default="md",
                     help="csv: one row per damage and measure (language, damage, breaks, measure, detected, low, "
                          "high, ties, n; shares in [0, 1]); md / latex: the readable table and the blind spots")
    add_llm_arguments(cmd)
    cmd.set_defaults(func=run_blindspots)


def run_blindspots(args) -> int:
    """Print the detection table (per language for a file of several: CSV gives one table with a language column)."""
    options = from_args(blind_spots.Options, args)
    dataset = load_dataset_arg(args.dataset)
    for_each_language(dataset, args.format, lambda part, collect: blindspots_one(part, options, args.format,
                                                                                   collect))
    return 0


def blindspots_one(dataset, options, fmt: str, collect: bool = False):
    """One language's table, printed (returned instead with ``collect`` in CSV, for one table of every language)."""
    from stviz.cli.common import run_analysis

    result = run_analysis(blind_spots, dataset, options)
    if fmt == "csv":
        if collect:  # every language's table printed as one, its language column first (print_language_tables)
            return tables.blindspot_table(result, with_language=False)
        print_table(tables.blindspot_table(result), "csv", "{:.4f}")
        return None
    sys.stdout.write(f"Blind spots: {result.n_pairs:,} pairs ({result.language}); detected = share of pairs whose "
                     "damaged output scores worse (ties count as missed), 95% bootstrap interval\n\n")
    print_table(blind_spots.readable_table(result).set_index("damage"), fmt, "{:.1f}")
    if gap := blind_spots.uncovered(result):
        sys.stdout.write(f"\nnote: {gap}\n")
    missed = blind_spots.blind_spots(result)
    sys.stdout.write(f"\n{len(missed)} blind spot(s): a measure that should notice the damage detects it in fewer "
                     "than half of the pairs\n")
    for row in missed.itertuples():
        sys.stdout.write(f"- {result.labels.get(row.measure, row.measure)} misses "
                         f"{result.damages.loc[row.damage, 'label']} ({100 * row.detected:.0f}% detected, "
                         f"{100 * row.ties:.0f}% ties)\n")
    return None
