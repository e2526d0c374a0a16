"""The Leaderboard's language: the pairs of one language, the board's measures valid for it (stviz.languages), and
style texts of the same language as the outputs."""

from __future__ import annotations

from dataclasses import replace

from stviz.data.labels import StyleTexts
from stviz.data.schema import DataError, Dataset


def in_one_language(dataset: Dataset, options):
    """The pairs of one language, the measures valid for it, BLEU's sacrebleu tokeniser, and notes (stviz.languages):
    (dataset, options, tokeniser, notes)."""
    from stviz.languages import dataset_language, one_language
    from stviz.languages.measures import bleu_tokenised, fit_board_metrics
    from stviz.systems import metric_card

    dataset, notes = one_language(dataset, "a leaderboard")
    report = dataset_language(dataset)
    metrics, left_out = fit_board_metrics(options.metrics, options.classifier, report,
                                          {m: metric_card(m).label for m in options.metrics})
    _, bleu_note = bleu_tokenised(report)
    notes += left_out + ([bleu_note] if bleu_note and {"bleu", "self_bleu"} & set(metrics) else [])
    return dataset, replace(options, metrics=metrics), report.card.bleu_tokenize, notes


def style_texts_language(style_texts: StyleTexts, language: str) -> None:
    """Refuse style texts of another language than the outputs: a classifier or LM of English texts judges Russian by
    nothing."""
    from stviz.languages import dataset_language, language_name

    if not style_texts.companion:
        return
    theirs = dataset_language(style_texts.corpus).language
    if theirs != language:
        raise DataError(f"the style data {style_texts.corpus.name} is in {language_name(theirs)} and the outputs in "
                        f"{language_name(language)}: give --style-data own, or a file of {language_name(language)} "
                        "texts with their styles")


__all__ = ["in_one_language", "style_texts_language"]
