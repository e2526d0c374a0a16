"""A negation flipped, per language: removed where the text has one, inserted where it has none.

Negation is the textbook content damage a similarity measure misses (Sai et al. 2021, Perturbation CheckLists;
Ribeiro et al. 2020, CheckList): two texts that differ by "not" share nearly every n-gram and most of their
embedding. Rules are written per language from short word lists (:mod:`stviz.damages.words`) and act only where a
list says they are right; a text none of them fits gets None, never a guess. Where the text holds several
negations the random generator picks which one goes; an insertion goes at the first place its rule finds.
"""

from __future__ import annotations

import random
import re
from typing import Callable

from stviz.damages import words as W
from stviz.damages.words import WORD, insert_words, match_case, remove_span, sentence_start

#: One edit: (start, end, replacement); a replacement "" removes the span tidily, start == end inserts words.
Edit = tuple[int, int, str]
#: One way to flip the text's negation: its edits, applied together.
Candidate = tuple[Edit, ...]
Matches = list[re.Match]


def _low(match: re.Match) -> str:
    """A word's lookup form: lower case, typographic apostrophes as straight ones."""
    return match.group().lower().replace("’", "'")


def _adjacent(text: str, left: re.Match, right: re.Match) -> bool:
    """Whether only spaces stand between two words (no comma: "No, it is" holds no determiner)."""
    return text[left.end():right.start()].isspace()


def _next(text: str, found: Matches, k: int) -> re.Match | None:
    """The word right after word ``k`` when only spaces separate them, else None."""
    return found[k + 1] if k + 1 < len(found) and _adjacent(text, found[k], found[k + 1]) else None


def apply_edits(text: str, edits: Candidate) -> str:
    """The text with the edits made right to left (so earlier offsets stay right)."""
    for start, end, new in sorted(edits, reverse=True):
        if start == end:
            text = insert_words(text, start, new)
        elif new:
            text = text[:start] + new + text[end:]
        else:
            text = remove_span(text, start, end)
    return text


def _before(text: str, match: re.Match, negator: str) -> Edit:
    """The negator put before a word; at a sentence's start it takes the capital ("Люблю" -> "Не люблю")."""
    word = match.group()
    if sentence_start(text, match.start()) and word[:1].isupper() and not word.isupper():
        return match.start(), match.end(), f"{negator.capitalize()} {word[0].lower()}{word[1:]}"
    return match.start(), match.start(), negator


def _replace(match: re.Match, new: str) -> Edit:
    """The word replaced by ``new`` in its case ("" removes it)."""
    return match.start(), match.end(), match_case(new, match.group()) if new else ""


# --- English -----------------------------------------------------------------------------------------------------

def _en_remove(text: str, found: Matches) -> list[Candidate]:
    candidates: list[Candidate] = []
    for k, m in enumerate(found):
        w, after = _low(m), _next(text, found, k)
        if w in W.EN_CONTRACTIONS:
            candidates.append((_replace(m, W.EN_CONTRACTIONS[w]),))
        elif w == "n't" and k > 0 and _adjacent(text, found[k - 1], m):  # tokenised: "do n't", "ca n't"
            head = found[k - 1]
            base = W.EN_TOKENISED_HEADS.get(_low(head), head.group())
            candidates.append(((head.start(), m.end(), match_case(base, head.group())),))
        elif w in W.EN_NEGATIVES:
            candidates.append((_replace(m, W.EN_NEGATIVES[w]),))
        elif w == "no" and after is not None and _low(after) not in W.EN_NO_IDIOMS:
            candidates.append(_en_no(m, after))
    return candidates


def _en_no(no: re.Match, after: re.Match) -> Candidate:
    """'no' as a determiner flipped: "no one" -> "someone", "no longer" goes, "no more X" -> "more X", else "some"."""
    following = _low(after)
    if following == "one":
        return ((no.start(), after.end(), match_case("someone", no.group())),)
    if following == "longer":
        return ((no.start(), after.end(), ""),)
    if following == "more":
        return (_replace(no, ""),)
    return (_replace(no, "some"),)


def _en_third_person_base(verb: str) -> str:
    """'tastes' -> 'taste', 'watches' -> 'watch', 'tries' -> 'try' (the base form after "does not")."""
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return verb[:-2]
    return verb[:-1]


def _en_subject_verb(text: str, found: Matches, k: int) -> Candidate | None:
    """A pronoun subject with a present verb after it: "I like" -> "I do not like", "it tastes" -> "it does not
    taste"; None when the next word is not plainly a present verb."""
    w, verb = _low(found[k]), _next(text, found, k)
    if verb is None or not verb.group().isalpha():
        return None
    v = _low(verb)
    if v in W.EN_AUXILIARIES or v in W.EN_NOT_PRESENT or v.endswith("ed"):
        return None
    if w in W.EN_DO_SUBJECTS:
        return ((verb.start(), verb.start(), "do not"),)
    if w in W.EN_DOES_SUBJECTS and v.endswith("s") and not v.endswith(("ss", "us", "is")) and len(v) > 2:
        return ((verb.start(), verb.end(), "does not " + match_case(_en_third_person_base(v), verb.group())),)
    return None


def _en_insert(text: str, found: Matches) -> Candidate | None:
    for k, m in enumerate(found):
        w = _low(m)
        if w in W.EN_AUXILIARIES:
            if m.group()[:1].isupper() and not sentence_start(text, m.start()):
                continue  # "in May", "Will Smith": a name, not an auxiliary
            if not sentence_start(text, m.start()):
                return ((m.end(), m.end(), "not"),)
            if w in W.EN_CONTRACTED:  # a question: "Is it good?" -> "Isn't it good?"
                return (_replace(m, W.EN_CONTRACTED[w]),)
            continue
        head, _, tail = w.partition("'")
        if tail and head in W.EN_PRONOUNS and "'" + tail in W.EN_AUX_SUFFIXES:  # "it's good" -> "it's not good"
            return ((m.end(), m.end(), "not"),)
        if w in W.EN_DO_SUBJECTS or w in W.EN_DOES_SUBJECTS:
            subject = _en_subject_verb(text, found, k)
            if subject is not None:
                return subject
    return None


# --- Russian and Ukrainian ---------------------------------------------------------------------------------------

def _slavic_remove(text: str, found: Matches, negatives: dict[str, str],
                   pronouns: dict[str, str]) -> list[Candidate]:
    """A negative pronoun goes with the "не" of its double negation ("никогда не был" -> "всегда был"); a lone
    "не" goes; "нет" (not the answer "Нет,") becomes "есть"."""
    candidates: list[Candidate] = []
    taken: set[int] = set()
    for k, m in enumerate(found):
        if _low(m) in pronouns:
            edits = [_replace(m, pronouns[_low(m)])]
            partner = next((j for j in range(k + 1, min(k + 4, len(found))) if _low(found[j]) == "не"), None)
            if partner is not None:
                edits.append(_replace(found[partner], ""))
                taken.add(partner)
            candidates.append(tuple(edits))
    for k, m in enumerate(found):
        w = _low(m)
        if k in taken or w not in negatives or (negatives[w] and text[m.end():].lstrip()[:1] in (",", "")):
            continue
        candidates.append((_replace(m, negatives[w]),))
    return candidates


def _slavic_insert(text: str, found: Matches, endings: tuple[str, ...], not_verbs: frozenset[str],
                   subjects: frozenset[str]) -> Candidate | None:
    """"не" before the first word that looks like a verb (by its ending) or that follows a subject pronoun."""
    for k, m in enumerate(found):
        w = _low(m)
        if not m.group().isalpha():
            continue
        if len(w) >= 4 and w.endswith(endings) and w not in not_verbs:
            return (_before(text, m, "не"),)
        after = _next(text, found, k)
        if w in subjects and after is not None and after.group().isalpha() and _low(after) not in subjects:
            return (_before(text, after, "не"),)
    return None


# --- German, Spanish, French -------------------------------------------------------------------------------------

def _simple_remove(text: str, found: Matches, negatives: dict[str, str], answer: str = "") -> list[Candidate]:
    """Each listed negative word replaced (or removed); ``answer`` (Spanish "no") is skipped where it stands alone
    before a comma or at the end ("No, gracias"; "¿verdad que no?")."""
    candidates: list[Candidate] = []
    for m in found:
        w = _low(m)
        if w not in negatives:
            continue
        if w == answer and (text[m.end():].lstrip()[:1] in (",", "", "?", "!", ".")):
            continue
        candidates.append((_replace(m, negatives[w]),))
    return candidates


def _de_insert(text: str, found: Matches) -> Candidate | None:
    for m in found:
        # A verb that opens the sentence asks a question: its "nicht" belongs further on, so it is passed over.
        if _low(m) in W.DE_FINITE_VERBS and not sentence_start(text, m.start()):
            return ((m.end(), m.end(), "nicht"),)
    return None


def _es_insert(text: str, found: Matches) -> Candidate | None:
    for k, m in enumerate(found):
        w = _low(m)
        if w in W.ES_FINITE_VERBS or (len(w) >= 5 and m.group().isalpha() and w.endswith(W.ES_VERB_ENDINGS)):
            first = k
            while first > 0 and _low(found[first - 1]) in W.ES_CLITICS and _adjacent(text, found[first - 1],
                                                                                       found[first]):
                first -= 1  # "me gusta" -> "no me gusta": the clitics stay with their verb
            return (_before(text, found[first], "no"),)
    return None


def _fr_remove(text: str, found: Matches) -> list[Candidate]:
    """"ne ... pas" (and jamais, plus, rien, personne) undone: "ne" or the elided "n'" goes with its closer."""
    candidates: list[Candidate] = []
    for k, m in enumerate(found):
        w = _low(m)
        if w != "ne" and not (w.startswith("n'") and len(w) > 2):
            continue
        closer = next((j for j in range(k + 1, min(k + 5, len(found))) if _low(found[j]) in W.FR_CLOSERS), None)
        if closer is None:
            continue
        edits = [_replace(found[closer], W.FR_CLOSERS[_low(found[closer])])]
        if w == "ne":
            edits.append(_replace(m, ""))
        elif k > 0 and _low(found[k - 1]) in ("ce", "je") and _adjacent(text, found[k - 1], m):
            subject = found[k - 1]  # "ce n'est" -> "c'est", "je n'ai" -> "j'ai"
            edits.append((subject.start(), m.end(), subject.group()[0] + "'" + m.group()[2:]))
        else:
            edits.append((m.start(), m.end(), match_case(m.group()[2:], m.group())))
        candidates.append(tuple(edits))
    return candidates


def _fr_negated(verb: str) -> str:
    """'est' -> "n'est pas", 'peux' -> 'ne peux pas' (elision before a vowel or a mute h)."""
    return ("n'" + verb if verb[:1].lower() in "aeiouyéèêàâh" else "ne " + verb) + " pas"


def _fr_insert(text: str, found: Matches) -> Candidate | None:
    for m in found:
        w = _low(m)
        head, _, tail = w.partition("'")
        # A verb that opens the sentence asks a question ("Est-ce ..."): its negation is built otherwise.
        if w in W.FR_FINITE_VERBS and not sentence_start(text, m.start()):
            return ((m.start(), m.end(), _fr_negated(m.group())),)
        if tail in W.FR_FINITE_VERBS and head in W.FR_ELIDED:  # "c'est" -> "ce n'est pas"
            verb = m.group()[len(head) + 1:]
            return ((m.start(), m.end(), match_case(W.FR_ELIDED[head], m.group()) + " " + _fr_negated(verb)),)
    return None


# --- per language ------------------------------------------------------------------------------------------------

Remover = Callable[[str, Matches], list[Candidate]]
Inserter = Callable[[str, Matches], "Candidate | None"]

RULES: dict[str, tuple[Remover, Inserter]] = {
    "en": (_en_remove, _en_insert),
    "ru": (lambda t, f: _slavic_remove(t, f, W.RU_NEGATIVES, W.RU_NEGATIVE_PRONOUNS),
           lambda t, f: _slavic_insert(t, f, W.RU_VERB_ENDINGS, W.RU_NOT_VERBS, W.RU_PRONOUNS)),
    "uk": (lambda t, f: _slavic_remove(t, f, W.UK_NEGATIVES, W.UK_NEGATIVE_PRONOUNS),
           lambda t, f: _slavic_insert(t, f, W.UK_VERB_ENDINGS, W.UK_NOT_VERBS, W.UK_PRONOUNS)),
    "de": (lambda t, f: _simple_remove(t, f, W.DE_NEGATIVES), _de_insert),
    "es": (lambda t, f: _simple_remove(t, f, W.ES_NEGATIVES, answer="no"), _es_insert),
    "fr": (_fr_remove, _fr_insert),
}
assert tuple(sorted(RULES)) == W.NEGATION_LANGUAGES


def flip_negation(text: str, language: str, rng: random.Random) -> str | None:
    """The text with one negation removed (chosen by ``rng``) or, when it has none, one inserted; None when the
    language's rules find neither."""
    remove, insert = RULES[language]
    found = list(WORD.finditer(text))
    candidates = remove(text, found)
    if candidates:
        return apply_edits(text, rng.choice(candidates))
    inserted = insert(text, found)
    return apply_edits(text, inserted) if inserted else None
