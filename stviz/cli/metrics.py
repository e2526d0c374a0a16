"""``metrics`` (every content metric for every pair) and ``correlate`` (metrics vs humans)."""

from __future__ import annotations

import sys

import pandas as pd

from stviz.cli.common import (LEXICON_HELP, TABLE_FORMATS, add_dataset_argument, load_dataset_arg, print_table,
                              progress_printer, read_lexicon, write_frame)
from stviz.data.schema import DataError


def register(sub) -> None:
    """Add the ``metrics`` and ``correlate`` commands."""
    from stviz.metrics.modify import MODIFICATIONS

    cmd = sub.add_parser("metrics", help="compute content-preservation metrics for every pair (cached)")
    add_dataset_argument(cmd)
    _metric_options(cmd, MODIFICATIONS)
    cmd.add_argument("--out", required=True, help="output file: .csv, .tsv or .parquet")
    cmd.set_defaults(func=run_metrics)

    cor = sub.add_parser("correlate", help="correlation of metrics with human scores, with 95%% bootstrap CIs")
    add_dataset_argument(cor)
    _metric_options(cor, MODIFICATIONS)
    cor.add_argument("--human", help="human-score column (default: every human:* column); the prefix may be left out")
    cor.add_argument("--by", choices=("none", "system", "setting"), default="none",
                     help="pooled, per system (settings pooled, with Mir et al.'s mean |r| over systems), "
                          "or per system/setting")
    cor.add_argument("--method", default="pearson,spearman", help="comma list of pearson, spearman, kendall")
    cor.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% CI (default 1000)")
    cor.add_argument("--williams", action="store_true",
                     help="also print the Williams-test p-value matrix (row metric beats column metric)")
    cor.add_argument("--format", choices=TABLE_FORMATS, default="md")
    cor.set_defaults(func=run_correlate)


def _metric_options(cmd, modifications) -> None:
    cmd.add_argument("--metrics", default="default",
                     help="comma list of metric names (bleu, chrf, chrf++, rouge1, rouge2, rouge3, rougeL, meteor, "
                          "wmd, wmd-sim, bertscore, ne, cosine:SPEC, metric:COLUMN); 'default' = the standard "
                          "set plus the dataset's precomputed metric columns")
    cmd.add_argument("--modification", choices=modifications, default="none",
                     help="style modification before the metrics (Mir et al.): none, removal, masking")
    cmd.add_argument("--lexicon", help=LEXICON_HELP)
    cmd.add_argument("--with-ne", action="store_true",
                     help="add each metric's named-entity merge M*(1-p)+M_NE*p (Babakov et al.)")
    cmd.add_argument("--ne-source", choices=("spacy", "columns"), default="spacy",
                     help="M_NE and p from spaCy NER (default) or the dataset's metric:scipy_ner / "
                          "metric:scipy_proprotion columns (SGDD-TST)")


def selected_metrics(spec: str, dataset, modification: str, with_ne: bool) -> list[str]:
    """Metric names from ``--metrics`` (precomputed columns only where the texts are unmodified)."""
    from stviz.metrics import AUTHORS_NE_COLUMNS, DEFAULT_METRICS, NE_SUFFIX, get_card

    if spec in ("default", "all"):
        names = list(DEFAULT_METRICS)
        if modification == "none":
            names += [c for c in dataset.metric_columns if c not in AUTHORS_NE_COLUMNS]
    else:
        names = [n.strip() for n in spec.split(",") if n.strip()]
    for name in names:
        get_card(name)  # raises DataError / EmbedderError for an unknown name
    if with_ne:
        names += [n + NE_SUFFIX for n in names if n != "ne" and not n.endswith(NE_SUFFIX)]
    return names


def compute_frame(args, dataset) -> tuple[pd.DataFrame, list[str]]:
    """The dataset's pairs with one column per selected metric."""
    from stviz.metrics import metric_frame

    if dataset.pairs is None:
        raise DataError(f"dataset '{dataset.name}' has no pairs (source, output) to score")
    names = selected_metrics(args.metrics, dataset, args.modification, args.with_ne)
    lexicon = read_lexicon(args.lexicon, dataset)
    values = metric_frame(dataset.pairs, names, modification=args.modification, lexicon=lexicon,
                          ne_source=args.ne_source, progress=progress_printer(f"{len(names)} metrics"))
    keep = [c for c in ("source", "output", "system", "setting") if c in dataset.pairs]
    keep += dataset.human_columns
    base = dataset.pairs[keep].copy()
    for name in names:
        base[name] = values[name].to_numpy()
    return base, names


def require_pairs(dataset) -> None:
    """Stop with one clear line when a dataset has sentences but no (source, output) pairs."""
    if dataset.pairs is None:
        raise DataError(f"dataset '{dataset.name}' has style-labelled sentences but no (source, output) pairs; "
                        "content-preservation metrics compare an output with its source")


def run_metrics(args) -> int:
    """Compute the metrics and write one row per pair."""
    dataset = load_dataset_arg(args.dataset)
    require_pairs(dataset)
    frame, names = compute_frame(args, dataset)
    path = write_frame(frame, args.out)
    print(f"wrote {len(frame):,} pairs x {len(names)} metrics ({args.modification}) to {path}", file=sys.stderr)
    return 0


def _humans(args, dataset) -> list[str]:
    require_pairs(dataset)
    if not dataset.human_columns:
        raise DataError(f"dataset '{dataset.name}' has no human-score columns to correlate with")
    if not args.human:
        numeric = [c for c in dataset.human_columns if pd.api.types.is_numeric_dtype(dataset.pairs[c])]
        return numeric
    name = args.human if args.human.startswith("human:") else "human:" + args.human
    if name not in dataset.human_columns:
        raise DataError(f"no human column '{args.human}'; choose from {', '.join(dataset.human_columns)}")
    return [name]


def run_correlate(args) -> int:
    """Print the correlation table with intervals (and optionally the NE table and Williams matrix)."""
    from stviz.meta import (METHODS, cached_correlation_table, cached_ne_table, cached_williams_matrix,
                            format_p_value)
    from stviz.metrics import NE_SUFFIX, get_card

    dataset = load_dataset_arg(args.dataset)
    methods = [m.strip() for m in args.method.split(",") if m.strip()]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise DataError(f"unknown method(s) {', '.join(bad)}; choose from {', '.join(METHODS)}")
    humans = _humans(args, dataset)
    frame, names = compute_frame(args, dataset)
    cards = {n: get_card(n) for n in names}
    distances = {n: not c.higher_is_better for n, c in cards.items()}
    with_progress = progress_printer(f"bootstrap ({args.bootstrap:,} resamples)")
    table = cached_correlation_table(frame, names, humans, methods, by=None if args.by == "none" else args.by,
                                     distances=distances, n_boot=args.bootstrap, progress=with_progress)
    readable = _readable(table, cards, args.modification)
    if args.format == "md":  # a '|' inside a cell would split the Markdown column
        readable = readable.map(lambda v: v.replace("|", r"\|") if isinstance(v, str) else v)
    print_table(readable, args.format)
    if args.with_ne:
        base = [n for n in names if not n.endswith(NE_SUFFIX) and n != "ne"]
        for human in humans:
            method = "spearman" if "spearman" in methods else methods[0]
            sys.stdout.write(f"\nNamed-entity merge ({method}, {human}; Babakov et al. Table 4 layout)\n")
            print_table(cached_ne_table(frame, base, human, method, labels={n: cards[n].label for n in base},
                                        distances=distances)
                        .assign(**{"Williams p": lambda t: t["Williams p"].map(format_p_value)})
                        .set_index("metric"), args.format)
    if args.williams:
        method = methods[0] if methods[0] != "kendall" else "pearson"
        for human in humans:
            sys.stdout.write(f"\nWilliams test p-values ({method}, {human}): row metric > column metric\n")
            print_table(cached_williams_matrix(frame, names, human, method, distances), args.format, "{:.4f}")
    return 0


def _readable(table: pd.DataFrame, cards, modification: str) -> pd.DataFrame:
    from stviz.meta import format_p_value

    out = pd.DataFrame({
        "metric": table["metric"].map(lambda n: cards[n].label),
        "human": table["human"].str.replace("human:", "", regex=False),
        "method": table["method"], "group": table["group"], "n": table["n"],
        "r": table["r"], "direction": table["shown"],
        "95% CI": [f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(table["ci_low"], table["ci_high"])],
        "p": table["p_value"].map(format_p_value), "texts": modification,
    })
    return out.set_index("metric")
