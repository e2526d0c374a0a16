"""Learned metrics: ``comet:MODEL`` (COMET, Rei et al. 2020) and ``bleurt:MODEL`` (BLEURT, Sellam et al. 2020).

Both are trained on human judgments of translation; here, as every content metric of stviz, the source is
the reference (COMET gets it as both ``src`` and ``ref``). Neither is installed with stviz and nothing is
downloaded: they run where their package and a local checkpoint are present, and otherwise say which
package to install and which checkpoint is missing.

* ``comet:MODEL``: ``pip install unbabel-comet``; MODEL is a checkpoint file (``.ckpt``), a folder holding
  ``checkpoints/model.ckpt``, or a Hugging Face id already in the local cache (``Unbabel/wmt22-comet-da``).
* ``bleurt:MODEL``: a folder or a cached Hugging Face id. Ports in the transformers format (``Elron/bleurt-*``,
  the model behind SGDD-TST's ``Elron/bleurt-large-512`` column) need only transformers; BLEURT-20 ports
  (``lucadiliello/BLEURT-20``, ``model_type: bleurt``) need ``bleurt-pytorch``
  (``pip install git+https://github.com/lucadiliello/bleurt-pytorch.git``).

A dataset's precomputed column of the same model (``metric:Elron/bleurt-large-512``) can then be compared
with the recomputed values (:func:`stviz.analyses.judges.learned_agreement`).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from stviz.data.schema import DataError
from stviz.metrics.registry import MetricCard, metric_family
from stviz.progress import Progress
from stviz.shared import load_once

FAMILIES = ("comet", "bleurt")
COMET_PACKAGE = "unbabel-comet"
BLEURT_PACKAGE = "bleurt-pytorch (pip install git+https://github.com/lucadiliello/bleurt-pytorch.git)"
CITATIONS = {"comet": "Rei et al. 2020, COMET (unbabel-comet)", "bleurt": "Sellam et al. 2020, BLEURT"}


class LearnedMetricError(DataError):
    """A learned metric's package or checkpoint is missing here (the message names both fixes)."""


def parse_learned(name: str) -> tuple[str, str]:
    """``comet:MODEL`` / ``bleurt:MODEL`` -> (family, model); DataError when MODEL is empty.

    >>> parse_learned("bleurt:Elron/bleurt-large-512")
    ('bleurt', 'Elron/bleurt-large-512')
    """
    family, _, model = name.partition(":")
    if family not in FAMILIES or not model.strip():
        raise DataError(f"'{name}' names no model: write comet:MODEL or bleurt:MODEL (a local checkpoint "
                        "folder or file, or a Hugging Face id in the local cache)")
    return family, model.strip()


def find_checkpoint(model: str) -> Path | None:
    """The local checkpoint of ``model``: the path itself, else the Hugging Face cache (never downloaded); None if absent."""
    path = Path(model).expanduser()
    if path.exists():
        return path.resolve()
    if model.count("/") == 1 and not model.startswith((".", "/", "~")):
        try:
            from huggingface_hub import snapshot_download

            return Path(snapshot_download(model, local_files_only=True))
        except Exception:  # noqa: BLE001 - not in the cache (or no hub library): the caller says so
            return None
    return None


def require(family: str, model: str, module: str, package: str) -> Path:
    """The checkpoint, when it and the package are here; else one message naming what is missing of the two."""
    missing = []
    if importlib.util.find_spec(module) is None:
        missing.append(f"the Python package {package} (pip install {package.split(' (')[0]})"
                       if "(" not in package else f"the Python package {package}")
    checkpoint = find_checkpoint(model)
    if checkpoint is None:
        cache = os.environ.get("HF_HOME", "~/.cache/huggingface")
        missing.append(f"the checkpoint '{model}', which is neither a file or folder here nor in the Hugging Face "
                       f"cache ({cache}); fetch it once where the network is allowed "
                       f"(huggingface-cli download {model}) or give its path")
    if missing:
        hint = (f"; transformers-format ports (Elron/bleurt-*) need nothing more, BLEURT-20 ports need "
                f"{BLEURT_PACKAGE}" if family == "bleurt" and module == "transformers" else "")
        raise LearnedMetricError(f"{family}:{model} needs " + ", and ".join(missing) + ": stviz installs and "
                                 "downloads neither" + hint)
    return checkpoint


# -- COMET ---------------------------------------------------------------------------------------------------
def _comet_file(checkpoint: Path) -> Path:
    if checkpoint.is_file():
        return checkpoint
    found = sorted(checkpoint.glob("checkpoints/*.ckpt")) or sorted(checkpoint.glob("*.ckpt"))
    if not found:
        raise LearnedMetricError(f"no COMET checkpoint (.ckpt) in {checkpoint}: expected checkpoints/model.ckpt")
    return found[0]


@load_once(maxsize=2)
def _comet_model(path: str):
    from comet import load_from_checkpoint

    return load_from_checkpoint(path)


def comet(sources: Sequence[str], outputs: Sequence[str], model: str = "", progress: Progress | None = None,
          batch_size: int = 32) -> np.ndarray:
    """COMET scores (Rei et al., 2020) with the source as both ``src`` and ``ref``; a local checkpoint only."""
    checkpoint = _comet_file(require("comet", model, "comet", COMET_PACKAGE))
    verify_learned("comet", model, checkpoint)
    scorer = _comet_model(str(checkpoint))
    data = [{"src": str(s), "mt": str(o), "ref": str(s)} for s, o in zip(sources, outputs)]
    scores = scorer.predict(data, batch_size=batch_size, gpus=0, progress_bar=False).scores
    if progress:
        progress(len(data), len(data))
    return np.asarray(scores, dtype=np.float64)


# -- BLEURT --------------------------------------------------------------------------------------------------
@load_once(maxsize=2)
def _bleurt_model(path: str):
    """(tokenizer, model) of a BLEURT checkpoint: bleurt-pytorch's classes for BLEURT-20 ports, else transformers'."""
    config = json.loads((Path(path) / "config.json").read_text(encoding="utf-8"))
    from stviz.models.loading import load_pretrained, load_tokenizer

    if config.get("model_type") == "bleurt":  # a BLEURT-20 port: its own model classes, loaded verified
        require("bleurt", path, "bleurt_pytorch", BLEURT_PACKAGE)
        from bleurt_pytorch import BleurtForSequenceClassification, BleurtTokenizer

        return BleurtTokenizer.from_pretrained(path), load_pretrained(
            path, "sequence-classification", label=f"bleurt:{path}", model_class=BleurtForSequenceClassification)
    return load_tokenizer(path), load_pretrained(path, "sequence-classification", label=f"bleurt:{path}")


def bleurt(sources: Sequence[str], outputs: Sequence[str], model: str = "", progress: Progress | None = None,
           batch_size: int = 32) -> np.ndarray:
    """BLEURT scores (Sellam et al., 2020), the source as reference; a local checkpoint only."""
    import torch

    checkpoint = require("bleurt", model, "transformers", "transformers")
    if not (checkpoint / "config.json").is_file():
        raise LearnedMetricError(f"{checkpoint} is not a BLEURT checkpoint folder (no config.json)")
    tokenizer, net = _bleurt_model(str(checkpoint))
    verify_learned("bleurt", model, checkpoint)
    out = np.empty(len(sources), dtype=np.float64)
    for start in range(0, len(sources), batch_size):
        refs = [str(t) for t in sources[start:start + batch_size]]
        cands = [str(t) for t in outputs[start:start + batch_size]]
        inputs = tokenizer(refs, cands, padding="longest", truncation=True, max_length=512, return_tensors="pt")
        with torch.inference_mode():
            out[start:start + len(refs)] = net(**inputs).logits.flatten().double().numpy()
        if progress:
            progress(start + len(refs), len(sources))
    return out


def verify_learned(family: str, model: str, checkpoint: Path):
    """A learned metric's checkpoint checked before use: finite scores, the same twice and alone as in a batch.

    No answer is recorded for COMET or BLEURT (none ships with stviz); BLEURT's weights are also loaded verified
    (stviz.models.loading), COMET's by its own package. KnownAnswerError naming the reason when it fails.
    """
    from stviz.models import known_answers as ka
    from stviz.models.loading import content_key, rounding_bound

    use = ka.ModelUse(family.upper(), f"{family}:{model}", str(checkpoint), content_key(str(checkpoint)))
    score = comet if family == "comet" else bleurt
    return ka.verify(use, None, lambda pairs: score([p[0] for p in pairs], [p[1] for p in pairs], model=model),
                     inputs="pairs", bound=rounding_bound(24, 4096))


# -- the families ---------------------------------------------------------------------------------------------
def _card(name: str) -> MetricCard:
    family, model = parse_learned(name)
    label = "COMET" if family == "comet" else "BLEURT"
    return MetricCard(name=name, label=f"{label} ({model})", higher_is_better=True,
                      value_range=(float("-inf"), float("inf")), citation=CITATIONS[family],
                      description=f"{label} with the source as reference (a learned metric; local checkpoint)",
                      family="learned", options={"model": model}, compute=comet if family == "comet" else bleurt,
                      needs=("model", "slow"), verify=lambda model: _verify_card(family, model))


def _verify_card(family: str, model: str):
    """The check of a learned metric's checkpoint when its package and checkpoint are here (else computing says why)."""
    module = "comet" if family == "comet" else "transformers"
    try:
        checkpoint = require(family, model, module, COMET_PACKAGE if family == "comet" else "transformers")
    except LearnedMetricError:
        return None
    return verify_learned(family, model, _comet_file(checkpoint) if family == "comet" else checkpoint)


@metric_family("comet", "comet:MODEL")
def comet_card(name: str) -> MetricCard:
    """The card of ``comet:MODEL`` (nothing is loaded until values are computed)."""
    return _card(name)


@metric_family("bleurt", "bleurt:MODEL")
def bleurt_card(name: str) -> MetricCard:
    """The card of ``bleurt:MODEL`` (nothing is loaded until values are computed)."""
    return _card(name)


__all__ = ["FAMILIES", "LearnedMetricError", "bleurt", "bleurt_card", "comet", "comet_card", "find_checkpoint",
           "parse_learned", "require", "verify_learned"]
