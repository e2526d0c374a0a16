"""Languages: a card per language, detection of a dataset's language, and which measures are valid for it.

``cards`` (what a language is, which measures fit: imports nothing of stviz) and ``detect`` (a
dataset's language, per column and per pair) are re-exported here; ``stviz.languages.measures``
(the one rule every view applies to its measures) is imported by name, since it reads the metric
registry, which itself reads the cards.
"""

from stviz.languages.cards import (ANY, SPACED, UNKNOWN, LanguageCard, describe_languages, is_valid,  # noqa: F401
                                   known_languages, language_card, language_name, parse_language)
from stviz.languages.detect import (LanguageReport, dataset_language, detect_texts,  # noqa: F401
                                    facet_languages, language_parts, one_language, part_language, with_language)

__all__ = ["ANY", "SPACED", "UNKNOWN", "LanguageCard", "LanguageReport", "dataset_language", "describe_languages",
           "detect_texts", "facet_languages", "is_valid", "known_languages", "language_card", "language_name", "language_parts",
           "one_language", "parse_language", "part_language", "with_language"]
