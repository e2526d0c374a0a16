"""The tradeoff between the axes (Mir et al., NAACL 2019, Figure 2): style transfer intensity against content
preservation and naturalness, one point per system and setting, lines per system.

Per pair: every intensity measure (:mod:`stviz.measures.style.intensity`), content preservation (a metric of the
registry, :mod:`stviz.metrics`) and P(human) of the output (:mod:`stviz.measures.fluency.naturalness`); per system
and setting their means (settings in the order of their hyper-parameter value); the Pareto front of a plot.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.measures.style.intensity import style_transfer_intensity
from stviz.progress import Reporter, reporter

#: Per-pair columns that can be an axis of the tradeoff plot besides content metrics.
INTENSITY_MEASURES = ("direction_corrected_emd", "normalised_intensity", "target_style_probability",
                      "target_style_accuracy")


def tradeoff_pairs(pairs: pd.DataFrame, classifier, *, content_metric: str = "cosine:minilm",
                   modification: str = "none", lexicon=None, naturalness: str | None = "unigram",
                   human_texts: Sequence[str] = (), cache=None, progress: Reporter | None = None) -> pd.DataFrame:
    """Per pair: every intensity measure, content preservation (``content_metric``) and P(human) of the output.

    Each of the three steps that does work is a named stage of ``progress``.
    """
    from stviz.metrics import get_card, metric_frame

    stages = reporter(progress)
    card = get_card(content_metric)
    frame = style_transfer_intensity(pairs, classifier, progress=stages.later(
        f"Style distributions of {len(pairs):,} sources and outputs"))
    content = metric_frame(pairs, [content_metric], modification=modification, lexicon=lexicon, cache=cache,
                           progress=stages.later(f"Content preservation: {card.label}"))[content_metric]
    # Distances (WMD) are turned around so that 'up' means more content kept on every plot.
    frame["content_preservation"] = content if card.higher_is_better else -content
    if naturalness is not None:
        from stviz.measures.fluency.naturalness import adversarial_naturalness

        nat = adversarial_naturalness(pairs, naturalness, human_texts=human_texts, cache=cache,
                                      progress=stages.later(f"Naturalness: adversarial {naturalness} classifier "
                                                            "per system"))
        frame = frame.join(nat)
    return frame


def tradeoff_table(pairs: pd.DataFrame, per_pair: pd.DataFrame,
                   by: Sequence[str] = ("system", "setting")) -> pd.DataFrame:
    """One row per system and setting: the mean of every per-pair measure and of every human score."""
    keys = [k for k in by if k in pairs]
    humans = [c for c in pairs.columns if str(c).startswith("human:") and pd.api.types.is_numeric_dtype(pairs[c])]
    frame = pd.concat([pairs[keys + humans], per_pair.drop(columns=[c for c in keys if c in per_pair])], axis=1)
    if not keys:
        frame["system"] = "all"
        keys = ["system"]
    table = frame.groupby(keys, sort=False).mean(numeric_only=True)
    table["n"] = frame.groupby(keys, sort=False).size()
    return order_settings(table)


def setting_value(setting: str) -> float:
    """The hyper-parameter value a setting label ends in ('rho=0.5' -> 0.5); inf when it has none."""
    match = re.search(r"(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$", str(setting))
    return float(match.group(1)) if match else float("inf")


def order_settings(table: pd.DataFrame) -> pd.DataFrame:
    """Rows by system, then by the setting's hyper-parameter value (lambda=1, 5, 10 rather than 1, 10, 5)."""
    index = table.index.to_frame(index=False)
    if "setting" not in index:
        return table
    value = index["setting"].astype(str).map(setting_value)
    order = index.assign(_value=value, _label=index["setting"].astype(str))
    order = order.sort_values([c for c in index.columns if c != "setting"] + ["_value", "_label"], kind="stable")
    return table.iloc[order.index.to_numpy()]


def pareto_front(x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """Boolean mask of the points no other point beats on both x and y (higher is better on both)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    front = np.ones(len(x), dtype=bool)
    for i in range(len(x)):
        dominated = (x >= x[i]) & (y >= y[i]) & ((x > x[i]) | (y > y[i]))
        front[i] = not dominated.any()
    return front
