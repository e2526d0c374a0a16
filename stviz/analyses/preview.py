"""A sampled preview: a seeded random sample of a dataset run through the very same analysis ``run()``.

A cold view can take minutes; most of its questions (which metric correlates best, which system wins,
which styles are self-similar) are already visible, with wide but honest intervals, on 5-10% of the
data. The sample is stratified as the view needs (by system / setting / style; the leaderboard samples
whole inputs, so that systems stay compared on the same inputs), keeps the dataset's metadata, and is a
subset of what the full run computes: metrics and embeddings are cached per pair / per text
(:mod:`stviz.cache.pair_values`, the vector cache), so the full run recomputes nothing the preview computed.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from types import ModuleType
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import Dataset


@dataclass(frozen=True)
class Spec:
    """How a view is sampled: stratified by ``by`` (the columns present), whole groups of ``unit`` at a time."""

    by: tuple[str, ...] = ()
    unit: str | None = None
    table: str = "pairs"  # the rows sampled: "pairs", or "texts" (style-labelled sentences)
    fraction: float = 0.05
    #: Options that only choose what is shown of the computed work (filters, the pair opened): the background
    #: full run ignores them, so clicking a row or typing a filter during it does not start another.
    view_only: tuple[str, ...] = ()
    #: A view that samples by an option of its own (the map's ``max_points``, Meta-evaluation's ``max_pairs`` per
    #: set): the preview sets that option instead of sampling the dataset (the map's points keep their rows in the
    #: whole set; Meta-evaluation loads its other sets itself). The analysis's ``preview_total`` lists the units
    #: of each part it samples (one per set).
    own_sample: str | None = None


#: The views that offer a preview, and how each is sampled. Not Tradeoffs and Token attributions: they have no
#: cost estimate (they never wait for a click either).
SPECS = {
    "metrics_vs_humans": Spec(by=("system", "setting")),
    "embedding_map": Spec(table="texts", own_sample="max_points", view_only=("search", "sentence", "pair")),
    "meta_evaluation": Spec(own_sample="max_pairs"),
    # The sample's pairs keep their numbers, so a story opened in the preview is the same pair in the full run.
    "failure_cases": Spec(by=("system", "setting"), view_only=("direction", "search", "metric_min", "metric_max",
                                                                "human_min", "human_max", "top", "pair", "lexicon")),
    # Whole inputs with every system's output for them: paired tests and rank ranges need the same inputs.
    "leaderboard": Spec(by=("direction",), unit="source", fraction=0.10),
    "similarity": Spec(by=("style",), table="texts"),
}
#: Never fewer units than this in a preview (or all of them): a correlation on 50 pairs says little.
MIN_PREVIEW = 300


@dataclass(frozen=True)
class PreviewInfo:
    """What a preview is: N of M units (pairs or sentences), and its seed."""

    n: int
    total: int
    unit: str = "pairs"
    seed: int = 0

    @property
    def label(self) -> str:
        """'preview: 514 of 10,287 pairs': said on every table, figure, export and URL of a preview."""
        return f"preview: {self.n:,} of {self.total:,} {self.unit}"

    @property
    def file_suffix(self) -> str:
        """'-preview-514-of-10287': added to an exported file's name."""
        return f"-preview-{self.n}-of-{self.total}"


def short_name(analysis: ModuleType | str) -> str:
    """'leaderboard' for stviz.analyses.leaderboard (or the name given)."""
    return analysis if isinstance(analysis, str) else analysis.__name__.rsplit(".", 1)[-1]


def supports(analysis: ModuleType | str) -> bool:
    """Whether a view offers a preview."""
    return short_name(analysis) in SPECS


def preview_size(total: int, fraction: float = 0.05, low: int = MIN_PREVIEW) -> int:
    """Units in a preview: ``fraction`` of them, at least ``low`` (never more than there are)."""
    return min(total, max(low, math.ceil(fraction * total)))


def _allocate(sizes: pd.Series, n: int) -> pd.Series:
    """n split over strata in proportion to their sizes (largest remainders), at least one each when n allows."""
    exact = sizes / sizes.sum() * n
    counts = np.floor(exact).astype(int)
    if n >= len(sizes):
        counts = counts.clip(lower=1)
    short = n - int(counts.sum())
    if short > 0:
        for key in (exact - np.floor(exact)).sort_values(ascending=False, kind="stable").index[:short]:
            counts[key] += 1
    return counts.clip(upper=sizes)


def _stratified(frame: pd.DataFrame, n: int, by: Sequence[str], rng: np.random.Generator) -> pd.Index:
    """Index labels of a stratified random sample of n rows (proportional allocation)."""
    columns = [c for c in by if c in frame]
    if not columns or n >= len(frame):
        picked = rng.choice(len(frame), size=min(n, len(frame)), replace=False)
        return frame.index[np.sort(picked)]
    strata = frame[columns[0]].astype(str)
    for column in columns[1:]:  # joined column by column: a row-wise join is a Python call per row
        strata = strata + "\x1f" + frame[column].astype(str)
    counts = _allocate(strata.value_counts().sort_index(), n)
    chosen = []
    for stratum, k in counts.items():
        rows = np.flatnonzero((strata == stratum).to_numpy())
        chosen.extend(rows[rng.choice(len(rows), size=int(k), replace=False)])
    return frame.index[np.sort(np.asarray(chosen, dtype=int))]


def sample_dataset(dataset: Dataset, n: int, by: Sequence[str] = (), seed: int = 0, *, unit: str | None = None,
                   table: str | None = None) -> Dataset:
    """A seeded random sample of about ``n`` pairs (or sentences, ``table="texts"``), stratified by ``by``.

    With ``unit`` (e.g. ``"source"``) whole groups of rows sharing it are drawn, as many groups as give
    about n rows, stratified on each group's first row. The other table, the lexicon, the human
    directions and every other field are kept; a note says "preview: N of M pairs".
    """
    table = table or ("pairs" if dataset.pairs is not None else "texts")
    frame = getattr(dataset, table)
    rng = np.random.default_rng(seed)
    if unit and unit in frame:
        keys = frame[unit].astype(str)
        firsts = frame.loc[~keys.duplicated().to_numpy()]
        firsts.index = keys[~keys.duplicated()].to_numpy()  # one row per group, labelled by the group
        wanted = max(1, round(n * len(firsts) / max(len(frame), 1)))
        keep = set(_stratified(firsts, wanted, by, rng))
        sample = frame[keys.isin(keep).to_numpy()]
    else:
        sample = frame.loc[_stratified(frame, n, by, rng)]
    info = PreviewInfo(len(sample), len(frame), "pairs" if table == "pairs" else "sentences", seed)
    stratified = [c for c in by if c in frame]
    how = (f"seeded random sample (seed {seed}" + (f", stratified by {', '.join(stratified)}" if stratified else "")
           + (f", whole {unit}s" if unit and unit in frame else "") + ")")
    return dataclasses.replace(dataset, **{table: sample}, notes=[*dataset.notes, f"{info.label}: a {how}"])


def preview_dataset(analysis: ModuleType | str, dataset: Dataset, options=None, n: int | None = None,
                    seed: int = 0) -> tuple[Dataset, PreviewInfo]:
    """The sample a view's preview runs on, and what it is; ``n`` defaults to :func:`preview_size`."""
    spec = SPECS[short_name(analysis)]
    table = spec.table if getattr(dataset, spec.table) is not None else "pairs"
    dataset = _as_full_run_sees(short_name(analysis), dataset, options, table)
    frame = getattr(dataset, table)
    size = n if n else preview_size(len(frame), spec.fraction)
    sample = sample_dataset(dataset, size, spec.by, seed, unit=spec.unit, table=table)
    unit = "pairs" if table == "pairs" else "sentences"
    return sample, PreviewInfo(len(getattr(sample, table)), len(frame), unit, seed)


def preview_inputs(analysis: ModuleType, dataset: Dataset | None, options, n: int | None = None, seed: int = 0,
                   **kwargs) -> tuple[Dataset | None, object, PreviewInfo]:
    """What a preview runs: (the sample, the options, what it is). ``n`` defaults to :func:`preview_size`;
    ``kwargs`` are the run's own (Meta-evaluation's uploads)."""
    spec = SPECS[short_name(analysis)]
    if spec.own_sample is None:
        frozen = preview_options(analysis, dataset, options)
        sample, info = preview_dataset(analysis, dataset, frozen, n, seed)
        sample, info = _with_opened_pair(sample, dataset, getattr(options, "pair", None), info)
        return sample, frozen, info
    parts = analysis.preview_total(dataset, options, **kwargs)  # what the full run computes on
    size = n or preview_size(max(parts, default=0), spec.fraction)
    frozen = options.changed(**{spec.own_sample: size})
    shown = analysis.preview_total(dataset, frozen, **kwargs)  # what the preview computes on (whole inputs: about n)
    info = PreviewInfo(sum(shown), sum(parts), "sentences" if spec.table == "texts" else "pairs",
                       getattr(options, "seed", seed))
    return dataset, frozen, info


def _with_opened_pair(sample: Dataset, dataset: Dataset, pair: int | None,
                      info: PreviewInfo) -> tuple[Dataset, PreviewInfo]:
    """(sample, info), the pair a link or a click opened joining the sample when it was not drawn: its story is what
    the researcher asked for, so the preview tells it (its rank is then among the sample's)."""
    if pair is None or sample.pairs is None or pair not in dataset.pairs.index or pair in sample.pairs.index:
        return sample, info
    pairs = pd.concat([sample.pairs, dataset.pairs.loc[[pair]]]).sort_index()
    return dataclasses.replace(sample, pairs=pairs), dataclasses.replace(info, n=info.n + 1)


def job_options(analysis: ModuleType | str, options):
    """The options the background full run computes with: the view-only ones at their defaults (so a new filter
    or an opened pair finds the same job; once it is done they are applied on the warm cache in seconds)."""
    spec = SPECS.get(short_name(analysis))
    if spec is None or not spec.view_only or options is None:
        return options
    defaults = type(options)()
    return options.changed(**{name: getattr(defaults, name) for name in spec.view_only})


def preview_options(analysis: ModuleType | str, dataset: Dataset, options):
    """The options with every choice the full dataset's size makes fixed, so the preview computes what the full run
    will (the default metrics leave BERTScore out above 3,000 pairs: a 500-pair sample would otherwise add it)."""
    if short_name(analysis) != "metrics_vs_humans" or options is None:
        return options
    if options.metrics is not None and "default" not in options.metrics:
        return options
    from stviz.metrics import default_metrics

    defaults, _ = default_metrics(dataset, options.modification)
    names = [n for name in (options.metrics or ("default",)) for n in (defaults if name == "default" else [name])]
    return options.changed(metrics=tuple(dict.fromkeys(names)))


def _as_full_run_sees(name: str, dataset: Dataset, options, table: str) -> Dataset:
    """The dataset as the full run will sample it itself (Style similarity above 20,000 sentences), so that the
    preview's sentences are a subset of the full run's."""
    if name != "similarity" or table != "texts" or options is None:
        return dataset
    from stviz.analyses.similarity import resolve_per_style
    from stviz.similarity import sample_per_style

    per_style = resolve_per_style(options, len(dataset.texts))
    if per_style is None:
        return dataset
    return dataclasses.replace(dataset, texts=sample_per_style(dataset.texts, per_style, seed=options.seed))


__all__ = ["MIN_PREVIEW", "PreviewInfo", "SPECS", "Spec", "job_options", "preview_dataset", "preview_inputs", "preview_options", "preview_size", "sample_dataset",
           "short_name", "supports"]
