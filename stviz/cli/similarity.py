"""``similarity`` (style x style table, most-similar, self-similarity test) and ``reduce`` (2-D maps).

Fitzpatrick et al.'s style-similarity procedure and t-SNE/UMAP/PCA maps, headless.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from stviz.cli.common import (TABLE_FORMATS, add_dataset_argument, format_table, load_dataset_arg,
                              progress_printer, write_frame)

FIGURE_SUFFIXES = (".html", ".png", ".svg")


def register(sub) -> None:
    """Add the ``similarity`` and ``reduce`` commands."""
    from stviz.embed import SPEC_HELP
    from stviz.reduce import MAP_SOURCES, METHODS

    cmd = sub.add_parser("similarity", help="style x style mean cosine similarity of an embedder (Fitzpatrick et al.)")
    add_dataset_argument(cmd)
    cmd.add_argument("--embedder", action="append", help=SPEC_HELP + ". Repeat to compare embedders "
                     "(default: minilm)")
    cmd.add_argument("--include-self", action="store_true",
                     help="count each sentence's similarity with itself on the diagonal (the paper's wording "
                          "implies it; default: excluded)")
    cmd.add_argument("--format", choices=TABLE_FORMATS, default="md")
    cmd.add_argument("--most-similar", action="store_true",
                     help="print the most-similar table with the self-similarity count, %% and permutation p-value")
    cmd.add_argument("--leakage", action="store_true",
                     help="also print style leakage (CV style accuracy, silhouette) and the invariance ranking")
    cmd.add_argument("--per-style", type=_at_least(2, int), default=None, metavar="N",
                     help="use a random sample of at most N sentences per style (seed --seed; default: all). "
                          "Yelp sentiment has 190,153 sentences: MiniLM takes about an hour on them all")
    cmd.add_argument("--permutations", type=_at_least(1, int), default=999,
                     help="label shuffles for the p-value (default 999)")
    cmd.add_argument("--bootstrap", type=_at_least(0, int), default=200,
                     help="bootstrap resamples for cell intervals, 0 = none (default 200)")
    cmd.add_argument("--decimals", type=_at_least(0, int), default=3,
                     help="decimals shown; ties at this precision count (default 3)")
    cmd.add_argument("--seed", type=int, default=0)
    cmd.set_defaults(func=run_similarity)

    red = sub.add_parser("reduce", help="t-SNE / UMAP / PCA of unit-normalised sentence embeddings")
    add_dataset_argument(red)
    red.add_argument("--embedder", default="minilm", help=SPEC_HELP)
    red.add_argument("--method", choices=METHODS, default="tsne")
    red.add_argument("--texts", choices=tuple(MAP_SOURCES), default=None,
                     help="which sentences: style-labelled texts, pair outputs or pair sources (default: texts "
                          "for a style corpus, else outputs)")
    red.add_argument("--max-points", type=_at_least(3, int), default=None,
                     help="project a stratified random sample of this many sentences (default: all)")
    red.add_argument("--perplexity", type=_at_least(1, float), default=30.0, help="t-SNE perplexity (default 30)")
    red.add_argument("--n-neighbors", type=_at_least(2, int), default=15, help="UMAP neighbours (default 15)")
    red.add_argument("--min-dist", type=_at_least(0, float), default=0.1, help="UMAP min_dist (default 0.1)")
    red.add_argument("--seed", type=int, default=0)
    red.add_argument("--colour", default=None, help="column to colour a figure by (default: style)")
    red.add_argument("--out", required=True,
                     help="coordinates as .csv/.tsv/.parquet, or a figure as .html/.png/.svg")
    red.set_defaults(func=run_reduce)


def _at_least(low, kind):
    """An argparse type: a number of ``kind`` that is at least ``low`` (one clear line otherwise)."""
    import argparse

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def _style_frame(dataset) -> pd.DataFrame:
    """The style-labelled sentences, refused before any embedding if there are fewer than two styles."""
    from stviz.data.schema import DataError

    if not dataset.has_styles:
        raise DataError(f"dataset '{dataset.name}' has no style labels; style similarity needs a style column")
    texts = dataset.style_texts()
    styles = texts["style"].astype(str).unique()
    if len(styles) < 2:
        origin = ("its sentences" if dataset.texts is not None
                  else f"its {len(texts):,} distinct source sentences (outputs are not style examples)")
        raise DataError(f"dataset '{dataset.name}' has a single style ('{styles[0]}' for {origin}); "
                        "style similarity compares two or more styles")
    return texts


def run_similarity(args) -> int:
    """Print the style x style table (or the most-similar table) for each embedder."""
    from stviz.similarity import invariance_ranking, similarity_report

    from stviz.embed import parse_embedder
    from stviz.similarity import sample_per_style

    specs = args.embedder or ["minilm"]
    for spec in specs:  # a typo in the last embedder must not cost the first one's work
        parse_embedder(spec)
    dataset = load_dataset_arg(args.dataset)
    texts = _style_frame(dataset)
    total = len(texts)
    texts = sample_per_style(texts, args.per_style, seed=args.seed)
    if len(texts) < total:
        print(f"note: sampled {len(texts):,} of {total:,} sentences (at most {args.per_style:,} per style, "
              f"seed {args.seed})", file=sys.stderr)
    if dataset.texts is None:
        print("note: the style-labelled sentences are the distinct pair sources with their source style",
              file=sys.stderr)
    reports = []
    for spec in specs:
        print(f"{spec}: {len(texts):,} sentences, {texts['style'].nunique()} styles", file=sys.stderr)
        report = similarity_report(texts["text"].tolist(), texts["style"].tolist(), spec,
                                   include_self=args.include_self, decimals=args.decimals,
                                   n_permutations=args.permutations, n_bootstrap=args.bootstrap,
                                   leakage=args.leakage, seed=args.seed, progress=progress_printer(spec))
        for note in report.notes:
            print(f"note: {note}", file=sys.stderr)
        reports.append(report)
        sys.stdout.write(_heading(f"{spec} ({'self-pairs included' if args.include_self else 'self-pairs excluded'})",
                                  args.format))
        sys.stdout.write(most_similar_text(report, args.format) if args.most_similar
                         else matrix_text(report.matrix, args.format, args.decimals))
    if args.leakage:
        sys.stdout.write(_heading("Embedders from most to least style-invariant", args.format))
        sys.stdout.write(format_table(invariance_ranking(reports).set_index("rank"), args.format))
    return 0


def _heading(text: str, fmt: str) -> str:
    return {"md": f"\n## {text}\n\n", "latex": f"\n% {text}\n", "csv": f"# {text}\n"}[fmt]


def matrix_text(matrix: pd.DataFrame, fmt: str, decimals: int = 3) -> str:
    """The style x style table in the paper's layout: row maxima in bold (md, LaTeX); plain numbers in CSV."""
    from stviz.similarity import matrix_latex, matrix_table

    if fmt == "latex":
        return matrix_latex(matrix, decimals)
    if fmt == "md":
        return format_table(matrix_table(matrix, decimals), "md")
    return format_table(matrix, "csv", float_format="{:.%df}" % decimals)


def most_similar_text(report, fmt: str) -> str:
    """Most-similar table (Tables 4-6) followed by the self-similarity count and its p-value (Table 7)."""
    table = report.most_similar.set_index("style")
    perm = report.permutation
    summary = pd.DataFrame([{
        "self-similar styles": report.self_count, "styles": report.n_styles,
        "self-similar %": 100 * report.self_share, "chance % (1/k)": 100 * report.chance,
        "shuffled-label mean": float(perm.null_counts.mean()), "permutation p": perm.p_value,
        "permutations": len(perm.null_counts)}]).set_index("self-similar styles")
    if fmt != "csv":  # for reading: shares to 1 decimal (CSV keeps full precision for further use)
        for col in ("self-similar %", "chance % (1/k)"):
            summary[col] = summary[col].map("{:.1f}".format)
        summary["shuffled-label mean"] = summary["shuffled-label mean"].map("{:.2f}".format)
    return format_table(table, fmt) + "\n" + format_table(summary, fmt)


def run_reduce(args) -> int:
    """Project one embedder's vectors to 2-D and write coordinates or a figure."""
    from stviz.reduce import map_frame, map_points, map_sources

    from stviz.data.schema import DataError
    from stviz.embed import parse_embedder

    out = Path(args.out)
    if out.suffix not in FIGURE_SUFFIXES + (".csv", ".tsv", ".parquet"):
        raise ValueError(f"--out must end in .csv, .tsv, .parquet, .html, .png or .svg, not '{out.suffix}'")
    parse_embedder(args.embedder)
    dataset = load_dataset_arg(args.dataset)
    sources = map_sources(dataset)
    if not sources:
        raise DataError(f"dataset '{args.dataset}' has neither style-labelled sentences nor pairs to map")
    source = args.texts or sources[0]
    frame = map_frame(dataset, source)
    if args.colour is not None and args.colour not in frame:
        raise DataError(f"no column '{args.colour}' to colour by; have: {', '.join(map(str, frame.columns[1:]))}")
    if args.max_points is None and len(frame) > 20_000:
        print(f"note: mapping all {len(frame):,} sentences; --max-points N projects a stratified sample",
              file=sys.stderr)
    points, proj = map_points(frame, args.embedder, args.method, max_points=args.max_points, seed=args.seed,
                              perplexity=args.perplexity, n_neighbors=args.n_neighbors, min_dist=args.min_dist,
                              embed_progress=progress_printer("embedding"), progress=progress_printer(args.method))
    if proj.sampled:
        print(f"note: sampled {len(proj.rows):,} of {proj.n_total:,} sentences (--max-points)", file=sys.stderr)
    if out.suffix in FIGURE_SUFFIXES:
        _write_figure(points, args, proj, out)
    else:
        write_frame(points, str(out))
    print(f"wrote {len(points):,} points ({args.method}, {proj.seconds:.1f} s to compute) to {out}", file=sys.stderr)
    return 0


def _write_figure(points: pd.DataFrame, args, proj, out: Path) -> None:
    from stviz.data.schema import DataError
    from stviz.plots.similarity import embedding_map
    from stviz.embed import PRESETS
    from stviz.reduce import METHOD_LABELS

    colour = args.colour or ("style" if "style" in points else None)
    if colour is not None and colour not in points:
        raise DataError(f"no column '{colour}' to colour by; have: {', '.join(map(str, points.columns[3:]))}")
    title = f"{METHOD_LABELS[args.method]} of {PRESETS.get(args.embedder, args.embedder)} vectors, {args.dataset}"
    if proj.sampled:
        title += f" (sample of {len(proj.rows):,} / {proj.n_total:,})"
    fig = embedding_map(points, colour, title)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".html":
        fig.write_html(str(out), include_plotlyjs="cdn")
    else:
        fig.write_image(str(out), width=1000, height=700)
