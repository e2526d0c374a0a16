"""``meta-eval``: which measure agrees with people, per aspect, across human-rated sets (the Meta-evaluation
page, headless, on the same analysis)."""

from __future__ import annotations

import sys
from pathlib import Path

from stviz.analyses import meta_evaluation, tables
from stviz.analyses.base import add_arguments, from_args
from stviz.cli.common import (TABLE_FORMATS, add_preview_arguments, add_reading_arguments, chosen_language,
                              dataset_arg, load_dataset_arg, print_table, require_existing, run_analysis)


def register(sub) -> None:
    """Add the ``meta-eval`` command (flags from the analysis's Options)."""
    cmd = sub.add_parser("meta-eval", help="meta-evaluate metrics against human ratings across sets, at sentence "
                                           "and system level (correlations with CIs, pairwise accuracy, best groups)")
    add_arguments(cmd, meta_evaluation.Options)
    cmd.add_argument("--format", choices=TABLE_FORMATS, default="md",
                     help="csv: one table of every row (set, human, level, statistic, measure, r, CI, p, best group); "
                          "md / latex: that table, then the best groups, the aggregate and the sanity flags")
    add_reading_arguments(cmd, which="every pair file named in --datasets", direction=False)  # --direction: Options
    add_preview_arguments(cmd)  # --preview: each set's seeded sample first (--max-pairs)
    cmd.set_defaults(func=run_meta_eval)


def load_sets(entries, args=None) -> tuple[tuple[str, ...] | None, list]:
    """``--datasets`` entries as dataset names, the pair files among them loaded (they keep their file names)
    with ``--columns`` and the reading flags (``--direction`` is the analysis's own option)."""
    if not entries:
        return None, []
    names, uploads = [], []
    for entry in entries:
        value = dataset_arg(entry, args)
        if Path(entry).is_file():
            dataset = load_dataset_arg(value)
            uploads.append(dataset)
            names.append(dataset.name)
        else:
            require_existing(entry)  # a path that is not there: "no such file", not "unknown dataset"
            names.append(entry)
    return tuple(names), uploads


def run_meta_eval(args) -> int:
    """Print every set's statistics (one CSV table with --format csv), then best groups, aggregate and flags."""
    names, uploads = load_sets(args.datasets, args)
    args.datasets = None  # files are read above; the analysis gets their names
    options = from_args(meta_evaluation.Options, args, datasets=names)
    if not options.language and chosen_language():  # `python -m stviz --language uk meta-eval ...`
        options = options.changed(language=chosen_language())
    result = run_analysis(meta_evaluation, None, options, uploads=uploads)
    for _, flag in result.flags.iterrows():  # on stderr whatever the format, beside the notes
        print(f"flag: {flag['set']}: {flag['message']}", file=sys.stderr)
    table = tables.meta_table(result)
    if args.format == "csv":  # stdout stays one CSV table; flags and the raters' agreement are notes on stderr
        for line in result.raters:
            print(f"note: raters' agreement (Krippendorff's alpha, interval): {line}", file=sys.stderr)
        print_table(table, "csv")
        return 0
    if result.raters:
        sys.stdout.write("Raters' agreement (Krippendorff's alpha, interval; a correlation with people is capped by "
                         "it)\n\n" + "".join(f"- {line}\n" for line in result.raters) + "\n")
    sys.stdout.write("Agreement with human ratings per set (r: the statistic; higher = agrees more)\n\n")
    print_table(table, args.format)
    for level in options.levels:
        for statistic in (options.methods[:1] + (("pairwise_accuracy",) if level == "system" else ())):
            groups = meta_evaluation.best_groups(result, level, statistic)
            if not groups.empty:
                sys.stdout.write(f"\nBest group ({level} level, {meta_evaluation.STATISTIC_LABELS[statistic]}; "
                                 f"not significantly worse than the best at p < {options.alpha})\n\n")
                print_table(groups.set_index("set"), args.format)
    sys.stdout.write("\nAcross sets: mean rank (1 = best), wins, share of tasks in the best group; measures found in "
                     "every task first, the rest ranked apart with their coverage\n\n")
    print_table(meta_evaluation.readable_aggregate(result).set_index("aspect"), args.format)
    if result.orientation:
        sys.stdout.write("\nStyle measures of one pole, turned toward each pair's target before any statistic\n\n")
        sys.stdout.write("".join(f"- {line}\n" for line in result.orientation))
    if not result.flags.empty:
        sys.stdout.write("\nSanity flags on precomputed columns\n\n")
        print_table(result.flags[["set", "column", "kind", "other", "rho", "reason"]].set_index("set"), args.format)
    return 0
