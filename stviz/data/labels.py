"""Which texts of a dataset are style examples, and which corpus trains its style classifier.

Rules about data, shared by every view that needs a style classifier or a lexicon: human-written
texts only (pair sources by their source style, references by their target style), never system
outputs, since whether those carry the target style is exactly what is being evaluated.
"""

from __future__ import annotations

import dataclasses
import re
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


#: Built-in corpora of human-written texts by style, offered to datasets whose target styles they cover: each corpus
#: style with the names a user's file may give it (compared by :func:`style_key`: case, spaces, hyphens and underscores
#: aside, so ``Non-toxic`` is ``non_toxic``).
STYLE_CORPORA = {
    "yelp-sentiment": {"negative": ("negative",), "positive": ("positive",)},
    "paradetox": {"toxic": ("toxic", "offensive"),
                  "neutral": ("neutral", "non-toxic", "detoxified", "non-offensive", "inoffensive")},
}
#: Built-in corpora of style-labelled texts a user may name as style data.
TEXT_CORPORA = ("yelp-sentiment", "paradetox", "cds")
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
        from stviz.data.intake.build import load_pairs_file

        return load_pairs_file(style_data)[0]  # a user's labelled file, read as every pair file
    if companion := COMPANION_CORPORA.get(dataset.name):
        return load_dataset(companion)
    if matched := _matching(dataset):
        return spelled_as(load_dataset(matched[0]), matched[1])
    return dataset


def style_key(style: object) -> str:
    """A style name as :data:`STYLE_CORPORA` compares it: lower case, without spaces, hyphens or underscores."""
    return re.sub(r"[\s_-]+", "", str(style).strip().lower())


def matching_corpus(dataset: Dataset) -> str | None:
    """An installed built-in corpus whose styles cover a user's dataset's target styles (None for built-ins)."""
    matched = _matching(dataset)
    return matched[0] if matched else None


def _matching(dataset: Dataset) -> tuple[str, dict[str, str]] | None:
    """The corpus :func:`matching_corpus` finds, with the dataset's name of each of its styles (:func:`spelled_as`)."""
    from stviz.data import DATASET_NAMES, corpus_of
    from stviz.data.corpora.sources import is_installed

    if dataset.name in DATASET_NAMES or dataset.pairs is None or "target_style" not in dataset.pairs:
        return None
    from stviz.languages import dataset_language

    if dataset_language(dataset).language != "en":
        return None  # the built-in style corpora are English: another language learns from its own texts
    for name, covered in STYLE_CORPORA.items():
        names = _names_in(dataset.pairs, covered)
        if names is not None and is_installed(corpus_of(name)):
            return name, names
    return None


def _names_in(pairs: pd.DataFrame, covered: dict[str, tuple[str, ...]]) -> dict[str, str] | None:
    """Each corpus style -> the pairs' name for it, when every target style and every source style given is a name of
    one (else None: ``positive -> neutral`` is sentiment, not detoxification, though ParaDetox has a neutral style).

    The target styles name each corpus style one way at most (``neutral`` and ``non-toxic`` as two targets would be two
    classes of one style: no match); a source style names a corpus style no target names, when it is the only one to.
    """
    lookup = {style_key(name): style for style, names in covered.items() for name in (style, *names)}
    targets = set(pairs["target_style"].dropna().astype(str).str.strip()) - {""}
    given = set(pairs["source_style"].dropna().astype(str).str.strip()) - {""} if "source_style" in pairs else set()
    if not targets or any(style_key(s) not in lookup for s in targets | given):
        return None
    named: dict[str, set[str]] = {}
    for target in targets:
        named.setdefault(lookup[style_key(target)], set()).add(target)
    if any(len(spellings) > 1 for spellings in named.values()):
        return None
    sources: dict[str, set[str]] = {}
    for source in given:
        if lookup[style_key(source)] not in named:
            sources.setdefault(lookup[style_key(source)], set()).add(source)
    named.update({style: spellings for style, spellings in sources.items() if len(spellings) == 1})
    return {style: next(iter(spellings)) for style, spellings in named.items()}


def spelled_as(corpus: Dataset, names: dict[str, str]) -> Dataset:
    """The corpus with its styles under the dataset's names (``toxic`` -> ``offensive``), so that the classifier's
    classes and the language model's styles are the pairs' own; the corpus itself where the names are its own."""
    renamed = {style: name for style, name in names.items() if name != style}
    if not renamed or corpus.texts is None:
        return corpus
    said = ", ".join(f"{style} as {name}" for style, name in renamed.items())
    return dataclasses.replace(corpus, texts=corpus.texts.assign(style=corpus.texts["style"].replace(renamed)),
                               title=f"{corpus.title or corpus.name}; its styles named as the pairs name them: {said}")


def _form_key(texts: pd.Series) -> pd.Series:
    """Each text lower-cased, without spaces or punctuation: one key for a text in any form (``it 's`` and ``It's``)."""
    keys = texts.str.lower().str.replace(r"[\W_]+", "", regex=True)
    return keys.where(keys != "", texts)  # a text of punctuation alone is its own key


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

    def _left_out(self, frame: pd.DataFrame, used: set[str]) -> pd.Series:
        """Rows of a corpus frame that are one of the ``used`` texts, or belong to one (its :data:`GROUP`: ParaDetox's
        rewrites of a comment the pairs rewrite share its words). The group is found whatever the form the pairs were
        put in (the Leaderboard tokenises them: ``cannot`` became ``can not``): compared by :func:`_form_key`."""
        left_out = frame["text"].astype(str).isin(used)
        if GROUP not in frame:
            return left_out
        return left_out | _form_key(frame[GROUP].astype(str)).isin(set(_form_key(pd.Series(sorted(used), dtype=str))))

    def classifier_exclude(self) -> list[str]:
        """Texts the style classifier is not trained on, when the corpus is another: the pairs' sources and outputs,
        and the corpus's texts of the same input (:meth:`_left_out`)."""
        if self.dataset.pairs is None or not self.companion:
            return []
        used = self._pair_column("source") | self._pair_column("output")
        texts = self.corpus.texts
        return sorted(used | (set(texts.loc[self._left_out(texts, used), "text"].astype(str))
                              if texts is not None else set()))

    def naturalness_texts(self, n: int = 1500, random_state: int = 0) -> list[str]:
        """A sample of the companion corpus's sentences, none a pair's source or of its input (none without a
        companion)."""
        if not self.companion or self.corpus.texts is None:
            return []
        texts = self.corpus.texts.loc[~self._left_out(self.corpus.texts, self._pair_column("source")), "text"]
        return texts.sample(min(n, len(texts)), random_state=random_state).astype(str).tolist()

    def language_model_texts(self, styles: list[str], held_out: int, training: int,
                             minimum: int = 50) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """(training, held-out) sentences per style for an n-gram LM: none from the pairs or their references.

        Styles with fewer than ``minimum`` sentences get none; a fifth at most is held out. A corpus text of a pair's
        input is left out too (:meth:`_left_out`).
        """
        try:
            frame = self.labelled()
        except DataError:
            return {}, {}
        used = self._pair_column("source") | self._pair_column("output")
        for column in self.dataset.reference_columns:
            used |= self._pair_column(column)
        frame = frame[~self._left_out(frame, used)]
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
        grouped = self.corpus.texts is not None and GROUP in self.corpus.texts
        return (f"style texts: {self.corpus.title or self.corpus.name} ({self.corpus.name}), for the style classifier, "
                f"the language model and naturalness; sentences that occur in {self.dataset.name}'s pairs (and, for "
                "the language model, its references) are left out"
                + (f", and so is every text of {self.corpus.name} of an input the pairs hold" if grouped else ""))
