"""Which of a set's measures are style measures, turned toward each pair's target before any statistic.

The one entry point the views share (Meta-evaluation, Metrics vs humans, the Leaderboard's style scorer): given the
pairs, the measure values and the user's ``--poles``, every style measure of one pole is turned
(:func:`stviz.measures.style.poles.orient_style_columns`) and said.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

from stviz.data.schema import METRIC_PREFIX, DataError, short_name
from stviz.measures.cards import Orientation
from stviz.measures.content import column_axis
from stviz.measures.style.poles import OrientedStyle, declared_for, orient_style_columns

#: Measures named by a style scorer (``scorer:NAME``): style measures whatever their name says.
SCORER_PREFIX = "scorer:"


def style_columns(names: Sequence[str], poles: Mapping[str, Orientation]) -> list[str]:
    """The names among ``names`` that are style measures: declared by the user, a style scorer, or a precomputed
    column whose name says style."""
    return [n for n in names if declared_for(n, poles) is not None or str(n).startswith(SCORER_PREFIX)
            or (str(n).startswith(METRIC_PREFIX) and column_axis(n) == "style")]


def check_declared(poles: Mapping[str, Orientation], names: Sequence[str], where: str) -> None:
    """Refuse ``--poles`` naming a column none of the measures has (a typo would silently change nothing);
    ``where`` says what was looked in ('the chosen sets')."""
    known = {short_name(n) for n in names} | set(names)
    if unknown := sorted(c for c in poles if c not in known):
        offered = sorted({short_name(n) for n in names if str(n).startswith((METRIC_PREFIX, SCORER_PREFIX))})
        raise DataError(f"--poles names {', '.join(unknown)}, which {where} do not have; their columns: "
                        f"{', '.join(offered) or 'none'}")


def orient_pairs(pairs: pd.DataFrame, values: pd.DataFrame, poles: Mapping[str, Orientation],
                 known: Mapping[str, Orientation] | None = None) -> OrientedStyle:
    """The pairs' measure values with every style measure of one pole turned toward each pair's target."""
    targets = pairs["target_style"].astype(str).tolist() if "target_style" in pairs else None
    sources = pairs["source_style"].astype(str).tolist() if "source_style" in pairs else None
    return orient_style_columns(values, style_columns(list(values.columns), poles), targets, poles, sources, known)


__all__ = ["SCORER_PREFIX", "check_declared", "orient_pairs", "style_columns"]
