"""Text modifications applied before a content metric (Mir et al., NAACL 2019, section 4).

Style words say *how* a text is written, not *what* it says, so a content-preservation metric
should not reward or punish them. Mir et al. compare three settings:

* ``none`` - the texts as they are;
* ``removal`` - style words dropped;
* ``masking`` - style words replaced by one placeholder (``customstyle`` in the authors' code),
  which keeps sentence length and lets aligned style slots match each other.

The style lexicon is a word -> weight dict: the one a dataset ships (Mir-Yelp), or one learned
from a labelled corpus with ``stviz.classify.learn_style_lexicon``. Texts are tokenised with
``stviz.embed.tokenize`` (words and punctuation, case kept; the lexicon is matched
case-insensitively) and re-joined with spaces. ``none`` leaves the texts untouched, so published
numbers computed on raw texts (SGDD-TST) are reproduced; on already tokenised texts (Mir-Yelp)
the three settings differ only by the style words, as in the authors' code.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from stviz.data.schema import DataError
from stviz.embed import tokenize

MODIFICATIONS = ("none", "removal", "masking")
MODIFICATION_LABELS = {
    "none": "unmodified texts",
    "removal": "style words removed",
    "masking": "style words masked",
}
#: The placeholder Mir et al. used for masked style words.
DEFAULT_PLACEHOLDER = "customstyle"


def _style_set(lexicon: Mapping[str, float] | Iterable[str] | None) -> frozenset[str]:
    if lexicon is None:
        raise DataError("style removal and masking need a style lexicon: this dataset ships none; "
                        "learn one from a labelled corpus (stviz.classify.learn_style_lexicon) or "
                        "choose the modification 'none'")
    words = frozenset(str(w).lower() for w in lexicon)
    if not words:
        raise DataError("the style lexicon is empty")
    return words


def _tokens(text: str) -> list[str]:
    return tokenize(str(text), lowercase=False)


def remove_style_words(texts: Sequence[str], lexicon) -> list[str]:
    """Texts with every lexicon word dropped (Mir et al.'s style removal)."""
    style = _style_set(lexicon)
    return [" ".join(tok for tok in _tokens(t) if tok.lower() not in style) for t in texts]


def mask_style_words(texts: Sequence[str], lexicon, placeholder: str = DEFAULT_PLACEHOLDER) -> list[str]:
    """Texts with every lexicon word replaced by ``placeholder`` (Mir et al.'s style masking)."""
    style = _style_set(lexicon)
    return [" ".join(placeholder if tok.lower() in style else tok for tok in _tokens(t)) for t in texts]


def apply_modification(texts: Sequence[str], modification: str, lexicon=None,
                       placeholder: str = DEFAULT_PLACEHOLDER) -> list[str]:
    """One of ``MODIFICATIONS`` applied to ``texts``; raises DataError for an unknown name."""
    if modification == "none":
        return [str(t) for t in texts]
    if modification == "removal":
        return remove_style_words(texts, lexicon)
    if modification == "masking":
        return mask_style_words(texts, lexicon, placeholder)
    raise DataError(f"unknown modification '{modification}'; choose one of {', '.join(MODIFICATIONS)}")


def style_words_in(text: str, lexicon) -> list[str]:
    """The tokens of ``text`` that the lexicon marks as style words (for display)."""
    style = _style_set(lexicon)
    return [tok for tok in _tokens(text) if tok.lower() in style]
