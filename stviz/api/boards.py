"""The leaderboard of the Python API: an upload placed among a benchmark's published systems as the command line
places it (:func:`stviz.analyses.benchmark_board.choose_benchmark`), or those systems alone."""

from __future__ import annotations

from stviz.api.running import Table, run_view
from stviz.data.schema import DataError, Dataset


def published_alone(name: str) -> tuple[Dataset, list[str]]:
    """The published systems of the benchmark ``name``, with no upload: (their dataset, what is said)."""
    from stviz.analyses import benchmark_board
    from stviz.benchmarks import BENCHMARKS, get

    if name in ("auto", "none"):
        names = [key for key, card in BENCHMARKS.items() if not card.obtain]
        raise DataError("give --dataset (a name, a pair file, or a folder or .zip of outputs), or --benchmark NAME "
                        f"for a benchmark's published systems alone ({', '.join(names)})")
    benchmark = get(name)
    dataset, _ = benchmark_board.board_dataset(benchmark, None)
    said = (f"benchmark: {benchmark.title}: its {len(benchmark.systems)} published systems alone (--dataset adds "
            "yours among them)")
    return dataset, [said] + list(dataset.notes)


def board_of(dataset: Dataset, options, wanted: str, upload: bool, reporter) -> Table:
    """One leaderboard (of one language's pairs): the tidy scores and what the command line says beside them."""
    from stviz.analyses import benchmark_board, tables

    notes = []
    benchmark = None
    if upload:
        benchmark, line = benchmark_board.choose_benchmark(dataset, wanted)
        notes += [line] if line else []
    elif wanted not in ("auto", "none"):
        from stviz.benchmarks import get

        benchmark = get(wanted)
    if benchmark and upload:
        dataset, uploaded = benchmark_board.board_dataset(benchmark, dataset)
        notes += [n for n in [benchmark_board.partial_note(dataset)] if n]
        notes += benchmark_board.copies_of_published(dataset, uploaded)
    if benchmark:
        options = benchmark_board.board_options(benchmark, options)
    result, said = run_view("leaderboard", dataset, options, reporter)
    return Table(tables.board_table(result), notes + said + _board_lines(result))


def _board_lines(result) -> list[str]:
    """The lines the command prints on stderr beside the table: classifier, sacrebleu signatures, fluency, texts."""
    lines = [f"style classifier: {result.classifier}"] if result.classifier else []
    lines += [f"sacrebleu {metric}: {signature}" for metric, signature in result.signatures.items()]
    lines += [f"fluency: {result.fluency}"] if result.fluency else []
    return lines + [line for line in (result.style_texts, result.text_form) if line]


__all__ = ["board_of", "published_alone"]
