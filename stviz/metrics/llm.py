"""LLM judges as metrics: ``llm:MODEL[:ASPECT]`` asks an OpenAI-compatible chat server to rate every pair.

``llm:qwen2.5-7b-instruct`` rates content preservation (the default aspect); ``llm:MODEL:style`` and
``llm:MODEL:fluency`` use the other shipped prompts (``stviz/metrics/prompts/*.txt``). A model name may itself
hold colons (Ollama's ``qwen2.5:7b``): only a last part that names an aspect is read as one.

* Where: ``--llm-url`` / ``STVIZ_LLM_URL``; the key from ``STVIZ_LLM_KEY`` or ``OPENAI_API_KEY``, read at each
  call by :mod:`stviz.metrics.llm_client` and stored nowhere.
* What is asked: the aspect's template (``--llm-prompt ASPECT=FILE`` / ``STVIZ_LLM_PROMPTS`` replace it) at
  temperature 0. The template's text is part of the cache key, so a changed prompt is a new judge.
* What is kept: the reply's number on the template's stated scale (``# scale: 1-5``); any other reply is
  unparsed, NaN, never guessed, and kept for people to read (:func:`unparsed_replies`).
* How it runs: per pair through :class:`stviz.metrics.judgments.JudgmentStore` (an interrupted run resumes),
  the missing pairs through the engine's pair mapping (``--engine ray`` spreads the calls over the workers),
  at most ``--llm-concurrency`` calls in flight per process (default 4).
"""

from __future__ import annotations

import functools
import math
import os
import re
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from stviz import engine
from stviz.cache import Cache, default_cache, fingerprint
from stviz.data.schema import DataError
from stviz.languages.cards import ANY
from stviz.metrics import llm_local
from stviz.metrics.judgments import JudgmentStore, pair_key
from stviz.metrics.llm_prompts import PROMPTS_DIR, Template, fill, read_template
from stviz.metrics.llm_client import Completion, LLMError, URL_ENV, chat, chat_completion, chat_url, shown_url
from stviz.metrics.registry import MetricCard, metric_family
from stviz.progress import Progress, format_seconds

ASPECTS = ("content", "style", "fluency")
PROMPTS_ENV = "STVIZ_LLM_PROMPTS"
CONCURRENCY_ENV = "STVIZ_LLM_CONCURRENCY"
READ_ENV = "STVIZ_LLM_READ"
#: How a server judge's score is read (Settings.read).
READINGS = ("expected", "text")
#: Alternatives asked for the reply's first token (OpenAI allows up to 20; some servers fewer).
TOP_LOGPROBS = 10
#: Judge models offered in the metric menus (comma-separated); any llm:MODEL can be typed or linked.
MODELS_ENV = "STVIZ_LLM_MODELS"
DEFAULT_CONCURRENCY = 4
#: Calls timed before a run to estimate its duration (their judgments are kept: they count toward the run).
PROBE_CALLS = 3
#: Part of every judge's id: bump when the request or the score parsing changes.
CACHE_VERSION = 1
DESCRIPTIONS = {"content": "content preservation rated by an LLM", "style": "style transfer strength rated by an LLM",
                "fluency": "fluency of the output rated by an LLM"}


# -- settings (flags of the command line, else the environment) -----------------------------------------
@dataclass(frozen=True)
class Settings:
    """Where the judge is and how hard to call it: the server URL, calls in flight, prompt files per aspect."""

    url: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    prompts: tuple[tuple[str, str], ...] = ()
    #: How a server judge's score is read: ``expected`` (over the first token's log probabilities where the server
    #: gives them, else the number in the reply) or ``text`` (the number in the reply).
    read: str = "expected"


_configured: list[Settings] = []


def settings() -> Settings:
    """The settings in force: :func:`configure`'s (the command line's flags), else the environment's."""
    if _configured:
        return _configured[0]
    return Settings(os.environ.get(URL_ENV) or None, _concurrency(os.environ.get(CONCURRENCY_ENV)),
                    parse_prompt_files(os.environ.get(PROMPTS_ENV, "")), _reading(os.environ.get(READ_ENV)))


def configure(url: str | None = None, concurrency: int | None = None, prompts: Sequence[str] = (),
              read: str | None = None) -> None:
    """Set this process's settings (each left None falls back to the environment); ``reset`` undoes it."""
    reset()  # the environment's settings are the base the flags change
    env = settings()
    files = dict(env.prompts) | dict(parse_prompt_files(",".join(prompts)))
    _configured.append(Settings(url or env.url, _concurrency(concurrency) if concurrency else env.concurrency,
                                tuple(sorted(files.items())), _reading(read) if read else env.read))


def reset() -> None:
    """Back to the environment's settings (the command line calls it when a command ends)."""
    _configured.clear()


def _reading(value) -> str:
    if value in (None, ""):
        return "expected"
    if value not in READINGS:
        raise DataError(f"an LLM judge's score is read as one of {', '.join(READINGS)}, got '{value}'")
    return value


def _concurrency(value) -> int:
    if value in (None, ""):
        return DEFAULT_CONCURRENCY
    try:
        number = int(value)
    except ValueError:
        raise DataError(f"the LLM concurrency must be a whole number, got '{value}'") from None
    if number < 1:
        raise DataError(f"the LLM concurrency must be at least 1, got {number}")
    return number


def parse_prompt_files(text: str) -> tuple[tuple[str, str], ...]:
    """``content=FILE,style=FILE`` -> ((aspect, path), ...); DataError for an unknown aspect or a missing file."""
    pairs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        aspect, eq, path = item.partition("=")
        if not eq or aspect.strip() not in ASPECTS:
            raise DataError(f"--llm-prompt takes ASPECT=FILE with ASPECT one of {', '.join(ASPECTS)}; got '{item}'")
        if not Path(path.strip()).expanduser().is_file():
            raise DataError(f"the {aspect.strip()} prompt file '{path.strip()}' does not exist")
        pairs.append((aspect.strip(), str(Path(path.strip()).expanduser())))
    return tuple(pairs)


# -- templates and scores ------------------------------------------------------------------------------
def load_template(aspect: str, shipped: bool = False) -> Template:
    """The aspect's prompt: the user's file when one is set (unless ``shipped``), else the shipped one."""
    return read_template(aspect, None if shipped else dict(settings().prompts).get(aspect))


_NUMBER = r"([-+]?\d+(?:\.\d+)?)"
# A reply that is a score and nothing else: "4", "4.", "Score: 4", "4/5", "4 out of 5", "**4**", '{"score": 4}'.
_SCORE_LINE = re.compile(r"^[\s*_`\"'(\[{]*(?:(?:score|rating|answer|grade)[\"']?\s*[:=]?\s*)?" + _NUMBER +
                         r"\s*(?:/\s*\d+(?:\.\d+)?|out of \d+(?:\.\d+)?)?[\s*_`\"')\]}.!]*$", re.I)


def parse_score(reply: str, scale: tuple[float, float] = (1.0, 5.0)) -> float:
    """The score in a reply that is one number on the scale (first line, or the whole reply); NaN otherwise.

    Nothing is guessed: "I would give it a 4" or "4 or 5" is unparsed, as is a number off the scale.

    >>> parse_score("4"), parse_score("Score: 3/5"), parse_score('{"score": 5}\\n'), parse_score("maybe 4")
    (4.0, 3.0, 5.0, nan)
    >>> parse_score("7")
    nan
    """
    text = (reply or "").strip()
    for candidate in (text, text.splitlines()[0] if text else ""):
        match = _SCORE_LINE.match(candidate)
        if match:
            value = float(match.group(1))
            return value if scale[0] <= value <= scale[1] else math.nan
    return math.nan


# -- judging pairs ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeConfig:
    """One judge as work the engine can ship: server, model, prompt, scale, calls in flight (never the key)."""

    url: str
    model: str
    prompt: str
    scale: tuple[float, float]
    concurrency: int = DEFAULT_CONCURRENCY
    read: str = "text"

    @property
    def judge_id(self) -> str:
        """The judge's cache id: model, prompt, scale, how the score is read and the parser version (not the URL)."""
        named = {"model": self.model, "prompt": self.prompt, "scale": list(self.scale), "temperature": 0,
                 "version": CACHE_VERSION}
        return fingerprint(named if self.read == "text" else named | {"read": self.read})

    def judge(self, source: str, output: str) -> tuple[float, str]:
        """One pair's (score, reply): the expected score over the reply's first-token probabilities where asked for
        and given, else the number in the reply (the reply then says why)."""
        prompt = fill(self.prompt, source, output)
        if self.read != "expected" or (self.url, self.model) in _no_logprobs:
            reply = chat(self.url, self.model, prompt)
            return parse_score(reply, self.scale), reply
        try:
            completion = chat_completion(self.url, self.model, prompt, top_logprobs=TOP_LOGPROBS)
        except LLMError as exc:
            if exc.status != 400:
                raise
            _no_logprobs.add((self.url, self.model))  # a server that refuses the field: asked without it from now on
            return self.judge(source, output)
        return read_completion(completion, self.scale)


#: (server, model) pairs whose server refused to give log probabilities (HTTP 400 when asked for them).
_no_logprobs: set[tuple[str, str]] = set()


def read_completion(completion: Completion, scale: tuple[float, float]) -> tuple[float, str]:
    """(score, reply) of a completion: the expected score over the scale's tokens among the first token's
    alternatives (the reading kept after the reply); the number in the reply, kept as given, where the server gave no
    alternatives or the first token was not a score ("Score: 4")."""
    if completion.top_logprobs is None:
        return parse_score(completion.text, scale), completion.text
    values = list(range(int(scale[0]), int(scale[1]) + 1))
    probabilities = np.zeros(len(values))
    for token, logprob in completion.top_logprobs:
        word = token.strip()
        if word.isdigit() and int(word) in values:
            probabilities[values.index(int(word))] += math.exp(logprob)
    reading = llm_local.read_score(probabilities, scale)
    if math.isnan(reading.expected):  # the reply did not start with a score ("Score: 4"): its number, said
        return parse_score(completion.text, scale), completion.text
    return reading.expected, f"{completion.text} [{reading.reply()}, from the server's top log probabilities]"



def judge_block(config: JudgeConfig, sources: list[str], outputs: list[str], progress: Progress | None = None,
                sink: Callable[[int, float, str], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(scores, replies) for a block of pairs, at most ``config.concurrency`` calls in flight.

    ``sink(i, score, reply)`` is called in this thread as each pair finishes (to store it at once). The
    first error stops the block: calls not started are cancelled, those in flight are waited for and kept
    (they may have been paid for), then the error is raised.
    """
    scores, replies = np.full(len(sources), np.nan), np.full(len(sources), "", dtype=object)
    state = {"done": 0}

    def take(finished, pending) -> BaseException | None:
        error = None
        for future in finished:
            i = pending.pop(future)
            if future.exception() is not None:
                error = error or future.exception()
                continue
            scores[i], replies[i] = future.result()
            state["done"] += 1
            if sink:
                sink(i, scores[i], replies[i])
        if progress:
            progress(state["done"], len(sources))
        return error

    with ThreadPoolExecutor(max_workers=config.concurrency, thread_name_prefix="stviz-llm") as pool:
        pending = {pool.submit(config.judge, s, o): i for i, (s, o) in enumerate(zip(sources, outputs))}
        while pending:
            error = take(wait(pending, return_when=FIRST_EXCEPTION)[0], pending)
            if error is not None:
                for future in pending:
                    future.cancel()
                take(wait([f for f in pending if not f.cancelled()])[0], pending)
                raise error
    return scores, replies


def llm_scores(sources: Sequence[str], outputs: Sequence[str], model: str, aspect: str, prompt: str,
               scale: tuple[float, float], cache: Cache | None = None, progress: Progress | None = None) -> np.ndarray:
    """An LLM judge's score of every pair (NaN where the reply was unparsed), each pair judged once and kept."""
    cache = cache or default_cache()
    config = _config(model, prompt, scale)
    store = JudgmentStore(cache.root)
    keys = [pair_key(s, o) for s, o in zip(sources, outputs)]
    known = store.get(config.judge_id, keys)
    first = {}  # each distinct missing pair once, at its first position
    for i, key in enumerate(keys):
        if key not in known and key not in first:
            first[key] = i
    todo = list(first.values())
    if todo:
        found = dict(known)
        step = _offset(progress, len(keys) - len(todo), len(keys))
        found.update(_judge_missing(config, [sources[i] for i in todo], [outputs[i] for i in todo],
                                    [keys[i] for i in todo], store, cache, step))
        known = found
    elif progress:
        progress(len(keys), len(keys))
    return np.array([known[k][0] for k in keys], dtype=np.float64)


def _offset(progress: Progress | None, before: int, total: int) -> Progress | None:
    return (lambda done, _: progress(before + done, total)) if progress else None


def _config(model: str, prompt: str, scale) -> JudgeConfig:
    current = settings()
    chat_url(current.url)  # no URL: one clear line before any work
    return JudgeConfig(current.url, model, prompt, tuple(float(v) for v in scale), current.concurrency, current.read)


def _judge_missing(config: JudgeConfig, sources: list[str], outputs: list[str], keys: list[bytes],
                   store: JudgmentStore, cache: Cache, progress: Progress | None) -> dict[bytes, tuple[float, str]]:
    """Judge pairs the store lacks, where the engine says; each is stored as it arrives (locally) or per block (Ray)."""
    if not engine.current().is_local:
        job = fingerprint(["llm", config.judge_id, keys])
        scores, replies = engine.map_pairs(functools.partial(judge_block, config), sources, outputs, job=job,
                                           cache=cache, progress=progress)
        rows = [(k, float(s), str(r)) for k, s, r in zip(keys, scores, replies)]
        store.put(config.judge_id, rows)
        return {k: (s, r) for k, s, r in rows}
    batch: list[tuple[bytes, float, str]] = []
    last = [time.monotonic()]

    def keep(i: int, score: float, reply: str) -> None:
        batch.append((keys[i], float(score), reply))
        if len(batch) >= 50 or time.monotonic() - last[0] > 1.0:  # a kill loses at most a second of calls
            store.put(config.judge_id, batch)
            batch.clear()
            last[0] = time.monotonic()

    try:
        scores, replies = judge_block(config, sources, outputs, progress, sink=keep)
    finally:
        store.put(config.judge_id, batch)  # what finished before an error or an interrupt is kept
    return {k: (float(s), str(r)) for k, s, r in zip(keys, scores, replies)}


# -- before a run: calls, and their time from a few timed ones ----------------------------------------
@dataclass(frozen=True)
class Plan:
    """The calls a run still has to make, and how long they take at the measured rate."""

    label: str
    calls: int
    seconds_per_call: float
    concurrency: int
    measured_calls: int
    #: Where the calls go: a server's URL, or None for a judge run in this process (its calls are pairs judged here).
    server: str | None = ""

    @property
    def seconds(self) -> float:
        """calls x latency / concurrency: the estimate the cost box and the command line show."""
        return self.calls * self.seconds_per_call / self.concurrency

    def describe(self) -> str:
        """'LLM judge ... : 1,000 calls to http://...; 0.80 s a call (3 timed), 4 at a time: about 3 min'."""
        if not self.calls:
            return f"{self.label}: every pair is judged already (cached)"
        if self.server is None:
            return (f"{self.label}: {self.calls:,} pairs to judge here; {self.seconds_per_call:.2f} s a pair "
                    f"({self.measured_calls} timed): {_about(self.seconds)}")
        return (f"{self.label}: {self.calls:,} calls to {shown_url(settings().url or '')}; "
                f"{self.seconds_per_call:.2f} s a call ({self.measured_calls} timed), {self.concurrency} at a time: "
                f"{'about ' + format_seconds(self.seconds) if self.seconds >= 1 else 'under a second'}")


def _about(seconds: float) -> str:
    return "about " + format_seconds(seconds) if seconds >= 1 else "under a second"


_latency: dict[tuple, tuple[float, int, float]] = {}  # (url, judge id) -> (seconds a call, calls timed, when)
_latency_lock = threading.Lock()
LATENCY_KEPT_SECONDS = 600.0


def plan(name: str, sources: Sequence[str], outputs: Sequence[str], cache: Cache | None = None) -> Plan:
    """The calls ``llm:...`` still needs on these (already modified) texts, timed on up to PROBE_CALLS of them.

    The timed calls judge real pairs and keep their judgments, so they are not wasted; the rate is
    remembered for ten minutes, so a page redrawn while its user decides makes no more calls.
    """
    card = llm_card(name)
    options = card.options
    if llm_local.is_local(options["model"]):
        seconds, timed, left = llm_local.seconds_per_pair(options["model"], options["prompt"], options["scale"],
                                                          sources, outputs, cache)
        return Plan(card.label, left, seconds, 1, timed, server=None)
    config = _config(options["model"], options["prompt"], options["scale"])
    store = JudgmentStore((cache or default_cache()).root)
    keys = list(dict.fromkeys(pair_key(s, o) for s, o in zip(sources, outputs)))
    index = {pair_key(s, o): i for i, (s, o) in enumerate(zip(sources, outputs))}
    judged = store.get(config.judge_id, keys)
    missing = [k for k in keys if k not in judged]
    seconds, timed = _measured(config, missing, index, sources, outputs, store)
    return Plan(card.label, len(missing) - timed, seconds, config.concurrency,
                _latency.get((config.url, config.judge_id), (0, 0, 0))[1])


def _measured(config: JudgeConfig, missing: list[bytes], index: dict, sources, outputs,
              store: JudgmentStore) -> tuple[float, int]:
    """(seconds a call, calls made now): the remembered rate, else a few calls timed now and stored."""
    key = (config.url, config.judge_id)
    with _latency_lock:
        known = _latency.get(key)
        if known and time.monotonic() - known[2] < LATENCY_KEPT_SECONDS:
            return known[0], 0
    if not missing:
        return 0.0, 0
    took, rows = [], []
    for pair in missing[:PROBE_CALLS]:
        start = time.monotonic()
        score, reply = config.judge(sources[index[pair]], outputs[index[pair]])
        took.append(time.monotonic() - start)
        rows.append((pair, score, reply))
    store.put(config.judge_id, rows)
    seconds = float(np.median(took))
    with _latency_lock:
        _latency[key] = (seconds, len(took), time.monotonic())
    return seconds, len(took)


# -- what people read afterwards ------------------------------------------------------------------------------
def unparsed_replies(name: str, sources: Sequence[str], outputs: Sequence[str],
                     cache: Cache | None = None) -> pd.DataFrame:
    """The pairs whose reply held no score on the scale: position, source, output and the reply as given."""
    card = llm_card(name)
    options = card.options
    judge = (llm_local.judge_id(options["model"], options["prompt"], options["scale"], llm_local.device_and_dtype()[1])
             if llm_local.is_local(options["model"]) else
             JudgeConfig("", options["model"], options["prompt"], tuple(options["scale"]),
                         read=settings().read).judge_id)
    keys = [pair_key(s, o) for s, o in zip(sources, outputs)]
    known = JudgmentStore((cache or default_cache()).root).get(judge, keys)
    rows = [(i, sources[i], outputs[i], known[k][1]) for i, k in enumerate(keys)
            if k in known and math.isnan(known[k][0])]
    return pd.DataFrame(rows, columns=["position", "source", "output", "reply"])


# -- the family --------------------------------------------------------------------------------------------
def parse_spec(name: str) -> tuple[str, str]:
    """``llm:MODEL[:ASPECT]`` -> (model, aspect); the aspect is read only from a last part that names one.

    >>> parse_spec("llm:qwen2.5:7b"), parse_spec("llm:gpt-4o-mini:fluency")
    (('qwen2.5:7b', 'content'), ('gpt-4o-mini', 'fluency'))
    """
    rest = name.split(":", 1)[1] if name.startswith("llm:") else ""
    model, _, last = rest.rpartition(":")
    model, aspect = (model, last) if model and last in ASPECTS else (rest, "content")
    if not model.strip():
        raise DataError(f"'{name}' names no model: write llm:MODEL or llm:MODEL:ASPECT ({', '.join(ASPECTS)})")
    return model.strip(), aspect


def _offered(dataset) -> list[str]:
    shipped = [f"llm:{llm_local.SHIPPED}:{aspect}" for aspect in ASPECTS] if llm_local.shipped_installed() else []
    return shipped + [f"llm:{m.strip()}" for m in os.environ.get(MODELS_ENV, "").split(",") if m.strip()]


@metric_family("llm", "llm:MODEL[:content|style|fluency]", offered=_offered, after_named=True)
def llm_card(name: str) -> MetricCard:
    """The card of ``llm:MODEL[:ASPECT]``: the aspect's prompt and scale are part of its options (and cache key)."""
    model, aspect = parse_spec(name)
    template = load_template(aspect)
    prompt_note = f", prompt {Path(template.path).name} {fingerprint(template.text)[:6]}" if template.custom else ""
    if llm_local.is_local(model):
        return _local_card(name, model, aspect, template, prompt_note)
    return MetricCard(name=name, label=f"LLM judge {model} ({aspect}{prompt_note})", higher_is_better=True,
                      value_range=template.scale, citation="LLM-as-a-judge (e.g. Zheng et al. 2023), "
                      "OpenAI-compatible chat API at temperature 0", description=DESCRIPTIONS[aspect],
                      family="llm judge", compute=llm_scores,
                      options={"model": model, "aspect": aspect, "prompt": template.text,
                               "scale": tuple(template.scale)},
                      # read from log probabilities, the scores are other numbers: cached apart
                      variant=lambda _name, _options: "expected-score" if settings().read == "expected" else "")


def _local_card(name: str, model: str, aspect: str, template: Template, prompt_note: str) -> MetricCard:
    """The card of an in-process judge (:mod:`stviz.metrics.llm_local`): its expected score over the scale."""
    local = llm_local.resolve(model)
    shown = llm_local.SHIPPED if model == llm_local.SHIPPED else local.label
    return MetricCard(name=name, label=f"LLM judge {shown} ({aspect}{prompt_note}, expected score)",
                      higher_is_better=True, value_range=template.scale,
                      citation="G-Eval's probability-weighted score (Liu et al. 2023); the model run here with "
                      "transformers", description=DESCRIPTIONS[aspect] + " (run here; expected score over the scale)",
                      family="llm judge", compute=llm_local.local_scores,
                      options={"model": model, "aspect": aspect, "prompt": template.text,
                               "scale": tuple(template.scale), "content": llm_local.model_content(local)},
                      variant=lambda _name, _options: _local_variant(), languages=local.languages or (ANY,),
                      verify=lambda **_: llm_local.verify_judge(model))


def _local_variant() -> str:
    """'' in fp32 (a CPU's numbers), else the half precision and GPU that made the scores."""
    device, dtype = llm_local.device_and_dtype()
    if dtype == "fp32":
        return ""
    from stviz.embedders.base import gpu_name

    return f"{dtype}-{gpu_name()}"


__all__ = ["ASPECTS", "JudgeConfig", "Plan", "Settings", "Template", "configure", "judge_block", "llm_card",
           "llm_scores", "load_template", "parse_prompt_files", "parse_score", "parse_spec", "plan", "reset",
           "settings", "unparsed_replies", "LLMError"]
