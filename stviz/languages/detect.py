"""The language of a dataset's texts: per column, per pair, and whether the file mixes languages.

Detection is py3langid (Lui & Baldwin 2012's langid.py, modernised; its model ships inside the
wheel, 97 languages, numpy only): about 26,000 short sentences a second on one core here, and 200
of the 200 test sentences of ``tests/multilingual_data.py`` right once macro-languages are folded
(langdetect: 190 at 540/s; lingua: 194 at 21/s). A column's distinct texts are sampled above
:data:`SAMPLE` (said in the line); pairs are detected one by one (input and output together, so a
two-word output does not decide alone) up to :data:`ROW_LIMIT`.

Short texts mislead any detector: a row whose language is rare in the file (under
:data:`MIN_SHARE` of the pairs, and in the main language's script) is read as the main language
rather than as a language mix; the line says how many were.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from stviz.data.schema import DataError, Dataset
from stviz.languages.cards import MACRO, UNKNOWN, language_card, language_name

#: Distinct texts of a column looked at (seeded sample above it).
SAMPLE = 2000
#: Pairs detected one by one up to this many (above, only the columns are sampled and no mix is split).
ROW_LIMIT = 100_000
#: A language in the main language's script is taken for detection noise under this share of the pairs or under
#: MIN_PAIRS pairs: on short sentences, detectors confuse languages of one script (English read as Nigerian Pidgin),
#: and a real mix of two such languages has many pairs of each.
MIN_SHARE = 0.2
MIN_PAIRS = 10
#: Bump when detection changes (the detector, its sampling, :func:`_fold`): kept reports of the old one are not read.
DETECTION_VERSION = 1
#: The attribute a dataset keeps its report under (computed once per dataset object and language choice).
_CACHED = "_language_report"


def detect_texts(texts: Sequence[str]) -> list[str]:
    """The language code of each text (``und`` for a text without letters)."""
    import py3langid

    out = []
    for text in texts:
        text = str(text).strip()
        if not any(ch.isalpha() for ch in text):
            out.append(UNKNOWN)
            continue
        code = py3langid.classify(text)[0]
        out.append(UNKNOWN if code == "zxx" else MACRO.get(code, code))
    return out


@dataclass(frozen=True)
class ColumnLanguages:
    """What was detected in one text column: code -> texts, over how many texts (of how many)."""

    label: str
    counts: dict[str, int]
    looked_at: int
    total: int

    @property
    def main(self) -> str:
        """The column's most frequent language."""
        known = {k: v for k, v in self.counts.items() if k != UNKNOWN} or self.counts
        return max(known, key=known.get) if known else UNKNOWN

    def describe(self) -> str:
        """'1,600 of 1,600 outputs' (and the sample when there was one)."""
        text = f"{self.counts.get(self.main, 0):,} of {self.looked_at:,} {self.label}"
        return text + (f", a sample of {self.total:,}" if self.looked_at < self.total else "")


@dataclass(frozen=True)
class LanguageReport:
    """A dataset's language: the one measures are chosen for, what was detected, and the pairs' languages."""

    language: str
    columns: tuple[ColumnLanguages, ...] = ()
    #: Languages of the pairs (noise folded into the main one) -> number of pairs; empty without pairs.
    languages: dict[str, int] = field(default_factory=dict)
    #: The language of each pair, aligned with the pairs (None when there are too many to detect one by one).
    rows: tuple[str, ...] | None = None
    chosen: bool = False
    folded: int = 0

    @property
    def mixed(self) -> bool:
        """Whether the pairs are in more than one language."""
        return len(self.languages) > 1

    @property
    def card(self):
        """The language's card (stviz.languages.cards)."""
        return language_card(self.language)

    @property
    def detected(self) -> str:
        """The language the texts were detected in (the first column's main language)."""
        return self.columns[0].main if self.columns else UNKNOWN

    def line(self) -> str:
        """'language: ru (detected in 1,600 of 1,600 outputs)': the line every command and page shows."""
        if self.mixed and not self.chosen:
            parts = ", ".join(f"{code} {n:,} pairs" for code, n in sorted(self.languages.items(), key=lambda x: -x[1]))
            return f"language: mixed ({parts}; detected per pair on input and output)"
        found = "; ".join(f"{c.main} in {c.describe()}" for c in self.columns)
        if self.chosen:
            text = f"language: {self.language} (set by you; detected {found or 'nothing'})"
        else:
            first = self.columns[0].describe() if self.columns else "no text"
            rest = "; ".join(f"{c.label}: {c.main}" for c in self.columns[1:])
            text = f"language: {self.language} (detected in {first}{'; ' + rest if rest else ''})"
        if self.folded:
            text += f"; {self.folded:,} short pairs detected as another language are read as {self.language}"
        return text

    def sentence(self) -> str:
        """The line as a page caption: 'Language: Russian (ru), detected in ...'."""
        return "Language: " + self.line()[len("language: "):].replace(f"{self.language} (", f"{language_name(self.language)} (", 1)


def _column(label: str, texts: Sequence[str], seed: int = 0) -> ColumnLanguages | None:
    texts = [str(t) for t in texts if isinstance(t, str) and t.strip()]
    if not texts:
        return None
    distinct = list(dict.fromkeys(texts))
    looked = distinct if len(distinct) <= SAMPLE else random.Random(seed).sample(distinct, SAMPLE)
    code_of = dict(zip(looked, detect_texts(looked)))
    if len(looked) == len(distinct):  # every text counted, repeats included (1,600 outputs of 800 inputs)
        counts, n, total = Counter(code_of[t] for t in texts), len(texts), len(texts)
    else:
        counts, n, total = Counter(code_of.values()), len(looked), len(distinct)
    return ColumnLanguages(label, dict(counts), n, total)


def _fold(codes: list[str]) -> tuple[list[str], int]:
    """Each pair's language with rare same-script detections read as the main language; and how many were."""
    counts = Counter(c for c in codes if c != UNKNOWN)
    if not counts:
        return codes, 0
    main = counts.most_common(1)[0][0]
    script = language_card(main).script
    real = {code for code, n in counts.items()
            if code == main or n >= max(MIN_PAIRS, MIN_SHARE * len(codes))
            or (n >= 2 and language_card(code).script not in (script, "unknown"))}
    folded = [c if c in real else main for c in codes]
    return folded, sum(1 for c in codes if c not in real and c != UNKNOWN)


def detect_dataset(dataset: Dataset) -> LanguageReport:
    """Detect a dataset's language (no cache: see :func:`dataset_language`)."""
    columns, languages, rows, folded = [], {}, None, 0
    pairs = dataset.pairs
    if pairs is not None:
        columns.append(_column("outputs", pairs["output"].tolist()))
        columns.append(_column("inputs", pairs["source"].tolist()))
        references = [v for c in dataset.reference_columns for v in pairs[c].tolist()]
        columns.append(_column("references", references))
        if len(pairs) <= ROW_LIMIT:
            joined = (pairs["source"].astype(str) + "\n" + pairs["output"].astype(str)).tolist()
            rows, folded = _fold(detect_texts(joined))
            languages = dict(Counter(rows))
            main = max(languages, key=languages.get)
            rows = [main if c == UNKNOWN else c for c in rows]
            languages = dict(Counter(rows))
    if dataset.texts is not None:
        columns.append(_column("texts", dataset.texts["text"].tolist()))
    columns = tuple(c for c in columns if c is not None)
    detected = columns[0].main if columns else UNKNOWN
    if languages and not len(languages) > 1:
        detected = next(iter(languages))
    return LanguageReport(detected, columns, languages, tuple(rows) if rows is not None else None, folded=folded)


def _kept_detection(dataset: Dataset) -> LanguageReport:
    """:func:`detect_dataset`, kept in the disk cache under the content of the texts it reads.

    Why: every pair is classified (up to :data:`ROW_LIMIT`), about 0.5 s for SGDD-TST's 10,287 pairs; a new server
    (its warmer plans every built-in view) and each worker process reading a dataset paid it again.
    """
    from stviz.cache import default_cache

    pairs, texts = dataset.pairs, dataset.texts
    read = {"pairs": None if pairs is None else pairs[["source", "output", *dataset.reference_columns]],
            "texts": None if texts is None else texts["text"], "version": DETECTION_VERSION}
    return default_cache().memo("language-report", read, lambda: detect_dataset(dataset))


def dataset_language(dataset: Dataset) -> LanguageReport:
    """The dataset's language report, computed once per dataset object; ``dataset.language`` (set by the user) wins."""
    cached = dataset.__dict__.get(_CACHED)
    if cached is not None and cached[0] == dataset.language:
        return cached[1]
    report = _kept_detection(dataset) if cached is None else cached[2]
    detected = report
    if dataset.language:
        report = dataclasses.replace(report, language=dataset.language, chosen=True)
    dataset.__dict__[_CACHED] = (dataset.language, report, detected)
    return report


def with_language(dataset: Dataset, code: str | None) -> Dataset:
    """The dataset with its language set by the user (None or '' or 'auto': detected), detection kept."""
    code = None if code in (None, "", "auto") else MACRO.get(code.strip().lower(), code.strip().lower())
    if code is not None and not code.replace("-", "").isalpha():
        raise DataError(f"'{code}' is not a language code: give an ISO 639-1 code such as en, ru, zh, ar")
    cached = dataset.__dict__.get(_CACHED)
    out = dataclasses.replace(dataset, language=code)
    if cached is not None:
        out.__dict__[_CACHED] = (None, cached[2], cached[2])
    return out


def one_language(dataset: Dataset, what: str) -> tuple[Dataset, list[str]]:
    """The dataset's pairs in one language: as they are, those of the language the user chose, or a refusal.

    A comparison across languages (a leaderboard, a correlation) would rank languages, not systems or
    metrics; a mixed file is refused with the languages found and how to choose one.
    """
    report = dataset_language(dataset)
    if not report.mixed:
        return dataset, []
    found = ", ".join(f"{language_name(c)}: {n:,} pairs" for c, n in sorted(report.languages.items(), key=lambda x: -x[1]))
    if not report.chosen:
        raise DataError(f"the pairs are in several languages ({found}); {what} across languages would mean nothing: "
                        f"choose one with --language CODE (on the page: Language, on Home)")
    if report.language not in report.languages:
        raise DataError(f"no pairs in {language_name(report.language)}: the pairs are in {found}")
    keep = [code == report.language for code in report.rows]
    part = dataclasses.replace(dataset, pairs=dataset.pairs[keep])
    n = sum(keep)
    part.__dict__[_CACHED] = (dataset.language, dataclasses.replace(report, languages={report.language: n},
                                                                    rows=(report.language,) * n), report)
    return part, [f"{n:,} of {len(keep):,} pairs are in {language_name(report.language)} and are the ones compared "
                  f"(the file also has {found})"]


__all__ = ["SAMPLE", "ROW_LIMIT", "ColumnLanguages", "LanguageReport", "dataset_language", "detect_dataset",
           "detect_texts", "one_language", "with_language"]
