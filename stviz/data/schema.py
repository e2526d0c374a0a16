"""The one dataset shape every view works on.

A :class:`Dataset` holds either or both of:

* ``texts`` - style-labelled sentences (a style corpus such as CDS): columns ``text``, ``style``,
  and optionally ``split``;
* ``pairs`` - style-transfer pairs: columns ``source``, ``output`` and, when known, ``system``,
  ``setting``, ``source_style``, ``target_style``, ``reference``; further human references as
  ``reference:2``, ``reference:3``, ... (multi-reference BLEU); human scores as columns named
  ``human:NAME`` and precomputed metric scores as ``metric:NAME``; the scores of individual
  annotators as ``rater:NAME``.

Raters: a file with one column per annotator (``label_1``, ``label_2``, ``label_3``, or
``rater1``, ``annotator_2``) keeps each as ``rater:<column>``. Columns whose names share a stem
(:func:`rater_stem`: the name without its trailing number) form one group of raters
(:attr:`Dataset.rater_groups`); their per-pair mean is offered as the human score
``human:<stem>_mean`` and :meth:`Dataset.rater_agreement` gives Krippendorff's alpha. Rater
columns are never metrics (each is part of the mean, so it would "beat" every metric) and never
human scores themselves.

Column names are the contract between loaders, the computation modules and the pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

PAIR_COLUMNS = ("source", "output", "system", "setting", "source_style", "target_style", "reference")
REFERENCE_PREFIX = "reference:"
HUMAN_PREFIX = "human:"
METRIC_PREFIX = "metric:"
RATER_PREFIX = "rater:"


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
    #: The transfer direction the user stated for pairs without style columns (``--direction``), said in outputs.
    direction: str = ""
    #: The texts' language as the user set it (an ISO 639-1 code); None: detected (stviz.languages.dataset_language).
    language: str | None = None

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
    def rater_columns(self) -> list[str]:
        """Per-annotator score columns (``rater:`` prefix): agreement only, never metrics or human scores."""
        return _prefixed(self.pairs, RATER_PREFIX)

    @property
    def rater_groups(self) -> dict[str, list[str]]:
        """Rater columns grouped by stem ('label' for rater:label_1, rater:label_2, ...)."""
        groups: dict[str, list[str]] = {}
        for col in self.rater_columns:
            name = col[len(RATER_PREFIX):]
            groups.setdefault(rater_stem(name) or name, []).append(col)
        return groups

    def rater_agreement(self, unmeasured: bool = False) -> dict[str, "RaterAgreement"]:
        """Krippendorff's alpha (interval) of each rater group, over the pairs two or more raters scored; with
        ``unmeasured``, also the groups where it cannot be measured yet (alpha NaN: :func:`rater_alpha`).

        Rows with the same texts and the same ratings are one rated unit, counted once: a text rated once and
        credited to each system that wrote it (a stviz study, :mod:`stviz.studies.sampling`) is one unit, not two.
        """
        out = {}
        texts = [c for c in ("source", "output") if c in self.pairs]
        for stem, columns in self.rater_groups.items():
            if len(columns) < 2:
                continue
            units = self.pairs[texts + columns].drop_duplicates() if texts else self.pairs[columns]
            agreement = rater_alpha(units[columns].to_numpy(dtype=float).T)  # raters x units, NaN = not rated
            if unmeasured or np.isfinite(agreement.alpha):
                out[stem] = agreement
        return out

    def rater_agreement_by_language(self, unmeasured: bool = False) -> dict[str, dict[str, "RaterAgreement"]]:
        """:meth:`rater_agreement` per language of the pairs' ``language`` column (each language had its own raters,
        so one alpha over all would mix them), under '' when the pairs are in one language or say none."""
        languages = (self.pairs["language"].dropna().unique()
                     if self.pairs is not None and "language" in self.pairs else [])
        if len(languages) < 2:
            return {"": self.rater_agreement(unmeasured)}
        return {str(code): replace(self, pairs=self.pairs[self.pairs["language"] == code]).rater_agreement(unmeasured)
                for code in languages}

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


@dataclass(frozen=True)
class RaterAgreement:
    """Agreement of one group of raters: Krippendorff's alpha, pairs rated by two or more, raters."""

    alpha: float
    units: int
    raters: int


def rater_alpha(matrix: np.ndarray) -> RaterAgreement:
    """Krippendorff's alpha (interval) of a raters x units matrix (NaN = not rated) over the units two or more raters
    rated; NaN until it can be measured: two such units and two different values among them."""
    shared = (~np.isnan(matrix)).sum(axis=0) >= 2
    values = matrix[:, shared]
    enough = shared.sum() >= 2 and np.unique(values[~np.isnan(values)]).size >= 2
    return RaterAgreement(krippendorff_alpha(values) if enough else float("nan"), int(shared.sum()),
                          int((~np.isnan(matrix)).any(axis=1).sum()))


def alpha_text(agreement: RaterAgreement, unit: str = "pair") -> str:
    """'α = 0.712 (3 raters, 40 pairs)', or why it is not measurable yet (:func:`rater_alpha`'s rule): the one wording
    of a study's status, its owner's page and Meta-evaluation (``unit``: what the raters rated, 'pair' or 'item')."""
    raters = f"{agreement.raters} rater{'' if agreement.raters == 1 else 's'}"
    units = f"{agreement.units:,} {unit}{'' if agreement.units == 1 else 's'}"
    if np.isfinite(agreement.alpha):
        return f"α = {agreement.alpha:.3f} ({raters}, {units})"
    return (f"α not measurable yet ({raters}; {units} rated by two or more of them, and it needs two such {unit}s "
            "with two different values)")


def krippendorff_alpha(matrix: np.ndarray, level: str = "interval") -> float:
    """Krippendorff's alpha of a raters x units matrix (NaN = not rated), by the ``krippendorff`` package."""
    import krippendorff

    return float(krippendorff.alpha(reliability_data=np.asarray(matrix, dtype=float), level_of_measurement=level))


_RATER_NAME = re.compile(r"^(?P<stem>.*?[A-Za-z][A-Za-z_ .-]*?)[\s_.-]*(?P<number>\d{1,3})$")
#: Raters lettered instead of numbered ('fluency_a', 'fluency_b'): the letter must stand apart after a separator.
_LETTERED_RATER = re.compile(r"^(?P<stem>.*?[A-Za-z]{3,}[A-Za-z_ .-]*?)[\s_.-]+(?P<letter>[A-Za-z])$")


def rater_stem(name: str) -> str | None:
    """The stem of a per-annotator column name ('label' for 'label_1', 'rater' for 'rater2'), or None."""
    match = _RATER_NAME.match(str(name).strip()) or _LETTERED_RATER.match(str(name).strip())
    if not match:
        return None
    stem = match.group("stem").strip(" _.-")
    return stem or None


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
    """A column name without its ``human:`` / ``metric:`` / ``rater:`` prefix, for labels."""
    for prefix in (HUMAN_PREFIX, METRIC_PREFIX, RATER_PREFIX):
        if column.startswith(prefix):
            return column[len(prefix):]
    return column
