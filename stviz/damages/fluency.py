"""Fluency damages: the output keeps (nearly) its words and its style but stops reading as language (words shuffled, a
word said twice, the sentence cut off, letters dropped).

A fluency measure should score these below the intact output. Words are the units of a spaced language and
characters (with their combining marks) those of Chinese, Japanese or Thai (:func:`stviz.damages.words.is_spaced`).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter

from stviz.damages.cards import Damage, DamageContext, register
from stviz.damages.words import cluster_spans, is_punctuation, is_spaced, join_units, units
from stviz.languages import ANY

_TOKEN = re.compile(r"\S+")
#: A shuffle that gives back the same order is drawn again, this many times at most.
SHUFFLE_TRIES = 10


def _spans(text: str, spaced: bool) -> list[tuple[int, int]]:
    """Where the units lie: words between spaces, or characters with their marks."""
    return [m.span() for m in _TOKEN.finditer(text)] if spaced else cluster_spans(text)


def _shuffle(i: int, rng: random.Random, context: DamageContext) -> str | None:
    spaced = is_spaced(context.language)
    parts = units(context.outputs[i], spaced)
    if len(parts) < 3 or len(set(parts)) < 2:
        return None
    for _ in range(SHUFFLE_TRIES):
        order = parts[:]
        rng.shuffle(order)
        if order != parts:
            return join_units(order, spaced)
    return None


def _core(text: str, start: int, end: int) -> tuple[int, int]:
    """A token's span without the punctuation around it ("it." -> "it")."""
    while start < end and is_punctuation(text[start]):
        start += 1
    while end > start and is_punctuation(text[end - 1]):
        end -= 1
    return start, end


def _repeat_word(i: int, rng: random.Random, context: DamageContext) -> str | None:
    text = context.outputs[i]
    if is_spaced(context.language):
        words = [_core(text, a, b) for a, b in _spans(text, True)]
        words = [(a, b) for a, b in words if any(ch.isalnum() for ch in text[a:b])]
        if not words:
            return None
        start, end = rng.choice(words)
        return text[:end] + " " + text[start:end] + text[end:]
    # Without spaces a word is not marked: a two-character chunk said twice stutters the same way.
    chars = [(a, b) for a, b in cluster_spans(text) if text[a].isalnum()]
    pairs = [(a, d) for (a, b), (c, d) in zip(chars, chars[1:]) if b == c]
    if not pairs:
        return None
    start, end = rng.choice(pairs)
    return text[:end] + text[start:end] + text[end:]


def _truncated(i: int, rng: random.Random, context: DamageContext) -> str | None:
    text = context.outputs[i]
    spaced = is_spaced(context.language)
    spans = _spans(text, spaced)
    if len(spans) < (4 if spaced else 6):
        return None
    keep = max(1, min(len(spans) - 1, round(len(spans) * rng.uniform(0.4, 0.7))))
    kept = text[:spans[keep - 1][1]].rstrip()
    while kept and (is_punctuation(kept[-1]) or kept[-1].isspace()):  # cut mid-sentence: no full stop left behind
        kept = kept[:-1]
    return kept or None


def _droppable(text: str) -> tuple[list[int], dict[int, int], list[int]]:
    """Letters that may go (not the only letter of a word, not one a combining mark rests on), the word of each
    letter, and how many letters each word has."""
    word_of: dict[int, int] = {}
    letters: list[int] = []
    for w, m in enumerate(_TOKEN.finditer(text)):
        for k in range(m.start(), m.end()):
            if text[k].isalpha():
                word_of[k] = w
                letters.append(w)
    tally = Counter(letters)
    counts = [tally[w] for w in range(max(letters, default=-1) + 1)]
    # A letter carrying a mark (a Devanagari vowel sign, an accent not composed) would leave the mark on its
    # neighbour: such letters stay.
    free = [k for k, w in word_of.items() if counts[w] > 1
            and not (k + 1 < len(text) and unicodedata.category(text[k + 1]).startswith("M"))]
    return free, word_of, counts


def _typos(i: int, rng: random.Random, context: DamageContext) -> str | None:
    text = context.outputs[i]
    free, word_of, counts = _droppable(text)
    wanted = max(1, round(0.1 * sum(counts)))
    rng.shuffle(free)
    dropped: set[int] = set()
    touched: set[int] = set()
    # Spread over the words first (one letter a word), then more per word only where the words run out.
    for spread in (True, False):
        for k in free:
            w = word_of[k]
            if len(dropped) == wanted or k in dropped or (spread and w in touched):
                continue
            if counts[w] > 1:  # never a whole word: each keeps one letter at least
                counts[w] -= 1
                dropped.add(k)
                touched.add(w)
    if not dropped:
        return None
    return "".join(ch for k, ch in enumerate(text) if k not in dropped)


register(Damage("shuffle", "words shuffled", "fluency",
                "The output's words (characters, in languages written without spaces) are put in a random order.",
                (ANY,), _shuffle))
register(Damage("repeat-word", "word repeated", "fluency",
                "One word (two characters, without spaces) is said twice in a row.",
                (ANY,), _repeat_word))
register(Damage("truncated", "truncated", "fluency",
                "The output is cut off mid-sentence, after 40 to 70% of its words, its final punctuation dropped.",
                (ANY,), _truncated))
register(Damage("typos", "typos", "fluency",
                "About one letter in ten is dropped from inside the words (never a whole word).",
                (ANY,), _typos))
