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
    from stviz.languages.measures import bleu_tokenised, board_encoder, fit_board_metrics

    dataset, notes = one_language(dataset, "a leaderboard")
    report = dataset_language(dataset)
    encoder = board_encoder(options.encoder, report.language)
    metrics, left_out = fit_board_metrics(options.metrics, options.classifier, report,
                                          {m: board_label(m, encoder) for m in options.metrics}, encoder)
    _, bleu_note = bleu_tokenised(report)
    notes += left_out + ([bleu_note] if bleu_note and {"bleu", "self_bleu"} & set(metrics) else [])
    return (dataset, replace(options, metrics=metrics, encoder=encoder or options.encoder), report.card.bleu_tokenize,
            notes)


def board_label(metric: str, encoder: str | None) -> str:
    """A board measure's label in a note: the cosine's with its encoder (none named when no encoder covers the
    language)."""
    from stviz.systems import metric_card, metric_label

    return metric_label(metric, encoder_label(encoder)) if encoder else metric_card(metric).label


def encoder_label(spec: str) -> str:
    """How the cosine's encoder is named beside its column: 'MiniLM', 'USE multilingual v3 (numpy port)', or the spec
    (``auto`` unresolved only where the board has no cosine: MiniLM's name, English's default)."""
    from stviz.embedders import embedder_name

    return embedder_name(spec) if spec not in ("auto", "") else "MiniLM"


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


__all__ = ["board_label", "encoder_label", "in_one_language", "style_texts_language"]
