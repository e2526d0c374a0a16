"""Style measures of one pole, turned toward each pair's target before they are compared with people.

A rating of style transfer asks "how well was the target style reached?". A measure of *one pole* of a style
(P(formal), a formality regressor's score, a toxicity probability) answers that only for pairs whose target is
that pole: on formal->informal pairs a high P(formal) is a failure. Compared as it is with ratings of both
directions, it is upside down on half the pairs (Briakou et al. 2021's own script turns its classifier but not its
regressor). So a pole measure is turned toward each pair's target first:

* as it is where the target is the pole;
* elsewhere ``1 - value`` when every value lies in [0, 1] (a probability or a 0-1 score), the value negated when
  the values take both signs (a scale around a neutral 0, as PT16's -3..3), else mirrored on the column's own
  range (``low + high - value``: a 1-7 scale stays 1-7).

What a column measures is declared by the user (``--poles formality_cls_gyafc=formal,tox=toxic``, or
``COLUMN=target`` for a column already oriented toward the target), else read from its name: words of one pole
(``formality``, ``p_formal``, ``sentiment``, ``positive``, ``toxicity``) against words of the target (``style_acc``,
``transfer_acc``, ``sti``, ``p_target``). A name that says neither is used as it is, and the sanity check
(:func:`stviz.meta.sanity.direction_flags`) flags it when its values follow the pairs' direction more than the
ratings.

>>> orientation_from_name("metric:formality_cls_gyafc"), orientation_from_name("style_acc")
(Orientation(kind='pole', pole='formal', declared=False), Orientation(kind='target', pole='', declared=False))
>>> turn_toward_target([0.9, 0.9], ["formal", "informal"], "formal")[0].round(2).tolist()
[0.9, 0.1]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from stviz.data.meanings import POLE_WORDS, TARGET_WORDS, style_pole  # noqa: F401 - the vocabulary's, re-exported
from stviz.data.schema import DataError, short_name
from stviz.measures.cards import POLE, TARGET, Orientation

#: What ``--poles COLUMN=target`` (and the page's choice) says for a column oriented toward the target already.
TARGET_CHOICE = "target"
#: A target style as a missing one reads once turned into text: no direction, so no value.
MISSING = ("", "nan", "none")
#: The ``--poles`` option's help, the same in every view that compares style measures with people.
POLES_HELP = ("what a style column measures: COLUMN=POLE (the style its high values mean: formality_cls=formal, "
              "tox=toxic), turned toward each pair's target before any statistic, or COLUMN=target (already toward the "
              "target); default: read from the name (formality_*, p_formal, sentiment, toxicity: a pole; style_acc, "
              "transfer_acc, sti: toward the target), said in the notes")


def orientation_from_name(column: str) -> Orientation | None:
    """What a column's name says it measures: toward the target, one pole, or nothing (None)."""
    said = style_pole(column)
    if said is None:
        return None
    return Orientation(TARGET) if said[0] == "target" else Orientation(POLE, said[1])


def parse_poles(entries: Sequence[str]) -> dict[str, Orientation]:
    """``COLUMN=POLE`` or ``COLUMN=target`` entries (``--poles``, commas allowed inside) -> {short name: orientation}."""
    out = {}
    for entry in (part.strip() for item in entries for part in str(item).split(",")):
        if not entry:
            continue
        column, sep, pole = (p.strip() for p in entry.partition("="))
        if not sep or not column or not pole:
            raise DataError(f"--poles: '{entry}' is not COLUMN=POLE (the style its high values mean, e.g. "
                            f"formality_cls=formal) or COLUMN={TARGET_CHOICE} (already toward each pair's target)")
        kind = TARGET if pole.lower() == TARGET_CHOICE else POLE
        out[short_name(column)] = Orientation(kind, "" if kind == TARGET else pole, declared=True)
    return out


def poles_text(poles: Mapping[str, Orientation]) -> tuple[str, ...]:
    """Declared orientations back as ``COLUMN=POLE`` entries (what the page writes into the Options)."""
    return tuple(f"{c}={o.pole if o.kind == POLE else TARGET_CHOICE}" for c, o in poles.items())


def flip_rule(values: np.ndarray) -> tuple[str, callable]:
    """How a pole column is turned where the target is the other style: its rule's words and the function."""
    finite = values[np.isfinite(values)]
    if not finite.size or (finite.min() >= 0 and finite.max() <= 1):
        return "1 - value", lambda v: 1 - v
    low, high = float(finite.min()), float(finite.max())
    if low < 0 < high:
        return "negated", lambda v: -v
    return f"mirrored on its range [{low:g}, {high:g}]", lambda v: low + high - v


def _matching(pole: str, styles: Sequence[str]) -> str | None:
    return next((s for s in styles if s.strip().lower() == pole.strip().lower()), None)


def turn_toward_target(values: Sequence[float], targets: Sequence[str], pole: str) -> tuple[np.ndarray, str]:
    """A pole measure's values turned toward each pair's target: as is where the target is the pole, flipped by
    :func:`flip_rule` elsewhere; and the rule's words."""
    values = np.asarray(values, dtype=float)
    rule, flip = flip_rule(values)
    is_pole = np.array([str(t).strip().lower() == pole.strip().lower() for t in targets])
    missing = np.array([t is None or str(t).strip().lower() in MISSING for t in targets])
    return np.where(missing, np.nan, np.where(is_pole, values, flip(values))), rule


@dataclass(frozen=True)
class Turned:
    """How one style column was read: its orientation, and (for a pole) the rule that turned it."""

    column: str
    orientation: Orientation
    rule: str = ""  # the flip rule, '' when nothing was turned
    kept: tuple[str, ...] = ()  # target styles where the values are used as they are
    turned: tuple[str, ...] = ()  # target styles where they were turned

    @property
    def label_suffix(self) -> str:
        """What the measure's label adds: the pole and 'toward target', or nothing."""
        if self.orientation.kind != POLE:
            return ""
        return f" [{self.orientation.pole} pole, toward target]" if self.turned else f" [{self.orientation.pole} pole]"

    def describe(self) -> str:
        """One sentence for the notes: what the column measures and what was done ("every output says so")."""
        name, how = f"'{short_name(self.column)}'", "declared" if self.orientation.declared else "read from its name"
        if self.orientation.kind == TARGET:
            return f"{name} measures toward each pair's target style ({how}): used as it is"
        pole = self.orientation.pole
        if not self.turned:
            return f"{name} measures {pole} ({how}; higher = more {pole}): used as it is, every target is {pole}"
        kept = f"as it is for {', '.join(self.kept)} targets, " if self.kept else ""
        return (f"{name} measures {pole} ({how}; higher = more {pole}), turned toward each pair's target: {kept}"
                f"{self.rule} for {', '.join(self.turned)} targets")


@dataclass
class OrientedStyle:
    """Style columns as compared with people: values toward each pair's target, how each was read, and notes."""

    values: pd.DataFrame
    turned: dict[str, Turned] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def label(self, column: str, label: str) -> str:
        """A measure's label with its orientation said (unchanged for a column that is not a pole)."""
        return label + (self.turned[column].label_suffix if column in self.turned else "")


def declared_for(column: str, poles: Mapping[str, Orientation]) -> Orientation | None:
    """The user's declaration for a column (by its short name or its full measure name), if any."""
    return poles.get(short_name(column)) or poles.get(column)


def orient_style_columns(values: pd.DataFrame, columns: Sequence[str], targets: Sequence[str] | None,
                         poles: Mapping[str, Orientation], sources: Sequence[str] | None = None,
                         known: Mapping[str, Orientation] | None = None) -> OrientedStyle:
    """Turn every pole column among ``columns`` toward each pair's target (``targets``, one per row of ``values``).

    ``poles``: the user's declarations (they win); ``known``: orientations measures carry themselves (a style
    scorer's pole); else the name says. A column whose pole is none of the pairs' styles is used as it is, said."""
    out = OrientedStyle(values.copy())
    styles = [s for s in dict.fromkeys([str(t) for t in (targets or [])] + [str(s) for s in (sources or [])])
              if s.strip().lower() not in MISSING]
    for column in columns:
        orientation = declared_for(column, poles) or (known or {}).get(column) or orientation_from_name(column)
        if orientation is None:
            continue
        if orientation.kind == TARGET:
            out.turned[column] = Turned(column, orientation)
            continue
        pole = _matching(orientation.pole, styles)
        if targets is None or pole is None:
            why = "the pairs have no target style" if targets is None else (
                f"'{orientation.pole}' is none of the pairs' styles ({', '.join(styles)})")
            if orientation.declared and targets is not None:
                raise DataError(f"--poles: {short_name(column)}={orientation.pole}, but {why}; name one of them")
            out.notes.append(f"'{short_name(column)}' looks like a measure of {orientation.pole} but was used as it "
                             f"is: {why} (declare what it measures with --poles {short_name(column)}=STYLE, or "
                             f"{TARGET_CHOICE})")
            continue
        turned, rule = turn_toward_target(values[column].to_numpy(float), targets, pole)
        out.values[column] = turned
        target_styles = [s for s in dict.fromkeys(str(t) for t in targets) if s.strip().lower() not in MISSING]
        kept = tuple(s for s in target_styles if s.strip().lower() == pole.lower())
        flipped = tuple(s for s in target_styles if s.strip().lower() != pole.lower())
        out.turned[column] = Turned(column, Orientation(POLE, pole, orientation.declared), rule if flipped else "",
                                    kept, flipped)
    out.notes = [t.describe() for t in out.turned.values()] + out.notes
    return out


__all__ = ["OrientedStyle", "POLES_HELP", "POLE_WORDS", "TARGET_CHOICE", "TARGET_WORDS", "Turned", "declared_for", "flip_rule",
           "orient_style_columns", "orientation_from_name", "parse_poles", "poles_text", "turn_toward_target"]
