"""The dashboard's own figures for the tables of the Python API: plotly Figures that render in a notebook.

Each takes the DataFrame a function of :mod:`stviz` returned (``stviz.style_similarity``, ``stviz.embedding_map``,
``stviz.tradeoffs``, ``stviz.meta_evaluate``, ``stviz.leaderboard``) and draws it with the builder the page uses
(:mod:`stviz.plots`), so that a figure in a notebook is the page's figure.
"""

from __future__ import annotations

import pandas as pd

from stviz.data.schema import DataError


def similarity_heatmap(table: pd.DataFrame, embedder: str | None = None, decimals: int = 3):
    """Style x style heatmap of one embedder (default: the first) of ``stviz.style_similarity``'s table, row maxima
    marked (Fitzpatrick et al., Tables 1-3)."""
    from stviz.plots.similarity import similarity_heatmap as heatmap

    embedder = embedder or table.index.get_level_values("embedder")[0]
    return heatmap(table.loc[embedder], title=embedder, decimals=decimals)


def embedding_map(points: pd.DataFrame, colour: str | None = None, title: str | None = None):
    """The 2-D map of ``stviz.embedding_map``'s points, coloured by ``colour`` (default: the run's colour column)."""
    from stviz.analyses.embedding_map import colour_label
    from stviz.plots.similarity import embedding_map as scatter

    colour = colour or points.attrs.get("colour") or None
    return scatter(points, colour, title if title is not None else points.attrs.get("title", ""),
                   colour_title=colour_label(colour))


def tradeoff_plot(table: pd.DataFrame, x: str = "direction_corrected_emd", y: str = "content_preservation"):
    """One point per system and setting of ``stviz.tradeoffs``'s table, a system's settings joined, the Pareto
    front starred (Mir et al. 2019, Figure 2)."""
    from stviz.plots.style import tradeoff_figure

    return tradeoff_figure(table, x, y)


def meta_heatmap(table: pd.DataFrame, aspect: str | None = None, level: str = "sentence",
                 statistic: str = "pearson"):
    """Sets x measures of ``stviz.meta_evaluate``'s table for one aspect (default: the first), level and statistic,
    coloured by r, the best group dotted (the Meta-evaluation page's heatmap)."""
    from stviz.analyses.meta_evaluation import STATISTIC_LABELS
    from stviz.plots.meta_evaluation import sets_heatmap

    label = STATISTIC_LABELS.get(statistic, statistic)
    rows = table.reset_index()
    aspect = aspect or rows["aspect"].iloc[0]
    rows = rows[(rows["aspect"] == aspect) & (rows["level"] == level) & (rows["statistic"] == label)]
    rows = pd.DataFrame({"task": rows["set"] + " · " + rows["human"], "measure": rows["measure"], "r": rows["r"],
                         "ci_low": rows["95% CI low"], "ci_high": rows["95% CI high"],
                         "best_group": rows["best group"] == "yes", "encoder": ""})
    return sets_heatmap(rows, label, title=f"{aspect.title()} · {level} level · {label} (● best group)")


def leaderboard_intervals(table: pd.DataFrame, metric: str, label: str | None = None):
    """Each system's value of one metric of ``stviz.leaderboard``'s table with its 95% interval, best first."""
    from stviz.analyses.leaderboard import metric_card
    from stviz.plots.leaderboard import interval_figure

    scores = table.reset_index()
    if "language" in scores and scores["language"].nunique() > 1:
        raise DataError("the table holds several languages: pass one language's rows (table.loc['CODE'])")
    return interval_figure(scores, metric, label or metric, metric_card(metric).higher_is_better)


__all__ = ["embedding_map", "leaderboard_intervals", "meta_heatmap", "similarity_heatmap", "tradeoff_plot"]
