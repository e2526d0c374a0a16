"""Checks on style-labelled training data, shared by both classifier kinds."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from stviz.data.labels import OneStyleError
from stviz.data.schema import DataError


def check_training_data(texts: Sequence[str], labels: Sequence[str]) -> tuple[list[str], list[str]]:
    """Texts and labels as strings, refused with a clear message unless two styles with two texts each."""
    texts = [str(t) for t in texts]
    labels = [str(y) for y in labels]
    if len(texts) != len(labels):
        raise DataError(f"{len(texts)} texts but {len(labels)} labels")
    styles, counts = np.unique(labels, return_counts=True) if labels else (np.array([]), np.array([]))
    if len(styles) < 2:
        raise OneStyleError("a style classifier needs texts of at least two styles; "
                        f"found {len(styles)} ({', '.join(map(str, styles)) or 'none'})")
    if counts.min() < 2:
        raise DataError(f"every style needs at least two texts; '{styles[counts.argmin()]}' has {counts.min()}")
    return texts, labels
