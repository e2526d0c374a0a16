"""Sub-commands for style classifiers, style transfer intensity, token attributions and tradeoffs.

    python -m stviz classify train --dataset NAME --kind lr|transformer --out DIR
    python -m stviz intensity --dataset NAME [--classifier DIR] --out FILE
    python -m stviz attribute --dataset NAME [--classifier DIR] --threshold 0.3 --strategy remove --out FILE
    python -m stviz tradeoff --dataset NAME [--classifier DIR] --format csv|md
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from stviz.cli.common import (LEXICON_HELP, TABLE_FORMATS, add_dataset_argument, load_dataset_arg, print_table,
                              progress_printer, read_lexicon, write_frame)
from stviz.data.schema import DataError


def register(subparsers) -> None:
    """Add the classify / intensity / attribute / tradeoff sub-commands."""
    classify = subparsers.add_parser("classify", help="style classifiers")
    actions = classify.add_subparsers(dest="classify_command", metavar="ACTION")
    train = actions.add_parser("train", help="train a style classifier and report held-out accuracy")
    add_dataset_argument(train)
    train.add_argument("--kind", choices=("lr", "transformer"), default="lr",
                       help="lr: TF-IDF n-gram logistic regression; transformer: MiniLM + logistic head")
    train.add_argument("--out", required=True, help="folder to write the classifier to")
    train.add_argument("--max-texts", type=int, default=None,
                       help="stratified sample size for training (default: 40,000 for lr, 8,000 for transformer)")
    train.set_defaults(func=run_classify_train)
    classify.set_defaults(func=lambda args: (classify.print_help(), 2)[1])

    intensity = subparsers.add_parser("intensity", help="style transfer intensity per pair (Mir et al.; Cloudera)")
    add_dataset_argument(intensity)
    _classifier_argument(intensity)
    intensity.add_argument("--out", required=True, help="per-pair scores (.csv, .tsv or .parquet)")
    intensity.set_defaults(func=run_intensity)

    attribute = subparsers.add_parser("attribute", help="mask style words by token attribution and score content")
    add_dataset_argument(attribute)
    _classifier_argument(attribute, kind="transformer")
    attribute.add_argument("--threshold", type=float, default=0.3, help="share of attribution mass to mask (0-1)")
    attribute.add_argument("--strategy", choices=("remove", "placeholder", "lexicon-remove", "lexicon-placeholder"),
                           default="remove", help="remove or replace the top words; lexicon-*: mask lexicon words")
    attribute.add_argument("--placeholder", default="[PAD]", help="replacement for masked words")
    attribute.add_argument("--lexicon", help="with --strategy lexicon-*: " + LEXICON_HELP)
    attribute.add_argument("--standout", type=float, default=None,
                           help="mask nothing when the top word's share is below STANDOUT / n_words")
    attribute.add_argument("--limit", type=int, default=None, help="only the first N pairs")
    attribute.add_argument("--out", required=True, help="masked texts and scores (.csv, .tsv or .parquet)")
    attribute.set_defaults(func=run_attribute)

    tradeoff = subparsers.add_parser("tradeoff", help="one row per system/setting: intensity, content, naturalness")
    add_dataset_argument(tradeoff)
    _classifier_argument(tradeoff)
    tradeoff.add_argument("--content-metric", default="cosine:minilm", help="content-preservation metric name")
    tradeoff.add_argument("--modification", choices=("none", "removal", "masking"), default="none",
                          help="style-word modification before the content metric (needs a lexicon)")
    tradeoff.add_argument("--lexicon", help=LEXICON_HELP)
    tradeoff.add_argument("--naturalness", choices=("unigram", "neural", "none"), default="unigram",
                          help="adversarial naturalness classifier")
    tradeoff.add_argument("--format", choices=TABLE_FORMATS, default="md")
    tradeoff.set_defaults(func=run_tradeoff)


def _classifier_argument(parser: argparse.ArgumentParser, kind: str = "lr") -> None:
    parser.add_argument("--classifier", default=None,
                        help=f"folder written by 'classify train' (default: a cached {kind} classifier trained "
                             "on the dataset's companion corpus or its own style texts)")


def _classifier(args, dataset, kind: str = "lr"):
    from stviz.classify import default_classifier, load_classifier

    if args.classifier:
        trained = load_classifier(args.classifier)
    else:
        trained = default_classifier(dataset, kind, progress=progress_printer(f"training {kind} classifier"))
    print(f"classifier: {trained.summary()}", file=sys.stderr)
    return trained


def _require_pairs(dataset):
    if dataset.pairs is None:
        raise DataError(f"dataset '{dataset.name}' has no pairs (source/output); this command needs pairs")
    return dataset.pairs


def run_classify_train(args) -> int:
    """Train, save and report a style classifier."""
    from stviz.classify import DEFAULT_MAX_TEXTS, save_classifier, train_on_dataset

    dataset = load_dataset_arg(args.dataset)
    trained = train_on_dataset(dataset, args.kind, max_texts=args.max_texts or DEFAULT_MAX_TEXTS[args.kind],
                               progress=progress_printer("embedding training texts"))
    folder = save_classifier(trained, args.out)
    print(trained.summary())
    print_table(trained.confusion, "md", "{}")
    print(f"saved to {folder}", file=sys.stderr)
    return 0


def run_intensity(args) -> int:
    """Per-pair style transfer intensity, with a per-system summary on stdout."""
    from stviz.metrics.style import order_settings, style_transfer_intensity

    dataset = load_dataset_arg(args.dataset)
    pairs = _require_pairs(dataset)
    trained = _classifier(args, dataset)
    scores = style_transfer_intensity(pairs, trained, progress=progress_printer("style distributions"))
    keep = [c for c in ("source", "output", "system", "setting", "source_style", "target_style") if c in pairs]
    out = pd.concat([pairs[keep], scores], axis=1)
    write_frame(out, args.out)
    keys = [k for k in ("system", "setting") if k in pairs] or None
    if keys:
        # One readable row per system/setting (settings in hyper-parameter order), not tuple-valued index cells.
        summary = order_settings(out.groupby(keys, sort=False)[list(scores.columns)].mean())
        summary = summary.reset_index().set_index(keys[0])
    else:
        summary = scores.mean().to_frame("mean").T
    print_table(summary, "md")
    print(f"wrote {len(out):,} rows to {args.out}", file=sys.stderr)
    return 0


def run_attribute(args) -> int:
    """Masked sources/outputs and content preservation on masked vs unmasked texts."""
    from stviz.attribute import content_preservation, mask_by_lexicon, masked_pairs

    dataset = load_dataset_arg(args.dataset)
    pairs = _require_pairs(dataset)
    if args.limit:
        pairs = pairs.head(args.limit)
    if args.strategy.startswith("lexicon-"):
        lexicon = read_lexicon(args.lexicon, dataset)
        if not lexicon:
            raise DataError(f"dataset '{dataset.name}' ships no style lexicon; learn one with --lexicon learn "
                            "or use --strategy remove|placeholder")
        strategy = args.strategy.split("-", 1)[1]
        masked = pd.DataFrame({"masked_source": mask_by_lexicon(pairs["source"].astype(str), lexicon,
                                                                strategy, args.placeholder),
                               "masked_output": mask_by_lexicon(pairs["output"].astype(str), lexicon,
                                                                strategy, args.placeholder)}, index=pairs.index)
    else:
        trained = _classifier(args, dataset, kind="transformer")
        masked = masked_pairs(pairs, trained, args.threshold, args.strategy, placeholder=args.placeholder,
                              standout=args.standout, progress=progress_printer("attributions"))
    masked["content_unmasked"] = content_preservation(pairs["source"].astype(str), pairs["output"].astype(str))
    masked["content_masked"] = content_preservation(masked["masked_source"], masked["masked_output"])
    keep = [c for c in ("source", "output", "system", "setting") if c in pairs]
    out = pd.concat([pairs[keep], masked], axis=1)
    write_frame(out, args.out)
    scores = out[["content_unmasked", "content_masked"]]
    print_table(scores.agg(["mean", "median", "min", "max"]).T.assign(pairs=len(scores)), "md")
    print(f"wrote {len(out):,} rows to {args.out}", file=sys.stderr)
    return 0


def run_tradeoff(args) -> int:
    """Print one row per system/setting: mean intensity, content preservation, naturalness, human scores."""
    from stviz.classify import human_reference_texts
    from stviz.metrics.naturalness import NATURALNESS_RELATIVE, naturalness_agreement
    from stviz.metrics.style import tradeoff_pairs, tradeoff_table

    dataset = load_dataset_arg(args.dataset)
    pairs = _require_pairs(dataset)
    trained = _classifier(args, dataset)
    naturalness = None if args.naturalness == "none" else args.naturalness
    per_pair = tradeoff_pairs(pairs, trained, content_metric=args.content_metric, modification=args.modification,
                              lexicon=read_lexicon(args.lexicon, dataset), naturalness=naturalness,
                              human_texts=human_reference_texts(dataset) if naturalness else (),
                              progress=progress_printer("tradeoff"))
    table = tradeoff_table(pairs, per_pair)
    columns = ["direction_corrected_emd", "normalised_intensity", "target_style_accuracy", "content_preservation"]
    columns += [c for c in ("p_human_output", "output_more_natural") if c in table]
    columns += [c for c in table.columns if str(c).startswith("human:")] + ["n"]
    # system as the index and setting as a column keeps both readable in Markdown and CSV.
    print_table(table[columns].reset_index().set_index(table.index.names[0]), args.format)
    if naturalness and NATURALNESS_RELATIVE in pairs:
        agreement = naturalness_agreement(pairs, per_pair)
        title = (f"Agreement of the adversarial {naturalness} classifier with the raters' choice of the more "
                 "natural text (Mir et al. section 5)")
        if args.format == "csv":  # stdout stays one CSV table; the summary goes beside it
            shares = ", ".join(f"{name} {row.agreement:.3f}" for name, row in agreement.iterrows())
            print(f"{title}: {shares}", file=sys.stderr)
        else:
            sys.stdout.write(f"\n{title}\n")
            print_table(agreement, args.format)
    return 0
