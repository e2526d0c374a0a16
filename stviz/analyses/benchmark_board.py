"""Where does my system stand? An upload placed among the published systems of a standard benchmark.

The board is the leaderboard (:mod:`stviz.analyses.leaderboard`) on the benchmark's published pairs plus the
upload's, measured one way for all: the same metrics, the style classifier, language model and naturalness
learned from the benchmark's style texts, the text form decided on the published systems alone (so an upload
cannot change how they are measured), every human reference the benchmark has, intervals and paired tests
against each published system. Beside each published system: the numbers its paper reported and the
recomputed ones, with how the paper's computation differed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stviz.analyses import leaderboard
from stviz.benchmarks import Benchmark
from stviz.benchmarks.match import Placement, place
from stviz.benchmarks.published import published_pairs, reported
from stviz.data.released.outputs import normalise
from stviz.data.schema import Dataset
from stviz.progress import Reporter
from stviz.systems import cached_corpus_stats, scores_from_stats
from stviz.textform import forms_table, needs_one_form, tokenise

#: What an uploaded system is called when a published system has its name.
UPLOAD_SUFFIX = " (upload)"


@dataclass
class BoardResult:
    """The leaderboard with the published systems, which systems are the user's, and reported vs recomputed."""

    board: leaderboard.Result
    benchmark: Benchmark
    uploaded: list[str]
    reported: pd.DataFrame
    placement: Placement | None = None

    def summary(self) -> str:
        """One line: the benchmark, what matched, and how many published systems the upload stands among."""
        matched = f" ({self.placement.describe()})" if self.placement else ""
        mine = f"{', '.join(self.uploaded)} placed among " if self.uploaded else ""
        return (f"benchmark {self.benchmark.name}{matched}: {mine}{len(self.benchmark.systems)} published systems, "
                "measured the same way")


def board_dataset(benchmark: Benchmark, upload: Dataset | None = None) -> tuple[Dataset, list[str]]:
    """The published pairs with the upload's placed on the benchmark's items, and the upload's system names."""
    published = published_pairs(benchmark)
    if upload is None:
        return published, []
    placed = place(benchmark, upload).drop(columns=["pair", "by_position"])
    taken = {s.name for s in benchmark.systems}
    placed["system"] = [s + UPLOAD_SUFFIX if s in taken else s for s in placed["system"]]
    placed["system_file"] = placed["system"]
    theirs, note = on_the_same_inputs(published.pairs, placed)
    pairs = pd.concat([theirs, placed], ignore_index=True)
    return (dataclasses.replace(published, name=f"{published.name}+{upload.name}", pairs=pairs,
                                notes=([note] if note else []) + published.notes + list(upload.notes)),
            list(dict.fromkeys(placed["system"])))


def partial_note(board: Dataset) -> str:
    """The note :func:`board_dataset` leaves when the upload covers only part of the test inputs, else ''."""
    return next((n for n in board.notes if n.startswith("the uploaded outputs cover")), "")


def on_the_same_inputs(published: pd.DataFrame, placed: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The published systems' pairs on the test inputs the upload covers, and a note when that is not all of them
    (issue 56: 40 outputs were ranked against the published systems' 1,000 without a word)."""
    items = set(zip(placed["direction"], placed["line"]))
    total = published[["direction", "line"]].drop_duplicates()
    if len(items) >= len(total):
        return published, ""
    keep = [(d, line) in items for d, line in zip(published["direction"], published["line"])]
    note = (f"the uploaded outputs cover {len(items):,} of the benchmark's {len(total):,} test inputs: the published "
            f"systems are compared on the same {len(items):,} inputs (their full-set figures are the papers' reported "
            "ones beside them; --benchmark NAME without --dataset recomputes them)")
    return published[keep], note


def copies_of_published(board: Dataset, uploaded: list[str]) -> list[str]:
    """A note for each uploaded system whose outputs are a published system's, line for line (its release itself)."""
    def keyed(rows: pd.DataFrame) -> dict:
        return dict(zip(zip(rows["direction"], rows["line"]), rows["output"].map(normalise)))

    by_system = dict(tuple(board.pairs.groupby("system", sort=False)))
    theirs = {name: keyed(rows) for name, rows in by_system.items() if name not in uploaded}
    notes = []
    for name in uploaded:
        mine = keyed(by_system[name])
        same = next((other for other, outputs in theirs.items() if all(outputs.get(k) == v for k, v in mine.items())),
                    None)
        if same is not None:
            notes.append(f"{name}: its {len(mine):,} outputs are the published {same}'s, line for line (the same "
                         "release: the two rows tie)")
    return notes


def choose_benchmark(dataset: Dataset, wanted: str = "auto") -> tuple[Benchmark | None, str]:
    """The benchmark to place an upload on and the line that says so, or (None, ''): ``wanted`` is auto (when its
    inputs are a benchmark's test inputs; never for a built-in set), none, or a benchmark's name."""
    from stviz.benchmarks import get
    from stviz.benchmarks.match import recognise
    from stviz.benchmarks.published import official_inputs
    from stviz.data import DATASET_NAMES

    if wanted == "none" or (wanted == "auto" and dataset.name in DATASET_NAMES):
        return None, ""
    if wanted == "auto":
        placement = recognise(dataset)
        if placement is None:
            return None, ""
        benchmark, what = placement.benchmark, placement.describe()
    else:
        benchmark = get(wanted)
        placed = place(benchmark, dataset)  # a DataError when none of the inputs is the benchmark's
        what = (f"{benchmark.title}: {placed[['direction', 'line']].drop_duplicates().shape[0]:,} of "
                f"{sum(len(v) for v in official_inputs(benchmark).values()):,} inputs matched")
    return benchmark, (f"benchmark: {what}; placed among its {len(benchmark.systems)} published systems, measured "
                       "the same way (--benchmark none compares the upload alone)")


def board_options(benchmark: Benchmark, options: leaderboard.Options) -> leaderboard.Options:
    """The options with what the benchmark fixes: its style texts, and the text form of its published systems."""
    form = options.text_form
    if form == "auto":
        published = published_pairs(benchmark)
        groups = leaderboard.text_groups(published.pairs, published.reference_columns)
        form = "tokenised" if needs_one_form(forms_table(groups), "auto") else "as-is"
    return options.changed(text_form=form, style_data=benchmark.style_data or "own")


def run(benchmark: Benchmark, upload: Dataset | None = None, options: leaderboard.Options | None = None,
        progress: Reporter | None = None, placement: Placement | None = None) -> BoardResult:
    """The leaderboard of the benchmark's published systems, with the upload's systems among them."""
    dataset, uploaded = board_dataset(benchmark, upload)
    options = board_options(benchmark, options or leaderboard.Options())
    result = leaderboard.run(dataset, options, progress)
    return BoardResult(result, benchmark, uploaded, reported_table(benchmark, dataset, result, options), placement)


def reported_table(benchmark: Benchmark, dataset: Dataset, result: leaderboard.Result,
                   options: leaderboard.Options) -> pd.DataFrame:
    """One row per published system: the paper's numbers beside the recomputed ones (the card's measures), and why
    they differ.

    Recomputed BLEU is given against every reference and against the first one alone (the paper's single
    reference, where it had one), so the part of a difference due to the number of references shows. What the
    release itself publishes (RUSSE 2022's human J per system) stands as reported, computed from it now.
    """
    scores = result.scores.set_index(["system", "metric"])["value"]
    first = dataset.reference_columns[:1]
    published = reported(benchmark)  # the card's numbers and the release's own (RUSSE 2022's human J), on the full set
    rows = []
    for system in benchmark.systems:
        row = {"system": system.name, "paper": system.paper}
        numbers = published[system.name]
        for metric in benchmark.reported_metrics:
            number = next((r for r in numbers if r.metric == metric), None)
            row[f"reported {metric}"] = number.value if number else np.nan
            row[f"recomputed {metric}"] = scores.get((system.name, metric), np.nan)  # accuracy in %, as reported
        if "bleu" in benchmark.reported_metrics and first:
            row["recomputed bleu, reference 1 only"] = _bleu(dataset, system.name, first, options)
        row["reported in"] = "; ".join(r.source for r in numbers)
        row["why they differ"] = "; ".join(dict.fromkeys(r.setup for r in numbers if r.setup))
        rows.append(row)
    return pd.DataFrame(rows)


def _bleu(dataset: Dataset, system: str, columns: list[str], options: leaderboard.Options) -> float:
    """Corpus BLEU of one system against some reference columns, in the board's text form."""
    rows = dataset.pairs[dataset.pairs["system"] == system]
    outputs, refs = rows["output"].astype(str).tolist(), rows[columns]
    if options.text_form == "tokenised":
        outputs = tokenise(outputs)
        refs = refs.apply(lambda column: tokenise(column.tolist()))
    references = [[r for r in row if isinstance(r, str) and r.strip()] for row in refs.itertuples(index=False)]
    stats = cached_corpus_stats("bleu", outputs, references, options.lowercase)
    return float(scores_from_stats("bleu", stats.sum(0), options.lowercase)[0])


__all__ = ["BoardResult", "UPLOAD_SUFFIX", "board_dataset", "board_options", "choose_benchmark", "copies_of_published",
           "on_the_same_inputs", "partial_note", "reported_table", "run"]
