"""Transfer directions as the field names them in released outputs: one parser for every name.

Numeric names give the source style's label: ``0``, ``0-1``, ``0to1``, ``0_to_1`` and ``0>1`` are one
direction (style 0 rewritten into style 1), whose styles come from ``--directions 0=negative>positive``.
Named ones give the styles themselves: ``neg2pos``, ``pos2neg``, ``formal2informal``,
``informal_to_formal``, ``f2i`` / ``i2f``, ``negative-positive``; abbreviations expand (``neg`` ->
negative, ``f`` -> formal). A name is a direction only when both of its words are styles this module
knows (or the user named), so system names such as ``seq2seq`` or ``word2vec`` are never read as one.

>>> parse_direction("0to1").key == parse_direction("0").key == parse_direction("0-1").key
True
>>> parse_direction("f2i")
Direction(source='formal', target='informal')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from stviz.data.schema import DataError

#: Short forms of style names in file and folder names -> the style.
ABBREVIATIONS = {"neg": "negative", "pos": "positive", "f": "formal", "i": "informal", "inf": "informal",
                 "fml": "formal", "infml": "informal", "rom": "romantic", "hum": "humorous", "fact": "factual",
                 "tox": "toxic", "neu": "neutral", "mod": "modern", "shak": "shakespearean"}
#: Styles known by their full name (corpora of the field: Yelp, Amazon, GYAFC, captions, detox, Shakespeare).
STYLE_WORDS = {"negative", "positive", "formal", "informal", "romantic", "humorous", "factual", "toxic", "neutral",
               "modern", "shakespeare", "shakespearean", "original", "polite", "impolite", "male", "female",
               "democratic", "republican", "simple", "complex", "offensive", "nonoffensive"}
# Separators between the two styles: 2, to, -, >, each optionally wrapped in _ or -.
_PAIR = re.compile(r"^([a-z]+|\d+)(?:[_-]?(?:2|to)[_-]?|-|>|_)([a-z]+|\d+)$")


@dataclass(frozen=True)
class Direction:
    """A transfer direction: source style and target style (labels ``0``/``1`` when the name is numeric)."""

    source: str
    target: str | None = None  # None: a bare numeric name (``0``); its target is "the other style"

    @property
    def numeric(self) -> bool:
        """Whether the name gave style labels (``0``, ``0-1``) rather than styles (``neg2pos``)."""
        return self.source.isdigit()

    @property
    def key(self) -> str:
        """One key per direction: ``0`` for 0, 0-1 and 0to1 (two labelled styles), else ``SOURCE>TARGET``."""
        if self.numeric and (self.target is None or {self.source, self.target} == {"0", "1"}):
            return self.source
        return f"{self.source}>{self.target}"

    @property
    def styles(self) -> tuple[str, str] | None:
        """(source style, target style) when the name says them, else None (numeric: see --directions)."""
        return None if self.numeric else (self.source, str(self.target))


def _style(word: str, known: Iterable[str]) -> str | None:
    word = word.lower()
    if word in ABBREVIATIONS:
        return ABBREVIATIONS[word]
    if word in STYLE_WORDS or word in {k.lower() for k in known}:
        return word
    return None


def style_word(word: str, known_styles: Iterable[str] = ()) -> str | None:
    """The style one word names (``neg`` -> negative, ``formal``, ``toxic``), or None."""
    return _style(word.strip(), tuple(known_styles))


def parse_direction(name: str, known_styles: Iterable[str] = ()) -> Direction | None:
    """The direction a file or folder name (or one of its dot-parts) names, or None when it names none."""
    text = name.strip().lower()
    if text.isdigit():
        return Direction(text)
    match = _PAIR.match(text)
    if not match:
        return None
    a, b = match.groups()
    if a.isdigit() and b.isdigit():
        return Direction(a, b) if a != b else None
    if a.isdigit() or b.isdigit():
        return None
    known = tuple(known_styles)
    source, target = _style(a, known), _style(b, known)
    if source is None or target is None or source == target:
        return None
    return Direction(source, target)


def looks_like_direction(name: str) -> bool:
    """Whether a name is shaped like a direction (``X2Y``, ``X_to_Y``) even if its styles are unknown."""
    text = name.strip().lower()
    match = _PAIR.match(text)
    return bool(match) and match.group(1) != match.group(2) and ("2" in text or "to" in text)


def parse_direction_styles(text: str) -> dict[str, tuple[str, str]]:
    """``--directions 0=negative>positive,1=positive>negative`` -> {direction key: (source, target)}."""
    out: dict[str, tuple[str, str]] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, styles = part.partition("=")
        source, _, target = styles.partition(">")
        direction = parse_direction(name)
        if not (direction and source.strip() and target.strip()):
            raise DataError(f"--directions: '{part}' is not DIR=SOURCE>TARGET with DIR a direction such as 0, 0-1 "
                             "or neg2pos")
        out[direction.key] = (source.strip(), target.strip())
    return out


__all__ = ["ABBREVIATIONS", "Direction", "STYLE_WORDS", "looks_like_direction", "parse_direction",
           "parse_direction_styles", "style_word"]
