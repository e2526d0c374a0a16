"""``similarity`` (style x style table, most-similar, self-similarity test) and ``reduce`` (2-D maps).

Fitzpatrick et al.'s style-similarity procedure and t-SNE/UMAP/PCA maps, headless.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from stviz.analyses import embedding_map, similarity
from stviz.analyses.base import add_arguments, from_args
from stviz.cli.common import (TABLE_FORMATS, add_dataset_argument, format_table, load_dataset_arg, preview_mark,
                              preview_path, run_analysis, write_frame)
from stviz.export import figure_html
from stviz.languages.measures import AUTO_EMBEDDER

FIGURE_SUFFIXES = (".html", ".png", ".svg")


def register(sub) -> None:
    """Add the ``similarity`` and ``reduce`` commands (flags from the analyses' Options)."""
    cmd = sub.add_parser("similarity", help="style x style mean cosine similarity of embedders (Fitzpatrick et al.)")
    add_dataset_argument(cmd)
    add_arguments(cmd, similarity.Options)
    cmd.add_argument("--format", choices=TABLE_FORMATS, default="md")
    cmd.add_argument("--most-similar", action="store_true",
                     help="print the most-similar table with the self-similarity count, %% and permutation p-value")
    cmd.set_defaults(func=run_similarity)

    red = sub.add_parser("reduce", help="t-SNE / UMAP / PCA of unit-normalised sentence embeddings")
    add_dataset_argument(red)
    add_arguments(red, embedding_map.Options)
    red.add_argument("--out", required=True,
                     help="coordinates as .csv/.tsv/.parquet, or a figure as .html/.png/.svg")
    red.set_defaults(func=run_reduce)


def run_similarity(args) -> int:
    """Print the style x style table (or the most-similar table) for each embedder."""
    from stviz.embedders import parse_embedder

    options = from_args(similarity.Options, args)
    for spec in set(options.embedders) - {AUTO_EMBEDDER}:  # a typo in the last one must not cost the first's work
        parse_embedder(spec)
    dataset = load_dataset_arg(args.dataset)
    result = run_analysis(similarity, dataset, options)
    if result.errors:
        raise ValueError("; ".join(f"{spec}: {error}" for spec, error in result.errors.items()))
    for spec, report in result.reports.items():
        print(f"{spec}: {len(result.texts):,} sentences, {result.n_styles} styles", file=sys.stderr)
        for note in report.notes:
            print(f"note: {note}", file=sys.stderr)
        rule = "self-pairs included" if options.include_self else "self-pairs excluded"
        sys.stdout.write(_heading(f"{spec} ({rule})", args.format))
        sys.stdout.write(most_similar_text(report, args.format) if args.most_similar
                         else matrix_text(report.matrix, args.format, options.decimals))
    if result.ranking is not None:
        sys.stdout.write(_heading("Embedders from most to least style-invariant", args.format))
        sys.stdout.write(format_table(result.ranking.set_index("rank"), args.format))
    return 0


def _heading(text: str, fmt: str) -> str:
    text += preview_mark()  # a preview's tables say so on stdout, not only on stderr
    return {"md": f"\n## {text}\n\n", "latex": f"\n% {text}\n", "csv": f"# {text}\n"}[fmt]


def matrix_text(matrix: pd.DataFrame, fmt: str, decimals: int = 3) -> str:
    """The style x style table in the paper's layout: row maxima in bold (md, LaTeX); plain numbers in CSV."""
    from stviz.analyses.similarity import matrix_latex, matrix_table

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
    from stviz.embedders import parse_embedder

    out = Path(args.out)
    if out.suffix not in FIGURE_SUFFIXES + (".csv", ".tsv", ".parquet"):
        raise ValueError(f"--out must end in .csv, .tsv, .parquet, .html, .png or .svg, not '{out.suffix}'")
    options = from_args(embedding_map.Options, args)
    if options.embedder != AUTO_EMBEDDER:  # the language's, once the dataset is read
        parse_embedder(options.embedder)
    dataset = load_dataset_arg(args.dataset)
    result = run_analysis(embedding_map, dataset, options)
    if out.suffix in FIGURE_SUFFIXES:
        written = Path(preview_path(str(out)))  # NAME-preview-N-of-M.EXT during a --preview pass
        _write_figure(result, written)
    else:
        written = write_frame(result.points, str(out))
    proj = result.projection
    print(f"wrote {len(result.points):,} points ({proj.method}, {proj.seconds:.1f} s to compute) to {written}",
          file=sys.stderr)
    return 0


def _write_figure(result, out: Path) -> None:
    from stviz.plots.similarity import embedding_map as map_figure

    fig = map_figure(result.points, result.colour, result.title,
                     colour_title=embedding_map.colour_label(result.colour))
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".html":
        # plotly.js inside the file, as the dashboard's HTML download: a CDN link leaves it blank offline.
        out.write_text(figure_html(fig), encoding="utf-8")
    else:
        fig.write_image(str(out), width=1000, height=700)
