"""One function per command of the command line that analyses pairs, each returning the table its ``--format csv``
prints (``metrics --out`` writes) as a pandas DataFrame, numbers at full precision, with ``attrs["notes"]`` (what
the command says on stderr) and ``attrs["language"]`` (its 'language: ...' line).

Each takes a dataset from :func:`stviz.open`, or anything ``open`` takes (a built-in name, a path, a DataFrame),
and the view's options as keyword arguments under their Options names (``metrics=("bleu", "chrf")``, ``top=10``):
the same names as the command's flags, with ``_`` for ``-``. ``progress=False`` hides the bars.
"""

from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

from stviz.api.progress import NotebookReporter
from stviz.api.running import (Table, dataset_of, finished, options_of, per_language, run_view,
                               said_as_data_error)
from stviz.api.intake import Columns, Data, intake_notes
from stviz.data.schema import DataError


@said_as_data_error
def metric_scores(data: Data, *, columns: Columns = None, direction: str | None = None,
                  language: str | None = None, progress: bool = True, **options: Any) -> pd.DataFrame:
    """Every content-preservation metric for every pair: the ``metrics --out FILE.csv`` table."""
    from stviz.analyses import tables

    dataset = dataset_of(data, columns=columns, direction=direction, language=language)
    chosen = options_of("metrics_vs_humans", options, methods=())
    result, notes = run_view("metrics_vs_humans", dataset, chosen, NotebookReporter(progress))
    notes += [result.lexicon_note] if result.lexicon_note else []
    return finished(Table(tables.metric_values(dataset, result), notes), dataset, intake_notes(dataset))


@said_as_data_error
def correlate(data: Data, *, columns: Columns = None, direction: str | None = None,
              language: str | None = None, progress: bool = True, **options: Any) -> pd.DataFrame:
    """Each metric's correlation with a human score, with 95% intervals: the ``correlate --format csv`` table."""
    from stviz.analyses import tables
    from stviz.analyses.common import require_human_scores

    human = options.get("human")
    dataset = dataset_of(data, columns=columns, direction=direction, language=language,
                         extra_human=[human] if human else [])
    options_of("metrics_vs_humans", options)  # a wrong name refused before the dataset is judged
    require_human_scores(dataset)  # refused before any metric is scored

    def one(part, several: bool) -> Table:
        chosen = options_of("metrics_vs_humans", options, part)  # each language's page opens on its own pairs
        result, notes = run_view("metrics_vs_humans", part, chosen, NotebookReporter(progress))
        notes += [result.lexicon_note] if result.lexicon_note else []
        frame = tables.correlation_table(result, chosen) if result.correlations is not None else pd.DataFrame()
        return Table(frame, notes, list(result.flags))

    return finished(per_language(dataset, one), dataset, intake_notes(dataset))


@said_as_data_error
def failures(data: Data, *, columns: Columns = None, direction: str | None = None,
             language: str | None = None, progress: bool = True, **options: Any) -> pd.DataFrame:
    """The pairs where a metric and people disagree most (Babakov et al.): the ``failures --format csv`` table."""
    from stviz.analyses import tables

    human = options.get("human")
    dataset = dataset_of(data, columns=columns, direction=direction, language=language,
                         extra_human=[human] if human else [])
    options_of("failure_cases", options)  # a wrong name refused before any run

    def one(part, several: bool) -> Table:
        chosen = options_of("failure_cases", options, part)  # each language's page opens on its own pairs
        result, notes = run_view("failure_cases", part, chosen, NotebookReporter(progress))
        shown = tables.failure_table(result, chosen)
        notes.append(f"{len(result.ranking):,} pairs match; the {len(shown)} with the largest rank difference under "
                     f"{result.metric_label}")
        return Table(shown, notes)

    return finished(per_language(dataset, one), dataset, intake_notes(dataset))


@said_as_data_error
def leaderboard(data: Data | None = None, *, benchmark: str = "auto", columns: Columns = None,
                direction: str | None = None, language: str | None = None, progress: bool = True,
                **options: Any) -> pd.DataFrame:
    """Whole systems compared per metric with 95% intervals and rank ranges: the ``leaderboard --format csv`` table;
    ``benchmark`` places an upload among a benchmark's published systems (auto: when its inputs are the test's)."""
    from stviz.api.boards import board_of, published_alone

    options_of("leaderboard", options)  # a wrong name refused before any run
    if data is None:
        dataset, intake = published_alone(benchmark)
    else:
        dataset = dataset_of(data, columns=columns, direction=direction, language=language)
        intake = intake_notes(dataset)  # and the dataset's own notes, which the command says before its board
        intake += [note for note in dataset.notes if note not in intake]
    table = per_language(dataset, lambda part, several: board_of(part, options_of("leaderboard", options, part),
                                                                 benchmark, data is not None,
                                                                 NotebookReporter(progress)))
    return finished(table, dataset, intake)


@said_as_data_error
def tradeoffs(data: Data, *, columns: Columns = None, direction: str | None = None,
              language: str | None = None, progress: bool = True, **options: Any) -> pd.DataFrame:
    """Style transfer intensity against content preservation and naturalness per system and setting (Mir et al.):
    the ``tradeoff --format csv`` table."""
    from stviz.analyses import tables

    dataset = dataset_of(data, columns=columns, direction=direction, language=language)
    chosen = options_of("tradeoffs", options, dataset)
    result, notes = run_view("tradeoffs", dataset, chosen, NotebookReporter(progress))
    notes.append(f"classifier: {result.classifier.summary()}")
    if result.naturalness_agreement is not None:
        shares = ", ".join(f"{name} {row.agreement:.3f}" for name, row in result.naturalness_agreement.iterrows())
        notes.append(f"agreement of the adversarial {chosen.naturalness} classifier with the raters' choice of the "
                     f"more natural text (Mir et al. section 5): {shares}")
    return finished(Table(tables.tradeoff_table(result), notes), dataset, intake_notes(dataset))


@said_as_data_error
def blindspots(data: Data, *, columns: Columns = None, direction: str | None = None,
               language: str | None = None, progress: bool = True, **options: Any) -> pd.DataFrame:
    """Which damage of an output each measure notices: the ``blindspots --format csv`` table (shares in [0, 1])."""
    from stviz.analyses import tables

    dataset = dataset_of(data, columns=columns, direction=direction, language=language)
    chosen = options_of("blind_spots", options)

    def one(part, several: bool) -> Table:
        result, notes = run_view("blind_spots", part, chosen, NotebookReporter(progress))
        return Table(tables.blindspot_table(result, with_language=not several), notes)

    return finished(per_language(dataset, one), dataset, intake_notes(dataset))


@said_as_data_error
def style_similarity(data: Data, *, columns: Columns = None, direction: str | None = None,
                     language: str | None = None, progress: bool = True, **options: Any) -> pd.DataFrame:
    """Each embedder's style x style mean cosine similarity (Fitzpatrick et al.): the ``similarity --format csv``
    matrices, one under another (index: embedder, style)."""
    from stviz.analyses import tables
    from stviz.embedders import parse_embedder
    from stviz.languages.measures import AUTO_EMBEDDER

    chosen = options_of("similarity", options)
    for spec in set(chosen.embedders) - {AUTO_EMBEDDER}:  # a typo in the last one must not cost the first's work
        parse_embedder(spec)
    dataset = dataset_of(data, columns=columns, direction=direction, language=language)
    result, notes = run_view("similarity", dataset, chosen, NotebookReporter(progress))
    if result.errors:
        raise DataError("; ".join(f"{spec}: {error}" for spec, error in result.errors.items()))
    for spec, report in result.reports.items():
        notes += [f"{spec}: {len(result.texts):,} sentences, {result.n_styles} styles"] + list(report.notes)
    return finished(Table(tables.similarity_table(result), notes), dataset, intake_notes(dataset))


@said_as_data_error
def embedding_map(data: Data, *, columns: Columns = None, direction: str | None = None,
                  language: str | None = None, progress: bool = True, **options: Any) -> pd.DataFrame:
    """t-SNE / UMAP / PCA of unit-normalised sentence embeddings: the ``reduce --out FILE.csv`` points (the colour
    column in ``attrs["colour"]``, the figure's title in ``attrs["title"]``)."""
    from stviz.embedders import parse_embedder
    from stviz.languages.measures import AUTO_EMBEDDER

    chosen = options_of("embedding_map", options)
    if chosen.embedder != AUTO_EMBEDDER:  # the language's, once the dataset is read
        parse_embedder(chosen.embedder)
    dataset = dataset_of(data, columns=columns, direction=direction, language=language)
    result, notes = run_view("embedding_map", dataset, chosen, NotebookReporter(progress))
    frame = finished(Table(result.points, notes), dataset, intake_notes(dataset))
    frame.attrs.update(colour=result.colour or "", title=result.title)
    return frame


@said_as_data_error
def meta_evaluate(datasets: Sequence[Data] | None = None, *, columns: Columns = None, language: str | None = None,
                  progress: bool = True, **options: Any) -> pd.DataFrame:
    """Which measure agrees with people, per aspect, across human-rated sets: the ``meta-eval --format csv`` table.
    ``datasets``: built-in names, paths, DataFrames or opened datasets (default: every rated set installed)."""
    from stviz.analyses import tables

    names, uploads, intake = _meta_sets(datasets, columns)
    chosen = options_of("meta_evaluation", options, datasets=names)
    if language and not chosen.language:
        chosen = chosen.changed(language=language)
    result, notes = run_view("meta_evaluation", None, chosen, NotebookReporter(progress), uploads=uploads)
    notes += [f"raters' agreement (Krippendorff's alpha, interval): {line}" for line in result.raters]
    flags = [f"{flag['set']}: {flag['message']}" for _, flag in result.flags.iterrows()]
    return finished(Table(tables.meta_table(result), notes, flags), None, intake)


def _meta_sets(entries, columns) -> tuple[tuple[str, ...] | None, list, list[str]]:
    """Names for the analysis, the datasets it is handed (files and frames, read here), and their reading notes."""
    from stviz.api.intake import open as open_dataset
    from stviz.data import DATASET_NAMES

    if entries is None:
        return None, [], []
    if isinstance(entries, (str, pd.DataFrame)) or not isinstance(entries, Sequence):
        entries = [entries]
    names, uploads, notes = [], [], []
    for entry in entries:
        if isinstance(entry, str) and (entry in DATASET_NAMES or entry.startswith("study:")):
            names.append(entry)
            continue
        dataset = open_dataset(entry, columns=columns)
        uploads.append(dataset)
        names.append(dataset.name)
        notes += intake_notes(dataset)
    return tuple(names), uploads, notes


__all__ = ["blindspots", "correlate", "embedding_map", "failures", "leaderboard", "meta_evaluate", "metric_scores",
           "style_similarity", "tradeoffs"]
