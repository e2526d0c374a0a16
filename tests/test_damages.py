"""Controlled damages of system outputs (stviz.damages): what each does, where it applies, and that it is
reproducible from its seed."""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import re
import subprocess
import sys
import unicodedata

import pytest

from stviz.cache import Cache
from stviz.damages import (BREAKS, DamageContext, all_damages, damage_names, damage_outputs, fitting, get_damage)
from stviz.data.schema import DataError
from stviz.languages import ANY, is_valid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Thirty varied English outputs: negations (some twice), numbers, clauses, contractions, questions, a one-word text.
SENTENCES = (
    "The food is good.",
    "I don't like it, and I never will.",
    "We paid 1,500 dollars for 3 nights, and the room was dirty.",
    "Great service, but the waiter forgot our drinks because he was busy.",
    "The pasta was not fresh and the sauce was not hot.",
    "Is it worth the price?",
    "I love this place!",
    "She never calls back, and she isn't sorry.",
    "There is no parking near the hotel.",
    "The staff were rude and the manager didn't care.",
    "They charged us 12.5 percent for service.",
    "it tastes great",
    "The pizza arrived cold after 45 minutes; we will not order again.",
    "My wife and I had a wonderful evening with friends.",
    "The hotel can host 200 guests in 3 halls.",
    "Nothing on the menu was under 20 dollars.",
    "We waited for an hour, but nobody came to our table.",
    "The rooms are clean, quiet and spacious.",
    "He likes the desserts more than the main courses.",
    "You can't go wrong with the burger.",
    "The coffee was strong; the cake was sweet.",
    "Would you recommend it to your friends?",
    "Parking costs 5 dollars an hour, which is fair.",
    "The view from the terrace is beautiful at night.",
    "I have been here 10 times and it's always good.",
    "The music was too loud, so we left early.",
    "Our guide spoke three languages fluently.",
    "Prices went up by 30 percent in 2023.",
    "They don't take reservations and they don't take cards.",
    "Delicious!",
)
SOURCES = tuple(s.upper() for s in SENTENCES)
STYLE_WORDS = frozenset({"good", "great", "rude", "wonderful", "beautiful", "delicious", "dirty", "clean", "love"})
#: The damages whose result does not depend on the seed (the same cut, the same copy, the same words removed).
SEED_FREE = {"copy-input", "style-words-removed", "half-deleted"}
#: The damages that need a model or corpus (tested on their own below).
NEEDS_MODELS = {"entity", "antonym"}


def english(outputs=SENTENCES, sources=None, style_words=STYLE_WORDS, language="en") -> DamageContext:
    return DamageContext(language, tuple(sources or SOURCES[:len(outputs)]), tuple(outputs), frozenset(style_words))


@pytest.fixture(autouse=True)
def cache(tmp_path) -> Cache:
    """A cache of each test's own, so every damage is computed afresh (none read back from an earlier run)."""
    _fresh[:] = [Cache(tmp_path / "cache")]
    return _fresh[0]


_fresh: list[Cache] = []


def damaged(name: str, text: str, language: str = "en", seed: int = 0, source: str = "", **extra) -> str | None:
    """One text damaged."""
    context = DamageContext(language, (source or text,), (text,), **extra)
    return damage_outputs(get_damage(name), context, seed=seed, cache=_fresh[0])[0]


# --- the registry ------------------------------------------------------------------------------------------------

def test_every_damage_is_registered_in_family_order():
    assert damage_names() == ["negation", "number", "entity", "half-deleted", "unrelated-appended", "antonym",
                              "copy-input", "style-words-removed", "shuffle", "repeat-word", "truncated", "typos"]
    families = [d.breaks for d in all_damages()]
    assert families == sorted(families, key=BREAKS.index)
    assert all(d.label and d.description.endswith(".") for d in all_damages())


def test_an_unknown_damage_is_refused_with_the_known_names():
    with pytest.raises(DataError, match="unknown damage 'negate'.*negation.*typos"):
        get_damage("negate")
    with pytest.raises(DataError, match="negate"):
        fitting(["typos", "negate"], english())


# --- reproducible from the seed ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in damage_names() if n not in NEEDS_MODELS])
def test_every_damage_is_reproducible_from_its_seed(name, tmp_path):
    damage, context = get_damage(name), english()
    first = damage_outputs(damage, context, seed=0, cache=Cache(tmp_path / "a"))
    again = damage_outputs(damage, context, seed=0, cache=Cache(tmp_path / "b"))  # computed afresh, not read back
    assert first == again
    assert len(first) == len(SENTENCES)
    assert sum(out is not None for out in first) >= 5, first
    for out, text in zip(first, SENTENCES):  # None or a real change, never the text again
        assert out is None or " ".join(out.split()) != " ".join(text.split())
    other = damage_outputs(damage, context, seed=1, cache=Cache(tmp_path / "a"))
    if name in SEED_FREE:
        assert other == first
    else:
        assert other != first, "another seed changed nothing"


def test_the_seed_gives_the_same_damage_in_another_process(cache):
    context = english()
    here = damage_outputs(get_damage("typos"), context, seed=7, cache=cache)
    code = ("import json, sys; from stviz.cache import Cache; from stviz.damages import *; "
            "c = DamageContext('en', tuple(json.loads(sys.argv[1])), tuple(json.loads(sys.argv[2]))); "
            "print(json.dumps(damage_outputs(get_damage('typos'), c, seed=7, cache=Cache(sys.argv[3]))))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # str hashes differ between processes: the damage must not care
    run = subprocess.run([sys.executable, "-c", code, json.dumps(SOURCES), json.dumps(SENTENCES),
                          str(cache.root) + "-child"], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert json.loads(run.stdout) == here


def test_a_set_is_damaged_once_then_read_from_the_cache(cache):
    typos, context = get_damage("typos"), english()
    first = damage_outputs(typos, context, seed=3, cache=cache)

    def boom(i, rng, context):
        raise AssertionError("computed again")

    assert damage_outputs(dataclasses.replace(typos, apply=boom), context, seed=3, cache=cache) == first
    with pytest.raises(AssertionError, match="computed again"):  # another set is another key
        damage_outputs(dataclasses.replace(typos, apply=boom), english(SENTENCES[:5]), seed=3, cache=cache)


# --- where a damage cannot apply ---------------------------------------------------------------------------------

def test_none_where_a_damage_cannot_apply():
    assert damaged("number", "No digits here at all.") is None
    assert damaged("truncated", "Delicious!") is None
    assert damaged("half-deleted", "Very tasty food") is None  # fewer than four words
    assert damaged("shuffle", "Good food") is None
    assert damaged("negation", "Great food") is None  # nothing to remove, nowhere to insert
    assert damaged("style-words-removed", "The food is fine.", style_words=frozenset({"great"})) is None
    assert damaged("style-words-removed", "Great!", style_words=frozenset({"great"})) is None  # nothing left
    assert damaged("copy-input", "The food is good.", source="The  food is good. ") is None  # spacing is no damage
    assert damaged("typos", "I a") is None  # one-letter words: dropping one would drop a word
    context = english(("Same text.", "Same text."))
    assert damage_outputs(get_damage("unrelated-appended"), context, cache=_fresh[0]) == [None, None]


def test_a_damage_that_does_not_fit_is_refused_not_applied(cache):
    with pytest.raises(DataError, match="style words removed: no style lexicon for this set"):
        damage_outputs(get_damage("style-words-removed"), english(style_words=()), cache=cache)
    with pytest.raises(DataError, match="negation flipped: no negation word list for Hindi"):
        damage_outputs(get_damage("negation"), english(language="hi"), cache=cache)


# --- known answers -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("language, text, expected", [
    ("en", "The food is good.", "The food is not good."),
    ("en", "I don't like it", "I do like it"),
    ("en", "I do n't like it .", "I do like it ."),
    ("en", "Is it good?", "Isn't it good?"),
    ("en", "I love this place!", "I do not love this place!"),
    ("en", "it tastes great", "it does not taste great"),
    ("en", "Never go there.", "Go there."),
    ("en", "You can't go wrong.", "You can go wrong."),
    ("ru", "Я не люблю это", "Я люблю это"),
    ("ru", "Я люблю это", "Я не люблю это"),
    ("ru", "Я никогда не был в Париже.", "Я всегда был в Париже."),
    ("uk", "Він ніколи не був там", "Він завжди був там"),
    ("de", "Das ist gut.", "Das ist nicht gut."),
    ("de", "Ich habe keine Zeit.", "Ich habe eine Zeit."),
    ("es", "Me gusta la comida.", "No me gusta la comida."),
    ("es", "La comida no es buena.", "La comida es buena."),
    ("fr", "Il n'est pas là.", "Il est là."),
    ("fr", "C'est bon.", "Ce n'est pas bon."),
])
def test_negation_is_flipped(language, text, expected):
    assert damaged("negation", text, language) == expected


def test_a_number_changes_its_value_and_keeps_its_format():
    for seed in range(5):
        out = damaged("number", "I have 3 cats.", seed=seed)
        assert out.startswith("I have ") and out.endswith(" cats.") and out[7] in "0123456789" and out[7] != "3"
        grouped = damaged("number", "It cost 1,500 dollars.", seed=seed)
        assert grouped != "It cost 1,500 dollars." and re.fullmatch(r"It cost [1-9],\d00 dollars\.", grouped)
        decimal = damaged("number", "A 12.5 percent fee.", seed=seed)
        assert decimal != "A 12.5 percent fee." and re.fullmatch(r"A 1\d\.5 percent fee\.", decimal)
    assert damaged("number", "Ответ: ٣", "ru") != "Ответ: ٣"  # any script's digits, in that script
    assert unicodedata.category(damaged("number", "Ответ: ٣", "ru")[-1]) == "Nd"


def test_shuffle_keeps_the_words():
    for text in SENTENCES[:10]:
        out = damaged("shuffle", text)
        assert collections.Counter(out.split()) == collections.Counter(text.split()) and out != text


def test_typos_only_delete_letters_and_never_a_word():
    text = "The waiter forgot our drinks because he was busy."
    out = damaged("typos", text)
    assert len(out) < len(text) and out.count(" ") == text.count(" ")
    deleted = _deleted(text, out)
    assert deleted and all(ch.isalpha() for ch in deleted)
    assert all(word for word in out.split(" "))
    assert len(out.split()) == len(text.split())


def _deleted(longer: str, shorter: str) -> list[str]:
    """The characters of ``longer`` left out of ``shorter`` (asserting ``shorter`` is a subsequence of it)."""
    out, k = [], 0
    for ch in longer:
        if k < len(shorter) and shorter[k] == ch:
            k += 1
        else:
            out.append(ch)
    assert k == len(shorter), "not a subsequence"
    return out


def test_truncated_is_a_prefix_cut_mid_sentence():
    for seed in range(5):
        text = "The pizza arrived cold after 45 minutes, so we will not order again."
        out = damaged("truncated", text, seed=seed)
        assert text.startswith(out) and out[-1].isalnum()
        assert 0.4 * 13 - 1 <= len(out.split()) <= 0.7 * 13 + 1


def test_half_deleted_keeps_a_clause():
    assert damaged("half-deleted", "The food was great, but the service was slow.") == "The food was great."
    out = damaged("half-deleted", "Prices went up by 30 percent in 2023 for everyone here")  # no boundary: the middle
    assert "Prices went up by 30 percent in 2023 for everyone here".startswith(out)
    assert 0.25 <= len(out) / 54 <= 0.75


def test_copy_input_repeat_word_and_unrelated_sentence():
    assert damaged("copy-input", "The food is good.", source="The food is bad.") == "The food is bad."
    out = damaged("repeat-word", "The food is good.")
    words = out.rstrip(".").split()
    assert len(words) == 5 and any(a == b for a, b in zip(words, words[1:]))
    context = english(("The food is good.", "Parking is free."))
    appended = damage_outputs(get_damage("unrelated-appended"), context, cache=_fresh[0])
    assert appended == ["The food is good. Parking is free.", "Parking is free. The food is good."]


def test_style_words_are_removed_tidily():
    lexicon = frozenset({"great", "really"})
    assert damaged("style-words-removed", "Great food, really tasty.", style_words=lexicon) == "Food, tasty."
    assert damaged("style-words-removed", "The food was great.", style_words=lexicon) == "The food was."


def test_an_entity_is_swapped_for_one_of_its_kind(cache):
    outputs = ("Barack Obama visited Paris.", "Angela Merkel met in Berlin.")
    out = damage_outputs(get_damage("entity"), english(outputs, sources=outputs), cache=cache)
    assert out[0] in ("Angela Merkel visited Paris.", "Barack Obama visited Berlin.")  # a person for a person,
    assert out[1] in ("Barack Obama met in Berlin.", "Angela Merkel met in Paris.")  # a place (GPE) for a place
    alone = damage_outputs(get_damage("entity"), english(outputs[:1], sources=outputs[:1]), cache=cache)
    assert alone == [None]  # no other entity of its label in the set


class _Lemma:
    def __init__(self, name, antonyms=()):
        self._name, self._antonyms = name, antonyms

    def name(self):
        return self._name

    def antonyms(self):
        return [_Lemma(a) for a in self._antonyms]


class _Synset:
    def __init__(self, lemma):
        self._lemma = lemma

    def lemmas(self):
        return [self._lemma]


class _StubWordNet:
    """A WordNet with two antonym pairs, for machines without the corpus."""

    def synsets(self, word, pos=None):
        table = {("hot", "a"): ("cold",), ("open", "v"): ("close",)}
        return [_Synset(_Lemma(word, table[word, pos]))] if (word, pos) in table else []


def test_antonym_swaps_a_word_for_its_opposite_in_its_case(monkeypatch, cache):
    from stviz.metrics import wordnet

    status = wordnet.WordNetStatus(True, "stub", "", "a stub")
    monkeypatch.setattr(wordnet, "load_wordnet", lambda: (_StubWordNet(), status))
    monkeypatch.setattr(wordnet, "wordnet_status", lambda: status)
    context = english(("The soup is hot.", "Hot soup!", "They open at noon.", "The soup is warm."))
    assert damage_outputs(get_damage("antonym"), context, cache=cache) == [
        "The soup is cold.", "Cold soup!", "They close at noon.", None]
    missing = wordnet.WordNetStatus(False, "none", "", "WordNet not found (none here): METEOR uses exact + stem "
                                                      "matching only. Install it.")
    monkeypatch.setattr(wordnet, "wordnet_status", lambda: missing)
    kept, notes = fitting(["antonym"], context)
    assert kept == [] and notes == ["antonym swapped: WordNet not found (none here). Install it."]


def test_antonym_with_the_real_wordnet(cache):
    from stviz.metrics.wordnet import wordnet_status

    if not wordnet_status().available:
        pytest.skip("WordNet is not installed here: " + wordnet_status().message)
    out = damage_outputs(get_damage("antonym"), english(("The soup is hot.",)), cache=cache)
    assert out == ["The soup is cold."]


# --- which damages fit a language --------------------------------------------------------------------------------

def test_a_hindi_set_gets_the_damages_that_need_no_word_list():
    context = DamageContext("hi", ("यह खाना बहुत अच्छा है।",), ("मुझे यह जगह पसंद नहीं है",), frozenset({"अच्छा"}))
    kept, notes = fitting(None, context)
    assert [d.name for d in kept] == [d.name for d in all_damages()
                                      if ANY in d.languages or d.name == "style-words-removed"]
    assert notes == [
        "negation flipped: no negation word list for Hindi (hi); lists exist for de, en, es, fr, ru, uk",
        "entity swapped: needs spaCy's English NER; the texts are Hindi (hi)",
        "antonym swapped: needs English WordNet; the texts are Hindi (hi)",
    ]
    assert all(is_valid(d.languages, "hi") for d in kept)


def test_a_chinese_set_shuffles_characters_and_has_no_style_word_removal():
    text = "我非常喜欢这家餐厅的服务。"
    context = DamageContext("zh", (text,), (text,), frozenset({"喜欢"}))
    kept, notes = fitting(None, context)
    assert "shuffle" in [d.name for d in kept] and "style-words-removed" not in [d.name for d in kept]
    assert "style words removed: needs words separated by spaces; the texts are Chinese (zh)" in notes
    out = damaged("shuffle", text, "zh")
    assert " " not in out and sorted(out) == sorted(text) and out != text
    truncated = damaged("truncated", text, "zh")
    assert text.startswith(truncated) and 0.4 * 13 - 1 <= len(truncated) <= 0.7 * 13 + 1


def test_an_unknown_language_gets_the_damages_for_any_language():
    kept, notes = fitting(None, english(language="und"))
    assert {d.name for d in kept} == {d.name for d in all_damages() if ANY in d.languages}
    assert any("the texts' language is unknown (und)" in note for note in notes)
