"""The leaderboard's per-output values, from which its system measures are built: the style classifier's accuracy and
target-style probability (cross-fitted on the file's own texts when it has no corpus of its styles), the content cosine
on the language's encoder, BERTScore, the style scorer's value, adversarial naturalness and the language model's
statistics with J's fluency cut-off. The classifier, the language model and naturalness learn from one resolution of
the style texts (:class:`stviz.data.labels.StyleTexts`); ``options`` are :class:`stviz.analyses.leaderboard.Options`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from stviz import systems as sysmod
from stviz.analyses.board_language import encoder_label
from stviz.data.labels import StyleTexts
from stviz.data.schema import DataError
from stviz.progress import Reporter

#: Human-written sentences of each target style held out from the language model's training, for J's FL cut-off.
HELD_OUT = 1000
#: Training sentences per style for the offline n-gram language model.
LM_TRAINING = 50_000


def target_styles(pairs: pd.DataFrame) -> list[str] | None:
    """Each pair's target style as text, or None when some pair has none (a direction without styles)."""
    if "target_style" not in pairs:
        return None
    column = pairs["target_style"]
    # pandas 3 keeps NaN as a float through astype(str): a missing style must be caught before any sort.
    if column.isna().any() or column.astype(str).str.strip().eq("").any():
        return None
    return column.astype(str).tolist()


def _without_style(pairs: pd.DataFrame) -> str:
    if "target_style" not in pairs:
        return "no target style per pair"
    missing = pairs["target_style"].isna() | pairs["target_style"].astype(str).str.strip().eq("")
    return f"{int(missing.sum()):,} of {len(pairs):,} pairs have no target style"


def _classify(texts: StyleTexts, pairs: pd.DataFrame, options, rep: Reporter, notes: list[str]):
    from stviz.measures.style.classifiers import default_classifier
    from stviz.measures.style.intensity import target_indices, target_style_accuracy

    styles = target_styles(pairs)
    if styles is None:
        notes.append(f"{_without_style(pairs)}: style accuracy, G2, H2 and J need one (map a target-style column, "
                     "or give --directions)")
        return None, None, None
    if options.classifier == "lr" and texts.from_pairs:
        return _classify_cross_fitted(texts, pairs, rep, notes)
    try:
        trained = default_classifier(texts.dataset, options.classifier, style_texts=texts,
                                     progress=rep.stage("Training the style classifier"))
        targets = target_indices(trained.classes, styles)
    except DataError as exc:
        notes.append(f"style accuracy not computed: {exc}")
        return None, None, None
    texts = pairs["output"].astype(str).tolist()
    unique = list(dict.fromkeys(texts))
    probs = trained.predict_proba(unique, progress=rep.stage(f"Classifying {len(unique):,} outputs"))
    row = {t: i for i, t in enumerate(unique)}
    probs = probs[[row[t] for t in texts]]
    accuracy = target_style_accuracy(probs, targets)
    if warning := trained.reliability_warning():
        notes.append(warning)
    # The target style's probability orders outputs that accuracy (0 or 1) leaves tied.
    return accuracy, trained, probs[np.arange(len(targets)), targets]


@dataclass(frozen=True)
class CrossFitted:
    """The own-text classifier as the board reports it: what it is, and its accuracy on human texts it never saw."""

    accuracy: float
    n_held_out: int
    chance: float

    def reliability_warning(self) -> str | None:
        """A warning when the held-out accuracy cannot vouch for the classifier."""
        from stviz.measures.style.classifiers.training import reliability_warning

        return reliability_warning(self.accuracy, self.chance, self.n_held_out)

    def summary(self) -> str:
        """One line for the page and the CLI."""
        return ("own-text style classifier (character 1-4-gram TF-IDF, logistic regression) learned from the file's "
                "own inputs and references, cross-fitted over two halves of the inputs; held-out accuracy "
                f"{self.accuracy:.3f} on {self.n_held_out:,} human texts (each half's, by the other half's model)")


def _classify_cross_fitted(texts: StyleTexts, pairs: pd.DataFrame, rep: Reporter, notes: list[str]):
    """Accuracy and P(target) per output from the own-text classifier, each output judged by a model that never saw
    its input or its references: a classifier trained on all the inputs calls an output that copies its input by
    the input's style because it learned that very text (and a random held-out split puts an input and its own
    rewrite on both sides, which measured RUSSE 2022's classifier at chance, 0.506, against 0.72 split by input)."""
    from stviz.measures.style.own_text import own_text_classifier

    frame, said, held_out = own_text_classifier(pairs, texts.dataset.reference_columns,
                                                 rep.stage("Training the style classifier (two halves)"))
    if frame.empty:
        notes.append(f"style accuracy not computed: {said[0].removeprefix('no own-text style classifier: ')}")
        return None, None, None
    trained = CrossFitted(*held_out)
    if (warning := trained.reliability_warning()) is not None:  # (what it learned from: its summary, said once)
        notes.append(warning)
    return frame["own_style_accuracy"].to_numpy(), trained, frame["own_style_probability"].to_numpy()


def _fluency(texts: StyleTexts, pairs: pd.DataFrame, options, rep: Reporter, notes: list[str]):
    from stviz.measures.fluency.language_models import NGRAM, FluencyError, lm_label, sentence_nll
    from stviz.measures.fluency.perplexity import ngram_scores, own_text_perplexity

    styles = target_styles(pairs)
    if styles is None and "target_style" in pairs:
        notes.append(f"{_without_style(pairs)}: perplexity needs one to pick the language model")
    training, held_out = texts.language_model_texts(sorted(set(styles or [])), HELD_OUT, LM_TRAINING)
    spec = options.language_model
    outputs = pairs["output"].astype(str).tolist()
    if spec != NGRAM:
        try:
            stats = sentence_nll(outputs, spec, progress=rep.stage(f"Scoring outputs with {spec}"))
            held = {s: sentence_nll(t, spec) for s, t in held_out.items()}
            return stats, held, lm_label(spec)
        except FluencyError as exc:
            notes.append(f"{exc}. Perplexity below is the offline default instead.")
    if styles is not None and not texts.companion and set(styles) - set(training):
        # No other texts of a style: the file's own inputs and references, cross-fitted (stviz.measures.fluency).
        return own_text_perplexity(pairs, texts.dataset.reference_columns, styles, rep, notes)
    if styles is None or not training or set(styles) - set(training):
        missing = sorted(set(styles or []) - set(training)) if styles else []
        notes.append("perplexity not computed: the offline n-gram model needs human-written texts of each target "
                     f"style{' (none for ' + ', '.join(missing) + ')' if missing else ''}; give hf:MODEL instead")
        return None, {}, ""
    stats, held = ngram_scores(outputs, styles, training, held_out, rep)
    return stats, held, lm_label(NGRAM)


def per_output_values(texts: StyleTexts, pairs: pd.DataFrame, options, rep: Reporter, notes: list[str]):
    """Every per-output value the chosen metrics need; the classifier, LM and naturalness share ``texts``."""
    from stviz.measures.fluency.naturalness import adversarial_naturalness
    from stviz.metrics import compute_metric

    values = pd.DataFrame(index=pairs.index)
    sources, outputs = pairs["source"].astype(str).tolist(), pairs["output"].astype(str).tolist()
    wanted = set(options.metrics)
    trained = None
    if wanted & {"accuracy", "g2", "h2", "j"}:
        accuracy, trained, target_probability = _classify(texts, pairs, options, rep, notes)
        if accuracy is not None:
            values["accuracy"], values["target_probability"] = accuracy, target_probability
    if "bertscore" in wanted:  # first: its pass over the texts leaves MiniLM's sentence vectors in the cache
        values["bertscore"] = compute_metric("bertscore", sources, outputs, progress=rep.stage("BERTScore"))
    if wanted & {"cosine", "j"}:
        values["cosine"] = compute_metric(f"cosine:{options.encoder}", sources, outputs,
                                          progress=rep.stage(f"Embedding inputs and outputs "
                                                             f"({encoder_label(options.encoder)})"))
    if "style_score" in wanted:
        from stviz.measures.style.scoring import leaderboard_style_score

        style_score = leaderboard_style_score(pairs, options.style_scorer, notes)
        if np.isfinite(style_score).any():  # no scorer applies (sentiment targets, 'none'): no column at all
            values["style_score"] = style_score
    if "naturalness" in wanted:
        try:
            scores = adversarial_naturalness(pairs, "unigram", human_texts=texts.naturalness_texts(),
                                             progress=rep.stage("Adversarial naturalness"))
            values["naturalness"] = scores["p_human_output"].to_numpy()
        except DataError as exc:
            notes.append(f"naturalness not computed: {exc}")
    lm_stats, fluent, fluency = None, None, ""
    if wanted & {"perplexity", "j"}:
        lm_stats, held, fluency = _fluency(texts, pairs, options, rep, notes)
        if lm_stats is not None and held:
            cut = {s: sysmod.fluency_threshold(v) for s, v in held.items()}
            per_sentence = sysmod.sentence_perplexity(lm_stats)
            limit = pairs["target_style"].astype(str).map(cut).to_numpy(dtype=float)
            fluent = np.where(np.isfinite(limit), (per_sentence <= limit).astype(float), np.nan)
    for column in texts.dataset.human_columns:
        values[column] = texts.dataset.oriented_human(column)  # pairs are the dataset's pairs, renamed
    return values, lm_stats, fluent, trained, fluency


__all__ = ["CrossFitted", "HELD_OUT", "LM_TRAINING", "per_output_values", "target_styles"]
