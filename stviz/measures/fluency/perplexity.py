"""Perplexity of outputs under the offline n-gram language model of their target style, with held-out human texts.

:func:`ngram_scores` scores outputs and held-out human sentences in one call (each style's model trained once);
:func:`own_text_perplexity` does it for a file whose only human-written texts are its own inputs and references,
cross-fitted (:mod:`stviz.measures.fluency.own_texts`). The Leaderboard and the Meta-evaluation both call them
(``stviz.analyses.leaderboard``), so a file's fluency is the same number in both.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from stviz.measures.fluency.language_models import NGRAM, lm_label, sentence_nll
from stviz.measures.fluency.own_texts import MINIMUM, own_text_folds
from stviz.progress import Reporter


def ngram_scores(outputs: Sequence[str], styles: Sequence[str], training: Mapping[str, Sequence[str]],
                 held_out: Mapping[str, Sequence[str]], rep: Reporter,
                 stage: str = "Scoring outputs with the n-gram language model") -> tuple[np.ndarray, dict]:
    """(summed NLL, tokens) per output under its target style's model, and the same for each style's held-out human
    sentences; one call, so each style's model is trained once for both."""
    extra = [(style, text) for style, texts in held_out.items() for text in texts]
    scored = sentence_nll(list(outputs) + [text for _, text in extra], NGRAM,
                          styles=list(styles) + [s for s, _ in extra], training=training, progress=rep.stage(stage))
    stats, rest, held = scored[:len(outputs)], scored[len(outputs):], {}
    for style, texts in held_out.items():
        held[style], rest = rest[:len(texts)], rest[len(texts):]
    return stats, held


def own_text_perplexity(pairs: pd.DataFrame, references: list[str], styles: list[str], rep: Reporter,
                        notes: list[str]) -> tuple[np.ndarray | None, dict, str]:
    """Perplexity from the file's own human-written texts, cross-fitted over two halves of its inputs: (stats per
    output, held-out stats per style, label); (None, {}, '') with the reason in ``notes`` when a style has too few."""
    folds, line, missing = own_text_folds(pairs, references, sorted(set(styles)))
    if missing:
        notes.append("perplexity not computed: the offline n-gram model needs human-written texts of each target style "
                     f"and the file has fewer than {MINIMUM} in a half of its inputs for {', '.join(missing)} (inputs "
                     "count by their source style, references by their target style; outputs never); give hf:MODEL "
                     "instead")
        return None, {}, ""
    outputs, styles = pairs["output"].astype(str).to_numpy(), np.asarray(styles, dtype=object)
    stats, held = np.zeros((len(pairs), 2)), {}
    for k, fold in enumerate(folds):
        rows = np.flatnonzero(fold.scored)
        part, fold_held = ngram_scores(outputs[rows].tolist(), styles[rows].tolist(), fold.training, fold.held_out,
                                       rep, f"Scoring outputs with the n-gram language model (half {k + 1})")
        stats[rows] = part
        for style, values in fold_held.items():
            held.setdefault(style, []).append(values)
    notes.append(line)
    return stats, {s: np.vstack(v) for s, v in held.items()}, lm_label(NGRAM) + ", the file's own texts, cross-fitted"


__all__ = ["ngram_scores", "own_text_perplexity"]
