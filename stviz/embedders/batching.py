"""Tokenize once, batch by length: how transformer encoders are fed, on a GPU or a CPU.

Profiled on an H200 (issue 44), stviz's MiniLM spent 2-4 s of 3.3 s tokenizing 31,574 texts:
sentence-transformers' ``encode`` tokenizes each batch just before running it, so the device waits
for the tokenizer, batch after batch. Here texts are tokenized a chunk at a time in a background
thread while the encoder runs on the previous chunk, each distinct text exactly once, by the
model's own tokenizer call (so the features are the library's, padding and truncation included).
Within a chunk the rows are sorted by their token count and cut into batches that hold at most
``rows`` texts and ``tokens`` padded tokens, each trimmed to its own longest text: a batch of short
texts pads to a short length. On a GPU the token budget comes from the free memory
(:func:`batch_limits`), so batches are as large as the device holds.

One thread tokenizes: a Hugging Face fast tokenizer is reconfigured by every call and refuses
concurrent use ("Already borrowed"); its Rust core spreads one batch over the cores itself.

The tokenizer's Python call spends more time than its Rust core: it turns every text's encoding into
Python lists and dictionaries, then the lists into tensors (on an H200's host, 5.1 s of sentence-
transformers' tokenizing for 31,110 texts). :class:`FastFeatures` calls the Rust core of its own copy
of the tokenizer and fills the arrays directly; it is used for a model only after it gave exactly the
library's features on a set of test texts (:func:`verified_tokenize`), else the library's call is.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from stviz.progress import Progress

#: ``fn(texts) -> features``: the model's own tokenizer call (padded, truncated tensors or arrays).
Tokenize = Callable[[list], dict]
#: ``fn(features) -> vectors``: one batch through the encoder (a torch tensor, on any device, or an array).
Run = Callable[[dict], object]

log = logging.getLogger(__name__)

#: Texts tokenized per call: large enough that the tokenizer's own threads have work, small enough that
#: the first batch starts at once and padding to a chunk's longest text stays cheap.
CHUNK = 4096
#: Rows per batch on a CPU (64 was fastest for MiniLM on 2 cores; docs/benchmarks.md).
CPU_ROWS = 64
#: The most rows per batch on a GPU (MiniLM's forward pass was fastest at 1,024, length-sorted).
GPU_ROWS = 1024
#: The share of the GPU's free memory one batch's activations may take (the rest: the model, other work).
GPU_MEMORY_SHARE = 0.25


@dataclass(frozen=True)
class BatchLimits:
    """How large one batch may be: at most ``rows`` texts and ``tokens`` padded tokens."""

    rows: int
    tokens: int


def batch_limits(device: str, hidden_size: int = 384, dtype_bytes: int = 4, rows: int | None = None) -> BatchLimits:
    """Batch limits for ``device``: fixed rows on a CPU; on a GPU a token budget from its free memory."""
    if device != "cuda":
        rows = rows or CPU_ROWS
        return BatchLimits(rows=rows, tokens=rows * 512)
    import torch

    free, _ = torch.cuda.mem_get_info()
    # Inference keeps one layer's activations alive: about 20 values of the hidden width per token
    # (projections, feed-forward, residuals) plus the attention scores; 80 * hidden bytes in fp32
    # leaves room for the scores of texts up to 512 tokens.
    per_token = 80 * hidden_size * dtype_bytes
    tokens = int(free * GPU_MEMORY_SHARE // per_token)
    return BatchLimits(rows=rows or GPU_ROWS, tokens=max(tokens, 512))


@dataclass
class TokenBatch:
    """One batch: the positions of its texts in the caller's list, and their tokenizer features."""

    rows: np.ndarray
    features: dict


def token_batches(texts: Sequence[str], tokenize: Tokenize, limits: BatchLimits,
                  chunk: int = CHUNK) -> Iterator[TokenBatch]:
    """``texts`` tokenized a chunk at a time in a background thread, yielded as length-sorted batches.

    Chunks follow the texts' character lengths, so each chunk pads to a similar length; the next
    chunk is tokenized while the caller runs the batches of this one.
    """
    order = np.argsort([len(t) for t in texts], kind="stable")
    chunks = [order[start:start + chunk] for start in range(0, len(order), chunk)]
    if not chunks:
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="stviz-tokenize") as pool:
        pending = pool.submit(tokenize, [texts[i] for i in chunks[0]])
        for k, rows in enumerate(chunks):
            features = pending.result()
            if k + 1 < len(chunks):
                pending = pool.submit(tokenize, [texts[i] for i in chunks[k + 1]])
            yield from split_batches(rows, features, limits)


def split_batches(rows: np.ndarray, features: dict, limits: BatchLimits) -> Iterator[TokenBatch]:
    """One tokenized chunk cut into batches within ``limits``, shortest texts first, each trimmed to its longest."""
    mask = _array(features["attention_mask"])
    lengths = mask.sum(axis=1)
    right_padded = bool(mask[:, 0].all()) or not bool(mask[:, -1].all())
    order = np.argsort(lengths, kind="stable")
    start = 0
    while start < len(order):
        end = start + 1
        # Sorted ascending, so the last row of a batch is its longest: grow while the padded size fits.
        while (end < len(order) and end - start < limits.rows
               and (end - start + 1) * int(lengths[order[end]]) <= limits.tokens):
            end += 1
        picked = order[start:end]
        yield TokenBatch(rows=rows[picked], features=_take(features, picked, len(mask), int(lengths[picked].max()),
                                                           mask.shape[1], right_padded))
        start = end


def _take(features: dict, picked: np.ndarray, n: int, length: int, width: int, right_padded: bool) -> dict:
    """The features of rows ``picked``, padded columns trimmed to ``length`` (on the padding's side)."""
    columns = slice(0, length) if right_padded else slice(width - length, width)
    out = {}
    for name, value in features.items():
        shape = getattr(value, "shape", None)
        if shape is None or len(shape) == 0 or shape[0] != n:
            out[name] = value  # not per text (a modality name, a flag): kept as it is
            continue
        index = _index_like(value, picked)
        taken = value[index]
        out[name] = taken[:, columns] if len(shape) >= 2 and shape[1] == width else taken
    return out


def _index_like(value, picked: np.ndarray):
    if hasattr(value, "detach"):
        import torch

        return torch.from_numpy(picked)
    return picked


def _array(value) -> np.ndarray:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)


def encode_batches(texts: Sequence[str], tokenize: Tokenize, run: Run, limits: BatchLimits,
                   progress: Progress | None = None, chunk: int = CHUNK) -> np.ndarray:
    """Vectors of ``texts`` (float32, in the given order): tokenized once, run batch by batch.

    A device's results stay there until a chunk is done, so the host tokenizes the next chunk and
    queues batches while the device computes, and waits once per chunk rather than once per batch.
    """
    out: np.ndarray | None = None
    done, held = 0, []
    total = len(texts)

    def flush() -> None:
        nonlocal out
        for rows, vectors in held:
            values = _array(vectors).astype(np.float32, copy=False)
            if out is None:
                out = np.empty((total, values.shape[1]), dtype=np.float32)
            out[rows] = values
        held.clear()

    seen_rows = 0
    for batch in token_batches(texts, tokenize, limits, chunk):
        held.append((batch.rows, run(batch.features)))
        done += len(batch.rows)
        seen_rows += len(batch.rows)
        if seen_rows >= chunk or done == total:
            flush()
            seen_rows = 0
        if progress:
            progress(done, total)
    flush()
    return out if out is not None else np.zeros((0, 0), dtype=np.float32)


# -- the tokenizer's Rust core ----------------------------------------------------------------------
#: Texts on which the fast features must equal the library's: spacing, accents, scripts, emoji, empty,
#: a text longer than any model's limit (truncation), and texts of different lengths in one batch (padding).
CHECK_TEXTS = ("", "   ", "Hello, world!", "  leading and trailing spaces  ", "tabs\tand\nnew lines",
               "Café naïve résumé, Ångström", "¿Qué tal? Привет, как дела? 你好，世界。", "emoji 😀👍🏽 and #hashtags @user",
               "it 's lower-cased , tokenised text .", "word " * 700, "Don't you think it's GREAT?!")


class FastFeatures:
    """A Hugging Face fast tokenizer's Rust core called directly: ``fn(texts) -> features`` as its Python call gives.

    Its own copy of the core (the shared one is reconfigured by every library call), truncation as the
    library sets it, padding done here with numpy on the tokenizer's side, pad id and pad type id.
    """

    def __init__(self, tokenizer, max_length: int, probe: dict):
        from tokenizers import Tokenizer

        self.core = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
        self.core.no_padding()
        self.core.enable_truncation(max_length, strategy="longest_first",
                                    direction=getattr(tokenizer, "truncation_side", "right"))
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.pad_type_id = getattr(tokenizer, "pad_token_type_id", 0)
        self.right = getattr(tokenizer, "padding_side", "right") == "right"
        self.keys = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in probe]
        # Values that are not per text (sentence-transformers' modality name) are passed on as they are.
        self.extra = {k: v for k, v in probe.items() if k not in self.keys and not hasattr(v, "shape")}
        self.torch = any(hasattr(probe[k], "detach") for k in self.keys)

    def __call__(self, texts: list) -> dict:
        """Features of ``texts`` padded to the longest: input ids, token types and attention mask, as the library's."""
        encode = getattr(self.core, "encode_batch_fast", self.core.encode_batch)
        encodings = encode([str(t) for t in texts])
        width = max((len(e.ids) for e in encodings), default=0)
        arrays = {"input_ids": np.full((len(encodings), width), self.pad_id, np.int64),
                  "token_type_ids": np.full((len(encodings), width), self.pad_type_id, np.int64),
                  "attention_mask": np.zeros((len(encodings), width), np.int64)}
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            cols = slice(0, n) if self.right else slice(width - n, width)
            arrays["input_ids"][row, cols] = encoding.ids
            arrays["token_type_ids"][row, cols] = encoding.type_ids
            arrays["attention_mask"][row, cols] = 1
        out = {k: arrays[k] for k in self.keys}
        if self.torch:
            import torch

            out = {k: torch.from_numpy(v) for k, v in out.items()}
        return {**out, **self.extra}


def verified_tokenize(tokenize: Tokenize, tokenizer, max_length: int | None) -> Tokenize:
    """:class:`FastFeatures` for this tokenizer when it gives exactly ``tokenize``'s features on :data:`CHECK_TEXTS`, else ``tokenize``.

    ``tokenize`` is the library's own call (the reference); ``max_length`` the truncation it applies
    (None: the tokenizer's ``model_max_length``).
    """
    try:
        limit = int(max_length or tokenizer.model_max_length)
        fast = FastFeatures(tokenizer, limit, tokenize(["a"]))
        texts = list(CHECK_TEXTS)
        if _same(tokenize(texts), fast(texts)) and _same(tokenize(texts[2:5]), fast(texts[2:5])):
            return fast
        log.info("the fast tokenizer path differs from the library's for %s: using the library's", type(tokenizer).__name__)
    except Exception as exc:  # noqa: BLE001 - not a fast tokenizer, an unusual layout: the library's call is exact
        log.info("no fast tokenizer path for %s (%s): using the library's", type(tokenizer).__name__, exc)
    return tokenize


def _same(reference: dict, fast: dict) -> bool:
    keys = [k for k, v in reference.items() if hasattr(v, "shape")]
    return (sorted(keys) == sorted(k for k, v in fast.items() if hasattr(v, "shape"))
            and all(np.array_equal(_array(reference[k]), _array(fast[k])) for k in keys)
            and all(reference[k] == fast[k] for k in reference if k not in keys))
