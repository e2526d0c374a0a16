"""The options each view's page runs with when it is opened on a dataset and nothing is chosen: no link, no widget
moved.

Why: a view's result computed before anyone asks (:mod:`stviz.ready`) is read by the page only under the page's own
options (:mod:`stviz.analyses.kept`), and a page fills what ``Options()`` leaves open from the dataset: the first
human column, the default metrics resolved, the sentences to map and what colours them, the first pair. The pages
pick from the same library functions used here (``resolve_metrics``, ``text_sets``, ``colour_choices``, the choice
tuples); ``tests/test_ready.py`` runs every page on the built-in data and checks that it asks for exactly these.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Callable

from stviz.data.schema import Dataset
from stviz.languages.measures import resolve_embedders


def opening_options(view: str, dataset: Dataset):
    """The options the page of ``view`` (an analysis module's name) runs with on ``dataset`` when first opened."""
    analysis = importlib.import_module(view)
    opener = OPENERS.get(view.rpartition(".")[2])
    return opener(analysis, dataset) if opener is not None else analysis.Options()


def _similarity(analysis: ModuleType, dataset: Dataset):
    defaults = analysis.Options()
    n_sentences = len(dataset.style_texts())
    offered = [n for n in analysis.PER_STYLE_CHOICES if n == 0 or n < n_sentences]
    return defaults.changed(per_style=_pick(analysis.resolve_per_style(defaults, n_sentences) or 0, offered),
                            embedders=resolve_embedders(dataset, defaults.embedders))  # as the page shows them


def _embedding_map(analysis: ModuleType, dataset: Dataset):
    defaults = analysis.with_embedder(dataset, analysis.Options())  # the language's embedder, as the page shows it
    text_set = analysis.text_sets(dataset)[0]
    colours = analysis.colour_choices(dataset, text_set)
    n_sentences = analysis.count_sentences(dataset, text_set)
    sizes = [n for n in analysis.POINT_CHOICES if n == 0 or n < n_sentences]
    return defaults.changed(texts=text_set, colour=colours[0] if colours else None,
                            max_points=_pick(analysis.resolve_max_points(defaults, n_sentences) or 0, sizes))


def _metrics_vs_humans(analysis: ModuleType, dataset: Dataset):
    from stviz.analyses import choices
    from stviz.analyses.common import human_columns

    defaults = analysis.Options()
    names, _ = analysis.resolve_metrics(dataset, defaults)
    humans = human_columns(dataset)
    return defaults.changed(metrics=tuple(names), human=humans[0] if humans else None,
                            ne_source=_pick(defaults.ne_source, choices.ne_sources(dataset)))


def _failure_cases(analysis: ModuleType, dataset: Dataset):
    from stviz.analyses import choices
    from stviz.analyses.common import human_columns

    defaults = analysis.Options()
    humans = human_columns(dataset)
    # The page's lexicon menu puts "no lexicon" first unless the dataset ships one ("dataset", then first).
    return defaults.changed(metric=_pick(defaults.metric, analysis.metric_choices(dataset)),
                            human=humans[0] if humans else None,
                            lexicon="dataset" if "dataset" in choices.lexicons(dataset) else "none")


def _attributions(analysis: ModuleType, dataset: Dataset):
    return analysis.Options().changed(pair=int(dataset.pairs.index[0]))  # the first pair of the page's list


def _leaderboard(analysis: ModuleType, dataset: Dataset):
    from stviz.analyses import choices

    defaults = analysis.Options()
    references = dataset.reference_columns
    return defaults.changed(reference_columns=tuple(references) if len(references) > 1 else (),
                            style_data=_pick(defaults.style_data, list(choices.style_data(dataset))))


def _meta_evaluation(analysis: ModuleType, dataset: Dataset):
    offered = analysis.dataset_choices(dataset)
    # A first visit evaluates the current dataset when it is rated, else the page's default sets.
    start = [dataset.name] if dataset.name in offered else analysis.default_sets(dataset)
    return analysis.Options().changed(datasets=tuple(n for n in start if n in offered) or None)


def _pick(value, offered: list):
    """``value`` when the page's menu offers it, else the menu's first entry (what a page's widget shows)."""
    return value if value in offered or not offered else offered[0]


#: Views whose page fills options from the dataset; the others run with their ``Options()``.
def _tradeoffs(analysis: ModuleType, dataset: Dataset):
    return analysis.for_language(dataset, analysis.Options())[0]  # the language's content metric, as the page shows


OPENERS: dict[str, Callable[[ModuleType, Dataset], object]] = {
    "similarity": _similarity, "embedding_map": _embedding_map, "metrics_vs_humans": _metrics_vs_humans,
    "failure_cases": _failure_cases, "attributions": _attributions, "leaderboard": _leaderboard,
    "meta_evaluation": _meta_evaluation, "tradeoffs": _tradeoffs}


__all__ = ["OPENERS", "opening_options"]
