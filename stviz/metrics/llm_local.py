"""An LLM judge run in this process: ``llm:smollm2[:ASPECT]`` (shipped) and ``llm:hf:ID_OR_FOLDER_OR_GGUF[:ASPECT]``.

No server: a causal language model is loaded with transformers and asked the aspect's shipped prompt
(:mod:`stviz.metrics.llm`) through its own chat template. Its score is read the way G-Eval reads one (Liu et al.
2023): not the sampled reply, but the probability of each score token on the scale at the answer's first position,
and the **expected score** over the scale, sum(k * p(k)) / sum(p(k)). The most probable score (argmax) and the
probability the answer puts on the scale are kept beside it; a pair whose answer puts less than
:data:`MIN_SCALE_MASS` on the scale's tokens is NaN (the model did not answer on the scale), never guessed.

Speed (``benchmarks/llm_judge.py``):

* the prompt's instructions are the same for every pair: the tokens before the first ``{source}``/``{output}`` are
  run once and their key/value cache reused by every batch (:data:`REUSE_PREFIX`);
* pairs are batched by length (their own tokens sorted), so a batch holds little padding; the padding sits between
  the shared prefix and each pair's tokens, masked, with positions counted over real tokens only, so every pair's
  numbers are those of the pair alone (to float rounding);
* only the last position's logits are computed (the scale's tokens follow the prompt's last token).

Which model, where and in what precision: :mod:`stviz.metrics.llm_loading`. The shipped model (SmolLM2-135M-Instruct)
is English: its card says so, and a set in another language leaves it out with the reason; a model the user names is
taken at its word.
"""

from __future__ import annotations

import copy
import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.metrics.llm_loading import (SHIPPED, LoadedJudge, LocalJudgeError, LocalModel, device_and_dtype, is_local,
                                      load, model_content, resolve, shipped_installed)
from stviz.metrics.llm_prompts import fill, read_template
from stviz.progress import Progress

#: Least probability the answer's first token must put on the scale's tokens for its score to count.
MIN_SCALE_MASS = 0.05
#: Pairs per forward pass (CPU, GPU).
BATCH_CPU, BATCH_GPU = 16, 64
#: Reuse the instructions' key/value cache (benchmarks/llm_judge.py switches it off to measure what it buys).
REUSE_PREFIX = os.environ.get("STVIZ_LLM_REUSE_PREFIX", "1") != "0"
#: Sort pairs by length before batching (likewise switched off by the benchmark).
SORT_BY_LENGTH = os.environ.get("STVIZ_LLM_SORT", "1") != "0"
#: Part of every local judge's cache id: bump when the prompt layout or the score's reading changes.
LOCAL_VERSION = 1


# -- the prompt as tokens ---------------------------------------------------------------------------------
def prompt_ids(tokenizer, template: str, sources: Sequence[str], outputs: Sequence[str]) -> list[list[int]]:
    """Each pair's whole prompt in the model's chat format, tokenized whole (as the model would read it alone)."""
    texts = [tokenizer.apply_chat_template([{"role": "user", "content": fill(template, s, o)}], tokenize=False,
                                           add_generation_prompt=True) for s, o in zip(sources, outputs)]
    return [tokenizer.encode(text, add_special_tokens=False) for text in texts]


def shared_prefix(prompts: Sequence[Sequence[int]]) -> int:
    """How many first tokens every prompt shares (at least one token of each is left to run after them)."""
    first = prompts[0]
    length = min(len(p) for p in prompts) - 1
    for prompt in prompts[1:]:
        length = next((i for i in range(length) if prompt[i] != first[i]), length)
    return max(length, 0)


def scale_token_ids(tokenizer, scale: tuple[float, float]) -> list[list[int]]:
    """The token ids that start each score of the scale (``"4"``, and ``" 4"`` where that is another token)."""
    low, high = scale
    if low != int(low) or high != int(high) or high - low > 10:
        raise LocalJudgeError(f"a local LLM judge reads scores of whole numbers (at most 11); the prompt states "
                              f"{low:g}-{high:g}")
    ids = []
    for value in range(int(low), int(high) + 1):
        found = set()
        for text in (str(value), f" {value}"):
            tokens = tokenizer.encode(text, add_special_tokens=False)
            if len(tokens) == 1:
                found.add(tokens[0])
        if not found:
            raise LocalJudgeError(f"the judge's tokenizer has no single token for the score {value}: it cannot be "
                                  "read as a probability")
        ids.append(sorted(found))
    return ids


# -- scoring ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scored:
    """One pair's reading: expected score (NaN off the scale), most probable score, probability on the scale."""

    expected: float
    argmax: float
    mass: float
    probabilities: tuple[float, ...] = ()

    def reply(self) -> str:
        """How the score was read, kept as the pair's reply (people can read it beside the number)."""
        return f"expected {self.expected:.4f}; most probable {self.argmax:g}; probability on the scale {self.mass:.3f}"


def score_pairs(judge: LoadedJudge, template: str, scale: tuple[float, float], sources: Sequence[str],
                outputs: Sequence[str], progress: Progress | None = None, *, reuse_prefix: bool | None = None,
                sort: bool | None = None, batch_size: int | None = None) -> list[Scored]:
    """Every pair's reading, batched (by length unless ``sort`` is False), the prefix computed once unless told not.

    Each prompt is tokenized whole; the tokens every prompt shares (the instructions) are the prefix, so reusing
    its key/value cache changes no token any pair is read with.
    """
    reuse = REUSE_PREFIX if reuse_prefix is None else reuse_prefix
    prompts = prompt_ids(judge.tokenizer, template, sources, outputs)
    cut = shared_prefix(prompts) if prompts else 0
    prefix, tails = prompts[0][:cut] if prompts else [], [p[cut:] for p in prompts]
    order = sorted(range(len(tails)), key=lambda i: len(tails[i])) if (SORT_BY_LENGTH if sort is None else sort) \
        else list(range(len(tails)))
    size = batch_size or (BATCH_GPU if judge.device == "cuda" else BATCH_CPU)
    ids = scale_token_ids(judge.tokenizer, scale)
    results: list[Scored | None] = [None] * len(tails)
    with judge.lock:
        cache = _prefix_cache(judge, prefix) if reuse and prefix else None
        for start in range(0, len(order), size):
            batch = order[start:start + size]
            probs = _scale_probabilities(judge, prefix, [tails[i] for i in batch], cache, ids)
            for i, row in zip(batch, probs):
                results[i] = read_score(row, scale)
            if progress:
                progress(min(start + size, len(order)), len(order))
    return results  # type: ignore[return-value]


def read_score(probabilities: np.ndarray, scale: tuple[float, float]) -> Scored:
    """The expected score from each scale value's probability (NaN when they sum below MIN_SCALE_MASS).

    >>> read_score(np.array([0.0, 0.0, 0.5, 0.5, 0.0]), (1, 5)).expected
    3.5
    """
    values = np.arange(int(scale[0]), int(scale[1]) + 1, dtype=np.float64)
    mass = float(probabilities.sum())
    argmax = float(values[int(np.argmax(probabilities))])
    kept = tuple(float(p) for p in probabilities)
    if not mass >= MIN_SCALE_MASS:
        return Scored(math.nan, argmax, mass, kept)
    return Scored(float(values @ probabilities / mass), argmax, mass, kept)


def _prefix_cache(judge: LoadedJudge, prefix: list[int]):
    """The instructions' key/value cache, computed once per call (a batch copies and widens it)."""
    import torch

    with torch.inference_mode():
        out = judge.model(input_ids=torch.tensor([prefix], device=judge.device), use_cache=True, logits_to_keep=1)
    return getattr(out, "cache", None) or out.past_key_values


@functools.lru_cache(maxsize=8)
def _cache_argument(model_class: type) -> str:
    """The name a model's forward takes its key/value cache by (transformers 5 renamed ``past_key_values``)."""
    import inspect

    return "cache" if "cache" in inspect.signature(model_class.forward).parameters else "past_key_values"


def _scale_probabilities(judge: LoadedJudge, prefix: list[int], tails: list[list[int]], cache,
                         ids: list[list[int]]) -> np.ndarray:
    """(pairs, scale values): the probability of each score as the answer's first token, for one batch."""
    import torch

    width = max(len(t) for t in tails)
    # Left-padded tails: every row ends at the last column, so one position's logits serve all rows.
    tail_ids = [[judge.tokenizer.pad_token_id] * (width - len(t)) + t for t in tails]
    tail_mask = [[0] * (width - len(t)) + [1] * len(t) for t in tails]
    mask = torch.tensor([[1] * len(prefix) + m for m in tail_mask], device=judge.device)
    # Positions count real tokens only: a pair's numbers do not depend on the padding its batch needs.
    positions = (torch.cumsum(mask, dim=1) - 1).clamp(min=0)
    with torch.inference_mode():
        if cache is not None:
            past = copy.deepcopy(cache)
            past.batch_repeat_interleave(len(tails))
            out = judge.model(input_ids=torch.tensor(tail_ids, device=judge.device), attention_mask=mask,
                              position_ids=positions[:, len(prefix):], use_cache=True, logits_to_keep=1,
                              **{_cache_argument(type(judge.model)): past})
        else:
            out = judge.model(input_ids=torch.tensor([prefix + t for t in tail_ids], device=judge.device),
                              attention_mask=mask, position_ids=positions, use_cache=False, logits_to_keep=1)
        probs = torch.softmax(out.logits[:, -1, :].float(), dim=-1)
    columns = [probs[:, token_ids].sum(dim=1) for token_ids in ids]
    return torch.stack(columns, dim=1).cpu().numpy().astype(np.float64)


# -- judging a dataset's pairs (each pair once, kept; an interrupted run resumes) --------------------------------
#: Pairs judged between two writes to the judgment store (a kill loses at most this many).
STORE_EVERY = 64
#: Pairs timed before a run to estimate its duration (one CPU batch; their judgments are kept).
PROBE_PAIRS = 16


def judge_id(model: str, prompt: str, scale, dtype: str) -> str:
    """The judgments' cache id: the model's content, the prompt, the scale, the reading and the precision."""
    from stviz.cache import fingerprint

    return fingerprint({"local": model_content(resolve(model)), "prompt": prompt, "scale": [float(v) for v in scale],
                        "read": "expected score over the scale tokens", "dtype": dtype, "version": LOCAL_VERSION})

def local_scores(sources: Sequence[str], outputs: Sequence[str], model: str, aspect: str, prompt: str,
                 scale: tuple[float, float], cache=None, progress: Progress | None = None,
                 content: str = "") -> np.ndarray:
    """The judge's expected score of every pair (NaN off the scale); each distinct pair judged once and kept."""
    from stviz.cache import default_cache
    from stviz.metrics.judgments import JudgmentStore, pair_key

    store = JudgmentStore((cache or default_cache()).root)
    device, dtype = device_and_dtype()
    jid = judge_id(model, prompt, scale, dtype)
    keys = [pair_key(s, o) for s, o in zip(sources, outputs)]
    known = store.get(jid, keys)
    todo = list({k: i for i, k in reversed(list(enumerate(keys))) if k not in known}.values())
    if todo:
        verify_judge(model)
        judge = load(resolve(model), device, dtype)
        for start in range(0, len(todo), STORE_EVERY):
            chunk = todo[start:start + STORE_EVERY]
            scored = score_pairs(judge, prompt, scale, [sources[i] for i in chunk], [outputs[i] for i in chunk])
            rows = [(keys[i], s.expected, s.reply()) for i, s in zip(chunk, scored)]
            store.put(jid, rows)
            known.update({k: (v, r) for k, v, r in rows})
            if progress:
                progress(len(keys) - len(todo) + start + len(chunk), len(keys))
    elif progress:
        progress(len(keys), len(keys))
    return np.array([known[k][0] for k in keys], dtype=np.float64)


def seconds_per_pair(model: str, prompt: str, scale, sources: Sequence[str], outputs: Sequence[str],
                     cache=None) -> tuple[float, int, int]:
    """(seconds a pair, pairs timed now, pairs still to judge): a few missing pairs judged, timed and kept."""
    import time

    from stviz.cache import default_cache
    from stviz.metrics.judgments import JudgmentStore, pair_key

    store = JudgmentStore((cache or default_cache()).root)
    device, dtype = device_and_dtype()
    jid = judge_id(model, prompt, scale, dtype)
    index = {pair_key(s, o): i for i, (s, o) in enumerate(zip(sources, outputs))}
    missing = [k for k in index if k not in store.get(jid, list(index))]
    if not missing:
        return 0.0, 0, 0
    verify_judge(model)
    judge = load(resolve(model), device, dtype)
    probe = [index[k] for k in missing[:PROBE_PAIRS]]
    began = time.perf_counter()
    scored = score_pairs(judge, prompt, scale, [sources[i] for i in probe], [outputs[i] for i in probe])
    seconds = (time.perf_counter() - began) / len(probe)
    store.put(jid, [(k, s.expected, s.reply()) for k, s in zip(missing[:PROBE_PAIRS], scored)])
    return seconds, len(probe), len(missing) - len(probe)


# -- the known answer --------------------------------------------------------------------------------------
#: The recorded answer of the shipped judge (tools/record_known_answers.py).
SHIPPED_ANSWER = "llm-judge-smollm2"


def verify_judge(model: str):
    """The judge's check before use: the shipped model's known answer, or a user model's check (finite, the same
    twice, the same alone as in a batch); LocalJudgeError naming the reason when it fails."""
    from stviz.models import known_answers as ka
    from stviz.models.loading import rounding_bound

    local = resolve(model)
    device, dtype = device_and_dtype()
    use = ka.ModelUse("LLM judge", local.label, str(Path(local.source) / (local.gguf_file or "")),
                      model_content(local), "torch", device, dtype)
    try:
        if model == SHIPPED:
            return ka.verify(use, SHIPPED_ANSWER, lambda inputs: answer_probabilities(model, inputs))
        return ka.verify(use, None, lambda pairs: answer_probabilities(model, [["content", *p] for p in pairs]),
                         inputs="pairs", bound=lambda: rounding_bound(*_shape(local, device, dtype), dtype))
    except ka.KnownAnswerError as exc:
        raise LocalJudgeError(str(exc)) from exc


def answer_probabilities(model: str, items: Sequence[Sequence[str]]) -> list[list[float]]:
    """Each [aspect, source, output] item's probabilities of the scale's scores under the shipped prompt, computed
    the way a run computes them (batched, the shared prefix reused)."""
    judge = load(resolve(model), *device_and_dtype())
    rows: list[list[float]] = [[] for _ in items]
    for aspect in dict.fromkeys(item[0] for item in items):
        template = read_template(aspect)
        where = [i for i, item in enumerate(items) if item[0] == aspect]
        scored = score_pairs(judge, template.text, template.scale, [items[i][1] for i in where],
                             [items[i][2] for i in where])
        for i, reading in zip(where, scored):
            rows[i] = list(reading.probabilities)
    return rows


def _shape(local: LocalModel, device: str, dtype: str) -> tuple[int, int]:
    """(layers, widest sum) of the loaded model: what its rounding bound is made of."""
    config = load(local, device, dtype).model.config
    return config.num_hidden_layers, max(config.hidden_size, getattr(config, "intermediate_size", 0))


__all__ = ["LOCAL_VERSION", "LocalJudgeError", "LocalModel", "LoadedJudge", "SHIPPED", "SHIPPED_ANSWER", "Scored",
           "answer_probabilities", "device_and_dtype", "is_local", "judge_id", "load", "local_scores", "model_content",
           "prompt_ids", "read_score", "resolve", "scale_token_ids", "score_pairs", "seconds_per_pair", "shared_prefix",
           "shipped_installed", "verify_judge"]
