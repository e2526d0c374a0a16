"""``leaderboard``: whole systems compared per metric with 95% intervals, rank ranges and paired tests.

    python -m stviz leaderboard --dataset li2018-yelp --format md
    python -m stviz leaderboard --dataset outputs/ --references refs/reference.0 refs/reference.1 \\
        --directions 0=negative>positive,1=positive>negative --format latex

``--dataset`` is a dataset name, a pair file, or a folder (or .zip) of system outputs (one file per system and
direction, one folder per system or per direction, or input<TAB>output files; see
stviz.data.released.output_layouts), or a whole repository as released (stviz.data.released.repository). A folder is
surveyed and checked first: its inventory (system x direction x lines x alignment x file used) goes to stderr, and a folder that
cannot be compared is refused with one line before anything is computed. A folder of domain folders, or a repository
of several datasets, gives one leaderboard each (``--subset NAME`` for one). Without ``--dataset``,
``--benchmark NAME`` gives the benchmark's published systems alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

from stviz.analyses import leaderboard, tables
from stviz.analyses.base import add_arguments, from_args
from stviz.cli.common import (TABLE_FORMATS, add_dataset_argument, for_each_language, format_table, load_dataset_arg,
                              load_outputs_arg, outputs_path, print_notes, print_table, require_existing, run_analysis,
                              with_language, write_frame)
from stviz.cli.slice_flags import ALL_PAIRS, add_slice_argument, print_tables, slice_results, with_slice_column
from stviz.data.released.inventory import HUMANS
from stviz.data.schema import DataError
from stviz.languages import part_language


def register(sub) -> None:
    """Add the ``leaderboard`` command."""
    cmd = sub.add_parser("leaderboard", help="compare systems: every metric with a 95%% CI, rank ranges, "
                                             "paired significance tests")
    # a name, a pair file, or (read below) a folder of system outputs; none with --benchmark NAME
    add_dataset_argument(cmd, required=False, also="; leave it out with --benchmark NAME for the published systems "
                                                   "alone")
    cmd.add_argument("--references", nargs="+", default=(), metavar="FILE",
                     help="reference files for a folder of outputs: one reference per line aligned with the inputs, "
                          "or input<TAB>reference[<TAB>reference...]; a name ending in .0/.1 (or a style: .neg, "
                          ".formal) applies to that direction; DIR=FILE names it, all=FILE applies one file to every "
                          "direction")
    cmd.add_argument("--directions", default="",
                     help="for a folder of outputs: the styles of each numeric direction, DIR=SOURCE>TARGET separated "
                          "by commas (e.g. 0=negative>positive,1=positive>negative; 0, 0-1 and 0to1 are one direction); "
                          "named directions (neg2pos, formal2informal, f2i) say their styles themselves")
    cmd.add_argument("--humans", choices=HUMANS, default="system",
                     help="for a folder of outputs: human rewrites released as a system (Human0/, human/, ref*/, "
                          ".human) are compared as a system (default) or used as references")
    cmd.add_argument("--subset", "--domain", dest="domain", metavar="NAME",
                     help="for a repository holding several datasets (outputs/yelp/ beside data/yelp/, outputs/imdb/, "
                          "...) or a folder of domain folders (yelp/, amazon/, ...): compare only this one (default: "
                          "one leaderboard per dataset)")
    cmd.add_argument("--benchmark", default="auto", metavar="NAME",
                     help="place the systems among the published ones of a benchmark (yelp, amazon, captions; "
                          "'python -m stviz data benchmarks' lists them): auto (default) when the inputs are a "
                          "benchmark's test inputs, said in one line; none to compare them alone")
    add_arguments(cmd, leaderboard.Options)
    cmd.add_argument("--format", choices=TABLE_FORMATS, default="md",
                     help="md / latex: one row per system, 'value [low, high]' and rank ranges; csv: the tidy table")
    cmd.add_argument("--significance", choices=("none", "bootstrap", "randomization"), default="none",
                     help="also print each metric's matrix of paired p-values")
    cmd.add_argument("--out", help="also write the tidy table (.csv, .tsv or .parquet)")
    add_slice_argument(cmd)
    cmd.set_defaults(func=run)


def load(args) -> list:
    """The datasets ``--dataset`` names: one per domain of a folder or zip of outputs (each checked first), or a
    name/pair file."""
    folder_flags = args.references or args.directions or args.domain or args.humans != "system"
    if args.dataset is None:
        if args.benchmark in ("auto", "none"):
            raise DataError("give --dataset (a name, a pair file, or a folder or .zip of outputs), or --benchmark NAME "
                            f"for a benchmark's published systems alone ({', '.join(_benchmark_names())})")
        if folder_flags:
            raise DataError("--references, --directions, --humans and --subset apply to a folder (or .zip) of system "
                            "outputs given as --dataset")
        return [None]  # the published systems alone (run_one)
    path = outputs_path(args.dataset)
    if path is not None:
        return load_outputs_arg(path, references=args.references, directions=args.directions, humans=args.humans,
                                domain=args.domain, benchmark=args.benchmark)
    require_existing(args.dataset)  # a missing path is said as such before any flag is judged
    if folder_flags:
        raise DataError("--references, --directions, --humans and --subset apply to a folder (or .zip) of system "
                        "outputs")
    return [load_dataset_arg(args.dataset)]


def _benchmark_names() -> list[str]:
    from stviz.benchmarks import BENCHMARKS

    return [name for name, card in BENCHMARKS.items() if not card.obtain]


def run(args) -> int:
    """Compute and print the leaderboard (one per domain of a folder of domain folders, one per language of a file
    of several languages: CSV then prints one table with a ``language`` column)."""
    datasets = load(args)
    for dataset in datasets:
        if len(datasets) > 1:
            print(f"\ndataset {dataset.name}:", file=sys.stderr)
            if args.format != "csv":
                print(f"\n{dataset.name}\n")
        if dataset is not None:
            print_notes(dataset.notes)
        out = _out_for(args.out, dataset.name if len(datasets) > 1 else None)
        for_each_language(dataset, args.format, lambda part, collect: run_one(
            part, args, out=_out_for(out, part_language(part) if collect else None), collect=collect), "{:.4f}")
    return 0


def _out_for(out: str | None, domain: str | None) -> str | None:
    # Several domains write several files: results-yelp.csv beside results-amazon.csv.
    if not out or not domain:
        return out
    path = Path(out)
    return str(path.with_name(f"{path.stem}-{domain}{path.suffix}"))


def _board_table(result, fmt: str):
    """The table printed: the tidy scores for CSV, one row per system with intervals and ranks otherwise."""
    return tables.board_table(result) if fmt == "csv" else result.wide()


def run_one(dataset, args, out: str | None, collect: bool = False):
    """One leaderboard: computed, then printed (and written to ``out``); with ``collect`` in CSV, its table is
    returned instead of printed (one table of every language)."""
    options = from_args(leaderboard.Options, args)
    upload = dataset is not None
    dataset, benchmark = (dataset, _benchmark(dataset, args.benchmark)) if upload else _published_alone(args.benchmark)
    if benchmark:
        from stviz.analyses import benchmark_board

        if upload:
            dataset, uploaded = benchmark_board.board_dataset(benchmark, dataset)
            print_notes([n for n in [benchmark_board.partial_note(dataset)] if n]
                        + benchmark_board.copies_of_published(dataset, uploaded))
        options = benchmark_board.board_options(benchmark, options)
    result = run_analysis(leaderboard, dataset, options)
    if result.classifier:
        print(f"style classifier: {result.classifier}", file=sys.stderr)
    for metric, signature in result.signatures.items():
        print(f"sacrebleu {metric}: {signature}", file=sys.stderr)
    if result.fluency:
        print(f"fluency: {result.fluency}", file=sys.stderr)
    for line in (result.style_texts, result.text_form):
        if line:
            print(line, file=sys.stderr)
    # Each slice runs the same leaderboard on its pairs: the same metrics, resamples and intervals.
    per_slice = [(item, _board_table(sliced, args.format), count)
                 for item, sliced, count in slice_results(leaderboard, dataset, options, args.slices)]
    collected = None
    if collect and args.format == "csv":
        collected = (with_slice_column([(ALL_PAIRS, _board_table(result, "csv"))] + [(i.name, t) for i, t, _ in
                                                                                      per_slice]).set_index("slice")
                     if per_slice else _board_table(result, "csv"))
    elif args.format == "csv" and not per_slice:
        print_table(_board_table(result, "csv"), "csv", "{:.4f}")
    else:
        print_tables(_board_table(result, args.format), per_slice, args.format, len(dataset.pairs),
                     "{:.4f}" if args.format == "csv" else "{:.3f}")
    if args.significance != "none" and len(result.systems) < 2:
        print("note: one system: no paired tests (--significance compares two systems or more)", file=sys.stderr)
    elif args.significance != "none":
        column = f"p_{args.significance}"
        for metric in result.metrics + result.humans:
            matrix = leaderboard.significance_matrix(result.tests, metric, result.systems, column)
            print(f"\np-values ({args.significance}), {result.label(metric)}:")
            print_table(matrix, args.format)
    if benchmark:
        _print_reported(benchmark, dataset, result, options, args.format)
    if out:
        write_frame(result.scores, out)
    return collected


def _benchmark(dataset, wanted: str):
    """The benchmark to place the dataset on (said in one line on stderr), or None."""
    from stviz.analyses.benchmark_board import choose_benchmark

    benchmark, line = choose_benchmark(dataset, wanted)
    if benchmark:
        print(line, file=sys.stderr)
    return benchmark


def _published_alone(name: str):
    """The published systems of the benchmark ``name``, with no upload: (their dataset, the card)."""
    from stviz.analyses import benchmark_board
    from stviz.benchmarks import get
    benchmark = get(name)
    dataset, _ = benchmark_board.board_dataset(benchmark, None)
    print(f"benchmark: {benchmark.title}: its {len(benchmark.systems)} published systems alone (--dataset adds "
          "yours among them)", file=sys.stderr)
    print_notes(dataset.notes)
    return with_language(dataset), benchmark


def _print_reported(benchmark, dataset, result, options, fmt: str) -> None:
    """The papers' own numbers beside the recomputed ones (csv: to stderr, so stdout stays one table)."""
    from stviz.analyses.benchmark_board import reported_table

    table = reported_table(benchmark, dataset, result, options).set_index("system")
    if fmt == "csv":
        # format_table neutralises formula cells: system names come from the user's files.
        sys.stderr.write(f"reported vs recomputed ({benchmark.reported_setup or 'see the card'}):\n"
                         + format_table(table, "csv", "{:.2f}"))
        if benchmark.reported_note:
            print(f"empty reported cells: {benchmark.reported_note}", file=sys.stderr)
        return
    print(f"\nreported (the papers, or the release itself) vs recomputed ({benchmark.title}; {benchmark.reported_setup or 'see the card'}):")
    print_table(table, fmt, "{:.2f}")
    if benchmark.reported_note:
        print(f"empty reported cells: {benchmark.reported_note}")
