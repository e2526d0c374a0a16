"""sacrebleu's per-sentence sufficient statistics (cached), and corpus BLEU and chrF from their sums, for thousands
of resamples at once.

A leaderboard's intervals, paired tests and rank ranges score every system on 1,000 resamples per test:
hundreds of thousands of corpus scores. sacrebleu computes one at a time in Python (about 10 µs each, most of
a cold leaderboard's statistics time). These are the same formulas over rows of a matrix, for sacrebleu's
default settings only (BLEU: 'exp' smoothing, no effective order; chrF: no eps smoothing); any other setting
goes through sacrebleu itself, row by row. tests/test_systems.py checks them against sacrebleu on random and
edge-case statistics.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

#: sacrebleu's my_log(0): the log it takes of a zero precision.
_LOG_ZERO = -9999999999.0
_CHRF_EPS = 1e-16


def vectorised(scorer) -> bool:
    """Whether ``scorer`` (a sacrebleu BLEU or CHRF) uses the settings these formulas reproduce."""
    if type(scorer).__name__ == "BLEU":
        return scorer.smooth_method == "exp" and not scorer.effective_order
    return type(scorer).__name__ == "CHRF" and not scorer.eps_smoothing


def corpus_scores(scorer, summed: np.ndarray) -> np.ndarray:
    """The corpus score of each row of summed statistics (shape (B, d)); NaN for an all-zero row (no reference)."""
    summed = np.atleast_2d(np.asarray(summed, dtype=float))
    if vectorised(scorer):
        scores = (bleu(summed, scorer.max_ngram_order) if type(scorer).__name__ == "BLEU"
                  else chrf(summed, scorer.beta))
    else:  # a setting the formulas below do not cover: sacrebleu, one row at a time
        scores = np.array([scorer._compute_score_from_stats(list(row)).score for row in summed])
    return np.where(summed.any(axis=1), scores, np.nan)


def bleu(summed: np.ndarray, max_order: int = 4) -> np.ndarray:
    """sacrebleu's ``BLEU.compute_bleu`` ('exp' smoothing) on rows of [sys_len, ref_len, correct.., total..]."""
    sys_len, ref_len = summed[:, 0], summed[:, 1]
    correct, total = summed[:, 2:2 + max_order], summed[:, 2 + max_order:2 + 2 * max_order]
    with np.errstate(divide="ignore", invalid="ignore"):
        brevity = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / sys_len), 0.0), 1.0)
        alive = np.cumprod(total > 0, axis=1).astype(bool)  # sacrebleu stops at the first order with no n-grams
        halvings = np.cumsum((correct == 0) & alive, axis=1)  # NIST smoothing: 1/2, 1/4, ... for each empty order
        precision = np.where(correct > 0, 100.0 * correct / total, 100.0 / (2.0 ** halvings * total))
        precision = np.where(alive, precision, 0.0)
        logs = np.where(precision > 0, np.log(np.where(precision > 0, precision, 1.0)), _LOG_ZERO)
    log_sum = np.zeros(len(summed))
    for n in range(max_order):  # summed in sacrebleu's order, so the floats agree
        log_sum = log_sum + logs[:, n]
    return np.where(correct.any(axis=1), brevity * np.exp(log_sum / max_order), 0.0)


def chrf(summed: np.ndarray, beta: float = 2.0) -> np.ndarray:
    """sacrebleu's ``CHRF._compute_f_score`` (no eps smoothing) on rows of [hyp, ref, match] per order."""
    hyp, ref, match = summed[:, 0::3], summed[:, 1::3], summed[:, 2::3]
    factor = beta ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(hyp > 0, match / hyp, _CHRF_EPS)
        recall = np.where(ref > 0, match / ref, _CHRF_EPS)
    counted = (hyp > 0) & (ref > 0)  # sacrebleu's effective order: orders with n-grams on both sides
    avg_precision, avg_recall = np.zeros(len(summed)), np.zeros(len(summed))
    for i in range(hyp.shape[1]):  # accumulated in sacrebleu's order
        avg_precision = avg_precision + np.where(counted[:, i], precision[:, i], 0.0)
        avg_recall = avg_recall + np.where(counted[:, i], recall[:, i], 0.0)
    orders = counted.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        avg_precision = np.where(orders > 0, avg_precision / orders, 0.0)
        avg_recall = np.where(orders > 0, avg_recall / orders, 0.0)
        score = 100 * ((1 + factor) * avg_precision * avg_recall / (factor * avg_precision + avg_recall))
    return np.where(avg_precision + avg_recall > 0, score, 0.0)




# -- per-sentence statistics (sacrebleu's, with the language's tokeniser) ----------------------------------
def _sacrebleu(kind: str, lowercase: bool, tokenize: str = "13a"):
    from sacrebleu.metrics import BLEU, CHRF

    # force: TST outputs are tokenised by convention (Yelp, Amazon); sacrebleu would warn on every call.
    # tokenize: the language's sacrebleu tokeniser (stviz.languages; 'zh' for Chinese); chrF needs none.
    if kind in ("bleu", "self_bleu"):
        return BLEU(lowercase=lowercase, force=True, tokenize=tokenize)
    return CHRF(lowercase=lowercase)


def corpus_stats(kind: str, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]],
                 lowercase: bool = True, tokenize: str = "13a") -> np.ndarray:
    """Per-sentence sufficient statistics of sacrebleu's BLEU or chrF (rows of zeros where a sentence has no reference)."""
    scorer = _sacrebleu(kind, lowercase, tokenize)
    has_ref = np.array([any(r) for r in references], dtype=bool)
    width = 2 + 2 * scorer.max_ngram_order if kind != "chrf" else 3 * (scorer.char_order + scorer.word_order)
    out = np.zeros((len(hypotheses), width))
    if has_ref.any():
        hyps = [str(h) for h, ok in zip(hypotheses, has_ref) if ok]
        refs = [list(r) for r, ok in zip(references, has_ref) if ok]
        depth = max(len(r) for r in refs)
        streams = [[r[k] if k < len(r) else None for r in refs] for k in range(depth)]
        out[has_ref] = np.asarray(scorer._extract_corpus_statistics(hyps, streams), dtype=float)
    return out


def cached_corpus_stats(kind: str, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]],
                        lowercase: bool = True, tokenize: str = "13a") -> np.ndarray:
    """:func:`corpus_stats` through the disk cache, keyed by the texts: a benchmark's published systems are
    tokenised and counted once, and a later board with one more system counts only that system's outputs."""
    from stviz.cache import default_cache

    key = {"kind": kind, "hypotheses": [str(h) for h in hypotheses], "lowercase": lowercase, "tokenize": tokenize,
           "references": [[r if isinstance(r, str) else None for r in refs] for refs in references]}
    return default_cache().memo("corpus-stats", key,
                                lambda: corpus_stats(kind, hypotheses, references, lowercase, tokenize))


def sacrebleu_signature(kind: str, n_refs: int | str, lowercase: bool = True, tokenize: str = "13a") -> str:
    """sacrebleu's signature string of the BLEU / chrF computation used."""
    scorer = _sacrebleu(kind, lowercase, tokenize)
    scorer.num_refs = -1 if n_refs == "var" else int(n_refs)  # what sacrebleu records when it scores
    return scorer.get_signature().format()


__all__ = ["bleu", "cached_corpus_stats", "chrf", "corpus_scores", "corpus_stats", "sacrebleu_signature",
           "vectorised"]
