"""The public formality scorer: a regressor trained on Pavlick and Tetreault's (2016) formality ratings (PT16).

Sentiment transfer has a public corpus to train a style classifier on (``yelp-sentiment``); formality had none, so a
one-direction formality file without formal human texts got no style measure at all. Briakou et al. (2021)
recommend a formality regressor trained on PT16's sentence-level ratings: here a ridge regressor on MiniLM
vectors trained on PT16's ``train.csv`` (``data fetch pt16``), named with its held-out error on that file. Its
scores mean "more formal" (PT16's scale, about -3 .. 3), so on pairs it is turned toward each pair's target
(negated for informal targets). MiniLM vectors generalise better than TF-IDF n-grams from PT16's train file to its
test file (Spearman 0.36 against 0.23, docs/reproduction-meta-evaluation.md), whose sentences differ in kind.
"""

from __future__ import annotations

from typing import Iterable

from stviz.data.schema import DataError
from stviz.measures.style.saved import SavedScorer, train_scorer

#: The default formality scorer's name, the set it learns from and its method.
PT16_SCORER, PT16_TRAIN, PT16_KIND = "pt16-formality", "pt16-train", "ridge-minilm"
#: Target styles the formality scorer serves.
FORMALITY_STYLES = {"formal", "informal"}


def serves(styles: Iterable[str]) -> bool:
    """Whether a set's target styles are formality's (formal and/or informal, nothing else)."""
    found = {str(s).strip().lower() for s in styles if str(s).strip()}
    return bool(found) and found <= FORMALITY_STYLES


def formality_scorer() -> SavedScorer:
    """The PT16 formality regressor (trained once, cached on disk); DataError with the fetch command without PT16."""
    from stviz.data import corpus_of, load_dataset
    from stviz.data.corpora.sources import is_installed

    if not is_installed(corpus_of(PT16_TRAIN)):
        raise DataError("no public formality scorer: PT16 (Pavlick and Tetreault's formality ratings) is not "
                        "installed; fetch it with 'python -m stviz data fetch pt16' (or import a local copy: "
                        "'python -m stviz data import DIR')")
    return train_scorer(load_dataset(PT16_TRAIN), PT16_SCORER, PT16_KIND, pole="formal")


__all__ = ["FORMALITY_STYLES", "PT16_KIND", "PT16_SCORER", "PT16_TRAIN", "formality_scorer", "serves"]
