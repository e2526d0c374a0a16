"""Which texts of a dataset are style examples, and which corpus trains its style classifier.

Rules about data, shared by every view that needs a style classifier or a lexicon: human-written
texts only (pair sources by their source style, references by their target style), never system
outputs, since whether those carry the target style is exactly what is being evaluated.
"""

from __future__ import annotations

import pandas as pd

from stviz.data.schema import DataError, Dataset

#: Datasets whose pairs are judged by a classifier trained on a bigger corpus of the same styles.
COMPANION_CORPORA = {"mir-yelp": "yelp-sentiment", "li2018-yelp": "yelp-sentiment"}


class OneStyleError(DataError):
    """The labelled texts hold fewer than two styles, so no style classifier can be trained from them."""


def labelled_texts(dataset: Dataset) -> pd.DataFrame:
    """Style-labelled texts of a dataset: its texts, else pair sources by source style plus references by target style.

    References are human-written texts in the target style, so a pair file with one source style
    (e.g. informal -> formal) still yields two styles when it has a reference column. System
    outputs are never used: whether they carry the target style is what is being evaluated.
    """
    if dataset.texts is not None or dataset.pairs is None:
        return dataset.style_texts()
    pairs = dataset.pairs
    frames = []
    if "source_style" in pairs:
        frames.append(pairs[["source", "source_style"]].set_axis(["text", "style"], axis=1))
    if "target_style" in pairs:
        for column in dataset.reference_columns:
            frames.append(pairs[[column, "target_style"]].set_axis(["text", "style"], axis=1))
    if not frames:
        raise DataError(f"dataset '{dataset.name}' has no style labels (map a source style column, or "
                        "target style with references)")
    frame = pd.concat(frames, ignore_index=True).dropna().drop_duplicates()
    return frame.astype({"text": str, "style": str}).reset_index(drop=True)


def training_dataset_for(dataset: Dataset) -> Dataset:
    """The dataset a style classifier for ``dataset`` is trained on (its companion corpus, else itself)."""
    from stviz.data import load_dataset

    companion = COMPANION_CORPORA.get(dataset.name)
    return load_dataset(companion) if companion else dataset


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
    training = training_dataset_for(dataset)
    if training is dataset or training.texts is None:
        return []
    taken = set(dataset.pairs["source"].astype(str)) if dataset.pairs is not None else set()
    texts = training.texts.loc[~training.texts["text"].isin(taken), "text"]
    return texts.sample(min(n, len(texts)), random_state=random_state).astype(str).tolist()
