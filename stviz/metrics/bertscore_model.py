"""BERTScore's model: loaded by stviz (verified), scored by bert-score's own matching, on PyTorch or ONNX Runtime.

:func:`bert_scorer` replaces ``BERTScorer(model_type=PATH)``, whose ``get_model`` chooses the model class from the
characters of the path (``"t5" in model_type`` loads ``T5EncoderModel``, ``startswith("scibert")`` a download):
the shipped MiniLM under ``~/t5-experiments`` was a T5 encoder with random weights. Here the model is loaded by
:func:`stviz.models.loading.load_pretrained` (the class its config names, refused if incomplete, layers kept
as bert-score keeps them) and bert-score computes on it.
"""

from __future__ import annotations

from stviz.embedders.base import EmbedderError, model_stamp, resolve_model, select_device
from stviz.shared import load_once


def bert_scorer(model: str, num_layers: int, backend: str = "torch") -> "BertScoreModel":
    """bert-score's computation over a model stviz loaded itself (verified, first ``num_layers`` layers kept).

    Not ``BERTScorer(model_type=PATH)``: its ``get_model`` picks the model class from the characters of the
    path (``"t5" in model_type`` loads a T5 encoder, every weight random), whatever the config says. Loaded once
    per process for the folder the spec resolves to and its content (a replaced folder is loaded anew).
    """
    source = resolve_model(model)[0]
    return _load_scorer(source, model_stamp(source), model, num_layers, backend)


@load_once(maxsize=4)
def _load_scorer(source: str, stamp: str, model: str, num_layers: int, backend: str) -> "BertScoreModel":
    from stviz.models.loading import ModelLoadError, load_pretrained, load_tokenizer

    device = select_device() if backend == "torch" else "cpu"
    try:
        # bert-score's own tokenizer choice (get_tokenizer: use_fast=False), from the config, not the name.
        tokenizer = load_tokenizer(source, use_fast=False)
        encoder = load_pretrained(source, "encoder", label=f"'{model}' for BERTScore", device=device,
                                  num_layers=num_layers)
    except ModelLoadError:
        raise
    except Exception as exc:  # noqa: BLE001 - one clear message for any loading failure
        raise EmbedderError(f"could not load '{model}' for BERTScore: {type(exc).__name__}: {str(exc)[:300]}") from exc
    if backend != "torch":
        from stviz.embedders.onnx_backend import load_encoder, onnx_input_names

        encoder = OnnxTokenStates(load_encoder(encoder, onnx_input_names(tokenizer), backend))
    return BertScoreModel(tokenizer, encoder, device)


class BertScoreModel:
    """A loaded encoder and its tokenizer, scored by bert-score's own matching (``bert_cos_score_idf``).

    The same computation as ``BERTScorer.score`` with idf off and no baseline: bert-score's tokenisation,
    greedy matching and F1, with the [CLS]/[SEP] weights at 0 as its scorer sets them.
    """

    def __init__(self, tokenizer, model, device: str):
        self.tokenizer, self.model, self.device = tokenizer, model, device

    @property
    def batch_size(self) -> int:
        """Texts embedded at once (and pairs matched at once): 64 was best on 2 CPU cores; a GPU takes far more."""
        return 512 if str(self.device).startswith("cuda") else 64

    def f1(self, outputs: list[str], sources: list[str], batch_size: int | None = None):
        """BERTScore F1 of each output (candidate) against its source (reference), a torch tensor."""
        from collections import defaultdict

        from bert_score.utils import bert_cos_score_idf

        idf = defaultdict(lambda: 1.0)
        idf[self.tokenizer.sep_token_id] = 0
        idf[self.tokenizer.cls_token_id] = 0
        scores = bert_cos_score_idf(self.model, sources, outputs, self.tokenizer, idf, verbose=False,
                                    batch_size=batch_size or self.batch_size, device=self.device, all_layers=False)
        return scores.cpu()[..., 2]


class OnnxTokenStates:
    """bert-score's model interface (``model(ids, attention_mask=...)[0]``) over an ONNX Runtime encoder.

    bert-score calls its model in one place (``bert_encode``); this object answers that call, so
    its tokenisation, greedy matching and every other step stay the library's own.
    """

    def __init__(self, encoder):
        self.encoder = encoder

    def eval(self):
        """No training state to switch: returns itself, as torch modules do."""
        return self

    def to(self, *args, **kwargs):
        """ONNX Runtime runs on the CPU: returns itself."""
        return self

    def parameters(self):
        """bert-score reads the device from the first parameter: one CPU tensor."""
        import torch

        yield torch.zeros(0)

    def __call__(self, input_ids, attention_mask=None, output_hidden_states=False):
        import torch

        if output_hidden_states:
            raise ValueError("the ONNX backend serves the last layer only; use --backend torch for all layers")
        states = self.encoder.token_states({"input_ids": input_ids, "attention_mask": attention_mask})
        return (torch.from_numpy(states),)
