"""One text form for every automatic measure: tokenised, lower-cased outputs beside human rewrites.

Released TST outputs are usually lower-cased and tokenised the Penn Treebank way (``it 's good .``,
Li et al. 2018, Shen et al. 2017), while human rewrites and references are written as people
write (``It's good.``). Measured as they are, BLEU and chrF count the punctuation spacing, and an
n-gram language model or a naturalness classifier trained on tokenised text learns the
tokenisation: the human rewrites of ``li2018-yelp`` then look the least natural of all systems.
This module finds each group's form (a system's outputs, a reference set) and, when forms differ,
puts every text into one form, the one the field releases: Treebank tokens, lower case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

import pandas as pd

#: What a text may be compared as: ``auto`` tokenises everything when groups differ in form.
TEXT_FORMS = ("auto", "tokenised", "as-is")

# A clitic or punctuation mark standing alone between spaces is the mark of tokenised text; glued to
# the word before it, of text as people write it.
_CLITICS = r"(?:'s|n't|'re|'ve|'ll|'d|'m)"
_TOKENISED = re.compile(rf"(?:^|\s){_CLITICS}(?=\s|$)|\s[.,!?;:](?=\s|$)", re.IGNORECASE)
_WRITTEN = re.compile(rf"\w{_CLITICS}\b|\w[.,!?;:](?=\s|$)", re.IGNORECASE)


@dataclass(frozen=True)
class TextForm:
    """How one group of texts is written: shares of texts with tokenised marks, written marks, no capitals."""

    group: str
    n: int
    tokenised: float
    written: float
    lower: float

    @property
    def form(self) -> str:
        """``tokenised``, ``detokenised`` or ``unknown`` (no mark either way), with ``, lower-cased`` when so."""
        base = ("tokenised" if self.tokenised > self.written else
                "detokenised" if self.written > self.tokenised else "unknown")
        return base + (", lower-cased" if self.lower > 0.95 else "")


def text_form(group: str, texts: Sequence[str]) -> TextForm:
    """The form of a group of texts (blank texts do not count)."""
    texts = [str(t) for t in texts if isinstance(t, str) and t.strip()]
    n = max(len(texts), 1)
    return TextForm(group, len(texts), sum(bool(_TOKENISED.search(t)) for t in texts) / n,
                    sum(bool(_WRITTEN.search(t)) for t in texts) / n,
                    sum(t == t.lower() for t in texts) / n)


@lru_cache(maxsize=1)
def _tokenizer():
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer()


def tokenise_text(text: str) -> str:
    """A text in the released form: Treebank tokens (``it 's``, ``do n't``, ``good .``), lower-cased."""
    tokens = _tokenizer().tokenize(str(text).lower())
    # Treebank writes double quotes as `` and ''; released outputs keep the plain character.
    return " ".join('"' if token in ("``", "''") else token for token in tokens)


def tokenise(texts: Sequence[str]) -> list[str]:
    """:func:`tokenise_text` of every text (each distinct text tokenised once; missing values stay missing)."""
    seen: dict[str, str] = {}
    return [seen.setdefault(t, tokenise_text(t)) if isinstance(t, str) else t for t in texts]


def forms_table(groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """One row per group: texts, share tokenised, share detokenised, share lower-cased, and the form."""
    rows = [text_form(name, texts) for name, texts in groups.items()]
    return pd.DataFrame({"group": [r.group for r in rows], "texts": [r.n for r in rows],
                         "tokenised": [r.tokenised for r in rows], "detokenised": [r.written for r in rows],
                         "lower-cased": [r.lower for r in rows], "form": [r.form for r in rows]})


def needs_one_form(table: pd.DataFrame, requested: str) -> bool:
    """Whether texts must be put into one form: always for ``tokenised``, never for ``as-is``, else when forms differ."""
    if requested not in TEXT_FORMS:
        raise ValueError(f"text form '{requested}': choose one of {', '.join(TEXT_FORMS)}")
    if requested != "auto":
        return requested == "tokenised"
    known = table[table["texts"] > 0]
    return known["form"].nunique() > 1


def describe(table: pd.DataFrame, applied: bool) -> str:
    """One line for the page and the CLI: the forms found and what was done."""
    by_form = table.groupby("form", sort=False)["group"].apply(list)  # one clause per form, its groups after it
    found = "; ".join(f"{form}: {', '.join(groups)}" for form, groups in by_form.items())
    if applied:
        return (f"text form: every input, output and reference was tokenised (Treebank) and lower-cased before "
                f"every automatic measure, so no group is judged by its punctuation ({found})")
    return f"text form: compared as written ({found})"


__all__ = ["TEXT_FORMS", "TextForm", "describe", "forms_table", "needs_one_form", "text_form", "tokenise",
           "tokenise_text"]
