"""Text modifications applied before a content metric (Mir et al., NAACL 2019, section 4).

Style words say *how* a text is written, not *what* it says, so a content-preservation metric
should not reward or punish them. Mir et al. compare three settings:

* ``none`` - the texts as they are;
* ``removal`` - style words dropped;
* ``masking`` - style words replaced by one placeholder (``customstyle`` in the authors' code),
  which keeps sentence length and lets aligned style slots match each other.

The style lexicon is a word -> weight dict: the one a dataset ships (Mir-Yelp), or one learned
from a labelled corpus with ``stviz.measures.style.lexicon.learn_style_lexicon``. Tokens are found with
``stviz.embedders.TOKEN_PATTERN`` (words and punctuation; the lexicon is matched case-insensitively)
and only the style tokens are rewritten in place: everything else stays as written, so the three
settings differ by the style words alone and a text with no style word is scored exactly as the
unmodified one (removal only folds the spaces a dropped word leaves behind).
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from stviz.data.schema import DataError
from stviz.embedders import TOKEN_PATTERN

MODIFICATIONS = ("none", "removal", "masking")
#: Part of every cache key of modified texts: bump it when the rewriting below changes.
CACHE_VERSION = 2
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
                        "learn one from a labelled corpus (stviz.measures.style.lexicon.learn_style_lexicon) or "
                        "choose the modification 'none'")
    words = frozenset(str(w).lower() for w in lexicon)
    if not words:
        raise DataError("the style lexicon is empty")
    return words


def _rewrite(text: str, style: frozenset[str], replacement: str) -> str:
    """``text`` with each style token replaced by ``replacement``; every other character kept."""
    return TOKEN_PATTERN.sub(lambda m: replacement if m.group(0).lower() in style else m.group(0), str(text))


def remove_style_words(texts: Sequence[str], lexicon) -> list[str]:
    """Texts with every lexicon word dropped (Mir et al.'s style removal)."""
    style = _style_set(lexicon)
    out = []
    for text in texts:
        removed = _rewrite(text, style, "")
        out.append(" ".join(removed.split()) if removed != str(text) else str(text))
    return out


def mask_style_words(texts: Sequence[str], lexicon, placeholder: str = DEFAULT_PLACEHOLDER) -> list[str]:
    """Texts with every lexicon word replaced by ``placeholder`` (Mir et al.'s style masking)."""
    style = _style_set(lexicon)
    return [_rewrite(t, style, placeholder) for t in texts]


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

