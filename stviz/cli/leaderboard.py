"""``leaderboard``: whole systems compared per metric with 95% intervals, rank ranges and paired tests.

    python -m stviz leaderboard --dataset li2018-yelp --format md
    python -m stviz leaderboard --dataset outputs/ --references refs/reference.0 refs/reference.1 \\
        --directions 0=negative>positive,1=positive>negative --format latex

``--dataset`` is a dataset name, a pair file, or a folder of system outputs (one file per system and
direction, one folder per system, or input<TAB>output files; see stviz.data.outputs).
"""

from __future__ import annotations

import sys
from pathlib import Path

from stviz.analyses import leaderboard
from stviz.analyses.base import add_arguments, from_args
from stviz.cli.common import (TABLE_FORMATS, add_dataset_argument, load_dataset_arg, print_notes, print_table,
                              run_analysis, write_frame)
from stviz.data.schema import DataError


def register(sub) -> None:
    """Add the ``leaderboard`` command."""
    cmd = sub.add_parser("leaderboard", help="compare systems: every metric with a 95%% CI, rank ranges, "
                                             "paired significance tests")
    add_dataset_argument(cmd)  # a name, a pair file, or (read below) a folder of system outputs
    cmd.add_argument("--references", nargs="+", default=(), metavar="FILE",
                     help="reference files for a folder of outputs: one reference per line aligned with the inputs, "
                          "or input<TAB>reference[<TAB>reference...]; a name ending in .0/.1 applies to that direction")
    cmd.add_argument("--directions", default="",
                     help="for a folder of outputs: the styles of each direction, DIR=SOURCE>TARGET separated by commas "
                          "(e.g. 0=negative>positive,1=positive>negative)")
    add_arguments(cmd, leaderboard.Options)
    cmd.add_argument("--format", choices=TABLE_FORMATS, default="md",
                     help="md / latex: one row per system, 'value [low, high]' and rank ranges; csv: the tidy table")
    cmd.add_argument("--significance", choices=("none", "bootstrap", "randomization"), default="none",
                     help="also print each metric's matrix of paired p-values")
    cmd.add_argument("--out", help="also write the tidy table (.csv, .tsv or .parquet)")
    cmd.set_defaults(func=run)


def parse_directions(text: str) -> dict[str, tuple[str, str]]:
    """``0=negative>positive,1=positive>negative`` -> {'0': ('negative', 'positive'), ...}."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        direction, _, styles = part.partition("=")
        source, _, target = styles.partition(">")
        if not (direction.strip() and source.strip() and target.strip()):
            raise DataError(f"--directions: '{part}' is not DIR=SOURCE>TARGET")
        out[direction.strip()] = (source.strip(), target.strip())
    return out


def load(args):
    """The dataset ``--dataset`` names: a folder of outputs (with --references, --directions) or a name/pair file."""
    from stviz.data.outputs import load_outputs_folder

    path = Path(args.dataset)
    if path.is_dir():
        ds = load_outputs_folder(path, reference_files=args.references, styles=parse_directions(args.directions))
        print_notes(ds.notes)
        return ds
    if args.references or args.directions:
        raise DataError("--references and --directions apply to a folder of system outputs")
    return load_dataset_arg(args.dataset)


def run(args) -> int:
    """Compute and print the leaderboard."""
    dataset = load(args)
    options = from_args(leaderboard.Options, args)
    result = run_analysis(leaderboard, dataset, options)
    if result.classifier:
        print(f"style classifier: {result.classifier}", file=sys.stderr)
    for metric, signature in result.signatures.items():
        print(f"sacrebleu {metric}: {signature}", file=sys.stderr)
    if result.fluency:
        print(f"fluency: {result.fluency}", file=sys.stderr)
    if result.style_texts:
        print(result.style_texts, file=sys.stderr)
    if args.format == "csv":
        print_table(result.scores.set_index(["system", "metric"]), "csv", "{:.4f}")
    else:
        print_table(result.wide(), args.format)
    if args.significance != "none":
        column = f"p_{args.significance}"
        for metric in result.metrics + result.humans:
            matrix = leaderboard.significance_matrix(result.tests, metric, result.systems, column)
            print(f"\np-values ({args.significance}), {leaderboard.label_of(metric)}:")
            print_table(matrix, args.format)
    if args.out:
        write_frame(result.scores, args.out)
    return 0
