"""benchmarks/gpu.py's dry run: the device check's whole plan runs on a CPU, so a lent GPU's minutes are never
spent finding a broken step (docs/benchmarks.md has the figures of the real run)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _gpu_benchmark():
    spec = importlib.util.spec_from_file_location("gpu_benchmark", ROOT / "benchmarks" / "gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_device_check_runs_its_whole_plan_on_a_cpu(tmp_path):
    results = _gpu_benchmark().main(["--dry-run", "--out", str(tmp_path)])
    assert set(results) == {"environment", "embedder", "bertscore", "language_model", "commands"}
    failed = {step: r["error"] for step, r in results.items() if "error" in r}
    assert not failed, failed
    assert json.loads((tmp_path / "gpu.json").read_text()).keys() == results.keys()
    embedder = results["embedder"]
    assert embedder["tokenize_fast_path"] == "FastFeatures"
    # Same weights, same device kind here: every comparison the GPU run makes is at float32 rounding on a CPU.
    assert embedder["fp32_vs_library_max_abs"] < 1e-5 and embedder["gpu_vs_cpu_fp32_max_abs"] < 1e-5
    assert results["bertscore"]["gpu_vs_cpu_max_abs"] < 1e-5
    assert results["language_model"]["gpu_vs_cpu_max_rel"] < 1e-5
    assert all(c["exit"] == 0 for c in results["commands"].values() if isinstance(c, dict)), results["commands"]
