"""Word lists per language and the small text surgery every damage shares.

The lists are short on purpose: a damage must be right where it acts (a negation flipped is a negation flipped),
so each list holds the frequent, unambiguous forms and a damage that finds none of them says None rather than
guessing. Edits splice the text in place, so the spacing a system wrote (tokenised ``it 's`` or not) is kept
everywhere the damage does not act: a metric then sees the damage and nothing else.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from stviz.languages import language_card

#: A word as the negation and style-word damages find it: letters or digits, with inner apostrophes (don't, n'est).
WORD = re.compile(r"\w+(?:['’]\w+)*")
#: Characters that end a sentence (Latin, CJK, ellipsis, Devanagari danda, Arabic and Urdu, Armenian, Ethiopic).
SENTENCE_END = ".!?…。！？।॥؟۔։።"
#: Where a clause may end before the next begins (half-deleted cuts after one of these).
CLAUSE_PUNCTUATION = ",;:—–，、；：。"

# --- negation --------------------------------------------------------------------------------------------------

#: English contracted negations -> the positive form (also read with a typographic apostrophe).
EN_CONTRACTIONS = {
    "don't": "do", "doesn't": "does", "didn't": "did", "isn't": "is", "aren't": "are", "wasn't": "was",
    "weren't": "were", "can't": "can", "cannot": "can", "couldn't": "could", "won't": "will", "wouldn't": "would",
    "shouldn't": "should", "shan't": "shall", "mustn't": "must", "hasn't": "has", "haven't": "have",
    "hadn't": "had", "needn't": "need", "mightn't": "might", "ain't": "is",
}
#: The first halves of a tokenised contraction (``ca n't``) that are not words of their own.
EN_TOKENISED_HEADS = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}
#: English negative words -> their positive counterpart ("" removes the word).
EN_NEGATIVES = {"not": "", "never": "", "nobody": "somebody", "nothing": "something", "nowhere": "somewhere"}
#: ``no`` + one of these is an idiom, not a determiner to flip ("no matter what", "no doubt").
EN_NO_IDIOMS = frozenset({"matter", "doubt", "problem", "way", "thanks", "wonder", "kidding"})
#: Auxiliaries and copulas: "not" goes right after the first of them.
EN_AUXILIARIES = frozenset("is are was were am can could will would shall should must may might do does did has have "
                           "had".split())
#: Sentence-initial auxiliaries (questions) take the contracted negation instead ("Isn't it good?").
EN_CONTRACTED = {"is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't", "can": "can't",
                 "could": "couldn't", "will": "won't", "would": "wouldn't", "should": "shouldn't", "must": "mustn't",
                 "do": "don't", "does": "doesn't", "did": "didn't", "has": "hasn't", "have": "haven't",
                 "had": "hadn't"}
#: Pronoun contractions that hold an auxiliary ("it's good" -> "it's not good").
EN_PRONOUNS = frozenset("i you we they he she it that there this what who here".split())
EN_AUX_SUFFIXES = ("'s", "'re", "'m", "'ve", "'ll", "'d")
#: Subjects followed by a bare present verb take "do not" / "does not" ("I like it" -> "I do not like it").
EN_DO_SUBJECTS = frozenset("i you we they".split())
EN_DOES_SUBJECTS = frozenset("he she it".split())
#: Frequent irregular past forms (and other words) after which "do not" would be wrong.
EN_NOT_PRESENT = frozenset((
    "went saw got made took came said knew thought told found gave felt left kept became began brought bought "
    "ate drank ran sat stood wrote spoke heard met paid sent spent lost won had was were also just really only "
    "still always often usually sometimes already even too very so all both ever never not am 'm"
).split())

#: Russian: negative words -> their positive counterpart ("" removes the word).
RU_NEGATIVES = {"не": "", "нет": "есть"}
#: Russian negative pronouns and adverbs, which take a "не" after them (double negation): both go.
RU_NEGATIVE_PRONOUNS = {"никогда": "всегда", "ничего": "что-то", "никто": "кто-то", "нигде": "где-то",
                        "никуда": "куда-то"}
#: Endings of Russian finite verbs and infinitives ("не" goes before the first word with one).
RU_VERB_ENDINGS = ("ть", "ет", "ит", "ют", "ут", "ат", "ят", "ал", "ял", "ла", "ло", "ли", "ешь", "ишь")
#: Frequent Russian words with a verb's ending that are not verbs.
RU_NOT_VERBS = frozenset((
    "если тоже дело тело число мало весело светло тепло село ответ совет привет бюджет предмет свет цвет лет "
    "минут брат результат кредит визит канал сериал журнал материал школа сила земли дела стола зала"
).split())
RU_PRONOUNS = frozenset("я ты он она оно мы вы они".split())

#: Ukrainian, as Russian.
UK_NEGATIVES = {"не": "", "немає": "є", "нема": "є"}
UK_NEGATIVE_PRONOUNS = {"ніколи": "завжди", "нічого": "щось", "ніхто": "хтось", "ніде": "десь", "нікуди": "кудись"}
UK_VERB_ENDINGS = ("ти", "ть", "ає", "ує", "ить", "ать", "ють", "ять", "ав", "ив", "ла", "ло", "ли", "єш", "еш",
                   "иш")
UK_NOT_VERBS = frozenset("коли тому тоді дуже були мали тіло село число світло тепло школа сила землі справи".split())
UK_PRONOUNS = frozenset("я ти він вона воно ми ви вони".split())

#: German negative words -> their positive counterpart ("" removes the word); kein* -> ein*.
DE_NEGATIVES = {"nicht": "", "nie": "", "niemals": "", "nichts": "etwas", "niemand": "jemand",
                "nirgends": "überall", "kein": "ein", "keine": "eine", "keinen": "einen", "keinem": "einem",
                "keiner": "einer", "keines": "eines"}
#: German finite verbs: "nicht" goes right after the first of them.
DE_FINITE_VERBS = frozenset((
    "ist sind war waren hat haben hatte hatten kann können konnte konnten wird werden wurde wurden will wollen "
    "wollte muss müssen musste soll sollen sollte darf dürfen mag mögen möchte möchten bin bist seid habe hast "
    "gibt geht würde würden wäre wären hätte hätten kannst willst musst"
).split())

#: Spanish negative words -> their positive counterpart ("" removes the word).
ES_NEGATIVES = {"no": "", "nunca": "", "jamás": ""}
#: Spanish finite verbs: "no" goes right before the first of them (or before its clitic pronouns).
ES_FINITE_VERBS = frozenset((
    "es son era eran fue fueron está están estaba estaban estoy estamos soy somos hay había tiene tienen tengo "
    "tenemos tenía puede pueden puedo podemos quiero quiere quieren voy va van vamos hace hacen hago sé sabe "
    "creo cree gusta gustan encanta encantan parece necesito necesita debe deben"
).split())
#: Endings of frequent finite forms (-amos, -aron, -aba, ...), read on words of five letters or more.
ES_VERB_ENDINGS = ("amos", "emos", "imos", "aron", "ieron", "aban", "ían", "aba", "aría")
ES_CLITICS = frozenset("me te se nos os le les lo la los las".split())

#: French: the particles that close "ne ... X" -> what X becomes once "ne" goes ("" removes it).
FR_CLOSERS = {"pas": "", "jamais": "toujours", "plus": "", "rien": "quelque chose", "personne": "quelqu'un"}
#: French finite verbs: "ne ... pas" goes around the first of them.
FR_FINITE_VERBS = frozenset((
    "est sont était étaient ai as a avons avez ont avait avaient suis es sommes êtes peux peut peuvent pouvons "
    "veux veut veulent fait font vais va vont aime aimes aiment sais sait trouve crois pense faut"
).split())
#: Elided subject pronouns before a verb (c'est, j'ai) and their full forms ("ce n'est pas").
FR_ELIDED = {"c": "ce", "j": "je"}

#: Which languages have negation lists.
NEGATION_LANGUAGES = ("de", "en", "es", "fr", "ru", "uk")

# --- clause boundaries -------------------------------------------------------------------------------------------

#: Conjunctions before which a clause may begin (half-deleted cuts there too), per spaced language.
CONJUNCTIONS = {
    "en": frozenset("and but because so while although which".split()),
    "ru": frozenset("и но а потому хотя который которая которое которые".split()),
    "uk": frozenset("і й та але а бо хоча який яка яке які".split()),
    "de": frozenset("und aber weil dass obwohl denn".split()),
    "es": frozenset("y pero porque aunque".split()),
    "fr": frozenset("et mais parce car quoique".split()),
}

# --- text surgery ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def is_spaced(code: str) -> bool:
    """Whether a language's words are separated by spaces (words are the units; else characters)."""
    return language_card(code).spaced


def squash(text: str) -> str:
    """The text with whitespace runs made single spaces (how two texts are compared)."""
    return " ".join(text.split())


def cluster_spans(text: str) -> list[tuple[int, int]]:
    """Where a text's characters lie, each with its combining marks (a Thai vowel sign stays on its consonant),
    spaces left out and runs of Latin letters and digits kept whole (a name in a Chinese sentence is one unit)."""
    spans: list[tuple[int, int]] = []
    latin = False
    for k, ch in enumerate(text):
        if ch.isspace():
            latin = False
            continue
        ascii_word = ch.isascii() and ch.isalnum()
        if spans and spans[-1][1] == k and (unicodedata.category(ch).startswith("M") or (ascii_word and latin)):
            spans[-1] = (spans[-1][0], k + 1)
        else:
            spans.append((k, k + 1))
        latin = ascii_word
    return spans


def clusters(text: str) -> list[str]:
    """A text's characters with their marks, as :func:`cluster_spans` finds them."""
    return [text[a:b] for a, b in cluster_spans(text)]


def units(text: str, spaced: bool) -> list[str]:
    """Words (split at whitespace) for a spaced language, else characters with their marks."""
    return text.split() if spaced else clusters(text)


def join_units(parts: list[str], spaced: bool) -> str:
    """Units back into a text: single spaces between words, nothing between characters."""
    return (" " if spaced else "").join(parts)


def match_case(new: str, old: str) -> str:
    """``new`` written in the case of ``old`` (NOT -> upper, Not -> capitalised, not -> as given)."""
    if len(old) > 1 and old.isupper():
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def sentence_start(text: str, index: int) -> bool:
    """Whether ``index`` begins a sentence (nothing but space before it, or a sentence's end)."""
    before = text[:index].rstrip()
    return not before or before[-1] in SENTENCE_END


def capitalise_at(text: str, index: int) -> str:
    """The first letter at or after ``index`` made upper case."""
    for i in range(index, len(text)):
        if text[i].isalpha():
            return text[:i] + text[i].upper() + text[i + 1:]
    return text


def remove_span(text: str, start: int, end: int) -> str:
    """``text`` without ``text[start:end]`` and the space before it (after it at the start), punctuation kept tidy:
    a capital that began a sentence passes to the next word, and a comma left first or doubled goes too."""
    capital = text[start:end][:1].isupper() and sentence_start(text, start)
    if sentence_start(text, start):  # keep the space after the last sentence; drop the one after the word
        while end < len(text) and text[end].isspace():
            end += 1
    else:
        while start > 0 and text[start - 1].isspace():
            start -= 1
    out = text[:start] + text[end:]
    rest = out[start:].lstrip()
    before = out[:start].rstrip()
    # "Wow, great, food" without "great" leaves ",," and "Great, food" leaves ", food": the stray comma goes.
    if rest[:1] in (",", ";", ":") and (not before or unicodedata.category(before[-1]).startswith("P")):
        cut = len(out) - len(rest) + 1
        out = out[:start] + out[cut:].lstrip() if not before else out[:start] + out[cut:]
    return capitalise_at(out, start) if capital else out


def insert_words(text: str, index: int, words: str) -> str:
    """``words`` put in at ``index`` (a word's start or end) with a single space on the side that needs one."""
    if index == 0 or text[index - 1].isspace():  # before a word
        return text[:index] + words + " " + text[index:]
    return text[:index] + " " + words + text[index:]


def is_punctuation(ch: str) -> bool:
    """Whether a character is punctuation (Unicode category P*)."""
    return unicodedata.category(ch).startswith("P")
