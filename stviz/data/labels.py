"""Which texts of a dataset are style examples, and which corpus trains its style classifier.

Rules about data, shared by every view that needs a style classifier or a lexicon: human-written
texts only (pair sources by their source style, references by their target style), never system
outputs, since whether those carry the target style is exactly what is being evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from stviz.data.schema import DataError, Dataset

#: Datasets whose pairs are judged by a classifier trained on a bigger corpus of the same styles.
COMPANION_CORPORA = {"mir-yelp": "yelp-sentiment", "li2018-yelp": "yelp-sentiment"}


class OneStyleError(DataError):
    """The labelled texts hold fewer than two styles, so no style classifier can be trained from them."""


#: The column of :func:`labelled_texts` naming the input a pair-derived text belongs to: an input and its references
#: share their words, so a held-out test keeps them on one side (split apart, a classifier learned an input's words as
#: its style and misjudged its rewrite: RUSSE 2022's classifier measured itself at chance, 0.506).
GROUP = "input"


def labelled_texts(dataset: Dataset) -> pd.DataFrame:
    """Style-labelled texts of a dataset: its texts, else pair sources by source style plus references by target style
    (with :data:`GROUP`, the input each belongs to).

    References are human-written texts in the target style, so a pair file with one source style
    (e.g. informal -> formal) still yields two styles when it has a reference column. System
    outputs are never used: whether they carry the target style is what is being evaluated.
    """
    if dataset.texts is not None or dataset.pairs is None:
        return dataset.style_texts()
    pairs = dataset.pairs
    frames = []
    if "source_style" in pairs:
        frames.append(pairs[["source", "source_style", "source"]].set_axis(["text", "style", GROUP], axis=1))
    if "target_style" in pairs:
        for column in dataset.reference_columns:
            frames.append(pairs[[column, "target_style", "source"]].set_axis(["text", "style", GROUP], axis=1))
    if not frames:
        raise DataError(f"dataset '{dataset.name}' has no style labels (map a source style column, or "
                        "target style with references)")
    frame = pd.concat(frames, ignore_index=True).dropna().drop_duplicates(["text", "style"])
    return frame.astype({"text": str, "style": str, GROUP: str}).reset_index(drop=True)


#: Built-in corpora of human-written texts by style, offered to datasets whose target styles they cover.
STYLE_CORPORA = {"yelp-sentiment": {"negative", "positive"}}
#: Built-in corpora of style-labelled texts a user may name as style data.
TEXT_CORPORA = ("yelp-sentiment", "cds")
#: ``style_data`` besides a dataset name or a file: the default rule, or the dataset's own texts.
AUTO, OWN = "auto", "own"


def training_dataset_for(dataset: Dataset, style_data: str = AUTO) -> Dataset:
    """The corpus a style classifier, LM and naturalness for ``dataset`` learn from.

    ``style_data`` is ``auto`` (the dataset's companion corpus, else a built-in corpus whose styles
    are the dataset's target styles, else the dataset itself), ``own``, a dataset name, or the
    path of a pair file with style columns.
    """
    from stviz.data import DATASET_NAMES, load_dataset

    if style_data == OWN:
        return dataset
    if style_data != AUTO:
        if style_data in DATASET_NAMES:
            return load_dataset(style_data)
        if not Path(style_data).is_file():
            if "/" in style_data or "\\" in style_data or Path(style_data).suffix:  # meant as a file
                raise DataError(f"no such file or folder: '{style_data}' (style data: a file of texts with their "
                                "styles)")
            raise DataError(f"style data '{style_data}' is neither a dataset ({', '.join(DATASET_NAMES)}), "
                            f"'{AUTO}', '{OWN}', nor a file of texts with their styles")
        from stviz.data.build import load_pairs_file

        return load_pairs_file(style_data)[0]  # a user's labelled file, read as every pair file
    companion = COMPANION_CORPORA.get(dataset.name) or matching_corpus(dataset)
    return load_dataset(companion) if companion else dataset


def matching_corpus(dataset: Dataset) -> str | None:
    """An installed built-in corpus whose styles cover a user's dataset's target styles (None for built-ins)."""
    from stviz.data import DATASET_NAMES, corpus_of
    from stviz.data.sources import is_installed

    if dataset.name in DATASET_NAMES or dataset.pairs is None or "target_style" not in dataset.pairs:
        return None
    from stviz.languages import dataset_language

    if dataset_language(dataset).language != "en":
        return None  # the built-in style corpora are English: another language learns from its own texts
    styles = set(dataset.pairs["target_style"].dropna().astype(str).str.strip().str.lower())
    for name, covered in STYLE_CORPORA.items():
        if styles and styles <= covered and is_installed(corpus_of(name)):
            return name
    return None


def require_two_styles(name: str, styles: pd.Series) -> None:
    """Raise OneStyleError naming the views it rules out when ``styles`` holds fewer than two styles."""
    styles = sorted(styles.astype(str).unique())
    if len(styles) < 2:
        # Say which views this rules out: a one-style dataset (SGDD-TST: informal sources only) still has content.
        raise OneStyleError(f"dataset '{name}' has human-written texts of one style only "
                            f"({', '.join(styles) or 'none'}), so no style classifier can be trained on it: style "
                            "transfer intensity, token attributions and naturalness do not apply (content "
                            "metrics do)")


def check_style_labels(dataset: Dataset) -> None:
    """Raise OneStyleError (or DataError), before any training, when no style classifier can be trained for ``dataset``."""
    training = training_dataset_for(dataset)
    require_two_styles(training.name, labelled_texts(training)["style"])


def human_reference_texts(dataset: Dataset, n: int = 1500, random_state: int = 0) -> list[str]:
    """Human-written sentences of the dataset's domain for naturalness classifiers (companion corpus sample)."""
    return StyleTexts.resolve(dataset).naturalness_texts(n, random_state)


@dataclass
class StyleTexts:
    """The human-written texts of each style one run of a view uses, resolved once for every consumer.

    The corpus is the dataset's companion (Yelp sentiment for Mir et al.'s and Li et al.'s Yelp
    outputs), else the dataset itself. The style classifier, the naturalness classifier and the
    language model all read it from here, each leaving out the texts it must not see: the pairs'
    sources and outputs (classifier, naturalness: sources only), and for the language model the
    references too, since its held-out texts set J's fluency cut-off.
    """

    dataset: Dataset
    corpus: Dataset

    @classmethod
    def resolve(cls, dataset: Dataset, style_data: str = AUTO) -> "StyleTexts":
        """The style texts of ``dataset`` (see :func:`training_dataset_for` for ``style_data``), loaded once here."""
        return cls(dataset, training_dataset_for(dataset, style_data))

    @property
    def companion(self) -> bool:
        """Whether the texts come from another corpus than the dataset's own."""
        return self.corpus is not self.dataset

    @property
    def from_pairs(self) -> bool:
        """Whether the texts are the pairs' own inputs and references (no corpus of labelled sentences)."""
        return not self.companion and self.dataset.texts is None

    def _pair_column(self, column: str) -> set[str]:
        pairs = self.dataset.pairs
        return set(pairs[column].dropna().astype(str)) if pairs is not None and column in pairs else set()

    def labelled(self) -> pd.DataFrame:
        """The corpus's style-labelled texts (text, style); DataError when it has no style labels."""
        return labelled_texts(self.corpus)

    def classifier_exclude(self) -> list[str]:
        """Texts the style classifier is not trained on: the pairs' sources and outputs, when the corpus is another."""
        if self.dataset.pairs is None or not self.companion:
            return []
        return list(self._pair_column("source") | self._pair_column("output"))

    def naturalness_texts(self, n: int = 1500, random_state: int = 0) -> list[str]:
        """A sample of the companion corpus's sentences, none a pair's source (none without a companion)."""
        if not self.companion or self.corpus.texts is None:
            return []
        texts = self.corpus.texts.loc[~self.corpus.texts["text"].isin(self._pair_column("source")), "text"]
        return texts.sample(min(n, len(texts)), random_state=random_state).astype(str).tolist()

    def language_model_texts(self, styles: list[str], held_out: int, training: int,
                             minimum: int = 50) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """(training, held-out) sentences per style for an n-gram LM: none from the pairs or their references.

        Styles with fewer than ``minimum`` sentences get none; a fifth at most is held out.
        """
        try:
            frame = self.labelled()
        except DataError:
            return {}, {}
        used = self._pair_column("source") | self._pair_column("output")
        for column in self.dataset.reference_columns:
            used |= self._pair_column(column)
        frame = frame[~frame["text"].isin(used)]
        trained, held = {}, {}
        for style in styles:
            texts = frame.loc[frame["style"].astype(str) == style, "text"].astype(str)
            if len(texts) < minimum:
                continue
            shuffled = texts.sample(frac=1.0, random_state=0).tolist()
            held[style] = shuffled[:min(held_out, len(shuffled) // 5)]
            trained[style] = shuffled[len(held[style]):len(held[style]) + training]
        return trained, held

    def describe(self) -> str:
        """One line for the page and the CLI: which corpus the style classifier, LM and naturalness learn from."""
        if not self.companion:
            return (f"style texts: the human-written texts of {self.dataset.name} itself (system outputs never), "
                    "for the style classifier, the language model and naturalness")
        return (f"style texts: {self.corpus.title or self.corpus.name} ({self.corpus.name}), for the style classifier, "
                f"the language model and naturalness; sentences that occur in {self.dataset.name}'s pairs (and, for "
                "the language model, its references) are left out")
