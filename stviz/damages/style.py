"""Style damages: the output keeps its content but loses the transfer (the input copied back, the style words gone).

A style-transfer measure should score these below the intact output; a content measure alone would score the copy
best of all, which is why the field reports style and content together (Mir et al. 2019).
"""

from __future__ import annotations

import random

from stviz.damages.cards import Damage, DamageContext, register
from stviz.damages.words import WORD, remove_span
from stviz.languages import ANY, SPACED


def _copy_input(i: int, rng: random.Random, context: DamageContext) -> str | None:
    # Where the output already is its source the damage changes nothing: damage_outputs says None there.
    return context.sources[i]


def _style_words_removed(i: int, rng: random.Random, context: DamageContext) -> str | None:
    text = context.outputs[i]
    # The words of the pair's target style where the lexicon says which style each word marks, else every style word.
    words = context.target_words[i] if context.target_words else context.style_words
    hits = [m for m in WORD.finditer(text) if m.group().lower().replace("’", "'") in words]
    if not hits:
        return None
    for m in reversed(hits):  # right to left: the offsets of the words still to remove stay right
        text = remove_span(text, m.start(), m.end())
    return text if any(ch.isalnum() for ch in text) else None


def _lexicon_available(context: DamageContext) -> str | None:
    return None if context.style_words else "no style lexicon for this set"


register(Damage("copy-input", "input copied", "style",
                "The output is replaced by its input, unchanged: no transfer at all.",
                (ANY,), _copy_input))
register(Damage("style-words-removed", "style words removed", "style",
                "The words of the set's style lexicon that mark the pair's target style (every style word where the "
                "lexicon does not say which style a word marks) are removed from the output.",
                (SPACED,), _style_words_removed, needs="a style lexicon", available=_lexicon_available))
