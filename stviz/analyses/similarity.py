"""Style similarity (Fitzpatrick, Park and Obst, *Measuring Content Preservation in Textual Style Transfer*).

Is an embedder style-invariant enough to measure content preservation? For each embedder: the
style x style matrix of mean cosine similarities, the most similar style of each style, how many
styles are most similar to themselves against chance (with a label-shuffling permutation test),
bootstrap intervals, and optionally style leakage with a ranking of the embedders.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses.common import oov_notes, style_sentences
from stviz.data.schema import Dataset
from stviz.languages.measures import resolve_embedders
from stviz.progress import Reporter, reporter
# What the page and the command line show besides the result: the paper's counts and table formats.
from stviz.similarity import PAPER_SELF_COUNTS, PAPER_STYLES, matrix_latex, matrix_table, row_maxima  # noqa: F401

TITLE = "Style similarity"
#: Above this many sentences, "auto" samples SAMPLE_PER_STYLE sentences per style (and says so).
LARGE = 20_000
SAMPLE_PER_STYLE = 1_000
#: The page's menu of sentences per style (0: all of them).
PER_STYLE_CHOICES = (0, 500, 1000, 2000, 5000)


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """What to compare and how (the page's controls and the ``similarity`` command's flags)."""

    embedders: tuple[str, ...] = option(("auto",), "embedder specs to compare, side by side; auto: the texts' "
                                                   "language's (MiniLM and GloVe for English, the shipped multilingual "
                                                   "encoders covering another)", flag="--embedder")
    per_style: int | None = option(None, f"sentences per style: N = a random sample of at most N (seed --seed), "
                                         f"0 = all; auto = all up to {LARGE:,} sentences, else {SAMPLE_PER_STYLE:,} "
                                         "per style", low=0)
    include_self: bool = option(False, "count each sentence's similarity with itself on the diagonal (the paper's "
                                       "wording implies it)")
    permutations: int = option(999, "label shuffles for the self-similarity p-value", low=1)
    bootstrap: int = option(200, "bootstrap resamples for cell intervals (0 = none)", low=0)
    decimals: int = option(3, "decimals shown; ties at this precision count as most similar", low=0)
    leakage: bool = option(False, "style leakage: cross-validated style accuracy and silhouette per embedder, and "
                                  "the ranking from most to least style-invariant")
    seed: int = option(0, "random seed for sampling, permutations and bootstrap")


@dataclass
class Result:
    """One similarity report per embedder that could be loaded, and what the user should know."""

    reports: dict  # embedder spec -> stviz.similarity.SimilarityReport
    labels: dict[str, str]  # embedder spec -> readable name
    texts: pd.DataFrame  # the (sampled) sentences compared
    n_total: int  # sentences before sampling
    errors: dict[str, str] = field(default_factory=dict)  # embedder spec -> why it could not be used
    notes: list[str] = field(default_factory=list)
    ranking: pd.DataFrame | None = None  # with leakage: embedders from most to least style-invariant

    @property
    def n_styles(self) -> int:
        """Number of styles compared."""
        return int(self.texts["style"].nunique())


def applies_to(dataset: Dataset) -> str | None:
    """None when the dataset has two or more styles with sentences, else why not."""
    try:
        style_sentences(dataset)
    except NotApplicable as exc:
        return str(exc)
    return None


def resolve_per_style(options: Options, n_sentences: int) -> int | None:
    """The per-style sample size actually used: None = all sentences."""
    if options.per_style is None:
        return SAMPLE_PER_STYLE if n_sentences > LARGE else None
    return options.per_style or None


def estimate(dataset: Dataset, options: Options):
    """The uncached work of :func:`run` (a :class:`stviz.costs.Cost`): embedding the sentences not yet cached."""
    from stviz.costs import Cost, embedding_memory, embedding_seconds
    from stviz.similarity import sample_per_style

    texts, _ = style_sentences(dataset)
    texts = sample_per_style(texts, resolve_per_style(options, len(texts)), seed=options.seed)
    cost = Cost()
    for spec in resolve_embedders(dataset, options.embedders):
        cost.add(embedding_seconds(texts["text"].tolist(), spec), f"embedding {len(texts):,} sentences with {spec}",
                 embedding_memory(len(texts)))
    return cost


def run(dataset: Dataset, options: Options, progress: Reporter | None = None) -> Result:
    """Sample if asked, then one cached report per embedder (a failing embedder is reported, not fatal)."""
    from stviz.embedders import EmbedderError, PRESETS, parse_embedder
    from stviz.similarity import invariance_ranking, sample_per_style, similarity_report

    report_to = reporter(progress)
    texts, notes = style_sentences(dataset)
    n_total = len(texts)
    per_style = resolve_per_style(options, n_total)
    texts = sample_per_style(texts, per_style, seed=options.seed)
    if len(texts) < n_total:
        notes.append(f"sampled {len(texts):,} of {n_total:,} sentences (at most {per_style:,} per style, seed "
                     f"{options.seed}); every number is computed on this sample")
    reports, labels, errors = {}, {}, {}
    for spec in resolve_embedders(dataset, options.embedders):
        try:
            labels[spec] = PRESETS.get(spec, parse_embedder(spec).label)
            reports[spec] = similarity_report(
                texts["text"].tolist(), texts["style"].astype(str).tolist(), spec, include_self=options.include_self,
                decimals=options.decimals, n_permutations=options.permutations, n_bootstrap=options.bootstrap,
                leakage=options.leakage, seed=options.seed, progress=report_to)
        except EmbedderError as exc:
            errors[spec] = str(exc)
            continue
        report_to.partial(spec, reports[spec])
    notes += oov_notes(list(reports), texts["text"].tolist())
    from stviz.languages.measures import embedder_notes

    notes += embedder_notes(dataset, list(reports))  # an English model on other texts: said, not hidden
    notes += equivalence_notes(reports, labels)
    ranking = invariance_ranking(list(reports.values())) if options.leakage and reports else None
    if ranking is not None:
        ranking["embedder"] = ranking["embedder"].map(lambda s: labels.get(s, s))
    report_to.finish()
    return Result(reports, labels, texts, n_total, errors, notes, ranking)


def equivalence_notes(reports: dict, labels: dict[str, str]) -> list[str]:
    """A note for each two embedders whose matrices are the same (e.g. GloVe sum and mean: cosine ignores length)."""
    notes = []
    specs = list(reports)
    for i, a in enumerate(specs):
        for b in specs[i + 1:]:
            ma, mb = reports[a].matrix, reports[b].matrix
            if ma.shape == mb.shape and np.allclose(ma.to_numpy(), mb.to_numpy(), atol=1e-9):
                notes.append(f"{labels[a]} and {labels[b]} give the same matrix: cosine ignores vector length, so "
                             "sum and mean pooling of the same word vectors are equivalent for it")
    return notes


__all__ = ["estimate", "Options", "PAPER_SELF_COUNTS", "PAPER_STYLES", "PER_STYLE_CHOICES", "Result", "TITLE", "applies_to", "matrix_latex",
           "matrix_table", "resolve_per_style", "row_maxima", "run"]
