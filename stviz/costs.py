"""What a computation will cost before it starts: the work the disk cache does not hold yet, in seconds.

A page uses this to say "about 3 min the first time" and to wait for a click before a long cold
run, rather than starting it on arrival. Rates are the measured throughputs on the reference
machine (2 CPU cores, no GPU; ``docs/benchmarks.md``); a faster CPU simply finishes sooner. On a GPU
the neural measures' rates are the GPU's: measured on the device itself where its half-precision gate
ran (:func:`transformer_rate`), else those ``benchmarks/gpu.py`` measured on an H200.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

#: Sentences per second of a transformer embedder on 2 CPU cores (all-MiniLM-L6-v2, batches of 64).
TRANSFORMER_SENTENCES_PER_SECOND = 165.0
#: Pairs per second of the metrics that dominate a cold run (docs/benchmarks.md); others are ~1,000+.
PAIRS_PER_SECOND = {"bertscore": 81.0, "ne": 128.0, "wmd": 1028.0, "wmd-sim": 1028.0}
DEFAULT_PAIRS_PER_SECOND = 2000.0
#: On a GPU (an H200 in fp32, tokenizing included; benchmarks/gpu.py, docs/benchmarks.md): MiniLM sentences and
#: BERTScore pairs a second (31,110 texts in 1.32 s; 10,287 pairs in 5.5-6.9 s).
GPU_TRANSFORMER_SENTENCES_PER_SECOND = 23_600.0
GPU_PAIRS_PER_SECOND = {"bertscore": 1_500.0}
#: Bytes a model holds once loaded (weights and working buffers on CPU, measured as RSS growth on load): what a job
#: that must load it is estimated to need, so a server short of memory refuses it before it starts.
MODEL_BYTES = {"bertscore": 1.6e9, "transformer": 0.4e9}
#: Bytes per float kept for each sentence's vector while a run holds them (float32, with one working copy).
VECTOR_BYTES_PER_DIMENSION = 8
#: Seconds per point of the projections on 11,000 sentences (t-SNE 70 s; UMAP's first call 134 s).
PROJECTION_SECONDS_PER_POINT = {"tsne": 70 / 11_000, "umap": 134 / 11_000, "pca": 5 / 11_000}


@dataclass
class Cost:
    """The uncached work of a run: seconds on the reference machine, and what it consists of."""

    seconds: float = 0.0
    parts: list[str] = field(default_factory=list)
    #: Each part's own seconds, in the order of ``parts``: what each metric costs, said before it starts.
    part_seconds: list[float] = field(default_factory=list)
    #: Bytes the uncached work is estimated to hold at its peak (models to load, vectors to keep).
    memory: float = 0.0
    #: Calls to an outside service (an LLM judge): they may be paid for, so a page always asks first.
    calls: int = 0
    #: One line per service called: calls, measured time a call, concurrency, estimate.
    call_plans: list[str] = field(default_factory=list)

    def add(self, seconds: float, what: str, memory: float = 0.0) -> None:
        """Count a step (only when it has work to do), with the bytes it holds while it runs."""
        if seconds >= 1:
            self.seconds += seconds
            self.parts.append(what)
            self.part_seconds.append(seconds)
            self.memory += memory

    def merge(self, other: "Cost", prefix: str = "") -> None:
        """Count another estimate's parts as parts of this one (``prefix`` before each: a set's name)."""
        for what, seconds in zip(other.parts, other.part_seconds):
            self.add(seconds, prefix + what)
        self.memory += other.memory
        self.calls += other.calls
        self.call_plans += other.call_plans

    def itemised(self) -> list[str]:
        """Each part with what it costs, dearest first: 'BERTScore on 15,000 pairs: about 3 min'."""
        ranked = sorted(zip(self.parts, self.part_seconds), key=lambda item: -item[1])
        return [f"{what}: {describe_seconds(seconds)}" for what, seconds in ranked]


    def add_metric(self, name: str, sources: Sequence[str], outputs: Sequence[str], *, modification: str = "none",
                   lexicon=None) -> None:
        """Count one metric on these pairs: its seconds, and for an LLM judge its calls (timed on a few of them)."""
        from stviz.metrics import get_card

        label = f"{get_card(name).label} on {len(sources):,} pairs"
        if not name.split("+", 1)[0].startswith("llm:"):
            self.add(metric_seconds(name, sources, outputs, modification=modification, lexicon=lexicon), label,
                     metric_memory(name, len(sources)))
            return
        from stviz.metrics import is_cached
        from stviz.metrics.llm import plan
        from stviz.metrics.modify import apply_modification

        if is_cached(name, sources, outputs, modification=modification, lexicon=lexicon):
            return
        judged = plan(name.split("+", 1)[0], apply_modification(sources, modification, lexicon),
                      apply_modification(outputs, modification, lexicon))
        if judged.calls:
            self.calls += judged.calls
            self.call_plans.append(judged.describe())
            self.seconds += judged.seconds  # said even when quick: calls may be paid for
            unit = "pairs judged here" if judged.server is None else "LLM calls"
            self.parts.append(f"{label} ({judged.calls:,} {unit})")
            self.part_seconds.append(judged.seconds)


def embedding_seconds(texts: Sequence[str], spec: str) -> float:
    """Seconds to embed the texts the cache does not hold yet (embedders without a transformer count as free)."""
    from stviz.cache import default_cache
    from stviz.embedders import EmbedderError, embedder_backend, parse_embedder, vector_cache_id

    try:
        embedder = parse_embedder(spec)
    except EmbedderError:
        return 0.0  # the run itself reports why
    if embedder_backend(embedder) is None:  # word vectors, model2vec: thousands of sentences a second
        return 0.0
    unique = list(dict.fromkeys(str(t) for t in texts))
    _, missing = default_cache().get_vectors(vector_cache_id(embedder), unique)  # where embed() stores them
    return len(missing) / transformer_rate()


def transformer_rate() -> float:
    """Sentences a second a transformer embedder encodes here: the reference CPU's, or this GPU's.

    On a GPU, the rate measured by the half-precision gate of the shipped MiniLM when it ran on this
    device (in the precision then used), else the H200's measured fp32 rate.
    """
    from stviz.embedders import select_device

    if select_device() != "cuda":
        return TRANSFORMER_SENTENCES_PER_SECOND
    from stviz.embedders.base import MINILM_ID
    from stviz.embedders.precision import measured_gates

    rates = [g.rate if g.passed else g.rate / max(g.speedup, 1e-9) for g in measured_gates(f"st:{MINILM_ID}")]
    return max(rates, default=GPU_TRANSFORMER_SENTENCES_PER_SECOND)


def pairs_rate(metric: str) -> float:
    """Pairs a second one metric computes here (BERTScore's on a GPU is the GPU's)."""
    from stviz.embedders import select_device

    if metric in GPU_PAIRS_PER_SECOND and select_device() == "cuda":
        return GPU_PAIRS_PER_SECOND[metric]
    return PAIRS_PER_SECOND.get(metric, DEFAULT_PAIRS_PER_SECOND)


def embedding_memory(count: int, dimension: int = 768) -> float:
    """Bytes a transformer embedder holds to embed ``count`` sentences: its model and their vectors."""
    return MODEL_BYTES["transformer"] + count * dimension * VECTOR_BYTES_PER_DIMENSION


def metric_memory(name: str, pairs: int) -> float:
    """Bytes one metric holds on this many pairs: its model when it loads one (BERTScore, an embedder's cosine)."""
    base = name.split("+", 1)[0]
    if base == "bertscore":
        return MODEL_BYTES["bertscore"]
    return embedding_memory(2 * pairs) if base.startswith("cosine:") else 0.0


def metric_seconds(name: str, sources: Sequence[str], outputs: Sequence[str], *, modification: str = "none",
                   lexicon=None) -> float:
    """Seconds to compute one metric on these pairs, 0 when the cache holds it."""
    from stviz.metrics import get_card, is_cached

    if is_cached(name, sources, outputs, modification=modification, lexicon=lexicon):
        return 0.0
    if name.startswith("cosine:"):
        return embedding_seconds(list(sources) + list(outputs), get_card(name).options["embedder"])
    base = name.split("+", 1)[0]
    return len(sources) / pairs_rate(base)


def describe_bytes(size: float) -> str:
    """'1.6 GB' / '350 MB': a memory size said plainly."""
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def describe_seconds(seconds: float) -> str:
    """'about 3 min' / 'about 40 s': an estimate said as one."""
    from stviz.progress import format_seconds

    rounded = round(seconds / 60) * 60 if seconds >= 120 else round(seconds / 10) * 10 if seconds >= 20 else seconds
    return "about " + format_seconds(rounded).replace(" 00 s", "")


__all__ = ["Cost", "MODEL_BYTES", "PAIRS_PER_SECOND", "PROJECTION_SECONDS_PER_POINT", "TRANSFORMER_SENTENCES_PER_SECOND",
           "describe_bytes", "describe_seconds", "embedding_memory", "embedding_seconds", "metric_memory",
           "metric_seconds", "pairs_rate", "transformer_rate"]
