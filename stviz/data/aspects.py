"""The aspect (axis) a human rating judges, read from its column's name: content, style, fluency or overall.

Researchers rate style transfer outputs on three aspects (Mir et al. 2019; Briakou et al. 2021): how much
of the meaning is kept (content), how strongly the target style is carried (style), how natural the text
reads (fluency), and sometimes one overall judgment. Files name these ratings in many ways:
``content_1`` / ``content_2`` (one column per rater), ``style_rater2``, ``fluency_a``, ``meaning_human``,
``formality_human``, ``combined``. One vocabulary serves the column detection (which numeric columns are
human ratings, which are raters of one aspect) and the meta-evaluation (which measures a rating is
compared with).

>>> guess_aspect("human:fluency_mean"), guess_aspect("formality_human"), guess_aspect("human:vote_different")
('fluency', 'style', 'content')
"""

from __future__ import annotations

import re
from typing import Sequence

from stviz.data.schema import DataError, short_name

ASPECTS = ("content", "style", "fluency", "overall")
#: A human column that is not meta-evaluated (e.g. a rating of the *input*, which no output measure explains).
NO_ASPECT = "none"
#: Name patterns -> aspect, tried in order on the lower-case name; unmatched columns are read as content
#: (the field's most common rating, and what SGDD-TST's ``average`` and ``vote_*`` columns are).
ASPECT_PATTERNS = (
    (r"input|source", NO_ASPECT), (r"gramm|fluen|natural|perplex|readab", "fluency"),
    (r"style|attribute|intensity|formal|sentiment|polarity|toxic|polite|strength|transfer_?acc", "style"),
    (r"success|overall|quality|total|joint|combined", "overall"),
    (r"content|meaning|similar|preserv|average|vote|adequa|semantic", "content"),
)
#: Words that name an aspect by themselves: a numeric column called only ``fluency`` or ``style_2`` is a
#: human rating (or one rater's), never an automatic metric.
ASPECT_WORDS = {"content", "meaning", "semantic", "semantics", "adequacy", "preservation", "style", "formality",
                "sentiment", "toxicity", "politeness", "strength", "fluency", "naturalness", "grammaticality",
                "grammar", "readability", "overall", "combined", "quality", "intensity", "transfer"}


#: Precomputed metric columns by what they measure (whole words of the lower-case name); others are content.
MEASURE_ASPECT_WORDS = (
    ({"ppl", "perplexity", "fluency", "gpt2", "lm", "grammar", "grammaticality", "cola", "naturalness", "slor",
      "pll", "nll", "acceptability"}, "fluency"),
    ({"style", "formality", "sentiment", "toxicity", "toxic", "polarity", "acc", "accuracy", "classifier", "sti",
      "strength", "transfer", "emd", "intensity", "formal"}, "style"),
    ({"j", "joint", "gm", "hm", "g2", "h2", "overall", "combined"}, "overall"),
)


def measure_aspect(column: str) -> str:
    """The aspect a precomputed measure's column serves ('style_acc' -> style, 'gpt2_ppl' -> fluency; else content)."""
    words = set(re.split(r"[^a-z0-9]+|(?<=[a-z])(?=[0-9])", short_name(column).lower()))
    for vocabulary, aspect in MEASURE_ASPECT_WORDS:
        if words & vocabulary:
            return aspect
    return "content"


def guess_aspect(column: str) -> str:
    """The aspect a human column rates, guessed from its name (content when nothing matches)."""
    name = short_name(column).lower()
    for pattern, aspect in ASPECT_PATTERNS:
        if re.search(pattern, name):
            return aspect
    return "content"


def parse_aspects(entries: Sequence[str]) -> dict[str, str]:
    """``COLUMN=ASPECT`` entries (``--aspects``) -> {column short name: aspect}; DataError on a bad one."""
    out = {}
    for entry in entries:
        column, _, aspect = entry.partition("=")
        column, aspect = short_name(column.strip()), aspect.strip().lower()
        if not column or aspect not in ASPECTS + (NO_ASPECT,):
            raise DataError(f"aspect '{entry}' is not COLUMN=ASPECT with ASPECT one of "
                            f"{', '.join(ASPECTS + (NO_ASPECT,))}")
        out[column] = aspect
    return out


__all__ = ["ASPECTS", "ASPECT_PATTERNS", "ASPECT_WORDS", "MEASURE_ASPECT_WORDS", "NO_ASPECT", "guess_aspect",
           "measure_aspect", "parse_aspects"]
