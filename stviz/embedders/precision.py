"""Half precision on a GPU, behind a gate like int8's: used only where it agrees with fp32 and is faster.

On a GPU a transformer encoder's forward pass runs several times faster in bf16 or fp16 than in fp32
(MiniLM on an H200: 0.29 s against 0.83-1.44 s for 31,574 texts; issue 44), but its vectors move a
little. Choose with ``--precision auto|fp32|bf16|fp16`` (the CLI's global flag), ``STVIZ_PRECISION``
or the home page:

* ``fp32`` - the reference: the same numbers as on a CPU, to float rounding;
* ``bf16`` / ``fp16`` - the encoder's weights and activations in half precision; pooling and
  normalisation stay in fp32. Used only once its gate passed on this device (below), else fp32;
* ``auto`` (the default) - the faster half precision whose gate passes on this GPU, else fp32. A CPU
  always runs fp32: half precision is slower there.

The gate (:func:`half_gate`), measured once per model x precision x GPU model x torch release and
kept in the disk cache: on the shipped demo sentences, the mean cosine of half-precision vectors to
fp32 must be at least :data:`GATE_MEAN` and the worst :data:`GATE_WORST`, and encoding must be at
least :data:`MIN_SPEEDUP` times faster than fp32 on batches of shapes it has not met before (a real
run's batches rarely repeat a shape; see ``torch_backend.half_gate_measure``). Half-precision vectors are cached apart from fp32
ones (:func:`precision_variant`), under the GPU's name, since other kernels give other roundings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from stviz.cache import default_cache
from stviz.embedders.base import check_setting, gpu_name, precision_variant, setting_from_environment

PRECISION_ENV = "STVIZ_PRECISION"
#: Precisions a user can ask for; ``auto`` resolves to one of the others.
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
PRECISION_LABELS = {
    "auto": "automatic (half precision on a GPU where its gate passes; fp32 otherwise)",
    "fp32": "fp32 (the reference, as on a CPU)",
    "bf16": "bf16 on a GPU (gated)",
    "fp16": "fp16 on a GPU (gated)",
}
#: Agreement with fp32 a half precision must reach on the gate sentences (cosine of the sentence vectors).
#: Stricter than int8's (0.99 / 0.97). Measured on MiniLM on an H200 over 31,110 texts: fp16 mean 0.9999998, worst
#: 0.999998; bf16 mean 0.99995, worst 0.99975 (docs/benchmarks.md).
GATE_MEAN, GATE_WORST = 0.9995, 0.995
#: How much faster than fp32 a half precision must encode the gate sample to be worth its rounding.
MIN_SPEEDUP = 1.15


class PrecisionError(ValueError):
    """An unknown precision name; the message lists the choices."""


def requested_precision() -> str:
    """The precision asked for (``STVIZ_PRECISION``, default ``auto``)."""
    return setting_from_environment(PRECISION_ENV, PRECISIONS, PrecisionError, "precision")


def set_precision(name: str) -> None:
    """Ask for a precision for every transformer encoder of this process (the CLI flag and the home page)."""
    check_setting(name, PRECISIONS, PrecisionError, "precision")
    os.environ[PRECISION_ENV] = name


def torch_dtype(precision: str):
    """The torch dtype of a precision name."""
    import torch

    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]


@dataclass(frozen=True)
class HalfGate:
    """How a half precision compared with fp32 on this GPU: agreement of the vectors and speed."""

    precision: str
    mean_cosine: float
    worst_cosine: float
    speedup: float
    #: Texts a second in this precision on the gate sample (a lower bound for long runs: its batches are small).
    rate: float
    n: int

    @property
    def agrees(self) -> bool:
        """Whether its vectors are close enough to fp32's."""
        return self.mean_cosine >= GATE_MEAN and self.worst_cosine >= GATE_WORST

    @property
    def passed(self) -> bool:
        """Whether it is close enough to fp32 and faster enough to be used."""
        return self.agrees and self.speedup >= MIN_SPEEDUP

    def describe(self) -> str:
        """One line for people: the verdict with its numbers."""
        verdict = "passed" if self.passed else "not used"
        return (f"{self.precision} gate {verdict}: mean cosine to fp32 {self.mean_cosine:.5f}, worst "
                f"{self.worst_cosine:.5f}, {self.speedup:.2f}x fp32's speed")


#: ``measure(precision) -> dict`` of :class:`HalfGate`'s fields (without ``precision``), for one model.
Measure = Callable[[str], dict]


def _gate_params(model_id: str, precision: str) -> dict:
    return {"model": model_id, "precision": precision, "gpu": gpu_name(), "gate": [GATE_MEAN, GATE_WORST, MIN_SPEEDUP]}


def half_gate(model_id: str, precision: str, measure: Measure) -> HalfGate:
    """The gate of one model in one half precision on this GPU (measured once, then read from the cache)."""
    values = default_cache().memo("half-gate", _gate_params(model_id, precision), lambda: measure(precision))
    return HalfGate(precision=precision, **values)


def measured_gates(model_id: str) -> list[HalfGate]:
    """The half-precision gates of a model measured on this GPU so far (never measures)."""
    cache = default_cache()
    return [HalfGate(precision=p, **cache.memo("half-gate", _gate_params(model_id, p), dict))
            for p in ("bf16", "fp16") if cache.has("half-gate", _gate_params(model_id, p))]


def resolve_precision(model_id: str, device: str, backend: str, measure: Measure) -> str:
    """The precision a transformer runs in here: fp32, or a half precision whose gate passed on this GPU."""
    name = requested_precision()
    if device != "cuda" or backend != "torch" or name == "fp32":
        return "fp32"
    candidates = ("bf16", "fp16") if name == "auto" else (name,)
    passed = [gate for gate in (half_gate(model_id, p, measure) for p in candidates) if gate.passed]
    return max(passed, key=lambda gate: gate.speedup).precision if passed else "fp32"


def known_precision(model_id: str) -> str | None:
    """The precision :func:`resolve_precision` picks on this GPU from the gates measured so far; None before any."""
    name = requested_precision()
    if name == "fp32":
        return "fp32"
    candidates = ("bf16", "fp16") if name == "auto" else (name,)
    gates = [g for g in measured_gates(model_id) if g.precision in candidates]
    if len(gates) < len(candidates):
        return None
    passed = [g for g in gates if g.passed]
    return max(passed, key=lambda g: g.speedup).precision if passed else "fp32"


def describe_precision(model_id: str, device: str) -> str:
    """One line for people: the precision transformer encoders run in, and the gates measured so far."""
    if device != "cuda":
        return "Precision: fp32 (half precision is used on a GPU only)."
    used = known_precision(model_id)
    if used is None:
        return (f"Precision: {PRECISION_LABELS[requested_precision()]}; the half-precision gate is measured on "
                "first use.")
    gates = "; ".join(g.describe() for g in measured_gates(model_id))
    return f"Precision: {used} on {gpu_name()}" + (f" ({gates})." if gates else ".")


def describe_device(device: str, model_id: str) -> str:
    """The device in a few words, with the GPU's name and the precision encoders run in there: 'cuda · NVIDIA H200 · bf16'."""
    if device != "cuda":
        return device
    import torch

    return f"cuda · {torch.cuda.get_device_name()} · {known_precision(model_id) or 'precision gated on first use'}"
