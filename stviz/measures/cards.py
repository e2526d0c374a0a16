"""Measure cards: what an automatic measure measures (its axis) and which way it points (its orientation).

Every measure a meta-evaluation or a leaderboard compares with people has a card. The axis is the aspect of
style transfer it judges (content, style, fluency, overall). The orientation says how its values read:

* ``higher`` / ``lower``: higher (or lower) is better on its axis (BLEU; perplexity);
* ``target``: toward each pair's target style (the target style's probability, accuracy, intensity): higher = more
  of the style the pair should reach, whichever it is;
* ``pole``: one pole of one style (P(formal), a formality score, toxicity): higher = more of that pole, whatever
  the pair's target. Such a measure is turned toward each pair's target before it is compared with a rating of
  how well the target was reached (:mod:`stviz.measures.style.poles`).

Families register their cards here (:func:`register`); :func:`stviz.measures.measure_card` finds a card by name and
falls back to the metric registry for content metrics and a dataset's precomputed columns.

>>> Orientation(POLE, "formal").describe()
'higher = more formal'
"""

from __future__ import annotations

from dataclasses import dataclass

AXES = ("content", "style", "fluency", "overall")
HIGHER, LOWER, TARGET, POLE = "higher", "lower", "target", "pole"


@dataclass(frozen=True)
class Orientation:
    """Which way a measure's values point (see the module docstring); ``declared``: a user said so."""

    kind: str
    pole: str = ""
    declared: bool = False

    def describe(self) -> str:
        """How the values read, in a few words."""
        if self.kind == POLE:
            return f"higher = more {self.pole}"
        if self.kind == TARGET:
            return "higher = more of each pair's target style"
        return "lower is better" if self.kind == LOWER else "higher is better"

    @property
    def lower_is_better(self) -> bool:
        """Whether the measure is negated before a correlation (distances, perplexity)."""
        return self.kind == LOWER


@dataclass(frozen=True)
class MeasureCard:
    """One measure: its name, label, axis, orientation, and where it comes from."""

    name: str
    label: str
    axis: str
    orientation: Orientation
    description: str = ""


_CARDS: dict[str, MeasureCard] = {}


def register(*cards: MeasureCard) -> None:
    """Add a family's cards (a family module calls this once, at import)."""
    for card in cards:
        if card.axis not in AXES:
            raise ValueError(f"measure {card.name}: unknown axis {card.axis}")
        _CARDS[card.name] = card


def registered(name: str) -> MeasureCard | None:
    """A family's own card of this name (None for registry metrics and precomputed columns)."""
    return _CARDS.get(name)


def registered_cards() -> list[MeasureCard]:
    """Every card the families registered, in the order they did."""
    return list(_CARDS.values())


__all__ = ["AXES", "HIGHER", "LOWER", "MeasureCard", "Orientation", "POLE", "TARGET", "register", "registered",
           "registered_cards"]
