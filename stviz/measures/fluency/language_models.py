"""Fluency as perplexity: under a causal language model when one can be loaded, else under an
n-gram model trained on human-written texts of the output's target style.

* ``hf:MODEL`` (``hf:gpt2``, or ``hf:/path/to/folder``): a Hugging Face causal LM. Hub ids need
  internet or a copy in the Hugging Face cache; when the model cannot be loaded the caller gets a
  :class:`FluencyError` saying so (the leaderboard then falls back to the n-gram default, noted).
* ``mlm:MODEL``: a masked LM's pseudo-log-likelihood (Salazar et al. 2020): each token masked in turn and
  predicted from the rest; exp(-PLL / tokens) is the pseudo-perplexity Briakou et al. (2021) found to agree with
  human fluency judgments across languages (with a multilingual model such as ``mlm:xlm-roberta-base``).
* ``ngram`` (the offline default): an interpolated Kneser-Ney trigram model (Kneser & Ney 1995, in
  the interpolated form of Chen & Goodman 1999, section 3.6; one absolute discount D = n1/(n1 + 2 n2)
  per order, their eq. 26), one per target style, trained on that style's human-written sentences.
  Words unseen in training share the interpolated unigram mass for unknown words. nltk's
  ``KneserNeyInterpolated`` computes the same model but scores about 50 ms per token here (an hour
  for one leaderboard), hence this count-table implementation (its tables built with numpy).

Every function returns per-sentence statistics (summed negative log-likelihood in nats, token
count) so that corpus perplexity ``exp(sum nll / sum tokens)`` can be bootstrapped over sentences.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Mapping, Sequence

import numpy as np

from stviz.cache import Cache, default_cache, fingerprint
from stviz.data.schema import DataError
from stviz.embedders import tokenize
from stviz.progress import Progress

NGRAM = "ngram"
BOS, EOS, UNK = "<s>", "</s>", "<unk>"
#: Bump when the language models or their tokenisation change, to invalidate cached scores.
FLUENCY_VERSION = 1
#: The n-gram model's implementation, part of its known-answer verdict's key (not of the scores': the same numbers):
#: a new implementation is checked again on every install before it is trusted.
NGRAM_IMPLEMENTATION = "numpy-keys"


class FluencyError(DataError):
    """A language model could not be loaded; the message says why and what to use instead."""


# -- interpolated Kneser-Ney ---------------------------------------------------------------------------
class KneserNeyLM:
    """Interpolated Kneser-Ney n-gram model (Chen & Goodman 1999) over lower-cased word tokens.

    Words are numbered and each n-gram is one integer (its word numbers as digits in base V + 1, the last digit
    being the unknown word's, which no counted n-gram holds), so numpy counts and groups them: a 50,000-sentence
    model is fitted in a third of the time of counting tuples in dictionaries, to the same numbers.
    """

    def __init__(self, order: int = 3):
        if order < 1:
            raise DataError(f"an n-gram model needs order >= 1, got {order}")
        self.order = order

    def fit(self, sentences: Sequence[str]) -> "KneserNeyLM":
        """Count n-grams and continuation counts of the training sentences; returns self."""
        order = self.order
        words = {BOS: 0, EOS: 1}
        flat: list[int] = []
        lengths = []
        start, end = [words[BOS]] * (order - 1), [words[EOS]]
        for sentence in sentences:
            ids = [words.setdefault(t, len(words)) for t in tokenize(str(sentence))]
            flat += start + ids + end
            lengths.append(len(ids) + order)
        if not flat:
            raise DataError("the n-gram language model has no training sentences")
        base = len(words) + 1
        if base ** order >= 2 ** 63:
            raise DataError(f"{len(words):,} distinct words are too many for an order-{order} n-gram model")
        ids, sentence_of = np.asarray(flat, dtype=np.int64), np.repeat(np.arange(len(lengths)), lengths)
        raw = {}  # k -> (distinct k-grams, their counts); a k-gram never spans two sentences
        for k in range(1, order + 1):
            n = len(ids) - k + 1
            inside = sentence_of[:n] == sentence_of[k - 1:]
            keys = np.zeros(int(inside.sum()), dtype=np.int64)
            for j in range(k):
                keys = keys * base + ids[j:j + n][inside]
            raw[k] = np.unique(keys, return_counts=True)
        self.words_, self.base_, self.unk_ = words, base, base - 1
        counted = set(raw[1][0].tolist())
        self.vocab_ = {w for w, i in words.items() if i in counted} | {UNK}
        # The highest order uses raw counts; lower orders use continuation counts N1+(. w) (KN's key idea): how many
        # distinct (k+1)-grams end in the k-gram.
        grams = {order: raw[order]}
        for k in range(1, order):
            grams[k] = np.unique(raw[k + 1][0] % base ** k, return_counts=True)
        self.counts_ = [{} for _ in range(order + 1)]
        self.discount_ = [0.0] * (order + 1)
        self.context_total_ = [{} for _ in range(order + 1)]
        self.context_types_ = [{} for _ in range(order + 1)]
        for k in range(1, order + 1):
            keys, counts = grams[k]
            n1, n2 = int((counts == 1).sum()), int((counts == 2).sum())
            self.discount_[k] = n1 / (n1 + 2 * n2) if n1 + n2 else 0.5
            self.counts_[k] = dict(zip(keys.tolist(), counts.tolist()))
            contexts, inverse, types = np.unique(keys // base, return_inverse=True, return_counts=True)
            totals = np.bincount(inverse, weights=counts.astype(np.float64))  # whole numbers: summed exactly
            self.context_total_[k] = dict(zip(contexts.tolist(), totals.tolist()))
            self.context_types_[k] = dict(zip(contexts.tolist(), types.tolist()))
        return self

    def _id(self, word: str) -> int:
        return self.words_.get(word, self.unk_)

    def _prob(self, word: str, context: tuple[str, ...]) -> float:
        """P(word | context) for words as strings (an unseen word is the unknown word)."""
        return self._prob_ids(self._id(word), tuple(self._id(w) for w in context))

    def _prob_ids(self, word: int, context: tuple[int, ...]) -> float:
        # From the unigram up: each longer context seen in training interpolates its discounted count with the
        # shorter context's probability; an unseen one leaves it as it is.
        d, total, types = self.discount_[1], self.context_total_[1][0], self.context_types_[1][0]
        prob = max(self.counts_[1].get(word, 0) - d, 0.0) / total + d * types / total / len(self.vocab_)
        key, digit = 0, 1  # the context's last k - 1 words as one number, built from its end
        for k in range(2, len(context) + 2):
            key += context[1 - k] * digit
            digit *= self.base_
            total = self.context_total_[k].get(key, 0.0)
            if total == 0:
                continue
            d = self.discount_[k]
            seen = max(self.counts_[k].get(key * self.base_ + word, 0) - d, 0.0) / total
            prob = seen + d * self.context_types_[k][key] / total * prob
        return prob

    def sentence_nll(self, sentence: str) -> tuple[float, int]:
        """(negative log-likelihood in nats, number of predicted tokens incl. the end marker)."""
        tokens = [self._id(t) for t in tokenize(str(sentence))] + [self.words_[EOS]]
        history = [self.words_[BOS]] * (self.order - 1)
        nll = 0.0
        for token in tokens:
            nll -= math.log(self._prob_ids(token, tuple(history[len(history) - (self.order - 1):])
                                           if self.order > 1 else ()))
            history.append(token)
        return nll, len(tokens)


# -- causal language models ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _load_lm(source: str, masked: bool = False):
    """A causal (or, ``masked``, a masked) language model and its tokenizer, loaded verified once per process."""
    from stviz.embedders import select_device
    from stviz.models.loading import ModelLoadError, load_pretrained, load_tokenizer

    kind, prefix, example = ("masked ", "mlm", "xlm-roberta-base") if masked else ("", "hf", "gpt2")
    try:
        tokenizer = load_tokenizer(source)
        model = load_pretrained(source, "masked-lm" if masked else "causal-lm", label=f"{prefix}:{source}",
                                device=select_device())
    except ModelLoadError as exc:  # incomplete: said as it is (a FluencyError, so the caller can fall back)
        raise FluencyError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - any loading failure gets one clear message
        raise FluencyError(
            f"could not load the {kind}language model '{source}' ({type(exc).__name__}: {str(exc)[:200]}). A hub id "
            f"such as {example} needs internet access or a copy in the Hugging Face cache; give a local folder "
            f"({prefix}:/path/to/model), or use the offline default '{NGRAM}' (a Kneser-Ney trigram model trained on "
            "the target-style texts)") from exc
    if masked and tokenizer.mask_token_id is None:
        raise FluencyError(f"'{source}' has no mask token: it is not a masked language model (use hf:MODEL for a "
                           "causal one)")
    return tokenizer, model


def verify_lm(spec: str, precision: str = "fp32"):
    """A language model's check before use: the n-gram model's known answer, or a user model's check (finite,
    deterministic, the same alone as in a batch); FluencyError naming the reason when it fails."""
    from stviz.embedders import select_device
    from stviz.models import known_answers as ka
    from stviz.models.loading import config_bound, content_key

    source = parse_lm(spec)
    try:
        if source == NGRAM:
            use = ka.ModelUse("fluency", "Kneser-Ney trigram (stviz)",
                              "stviz.measures.fluency.language_models.KneserNeyLM",
                              f"code-v{FLUENCY_VERSION}-{NGRAM_IMPLEMENTATION}", "python")
            spec_answer = ka.answer("ngram-kneser-ney")
            model = KneserNeyLM(3).fit(spec_answer["training"])
            return ka.verify(use, "ngram-kneser-ney", lambda texts: [model.sentence_nll(t) for t in texts])
        masked = is_masked(spec)
        _load_lm(source, masked=masked)  # an incomplete or missing model is refused here, with its own message
        score = masked_lm_pll if masked else causal_lm_nll
        use = ka.ModelUse("fluency", spec, source, content_key(source), "torch", select_device(), precision)
        return ka.verify(use, None, lambda texts: score(texts, source), bound=lambda: config_bound(source, precision))
    except ka.KnownAnswerError as exc:
        raise FluencyError(str(exc)) from exc


def causal_lm_nll(texts: Sequence[str], source: str, batch_size: int | None = None,
                  progress: Progress | None = None) -> np.ndarray:
    """(n, 2): summed NLL in nats and predicted-token count of each text under a causal LM."""
    import torch

    tokenizer, model = _load_lm(source)
    device = next(model.parameters()).device
    # Every token is predicted from what precedes it, the first from a start symbol.
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    if start is None:
        start = tokenizer.cls_token_id
    # One tokenizer call for every text (its Rust core uses every core), then batches of similar lengths:
    # little padding, and a GPU gets batches large enough to keep it busy.
    encoded = tokenizer([str(t) for t in texts], add_special_tokens=False)["input_ids"] if len(texts) else []
    ids = [[start] + e[:510] for e in encoded]
    order = np.argsort([len(i) for i in ids], kind="stable")
    batch_size = batch_size or (256 if device.type == "cuda" else 32)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    out = np.zeros((len(texts), 2))
    for lo in range(0, len(order), batch_size):
        rows = order[lo:lo + batch_size]
        width = max(len(ids[r]) for r in rows)
        batch = torch.tensor([ids[r] + [pad] * (width - len(ids[r])) for r in rows], device=device)
        mask = torch.tensor([[1] * len(ids[r]) + [0] * (width - len(ids[r])) for r in rows], device=device)
        with torch.inference_mode():
            logits = model(input_ids=batch, attention_mask=mask).logits[:, :-1].float()
        logp = torch.log_softmax(logits, -1).gather(-1, batch[:, 1:, None])[..., 0]
        keep = mask[:, 1:].to(logp.dtype)
        out[rows, 0] = (-(logp * keep).sum(1)).cpu().numpy()
        out[rows, 1] = keep.sum(1).cpu().numpy()
        if progress:
            progress(min(lo + batch_size, len(texts)), len(texts))
    return out


# -- masked language models: pseudo-log-likelihood ----------------------------------------------------------
def masked_lm_pll(texts: Sequence[str], source: str, batch_size: int = 64,
                  progress: Progress | None = None) -> np.ndarray:
    """(n, 2): negative pseudo-log-likelihood in nats and token count of each text under a masked LM."""
    import torch

    tokenizer, model = _load_lm(source, masked=True)
    device = next(model.parameters()).device
    out = np.zeros((len(texts), 2))
    for k, text in enumerate(str(t) for t in texts):
        ids = tokenizer(text, truncation=True, max_length=128)["input_ids"]
        special = set(tokenizer.all_special_ids)
        positions = [i for i, t in enumerate(ids) if t not in special]
        total = 0.0
        for lo in range(0, len(positions), batch_size):  # one copy of the sentence per masked position
            chunk = positions[lo:lo + batch_size]
            batch = torch.tensor([ids] * len(chunk), device=device)
            batch[torch.arange(len(chunk)), torch.tensor(chunk)] = tokenizer.mask_token_id
            with torch.inference_mode():
                logits = model(input_ids=batch).logits.float()
            logp = torch.log_softmax(logits[torch.arange(len(chunk)), torch.tensor(chunk)], -1)
            total -= float(logp[torch.arange(len(chunk)), torch.tensor([ids[i] for i in chunk])].sum())
        out[k] = (total, len(positions))
        if progress:
            progress(k + 1, len(texts))
    return out


# -- the entry point ---------------------------------------------------------------------------------
def parse_lm(spec: str) -> str:
    """The model source of ``hf:MODEL`` or ``mlm:MODEL``, or ``ngram``; DataError for anything else."""
    spec = spec.strip()
    if spec == NGRAM:
        return NGRAM
    for prefix in ("hf:", "mlm:"):
        if spec.startswith(prefix) and spec[len(prefix):].strip():
            return spec[len(prefix):].strip()
    raise DataError(f"unknown language model '{spec}': use '{NGRAM}' (offline default), hf:MODEL (a causal LM, "
                    "e.g. hf:gpt2, or hf:/path/to/a/local/model) or mlm:MODEL (a masked LM's pseudo-perplexity, "
                    "e.g. mlm:xlm-roberta-base)")


def is_masked(spec: str) -> bool:
    """Whether a language-model spec names a masked LM (scored by pseudo-log-likelihood)."""
    return spec.strip().startswith("mlm:")


def lm_label(spec: str) -> str:
    """How a fluency column is labelled: which model, and that the n-gram one is the offline default."""
    source = parse_lm(spec)
    if source == NGRAM:
        return "perplexity (offline default: Kneser-Ney trigram trained on target-style texts)"
    return f"pseudo-perplexity (masked LM {source})" if is_masked(spec) else f"perplexity ({source})"


#: Fitted n-gram models kept in this process (the last two): a preview and its full run train on the same texts.
_fitted: dict[str, "KneserNeyLM"] = {}
_fitted_lock = threading.Lock()


def fitted_ngram(texts: Sequence[str]) -> "KneserNeyLM":
    """A trigram Kneser-Ney model fitted on ``texts``, fitted once per process for the same texts."""
    key = fingerprint([str(t) for t in texts])
    with _fitted_lock:  # held while fitting: two sessions fitting the same model at once would do it twice
        model = _fitted.get(key)
        if model is None:
            model = _fitted[key] = KneserNeyLM(3).fit(texts)
            while len(_fitted) > 2:
                _fitted.pop(next(iter(_fitted)))
    return model


def sentence_nll(texts: Sequence[str], spec: str = NGRAM, *, styles: Sequence[str] | None = None,
                 training: Mapping[str, Sequence[str]] | None = None, cache: Cache | None = None,
                 progress: Progress | None = None) -> np.ndarray:
    """(n, 2) summed NLL (nats) and token count per text, cached on disk per (texts, model, training data).

    With ``ngram`` each text is scored by the model of its (target) style in ``styles``, trained on
    ``training[style]``; a causal LM scores every text with the same model.
    """
    source = parse_lm(spec)
    texts = [str(t) for t in texts]
    cache = cache or default_cache()
    verify_lm(spec)  # fail before the cache is consulted, with a clear message
    if source != NGRAM and is_masked(spec):
        params = {"v": FLUENCY_VERSION, "mlm": source, "texts": texts}
        return cache.memo("fluency", params, lambda: masked_lm_pll(texts, source, progress=progress))
    if source != NGRAM:
        params = {"v": FLUENCY_VERSION, "lm": source, "texts": texts}
        return cache.memo("fluency", params, lambda: causal_lm_nll(texts, source, progress=progress))
    if styles is None or training is None:
        raise DataError("the n-gram language model needs each text's target style and training texts per style")
    styles = [str(s) for s in styles]
    missing = sorted(set(styles) - set(training))
    if missing:
        raise DataError(f"no training texts of style(s) {', '.join(missing)} for the n-gram language model")
    params = {"v": FLUENCY_VERSION, "lm": NGRAM, "texts": texts, "styles": styles,
              "training": {s: list(map(str, training[s])) for s in sorted(set(styles))}}

    def compute() -> np.ndarray:
        out = np.zeros((len(texts), 2))
        done = 0
        for style in sorted(set(styles)):
            model = fitted_ngram(training[style])
            rows = [i for i, s in enumerate(styles) if s == style]
            for i in rows:
                out[i] = model.sentence_nll(texts[i])
            done += len(rows)
            if progress:
                progress(done, len(texts))
        return out

    return cache.memo("fluency", params, compute)


__all__ = ["FluencyError", "KneserNeyLM", "NGRAM", "causal_lm_nll", "is_masked", "lm_label", "masked_lm_pll",
           "parse_lm", "sentence_nll", "verify_lm"]
