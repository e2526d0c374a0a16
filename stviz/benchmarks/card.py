"""What a benchmark card says: the test inputs, references, directions and styles, the published systems with
where their outputs come from, their licence, and the numbers each paper reported.

A card holds no data: every path names a file of a corpus that ``data fetch`` downloads (verified by SHA-256,
``stviz/data/corpora/manifest.json``) or ``data import`` copies from a local folder. A card whose data cannot be shipped
(GYAFC) says how to obtain it instead (:attr:`Benchmark.obtain`). A card whose test was released as one table of
pairs (RUSSE 2022's judged final test: one CSV row per input and system) reads it through the built-in dataset that
loads it (:attr:`Benchmark.pairs_from`), and may take a published number from it (:class:`ReleasedScore`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


#: The directions of a sentiment test set released as negative inputs (0) and positive inputs (1).
SENTIMENT_DIRECTIONS = {"0": ("negative", "positive"), "1": ("positive", "negative")}


@dataclass(frozen=True)
class Reported:
    """A number a paper printed for a system on this benchmark, with the table it comes from."""

    metric: str  # as stviz names it: "bleu", "self_bleu", "chrf", "accuracy" (in %)
    value: float
    source: str  # "Luo et al. 2019, Table 2", or the third party that quotes it
    setup: str = ""  # how the paper computed it (references, tokenisation, classifier)


@dataclass(frozen=True)
class ReleasedScore:
    """A number published with the release itself, computed from it when the board is built (never copied into the
    card): one human column of the card's pairs, averaged over each published system's outputs."""

    metric: str  # the stviz measure it is put beside ("j")
    column: str  # the human column of the pairs, as released ("J")
    source: str  # where it comes from, said in the table's "reported in" column
    setup: str  # why it differs from stviz's measure, said in the table's "why they differ" column
    scale: float = 1.0  # to stviz's unit for the measure (100: a 0/1 judgment's mean as stviz's J, in %)


@dataclass(frozen=True)
class PublishedSystem:
    """One published system's released outputs on a benchmark: its name, paper, files and reported numbers."""

    name: str
    paper: str
    #: direction -> "corpus/path" of the file holding its outputs (input<TAB>output or bare lines; see Benchmark.inputs).
    files: dict[str, str]
    #: Where the outputs are published: repository and path (and other copies found identical).
    source: str
    licence: str
    reported: tuple[Reported, ...] = ()

    def reported_value(self, metric: str) -> Reported | None:
        """The number the paper reported for ``metric`` (None when it was not found)."""
        return next((r for r in self.reported if r.metric == metric), None)


@dataclass(frozen=True)
class Benchmark:
    """A standard test set: inputs, human references, styles per direction, and the published systems on it."""

    name: str
    title: str  # "the Yelp test set of Li et al. 2018"
    description: str
    #: direction -> "corpus/path" of the official inputs, one per line; "corpus/path.tsv#COLUMN" names a column of a
    #: tab-separated file with a header (RUSSE 2022's dev.tsv), read line by line as released.
    inputs: dict[str, str]
    #: direction -> (source style, target style)
    directions: dict[str, tuple[str, str]]
    #: One entry per reference set: direction -> "corpus/path" (``input<TAB>reference`` or bare lines).
    references: tuple[dict[str, str], ...]
    reference_notes: str
    systems: tuple[PublishedSystem, ...]
    licence: str
    #: Style texts for the classifier, language model and naturalness ("yelp-sentiment", or "" for the dataset's own).
    style_data: str = ""
    #: A dataset whose labelled texts the board keeps (Li et al.'s dev sentences for Amazon and captions).
    texts_from: str = ""
    #: How the papers computed their numbers, said beside every reported-vs-recomputed table.
    reported_setup: str = ""
    #: Why some reported cells are empty (a paper that could not be read here), said beside the table too.
    reported_note: str = ""
    #: The measures the reported-vs-recomputed table compares (as stviz names them).
    reported_metrics: tuple[str, ...] = ("bleu", "accuracy")
    #: Numbers the release itself publishes per system (its human judgments), beside the papers' ``reported`` ones.
    reported_from: tuple[ReleasedScore, ...] = ()
    #: A built-in dataset whose rows are the card's pairs as released, one per (input, published system) (RUSSE 2022's
    #: judged test, a quoted CSV): its distinct sources in order of first appearance are the one direction's inputs,
    #: its ``reference`` the one reference set, its systems the published ones, and its human columns stay on the
    #: pairs. ``inputs``, ``references`` and the systems' ``files`` then name the release's columns
    #: ("corpus/file.csv#COLUMN", for the card's corpora and its readers), read through the dataset.
    pairs_from: str = ""
    #: Why the data cannot be fetched and how a user gets it; set for benchmarks that are never shipped.
    obtain: str = ""
    citations: tuple[str, ...] = field(default_factory=tuple)

    @property
    def corpora(self) -> list[str]:
        """The corpora the benchmark's files come from (what ``data fetch NAME`` gets)."""
        paths = [*self.inputs.values(), *(p for refs in self.references for p in refs.values()),
                 *(p for s in self.systems for p in s.files.values())]
        return list(dict.fromkeys(p.split("/", 1)[0] for p in paths))

    @property
    def published_names(self) -> list[str]:
        """The published systems' names, in the card's order."""
        return [s.name for s in self.systems]

    def system(self, name: str) -> PublishedSystem | None:
        """The published system called ``name`` (None when the card lists none)."""
        return next((s for s in self.systems if s.name == name), None)


__all__ = ["Benchmark", "PublishedSystem", "ReleasedScore", "Reported", "SENTIMENT_DIRECTIONS"]
