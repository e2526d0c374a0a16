"""Embedding map: t-SNE, UMAP or PCA of unit-normalised sentence embeddings (Fitzpatrick et al.,
Figures 1-3), coloured by style, system or any score, the sentence on hover."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from stviz.analyses.base import AnalysisOptions, NotApplicable, option
from stviz.analyses.common import oov_notes
from stviz.data.schema import DataError, Dataset, short_name
from stviz.progress import Reporter, reporter

TITLE = "Embedding map"
METHODS = ("tsne", "umap", "pca")
METHOD_LABELS = {"tsne": "t-SNE (openTSNE)", "umap": "UMAP", "pca": "PCA"}
TEXT_SETS = {"texts": "style-labelled sentences", "outputs": "system outputs (pairs)",
             "sources": "source sentences (pairs)"}
#: Above this many sentences "auto" maps a stratified sample of SAMPLE points (said on the map);
#: the Corpus of Diverse Styles (11,000) is mapped whole.
LARGE = 12_000
SAMPLE = 5_000
#: The page's menu of points to map (0: every sentence).
POINT_CHOICES = (0, 1_000, 5_000, 10_000, 20_000)


@dataclass(frozen=True)
class Options(AnalysisOptions):
    """What to map, with which embedder and method (the page's controls and the ``reduce`` command's flags)."""

    embedder: str = option("auto", "embedder spec; auto: the texts' language's (MiniLM for English, the shipped "
                                   "multilingual encoder measured best for another: docs/languages.md)")
    method: str = option("tsne", "projection method", choices=METHODS)
    texts: str | None = option(None, "which sentences: style-labelled texts, pair outputs or pair sources (auto: "
                                     "texts for a style corpus, else outputs)", choices=tuple(TEXT_SETS))
    max_points: int | None = option(None, f"project a stratified random sample of this many sentences; 0 = all; "
                                          f"auto = all up to {LARGE:,}, else {SAMPLE:,}", low=0)
    perplexity: float = option(30.0, "t-SNE perplexity", low=1)
    n_neighbors: int = option(15, "UMAP neighbours", low=2)
    min_dist: float = option(0.1, "UMAP min_dist", low=0)
    seed: int = option(0, "random seed for sampling and the projection")
    colour: str | None = option(None, "column or metric to colour the points by (auto: style, else system)")
    search: str = option("", "highlight the sentences containing this text (case-insensitive)")
    sentence: int | None = option(None, "list the nearest neighbours of this sentence (its row in the mapped set)")
    pair: int | None = option(None, "the pair whose story is opened (its row number)", cli=False)


@dataclass
class Result:
    """The projected points, the projection, and how to colour and title them."""

    points: pd.DataFrame  # row, x, y, text and every column worth colouring by
    projection: object  # stviz.reduce.Projection
    text_set: str
    embedder_label: str
    colour: str | None
    colours: list[str]  # columns the points can be coloured by (categorical first)
    notes: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The figure title: method, embedder, and the sample when one was drawn."""
        title = f"{METHOD_LABELS[self.projection.method]} of {self.embedder_label} embeddings"
        if self.projection.sampled:
            title += f" - stratified sample of {len(self.projection.rows):,} of {self.projection.n_total:,} sentences"
        return title


def text_sets(dataset: Dataset) -> list[str]:
    """The sets of sentences of ``dataset`` that can be mapped, the default first."""
    from stviz.reduce import map_sources

    return map_sources(dataset)


def colour_choices(dataset: Dataset, text_set: str) -> list[str]:
    """Columns the points of ``text_set`` can be coloured by: categorical ones first, then scores."""
    from stviz.reduce import colour_columns, map_frame

    categorical, numeric = colour_columns(map_frame(dataset, text_set))
    return categorical + numeric + metric_colours(dataset, text_set)


def metric_colours(dataset: Dataset, text_set: str) -> list[str]:
    """Metrics the map can colour outputs by, computed per pair (a source shared by pairs has no one value)."""
    from stviz.analyses.pair_story import STORY_METRICS

    return list(STORY_METRICS) if text_set == "outputs" else []


def count_sentences(dataset: Dataset, text_set: str) -> int:
    """How many sentences ``text_set`` holds (what 'all' means in the sample choice)."""
    from stviz.reduce import map_frame

    return len(map_frame(dataset, text_set))


def applies_to(dataset: Dataset) -> str | None:
    """None when the dataset has sentences to map."""
    if text_sets(dataset):
        return None
    return f"{dataset.title or dataset.name} has no style labels and no pairs: there is nothing to map."


def colour_label(column: str | None) -> str:
    """How a colour column is named (human ratings marked as such)."""
    from stviz.analyses.pair_story import STORY_METRICS
    from stviz.metrics import metric_label

    if column is None:
        return "(none)"
    if column in STORY_METRICS:
        return metric_label(column)
    return short_name(column) + (" (human)" if str(column).startswith("human:") else "")


def resolve_max_points(options: Options, n_sentences: int) -> int | None:
    """The sample size actually used: None = every sentence."""
    if options.max_points is None:
        return SAMPLE if n_sentences > LARGE else None
    return options.max_points or None


def preview_total(dataset: Dataset, options: Options) -> list[int]:
    """How many sentences a run with these options maps, as a one-part list (a preview maps a stratified sample of
    them through ``max_points``)."""
    from stviz.reduce import map_frame

    sets = text_sets(dataset)
    n = len(map_frame(dataset, options.texts or sets[0])) if sets else 0
    return [min(n, resolve_max_points(options, n) or n)]


def with_embedder(dataset: Dataset, options: Options) -> Options:
    """The options with an ``auto`` embedder replaced by the first default of the dataset's language."""
    from stviz.languages.measures import resolve_embedders

    return options.changed(embedder=resolve_embedders(dataset, [options.embedder])[0])


def estimate(dataset: Dataset, options: Options):
    """The uncached work of :func:`run`: embedding the (sampled) sentences, then projecting them."""
    from stviz.cache import default_cache
    from stviz.costs import PROJECTION_SECONDS_PER_POINT, Cost, embedding_memory, embedding_seconds
    from stviz.embedders import parse_embedder, vector_cache_id
    from stviz.reduce import map_frame, projection_cached, sample_rows, strata_of

    options = with_embedder(dataset, options)
    frame = map_frame(dataset, options.texts or text_sets(dataset)[0])
    max_points = resolve_max_points(options, len(frame))
    strata = strata_of(frame)
    rows = sample_rows(len(frame), max_points, options.seed, strata)
    texts = frame["text"].iloc[rows].astype(str).tolist()
    cost = Cost()
    seconds = embedding_seconds(texts, options.embedder)
    cost.add(seconds, f"embedding {len(texts):,} sentences with {options.embedder}", embedding_memory(len(texts)))
    projection = PROJECTION_SECONDS_PER_POINT[options.method] * len(texts)
    if seconds == 0:  # the vectors are at hand: ask the cache about the projection itself
        vectors, _ = default_cache().get_vectors(vector_cache_id(parse_embedder(options.embedder)), texts)
        if vectors is not None and projection_cached(vectors, options.method, seed=options.seed,
                                                     perplexity=options.perplexity, n_neighbors=options.n_neighbors,
                                                     min_dist=options.min_dist):
            projection = 0
    # A projection keeps each point's nearest neighbours (t-SNE: 3 x perplexity, UMAP: n_neighbors) and its
    # working arrays: about 2 KB a point.
    cost.add(projection, f"{METHOD_LABELS[options.method]} of {len(texts):,} points", 2e3 * len(texts))
    return cost


def run(dataset: Dataset, options: Options, progress: Reporter | None = None) -> Result:
    """Embed the (sampled) sentences and project them, both cached, each a named stage."""
    from stviz.embedders import PRESETS, parse_embedder
    from stviz.reduce import colour_columns, map_frame, map_points

    sets = text_sets(dataset)
    if not sets:
        raise NotApplicable(applies_to(dataset))
    options = with_embedder(dataset, options)
    text_set = options.texts or sets[0]
    if text_set not in sets:
        raise DataError(f"{dataset.name} has no {TEXT_SETS[text_set]}; choose one of {', '.join(sets)}")
    frame = map_frame(dataset, text_set)
    categorical, numeric = colour_columns(frame)
    colours = categorical + numeric + metric_colours(dataset, text_set)
    colour = options.colour if options.colour is not None else (colours[0] if colours else None)
    report_to = reporter(progress)
    if colour in metric_colours(dataset, text_set):
        frame = with_metric(dataset, frame, colour, report_to)
    if colour is not None and colour not in frame:
        raise DataError(f"no column '{colour}' to colour by; have: {', '.join(map(str, colours)) or 'none'}")
    max_points = resolve_max_points(options, len(frame))
    label = PRESETS.get(options.embedder, parse_embedder(options.embedder).label)
    n = len(frame) if max_points is None else min(max_points, len(frame))
    method = METHOD_LABELS[options.method]
    points, proj = map_points(
        frame, options.embedder, options.method, max_points=max_points, seed=options.seed,
        perplexity=options.perplexity, n_neighbors=options.n_neighbors, min_dist=options.min_dist,
        embed_progress=report_to.later(f"Embedding {n:,} sentences with {label}"),
        progress=report_to.later(f"{method} of {n:,} points" + (" (epochs; a first UMAP in a process also compiles "
                                                                 "its code for up to a minute)"
                                                                 if options.method == "umap" else "")))
    notes = []
    if proj.sampled:
        notes.append(f"sampled {len(proj.rows):,} of {proj.n_total:,} sentences, stratified by style (seed "
                     f"{options.seed})")
    if "style" in frame and frame["style"].nunique() == 1:
        notes.append(f"all these sentences have one style ({frame['style'].iloc[0]}), so style cannot colour them")
    notes += oov_notes([options.embedder], frame["text"].tolist())
    from stviz.languages.measures import embedder_notes

    notes += embedder_notes(dataset, [options.embedder])  # an English model on other texts: said, not hidden
    if options.search.strip():
        found = len(matching_rows(points["text"], options.search))
        notes.append(f"{found:,} of the {len(points):,} mapped sentences contain '{options.search.strip()}'")
    report_to.finish()
    return Result(points, proj, text_set, label, colour, colours, notes)


def with_metric(dataset: Dataset, frame: pd.DataFrame, name: str, progress: Reporter) -> pd.DataFrame:
    """The outputs' map frame with one metric's per-pair values (the pair stories' cached arrays) as a column."""
    from stviz.analyses.pair_story import story_values

    values = story_values(dataset, [name], progress)[name]
    return frame.assign(**{name: values.loc[frame["pair"]].to_numpy()})


def matching_rows(texts: pd.Series, query: str) -> list[int]:
    """Positions of the texts containing ``query`` (case-insensitive, literal: no regex); none for an empty query."""
    needle = str(query).strip()
    if not needle:
        return []
    hits = texts.astype(str).str.contains(needle, case=False, regex=False).to_numpy()
    return [int(i) for i in hits.nonzero()[0]]


def nearest_neighbours(vectors, index: int, k: int = 10) -> tuple[list[int], list[float]]:
    """The ``k`` rows nearest row ``index`` by cosine distance (1 - cosine similarity), itself left out.

    >>> import numpy as np
    >>> nearest_neighbours(np.array([[1.0, 0], [0, 1.0], [1.0, 0.1]]), 0, k=2)
    ([2, 1], [0.005, 1.0])
    """
    import numpy as np

    vectors = np.asarray(vectors, dtype=float)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0  # an empty text's zero vector is at distance 1 from everything
    units = vectors / norms[:, None]
    distance = np.clip(1.0 - units @ units[index], 0.0, 2.0)  # no -0.000 from rounding for a repeated sentence
    distance[index] = np.inf  # a sentence is not its own neighbour
    order = np.argsort(distance, kind="stable")[: min(k, len(vectors) - 1)]
    return [int(i) for i in order], [round(float(distance[i]), 3) for i in order]


def neighbours(points: pd.DataFrame, embedder: str, row: int, k: int = 10) -> pd.DataFrame:
    """The mapped sentences nearest the point whose ``row`` is given, with their columns and cosine distance.

    Neighbours are found among the mapped points, in the full embedding space (not on the 2-D map, which
    distorts distances), from the disk-cached vectors the map was drawn from.
    """
    from stviz.embedders import embed

    matches = points.index[points["row"] == row]
    if len(matches) == 0:
        raise DataError(f"sentence {row} is not on the map (it was left out of the sample)")
    vectors = embed(points["text"].astype(str).tolist(), embedder)
    positions, distances = nearest_neighbours(vectors, int(matches[0]), k)
    table = points.iloc[positions].drop(columns=["x", "y"]).reset_index(drop=True)
    table.insert(1, "cosine distance", distances)
    return table


__all__ = ["estimate", "Options", "POINT_CHOICES", "Result", "TITLE", "METHODS", "METHOD_LABELS", "TEXT_SETS", "applies_to", "colour_choices",
           "colour_label", "count_sentences", "matching_rows", "metric_colours", "nearest_neighbours", "neighbours",
           "resolve_max_points", "run", "text_sets", "with_metric"]
