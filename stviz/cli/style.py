"""Sub-commands for style classifiers, style transfer intensity, token attributions and tradeoffs.

    python -m stviz classify train --dataset NAME --kind lr|transformer --out DIR
    python -m stviz classify train --ratings FILE --name NAME [--kind ridge-tfidf|ridge-minilm] [--pole STYLE]
    python -m stviz intensity --dataset NAME [--classifier DIR] --out FILE
    python -m stviz attribute --dataset NAME [--classifier DIR] --threshold 0.3 --strategy remove --out FILE
    python -m stviz tradeoff --dataset NAME [--classifier DIR] --format csv|md
"""

from __future__ import annotations

import sys

from stviz.analyses import attributions, tables, tradeoffs
from stviz.analyses.base import add_arguments, from_args
from stviz.analyses.common import train_and_save_classifier, train_and_save_scorer
from stviz.cli.common import (TABLE_FORMATS, CliReporter, add_dataset_argument, dataset_arg, load_dataset_arg,
                              print_table, progress_printer, run_analysis, write_frame)

#: What ``classify train --kind`` takes: classifiers of style-labelled texts, scorers of rated sentences.
CLASSIFIER_KINDS, SCORER_KINDS = ("lr", "transformer"), ("ridge-tfidf", "ridge-minilm")


def register(subparsers) -> None:
    """Add the classify / intensity / attribute / tradeoff sub-commands."""
    classify = subparsers.add_parser("classify", help="style classifiers")
    actions = classify.add_subparsers(dest="classify_command", metavar="ACTION")
    train = actions.add_parser("train", help="train a style classifier (--dataset) or a style scorer from rated "
                                             "sentences (--ratings), and report its held-out figures")
    add_dataset_argument(train, required=False)
    train.add_argument("--ratings", metavar="NAME|FILE",
                       help="rated sentences (a text and a numeric rating, e.g. pt16-train, or SID,label,sentence as "
                            "released): learn a style scorer from them, saved under --name for --style-scorer NAME")
    train.add_argument("--kind", choices=CLASSIFIER_KINDS + SCORER_KINDS, default=None,
                       help="classifier: lr (TF-IDF n-gram logistic regression, the default) or transformer (MiniLM + "
                            "logistic head); scorer: ridge-tfidf (the default) or ridge-minilm")
    train.add_argument("--name", help="--ratings: the scorer's name (default: the set's name and the kind)")
    train.add_argument("--rating", help="--ratings: the rating to learn (default: the set's only one)")
    train.add_argument("--pole", help="--ratings: the style its high ratings mean (default: read from the rating's or "
                                      "the set's name, e.g. formality -> formal)")
    train.add_argument("--out", help="folder to write to (a classifier needs one; a scorer goes to "
                                     "$STVIZ_HOME/scorers/NAME by default)")
    train.add_argument("--max-texts", type=int, default=None,
                       help="stratified sample size for training (default: 40,000 for lr, 8,000 for transformer)")
    train.set_defaults(func=run_classify_train)
    classify.set_defaults(func=lambda args: (classify.print_help(), 2)[1])

    intensity = subparsers.add_parser("intensity", help="style transfer intensity per pair (Mir et al.; Cloudera)")
    add_dataset_argument(intensity)
    add_arguments(intensity, tradeoffs.Options, skip=("content_metric", "with_ne", "modification", "lexicon",
                                                                 "naturalness"))
    intensity.add_argument("--out", required=True, help="per-pair scores (.csv, .tsv or .parquet)")
    intensity.set_defaults(func=run_intensity)

    attribute = subparsers.add_parser("attribute", help="mask style words by token attribution and score content; "
                                                        "the masking sweep on a sample across systems")
    add_dataset_argument(attribute)
    add_arguments(attribute, attributions.Options, skip=("pair", "sweep"))
    attribute.add_argument("--out", required=True, help="masked texts and scores of the sample (.csv, .tsv or .parquet)")
    attribute.add_argument("--format", choices=TABLE_FORMATS, default="md")
    attribute.set_defaults(func=run_attribute)

    tradeoff = subparsers.add_parser("tradeoff", help="one row per system/setting: intensity, content, naturalness")
    add_dataset_argument(tradeoff)
    add_arguments(tradeoff, tradeoffs.Options)
    tradeoff.add_argument("--format", choices=TABLE_FORMATS, default="md")
    tradeoff.set_defaults(func=run_tradeoff)


def run_classify_train(args) -> int:
    """Train, save and report a style classifier (``--dataset``) or a style scorer (``--ratings``)."""
    from stviz.data.schema import DataError

    if args.ratings:
        return run_scorer_train(args)
    if not args.dataset:
        raise DataError("give --dataset NAME|FILE (a style classifier from style-labelled texts) or --ratings NAME|FILE "
                        "(a style scorer from rated sentences)")
    if args.kind in SCORER_KINDS or not args.out:
        raise DataError(f"a style classifier needs --out DIR and --kind {' or '.join(CLASSIFIER_KINDS)}; "
                        f"{'/'.join(SCORER_KINDS)} learn from rated sentences: --ratings FILE")
    dataset = load_dataset_arg(args.dataset)
    trained, folder = train_and_save_classifier(dataset, args.kind or "lr", args.out, max_texts=args.max_texts,
                                                progress=progress_printer("embedding training texts"))
    print(trained.summary())
    print_table(trained.confusion, "md", "{}")
    print(f"saved to {folder}", file=sys.stderr)
    return 0


def run_scorer_train(args) -> int:
    """Learn a style scorer from rated sentences, save it under its name, and report its held-out error."""
    from pathlib import Path

    from stviz.data.schema import DataError

    if args.kind in CLASSIFIER_KINDS:
        raise DataError(f"--ratings learns a scorer: --kind {' or '.join(SCORER_KINDS)} ({args.kind} is a classifier "
                        "of style-labelled texts: --dataset)")
    kind = args.kind or SCORER_KINDS[0]
    dataset = load_dataset_arg(dataset_arg(args.ratings, args))
    name = args.name or f"{Path(dataset.name).stem}-{kind.removeprefix('ridge-')}"
    scorer, folder, replaced = train_and_save_scorer(dataset, name, kind, rating=args.rating, pole=args.pole,
                                                     folder=args.out)
    if replaced:
        print(f"note: {replaced}", file=sys.stderr)
    print(scorer.summary())
    print(f"saved to {folder}; use it with --style-scorer {name if not args.out else folder}", file=sys.stderr)
    return 0


def run_intensity(args) -> int:
    """Per-pair style transfer intensity, with a per-system summary on stdout."""
    options = from_args(tradeoffs.Options, args)
    dataset = load_dataset_arg(args.dataset)
    out, summary, trained, notes = tradeoffs.intensity(dataset, options, CliReporter())
    print(f"classifier: {trained.summary()}", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    write_frame(out, args.out)
    print_table(summary, "md")
    print(f"wrote {len(out):,} rows to {args.out}", file=sys.stderr)
    return 0


def run_attribute(args) -> int:
    """Masked sources/outputs of a sample, content on masked vs unmasked texts, and the masking sweep."""
    options = from_args(attributions.Options, args, sweep=True)
    dataset = load_dataset_arg(args.dataset)
    result = run_analysis(attributions, dataset, options)
    print(f"classifier: {result.classifier.summary()}", file=sys.stderr)
    write_frame(result.masked, args.out)
    if args.format != "csv":  # stdout stays one CSV table: the sweep's correlations
        print_table(attributions.content_summary(result.masked), args.format)
    if result.sweep_correlations is not None:
        if args.format != "csv":
            sys.stdout.write(f"\nMasking sweep (Cloudera Fig. 5): correlation of each setting with "
                             f"{attributions.human_label(result)}\n")
        print_table(result.sweep_correlations, args.format)
    print(f"wrote {len(result.masked):,} rows to {args.out}", file=sys.stderr)
    return 0


def run_tradeoff(args) -> int:
    """Print one row per system/setting: mean intensity, content preservation, naturalness, human scores."""
    options = from_args(tradeoffs.Options, args)
    dataset = load_dataset_arg(args.dataset)
    result = run_analysis(tradeoffs, dataset, options)
    print(f"classifier: {result.classifier.summary()}", file=sys.stderr)
    print_table(tables.tradeoff_table(result), args.format)
    if result.naturalness_agreement is not None:
        agreement = result.naturalness_agreement
        title = (f"Agreement of the adversarial {options.naturalness} classifier with the raters' choice of the more "
                 "natural text (Mir et al. section 5)")
        if args.format == "csv":  # stdout stays one CSV table; the summary goes beside it
            shares = ", ".join(f"{name} {row.agreement:.3f}" for name, row in agreement.iterrows())
            print(f"{title}: {shares}", file=sys.stderr)
        else:
            sys.stdout.write(f"\n{title}\n")
            print_table(agreement, args.format)
    return 0
