"""``metrics`` (every content metric for every pair), ``correlate`` (metrics vs humans) and
``failures`` (the pairs where a metric and people disagree most): the Metrics vs humans and
Failure cases pages, headless, on the same analyses."""

from __future__ import annotations

import sys

from stviz.analyses import failure_cases, metrics_vs_humans, tables
from stviz.analyses.base import add_arguments, from_args
from stviz.analyses.common import require_human_scores
from stviz.cli.common import (TABLE_FORMATS, add_dataset_argument, for_each_language, load_dataset_arg, print_table,
                              run_analysis, write_frame)
from stviz.languages import language_parts
from stviz.cli.llm_flags import add_llm_arguments, report_unparsed
from stviz.cli.slice_flags import ALL_PAIRS, add_slice_argument, print_tables, slice_results, with_slice_column

#: Options of the correlation itself: ``metrics`` computes values only and does not take them.
CORRELATION_OPTIONS = ("human", "methods", "by", "bootstrap", "williams_method", "levels")


def register(sub) -> None:
    """Add the ``metrics``, ``correlate`` and ``failures`` commands (flags from the analyses' Options)."""
    cmd = sub.add_parser("metrics", help="compute content-preservation metrics for every pair (cached)")
    add_dataset_argument(cmd)
    add_arguments(cmd, metrics_vs_humans.Options, skip=CORRELATION_OPTIONS)
    cmd.add_argument("--out", required=True, help="output file: .csv, .tsv or .parquet")
    add_llm_arguments(cmd)
    cmd.set_defaults(func=run_metrics)

    cor = sub.add_parser("correlate", help="correlation of metrics with a human score, with 95%% bootstrap CIs")
    add_dataset_argument(cor)
    add_arguments(cor, metrics_vs_humans.Options)
    cor.add_argument("--williams", action="store_true",
                     help="also print the Williams-test p-value matrix (row metric beats column metric)")
    cor.add_argument("--format", choices=TABLE_FORMATS, default="md")
    add_slice_argument(cor)
    add_llm_arguments(cor)
    cor.set_defaults(func=run_correlate)

    fail = sub.add_parser("failures", help="pairs where a metric and the human score disagree most (Babakov et al.)")
    add_dataset_argument(fail)
    add_arguments(fail, failure_cases.Options, skip=("pair",))
    fail.add_argument("--story", type=int, metavar="PAIR", help="also tell the full story of this pair")
    fail.add_argument("--format", choices=TABLE_FORMATS, default="md")
    add_llm_arguments(fail)
    fail.set_defaults(func=run_failures)


def run_metrics(args) -> int:
    """Compute the metrics and write one row per pair (metric names as column names)."""
    options = from_args(metrics_vs_humans.Options, args, methods=())
    dataset = load_dataset_arg(args.dataset)
    result = run_analysis(metrics_vs_humans, dataset, options)
    if result.lexicon_note:
        print(result.lexicon_note, file=sys.stderr)
    frame = tables.metric_values(dataset, result)
    path = write_frame(frame, args.out)
    print(f"wrote {len(frame):,} pairs x {len(result.metrics)} metrics ({options.modification}) to {path}",
          file=sys.stderr)
    report_unparsed(args, dataset, result.metrics, options.modification, _lexicon(dataset, options), beside=args.out)
    return 0


def _lexicon(dataset, options):
    """The style lexicon the run used (None without modification): the texts an LLM judge saw."""
    return metrics_vs_humans.resolve_lexicon(dataset, options)[0]


def run_correlate(args) -> int:
    """Print the correlation table with intervals (and the NE table, and the Williams matrix if asked); a file of
    several languages gives one of each per language (CSV: one table with a ``language`` column)."""
    options = from_args(metrics_vs_humans.Options, args)
    dataset = load_dataset_arg(args.dataset, extra_human=[options.human] if options.human else ())
    require_human_scores(dataset)  # refused before any metric is scored
    for_each_language(dataset, args.format, lambda part, collect: correlate_one(part, options, args, collect))
    return 0


def correlate_one(dataset, options, args, collect: bool = False):
    """One correlation run, printed; with ``collect`` in CSV, its table is returned (for one table of every
    language) instead of printed."""
    result = run_analysis(metrics_vs_humans, dataset, options)
    if result.lexicon_note:
        print(result.lexicon_note, file=sys.stderr)
    for message in result.flags:  # on stderr: stdout stays the table
        print(f"flag: {message}", file=sys.stderr)
    report_unparsed(args, dataset, result.metrics, options.modification, _lexicon(dataset, options))
    collected = None
    if result.correlations is not None:
        if args.format != "csv":  # stdout stays one CSV table
            sys.stdout.write(f"Correlation with {result.human_label}\n\n")
        # Each slice runs the same analysis on its pairs: the same metrics, resamples and intervals.
        per_slice = [(item, _correlations(sliced, options, args.format), count)
                     for item, sliced, count in slice_results(metrics_vs_humans, dataset, options, args.slices)]
        whole = _correlations(result, options, args.format)
        if collect and args.format == "csv":
            collected = with_slice_column([(ALL_PAIRS, whole)] + [(i.name, t) for i, t, _ in per_slice]).set_index(
                "slice") if per_slice else whole
        else:
            print_tables(whole, per_slice, args.format, len(dataset.pairs))
    if collect and args.format == "csv":  # one CSV table of every language: the other tables are for md / latex
        if result.ne_table is not None or result.text_comparison is not None or args.williams:
            print("note: with several languages, --format csv prints the correlation table only", file=sys.stderr)
        return collected
    if result.ne_table is not None:
        method = metrics_vs_humans.ne_method(options)
        sys.stdout.write(f"\nNamed-entity merge ({method}, {result.human_label}; Babakov et al. Table 4 layout)\n")
        print_table(result.ne_table.assign(**{"Williams p": result.ne_table["Williams p"].map(
            metrics_vs_humans.format_p_value)}).set_index("metric"), args.format)
    if result.text_comparison is not None:
        wide = result.text_comparison.assign(metric=result.text_comparison["metric"].map(result.labels)).pivot(
            index="metric", columns="texts", values="r")
        sys.stdout.write(f"\nCorrelation ({result.text_comparison['method'].iloc[0]}) with {result.human_label} on "
                         "unmodified, style-removed and style-masked texts (Mir et al. Tables 8-9)\n")
        print_table(wide, args.format)
    if args.williams:
        sys.stdout.write(f"\nWilliams test p-values ({options.williams_method}, {result.human_label}): "
                         "row metric > column metric\n")
        print_table(result.williams, args.format, "{:.4f}")
    return collected


def _correlations(result, options, fmt: str):
    """The correlation table as printed (a '|' inside a Markdown cell escaped)."""
    table = tables.correlation_table(result, options)
    if fmt == "md":  # a '|' inside a cell would split the Markdown column
        table = table.map(lambda v: v.replace("|", r"\|") if isinstance(v, str) else v)
    return table


def run_failures(args) -> int:
    """Print the ranked disagreements (and one pair's story); per language for a file of several (CSV: one table with
    a ``language`` column)."""
    options = from_args(failure_cases.Options, args, pair=args.story)
    dataset = load_dataset_arg(args.dataset, extra_human=[options.human] if options.human else ())
    if args.story is not None and len(language_parts(dataset)) > 1:
        raise ValueError("--story PAIR numbers a pair of one language: give --language CODE with it")
    for_each_language(dataset, args.format, lambda part, collect: failures_one(part, options, args, collect))
    return 0


def failures_one(dataset, options, args, collect: bool = False):
    """One language's ranked disagreements, printed (returned instead with ``collect`` in CSV)."""
    result = run_analysis(failure_cases, dataset, options)
    report_unparsed(args, dataset, [options.metric])
    shown = tables.failure_table(result, options)
    heading = (f"{len(result.ranking):,} pairs match; the {len(shown)} with the largest rank difference under "
               f"{result.metric_label}:\n")
    (sys.stderr if args.format == "csv" else sys.stdout).write(heading)  # stdout stays one CSV table
    if collect and args.format == "csv":
        return shown
    print_table(shown, args.format)
    if args.story is not None:
        story = result.story
        sys.stdout.write(f"\nPair {story.pair}: {' · '.join(story.facts)}\nsource: {story.source}\n"
                         f"output: {story.output}\n")
        for kind, text, label in story.entities:
            sys.stdout.write(f"entity {kind}: {text} ({label})\n")
        for modification, (source, output) in story.masked.items():
            sys.stdout.write(f"{modification}: {source} -> {output}\n")
        print_table(story.metrics.set_index("metric"), args.format)
        print_table(story.humans.set_index("judgment"), args.format, "{}")
    return None
