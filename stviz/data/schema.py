"""The one dataset shape every view works on.

A :class:`Dataset` holds either or both of:

* ``texts`` - style-labelled sentences (a style corpus such as CDS): columns ``text``, ``style``,
  and optionally ``split``;
* ``pairs`` - style-transfer pairs: columns ``source``, ``output`` and, when known, ``system``,
  ``setting``, ``source_style``, ``target_style``, ``reference``; further human references as
  ``reference:2``, ``reference:3``, ... (multi-reference BLEU); human scores as columns named
  ``human:NAME`` and precomputed metric scores as ``metric:NAME``.

Column names are the contract between loaders, the computation modules and the pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

PAIR_COLUMNS = ("source", "output", "system", "setting", "source_style", "target_style", "reference")
REFERENCE_PREFIX = "reference:"
HUMAN_PREFIX = "human:"
METRIC_PREFIX = "metric:"


class DataError(ValueError):
    """Input data that cannot be used; the message says what was found and what to do."""


@dataclass
class Dataset:
    """A named corpus of labelled texts and/or style-transfer pairs, with load notes."""

    name: str
    title: str
    description: str = ""
    texts: pd.DataFrame | None = None
    pairs: pd.DataFrame | None = None
    lexicon: dict[str, float] | None = None
    illustrative: bool = False
    notes: list[str] = field(default_factory=list)
    #: Direction of each human-score column: True when a higher value means more content kept /
    #: a better output. Columns not listed are read with :func:`higher_is_better_guess`.
    human_direction: dict[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.texts is None and self.pairs is None:
            raise DataError(f"dataset '{self.name}' has neither texts nor pairs")
        if self.texts is not None:
            _require(self.texts, ("text", "style"), f"{self.name} texts")
        if self.pairs is not None:
            _require(self.pairs, ("source", "output"), f"{self.name} pairs")

    # -- what the dataset offers (pages show only the views that apply) --------------------
    @property
    def human_columns(self) -> list[str]:
        """Numeric human-score columns of the pairs (``human:`` prefix; categorical votes excluded)."""
        return [c for c in _prefixed(self.pairs, HUMAN_PREFIX) if pd.api.types.is_numeric_dtype(self.pairs[c])]

    @property
    def metric_columns(self) -> list[str]:
        """Names of the precomputed metric columns of the pairs (with the ``metric:`` prefix)."""
        return _prefixed(self.pairs, METRIC_PREFIX)

    @property
    def reference_columns(self) -> list[str]:
        """The pairs' reference columns: ``reference`` first, then ``reference:2``, ``reference:3``, ..."""
        if self.pairs is None:
            return []
        extra = sorted((c for c in _prefixed(self.pairs, REFERENCE_PREFIX) if c.split(":", 1)[1].isdigit()),
                       key=lambda c: int(c.split(":", 1)[1]))
        return (["reference"] if "reference" in self.pairs else []) + extra

    def references(self) -> list[list[str]]:
        """Per pair, its non-empty human references (several where the data has several)."""
        columns = self.reference_columns
        if not columns:
            return [[] for _ in range(0 if self.pairs is None else len(self.pairs))]
        values = self.pairs[columns].astype(object).to_numpy()
        return [[str(v) for v in row if isinstance(v, str) and v.strip()] for row in values]

    @property
    def has_styles(self) -> bool:
        """Whether style-labelled texts can be formed (for similarity, maps and classifiers)."""
        return self.texts is not None or (self.pairs is not None and "source_style" in self.pairs)

    @property
    def has_systems(self) -> bool:
        """Whether pairs carry a system name."""
        return self.pairs is not None and "system" in self.pairs

    def human_higher_is_better(self, column: str) -> bool:
        """Whether a higher value of the human column ``column`` means better (set at upload, else guessed)."""
        if column in self.human_direction:
            return self.human_direction[column]
        return higher_is_better_guess(column)

    def oriented_human(self, column: str) -> np.ndarray:
        """A human column's values as floats, negated where lower is better: every view reads higher = better."""
        if self.pairs is None or column not in self.pairs:
            raise DataError(f"dataset '{self.name}' has no human-score column '{short_name(column)}'")
        values = pd.to_numeric(self.pairs[column], errors="coerce").to_numpy(dtype=float)
        return values if self.human_higher_is_better(column) else -values

    def style_texts(self) -> pd.DataFrame:
        """Style-labelled sentences: the texts if any, else the distinct sources with their style.

        Outputs of a transfer system are not used as style examples: whether they carry the
        target style is exactly what is being evaluated.
        """
        if self.texts is not None:
            return self.texts
        if self.pairs is None or "source_style" not in self.pairs:
            raise DataError(f"dataset '{self.name}' has no style labels (no style column was mapped)")
        frame = self.pairs[["source", "source_style"]].dropna().drop_duplicates()
        return frame.rename(columns={"source": "text", "source_style": "style"}).reset_index(drop=True)

    def counts(self) -> dict[str, int]:
        """Headline counts: styles, sentences, pairs, systems, human-score and metric columns."""
        out: dict[str, int] = {}
        if self.texts is not None:
            out["styles"] = int(self.texts["style"].nunique())
            out["sentences"] = int(len(self.texts))
        if self.pairs is not None:
            out["pairs"] = int(len(self.pairs))
            if "system" in self.pairs:
                out["systems"] = int(self.pairs["system"].nunique())
            if "setting" in self.pairs:
                out["settings"] = int(self.pairs[["system", "setting"]].drop_duplicates().shape[0]
                                      if "system" in self.pairs else self.pairs["setting"].nunique())
            out["human-score columns"] = len(self.human_columns)
            out["metric columns"] = len(self.metric_columns)
        return out


#: Words in a human column's name that say a higher value means *less* content kept (SGDD-TST's
#: ``vote_different``: the share of raters who found the meaning different).
LOWER_IS_BETTER_HINTS = ("different", "lost", "distance", "changed", "error", "worse")


def higher_is_better_guess(column: str) -> bool:
    """A first guess at a human column's direction from its name (users confirm it at upload)."""
    words = set(re.split(r"[^a-z0-9]+", short_name(column).lower()))
    return not any(hint in words for hint in LOWER_IS_BETTER_HINTS)


def _prefixed(frame: pd.DataFrame | None, prefix: str) -> list[str]:
    return [] if frame is None else [c for c in frame.columns if str(c).startswith(prefix)]


def _require(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{what}: missing column(s) {', '.join(missing)}; found {', '.join(map(str, frame.columns))}")


def short_name(column: str) -> str:
    """A column name without its ``human:`` / ``metric:`` prefix, for labels."""
    for prefix in (HUMAN_PREFIX, METRIC_PREFIX):
        if column.startswith(prefix):
            return column[len(prefix):]
    return column
