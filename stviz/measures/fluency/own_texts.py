"""A file's own human-written texts for the language model of each style, cross-fitted over its inputs.

A pair file without a companion corpus still holds human-written texts of each style: its inputs (by their source
style) and its references (by their target style); never its outputs, whose fluency is what is judged. An n-gram
language model of a style trained on them would have seen the references of the very inputs whose outputs it
scores, and would favour an output for being close to its reference. So the inputs are split in two halves and
each half's outputs are scored by models trained on the other half's human texts (cross-fitting); the half's own
human texts are then held out from those models too, and give J's fluency cut-off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Sentences of one style a half must have for its language model (fewer: that style gets no perplexity; a model of
#: so few sentences knows little more than their words, and the notes say how many it learned from).
MINIMUM = 10
FOLDS = 2


@dataclass
class Fold:
    """One half of the inputs: which pairs it scores, and the human texts per style its models learn from (the
    other half's) and hold out (its own)."""

    scored: np.ndarray  # bool per pair
    training: dict[str, list[str]]
    held_out: dict[str, list[str]]


def human_texts(pairs: pd.DataFrame, references: list[str]) -> pd.DataFrame:
    """Every human-written text of the pairs with its style and its input: sources by their source style,
    references by their target style (one row per distinct text, style and input)."""
    frames = []
    if "source_style" in pairs:
        frames.append(pd.DataFrame({"text": pairs["source"], "style": pairs["source_style"],
                                    "input": pairs["source"], "kind": "inputs"}))
    if "target_style" in pairs:
        for column in references:
            frames.append(pd.DataFrame({"text": pairs[column], "style": pairs["target_style"],
                                        "input": pairs["source"], "kind": "references"}))
    if not frames:
        return pd.DataFrame(columns=["text", "style", "input", "kind"])
    frame = pd.concat(frames, ignore_index=True).dropna()
    frame = frame[frame["text"].astype(str).str.strip().ne("")].astype(str)
    return frame.drop_duplicates(["text", "style", "input"]).reset_index(drop=True)


def own_text_folds(pairs: pd.DataFrame, references: list[str], styles: list[str]) -> tuple[list[Fold], str, list[str]]:
    """The cross-fitted halves, a line saying which texts were used, and the styles with too few texts."""
    texts = human_texts(pairs, references)
    inputs = list(dict.fromkeys(pairs["source"].astype(str)))
    fold_of = {text: k % FOLDS for k, text in enumerate(inputs)}  # alternating in file order: balanced halves
    text_fold = texts["input"].map(fold_of).to_numpy()
    pair_fold = pairs["source"].astype(str).map(fold_of).to_numpy()
    folds, missing = [], set()
    for k in range(FOLDS):
        training, held = {}, {}
        for style in styles:
            mine = texts["style"] == style
            training[style] = texts.loc[mine & (text_fold != k), "text"].drop_duplicates().tolist()
            held[style] = texts.loc[mine & (text_fold == k), "text"].drop_duplicates().tolist()
            if len(training[style]) < MINIMUM:
                missing.add(style)
        folds.append(Fold(pair_fold == k, training, held))
    counts = texts.groupby(["style", "kind"])["text"].nunique()
    said = "; ".join(f"{style}: " + ", ".join(f"{n:,} {kind}" for (s, kind), n in counts.items() if s == style)
                     for style in styles if style in counts.index.get_level_values(0))
    line = (f"the n-gram language model learned from the file's own human-written texts ({said or 'none'}; never its "
            "outputs), cross-fitted over two halves of the inputs: each output is scored by models that never saw "
            "its input or its references")
    return folds, line, sorted(missing)


__all__ = ["FOLDS", "Fold", "MINIMUM", "human_texts", "own_text_folds"]
