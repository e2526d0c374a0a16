"""The language of a dataset's texts: per column, per pair, and whether the file mixes languages.

A pair's language is data: a file's own language column (``language``, ``lang``, ``locale``; ISO 639 codes or
English names) says it for every pair it fills, and detection runs only where no column says it. Detection is
py3langid (Lui & Baldwin 2012's langid.py, modernised; its model ships inside the wheel, 142 labels, numpy only):
about 26,000 short sentences a second on one core here, and 200 of the 200 test sentences of
``tests/multilingual_data.py`` right once macro-languages are folded (langdetect: 190 at 540/s; lingua: 194 at
21/s). A column's distinct texts are sampled above :data:`SAMPLE` (said in the line); pairs are detected one by one
(input and output together, so a two-word output does not decide alone) up to :data:`ROW_LIMIT`.

Short texts mislead any detector: on SGDD-TST's 10,287 English pairs py3langid names Nigerian Pidgin 34 times. A
detected language is taken as real when it is a language of its own script (Amharic beside Russian, Telugu beside
Hindi: never another language's noise), or has at least :data:`FEW_DOZEN` pairs that are not a sliver of a large
file (:data:`MIN_RATE`), or a large share of a small one (:data:`MIN_SHARE`). A pair detected as a rarer language of
a real language's script is detected again among the real languages of that script (Belarusian in a
Russian-Ukrainian file is read as whichever of the two it is closer to); the line says how many were.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from stviz.data.schema import DataError, Dataset
from stviz.languages.cards import MACRO, SEVERAL, UNKNOWN, language_card, language_name, parse_language

#: Distinct texts of a column looked at (seeded sample above it).
SAMPLE = 2000
#: Pairs detected one by one up to this many (above, only the columns are sampled and no mix is split).
ROW_LIMIT = 100_000
#: A detected language of the main language's script is real with this share of the pairs (and MIN_PAIRS pairs) ...
MIN_SHARE = 0.2
MIN_PAIRS = 10
#: ... or with a few dozen pairs that are at least this share of the file (so 34 'Nigerian Pidgin' pairs among
#: SGDD-TST's 10,287 English ones stay English, and 1,800 Ukrainian pairs among 16,599 are Ukrainian).
FEW_DOZEN = 40
MIN_RATE = 0.005
#: The pairs' language column of a dataset (codes; '' where the file says none), set by the intake.
LANGUAGE_COLUMN = "language"
#: Bump when detection changes (the detector, its sampling, :func:`_fold`): kept reports of the old one are not read.
DETECTION_VERSION = 2
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
    #: Pairs whose language the file's own language column says ('' cells are detected, ``filled`` of them).
    from_column: int = 0
    filled: int = 0

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
        """The language the texts were detected in (the first column's main language), or the column's."""
        if self.from_column and self.languages:
            return max(self.languages, key=self.languages.get)
        return self.columns[0].main if self.columns else UNKNOWN

    def origin(self) -> str:
        """Where the pairs' languages came from: 'from the file's language column', 'detected per pair ...'."""
        if not self.from_column:
            return "detected per pair on input and output"
        text = "from the file's language column"
        return text + (f"; {self.filled:,} pairs it leaves empty detected" if self.filled else "")

    def line(self) -> str:
        """'language: ru (detected in 1,600 of 1,600 outputs)': the line every command and page shows."""
        if self.mixed and not self.chosen:
            parts = ", ".join(f"{code} {n:,} pairs" for code, n in sorted(self.languages.items(), key=lambda x: -x[1]))
            text = f"language: mixed ({parts}; {self.origin()})"
        elif self.chosen:
            said = (self.origin() if self.from_column else
                    "detected " + ("; ".join(f"{c.main} in {c.describe()}" for c in self.columns) or "nothing"))
            text = f"language: {self.language} (set by you; {said})"
        elif self.from_column:
            text = f"language: {self.language} ({self.origin()})"
        else:
            first = self.columns[0].describe() if self.columns else "no text"
            rest = "; ".join(f"{c.label}: {c.main}" for c in self.columns[1:])
            text = f"language: {self.language} (detected in {first}{'; ' + rest if rest else ''})"
        if self.folded:
            text += (f"; {self.folded:,} short pairs detected as a rarer language of the same script are read as "
                     f"{'the closest of ' + ', '.join(sorted(self.languages)) if self.mixed else self.language}")
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


def real_languages(counts: Counter, total: int) -> set[str]:
    """The detected languages taken as real (see the module docstring): the most frequent, the most frequent of every
    other script (in two pairs or more), and those with enough pairs."""
    if not counts:
        return set()
    # The most frequent language of each script is real (Telugu beside Hindi and Russian; never folded into either).
    tops: dict[str, str] = {}
    for code, n in counts.most_common():
        tops.setdefault(language_card(code).script, code)
    main = counts.most_common(1)[0][0]
    return {code for code, n in counts.items()
            if code == main or (n >= FEW_DOZEN and n >= MIN_RATE * total)
            or (n >= max(MIN_PAIRS, MIN_SHARE * total))
            or (n >= 2 and tops[language_card(code).script] == code)}


def _closest(text: str, allowed: set[str]) -> str:
    """The most likely of ``allowed`` languages for a text (py3langid's ranking, read in the detector's codes)."""
    import py3langid

    for code, _ in py3langid.rank(text):
        if MACRO.get(code, code) in allowed:
            return MACRO.get(code, code)
    return sorted(allowed)[0]


def _fold(codes: list[str], texts: Sequence[str], known: Counter | None = None) -> tuple[list[str], int]:
    """Each pair's language with rare same-script detections read as the closest real language of that script;
    and how many were. ``known``: languages a file's column already says (real whatever their count)."""
    counts = Counter(c for c in codes if c != UNKNOWN) + (known or Counter())
    real = real_languages(counts, sum(counts.values())) | set(known or ())
    folded, changed = [], 0
    for code, text in zip(codes, texts):
        if code == UNKNOWN or code in real:
            folded.append(code)
            continue
        script = language_card(code).script
        same = {r for r in real if language_card(r).script == script} or real
        folded.append(_closest(text, same) if len(same) > 1 else next(iter(same)))
        changed += 1
    return folded, changed


def detect_dataset(dataset: Dataset) -> LanguageReport:
    """Detect a dataset's language (no cache: see :func:`dataset_language`): a language column's pairs as it says."""
    columns, languages, rows, folded, from_column, filled = [], {}, None, 0, 0, 0
    pairs = dataset.pairs
    if pairs is not None:
        columns.append(_column("outputs", pairs["output"].tolist()))
        columns.append(_column("inputs", pairs["source"].tolist()))
        references = [v for c in dataset.reference_columns for v in pairs[c].tolist()]
        columns.append(_column("references", references))
        given = (pairs[LANGUAGE_COLUMN].fillna("").astype(str).tolist() if LANGUAGE_COLUMN in pairs
                 else [""] * len(pairs))
        from_column = sum(1 for g in given if g)
        if len(pairs) <= ROW_LIMIT or from_column == len(pairs):
            rows, folded, filled = _pair_languages(pairs, given)
            languages = dict(Counter(rows))
    if dataset.texts is not None:
        columns.append(_column("texts", dataset.texts["text"].tolist()))
    columns = tuple(c for c in columns if c is not None)
    detected = columns[0].main if columns else UNKNOWN
    if languages and not len(languages) > 1:
        detected = next(iter(languages))
    return LanguageReport(detected, columns, languages, tuple(rows) if rows is not None else None, folded=folded,
                          from_column=from_column, filled=filled)


def _pair_languages(pairs, given: list[str]) -> tuple[list[str], int, int]:
    """Each pair's language: the column's where it says one, else detected (folded); (rows, folded, filled)."""
    missing = [i for i, g in enumerate(given) if not g]
    rows = list(given)
    folded = 0
    if missing:
        joined = (pairs["source"].astype(str) + "\n" + pairs["output"].astype(str)).tolist()
        texts = [joined[i] for i in missing]
        codes, folded = _fold(detect_texts(texts), texts, Counter(g for g in given if g))
        for i, code in zip(missing, codes):
            rows[i] = code
    counts = Counter(c for c in rows if c != UNKNOWN)
    main = counts.most_common(1)[0][0] if counts else UNKNOWN
    rows = [main if c == UNKNOWN else c for c in rows]
    return rows, folded, len(missing) if len(missing) < len(given) else 0


def _kept_detection(dataset: Dataset) -> LanguageReport:
    """:func:`detect_dataset`, kept in the disk cache under the content of the texts it reads.

    Why: every pair is classified (up to :data:`ROW_LIMIT`), about 0.5 s for SGDD-TST's 10,287 pairs; a new server
    (its warmer plans every built-in view) and each worker process reading a dataset paid it again.
    """
    from stviz.cache import default_cache

    pairs, texts = dataset.pairs, dataset.texts
    texts_read = ["source", "output", *dataset.reference_columns] + ([LANGUAGE_COLUMN] if pairs is not None
                                                                     and LANGUAGE_COLUMN in pairs else [])
    read = {"pairs": None if pairs is None else pairs[texts_read],
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
    if code in (None, "", "auto"):
        code = None
    else:
        parsed = parse_language(code)
        if parsed is None and not str(code).strip().replace("-", "").isalpha():
            raise DataError(f"'{code}' is not a language: give an ISO 639 code such as en, ru, zh, ar (or uk, am, "
                            "ukr, amh) or an English name such as Ukrainian")
        code = parsed or MACRO.get(str(code).strip().lower(), str(code).strip().lower())
    cached = dataset.__dict__.get(_CACHED)
    out = dataclasses.replace(dataset, language=code)
    if cached is not None:
        out.__dict__[_CACHED] = (None, cached[2], cached[2])
    return out


def facet_languages(dataset: Dataset) -> list[str]:
    """The languages a view of one language at a time offers on ``dataset``, largest first (the page's Language facet
    and the server's warm jobs); [] when its pairs are in one language or the user chose one."""
    report = dataset_language(dataset)
    if not report.mixed or report.chosen:
        return []
    return sorted(report.languages, key=lambda c: (-report.languages[c], c))


def _found(report: LanguageReport) -> str:
    return ", ".join(f"{language_name(c)}: {n:,} pairs" for c, n in sorted(report.languages.items(),
                                                                           key=lambda x: -x[1]))


def _part(dataset: Dataset, report: LanguageReport, code: str) -> Dataset:
    """The pairs of one language, knowing their language (its report kept on the part: nothing is detected again)."""
    keep = [c == code for c in report.rows]
    part = dataclasses.replace(dataset, pairs=dataset.pairs[keep])
    n = sum(keep)
    part_report = dataclasses.replace(report, language=code, languages={code: n}, rows=(code,) * n,
                                      from_column=min(report.from_column, n), filled=0, folded=0)
    part.__dict__[_CACHED] = (dataset.language, part_report, part_report)
    return part


def same_language(whole: Dataset, part: Dataset) -> Dataset:
    """``part`` (a sample of ``whole``'s pairs, or its pairs rewritten: damaged outputs) told ``whole``'s language
    report, so nothing is detected again: a shuffled or truncated text says nothing new about its language."""
    report = dataset_language(whole)
    if report.rows is not None and part.pairs is not None and whole.pairs is not None:
        # Each pair keeps its own language, by its label in the whole (a sample's rows are a subset, in its order).
        by_label = dict(zip(whole.pairs.index, report.rows))
        rows = tuple(by_label.get(label, report.language) for label in part.pairs.index)
        report = dataclasses.replace(report, rows=rows, languages=dict(Counter(rows)))
    part.__dict__[_CACHED] = (whole.language, report, report)
    return part


def one_language(dataset: Dataset, what: str) -> tuple[Dataset, list[str]]:
    """The dataset's pairs in one language: as they are, those of the language the user chose, or a refusal.

    For a view that shows one language at a time; :func:`language_parts` gives every language's pairs for the views
    that compute one table per language in one run.
    """
    report = dataset_language(dataset)
    if not report.mixed:
        return dataset, []
    if not report.chosen:
        raise DataError(f"the pairs are in several languages ({_found(report)}); {what} across languages would mean "
                        f"nothing: choose one with --language CODE (on the page: Language)")
    if report.language not in report.languages:
        raise DataError(f"no pairs in {language_name(report.language)}: the pairs are in {_found(report)}")
    part = _part(dataset, report, report.language)
    n, total = len(part.pairs), len(dataset.pairs)
    return part, [f"{n:,} of {total:,} pairs are in {language_name(report.language)} and are the ones compared "
                  f"(the file has {_found(report)})"]


def language_parts(dataset: Dataset) -> list[Dataset]:
    """The dataset's pairs per language, largest first: one part per language of a mixed file, the chosen
    language's pairs when the user chose one (``--language``), else the dataset itself."""
    report = dataset_language(dataset)
    if not report.mixed:
        return [dataset]
    if report.chosen:
        return [one_language(dataset, "this")[0]]
    order = sorted(report.languages, key=lambda c: (-report.languages[c], c))
    return [_part(dataset, report, code) for code in order]


def pooled(dataset: Dataset) -> Dataset:
    """Every pair of a file of several languages taken together, its language :data:`~stviz.languages.cards.SEVERAL`:
    only the measures valid for any language are computed on it (chrF, not MiniLM's English cosine)."""
    report = dataset_language(dataset)
    out = dataclasses.replace(dataset)
    together = dataclasses.replace(report, language=SEVERAL, chosen=False)
    out.__dict__[_CACHED] = (dataset.language, together, together)
    return out


def part_language(dataset: Dataset) -> str:
    """The language of a dataset's pairs when they are all in one (a part of :func:`language_parts`), else ''."""
    report = dataset_language(dataset)
    return "" if report.mixed else report.language


__all__ = ["FEW_DOZEN", "LANGUAGE_COLUMN", "MIN_RATE", "SAMPLE", "ROW_LIMIT", "ColumnLanguages", "LanguageReport",
           "dataset_language", "detect_dataset", "detect_texts", "facet_languages", "language_parts", "one_language",
           "part_language", "pooled", "same_language",
           "real_languages", "with_language"]
