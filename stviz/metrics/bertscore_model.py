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
        fast = load_tokenizer(source, use_fast=True)  # its Rust core, used where it gives the same ids (checked)
        encoder = load_pretrained(source, "encoder", label=f"'{model}' for BERTScore", device=device,
                                  num_layers=num_layers)
    except ModelLoadError:
        raise
    except Exception as exc:  # noqa: BLE001 - one clear message for any loading failure
        raise EmbedderError(f"could not load '{model}' for BERTScore: {type(exc).__name__}: {str(exc)[:300]}") from exc
    if backend != "torch":
        from stviz.embedders.onnx_backend import load_encoder, onnx_input_names

        encoder = OnnxTokenStates(load_encoder(encoder, onnx_input_names(tokenizer), backend))
    return BertScoreModel(tokenizer, encoder, device, fast)


class BertScoreModel:
    """A loaded encoder and its tokenizer, scored as ``BERTScorer.score`` scores with idf off and no baseline.

    bert-score's tokens (``sent_encode``: stripped, special tokens, truncated at the tokenizer's limit), its
    weights ([CLS] and [SEP] at 0, every other token 1) and its greedy matching (``greedy_cos_idf``), over token
    states computed here: each distinct text once, in length-sorted batches (stviz.embedders.batching), tokenized
    by the fast tokenizer's Rust core where it gives bert-score's ids on the check texts. bert-score's own loop
    (``bert_cos_score_idf``) tokenizes every sentence in Python with the slow tokenizer; the greedy matching is
    the library's.
    """

    def __init__(self, tokenizer, model, device: str, fast_tokenizer=None):
        self.tokenizer, self.model, self.device = tokenizer, model, device
        self.fast_tokenizer = fast_tokenizer

    @property
    def batch_size(self) -> int:
        """Texts embedded at once (and pairs matched at once): 64 was best on 2 CPU cores; a GPU takes far more."""
        return 512 if str(self.device).startswith("cuda") else 64

    def f1(self, outputs: list[str], sources: list[str], batch_size: int | None = None):
        """BERTScore F1 of each output (candidate) against its source (reference), a torch tensor."""
        return self.score(outputs, sources, batch_size)[0]

    def score(self, outputs: list[str], sources: list[str], batch_size: int | None = None):
        """(F1 per pair, the texts embedded, their mean-pooled unit vectors, their token counts): one forward pass.

        The pooled vectors are what a sentence-transformers model with mean pooling and normalisation gives on
        the same states: a caller may keep them (MiniLM's cosine then needs no second pass over the texts).
        """
        import torch
        from bert_score.utils import greedy_cos_idf

        batch = batch_size or self.batch_size
        texts = list(dict.fromkeys(list(sources) + list(outputs)))
        states = self.token_states(texts)
        scores = []
        with torch.inference_mode():
            for start in range(0, len(sources), batch):
                refs = _padded([states[t] for t in sources[start:start + batch]], self.device)
                hyps = _padded([states[t] for t in outputs[start:start + batch]], self.device)
                scores.append(greedy_cos_idf(*refs, *hyps, False)[2].cpu())
            pooled = torch.stack([states[t][0].mean(0) for t in texts]) if texts else torch.zeros(0)
            pooled = torch.nn.functional.normalize(pooled.float(), dim=-1).cpu().numpy() if texts else pooled.numpy()
        f1 = torch.cat(scores) if scores else torch.zeros(0)
        return f1, texts, pooled, [len(states[t][0]) for t in texts]

    def token_states(self, texts: list[str]) -> dict:
        """Per distinct text: (its token states, trimmed to its tokens; its bert-score weights: 0 on [CLS] / [SEP])."""
        import torch

        from stviz.embedders.batching import batch_limits, token_batches

        special = torch.tensor(sorted({self.tokenizer.sep_token_id, self.tokenizer.cls_token_id}))
        hidden = int(getattr(getattr(self.model, "config", None), "hidden_size", 768) or 768)
        limits = batch_limits(str(self.device).split(":")[0], hidden, 4, self.batch_size)
        out = {}
        with torch.inference_mode():
            for batch in token_batches(texts, self.tokenize, limits):
                ids, mask = batch.features["input_ids"], batch.features["attention_mask"]
                states = self.model(ids.to(self.device), attention_mask=mask.to(self.device))[0]
                weights = (~torch.isin(ids, special)).float().to(states.device)
                for k, (row, n) in enumerate(zip(batch.rows.tolist(), mask.sum(1).tolist())):
                    out[texts[row]] = (states[k, :n], weights[k, :n])
        return out

    @property
    def tokenize(self):
        """``fn(texts) -> {input_ids, attention_mask}`` as bert-score tokenizes (Rust core where checked equal)."""
        if getattr(self, "_tokenize", None) is None:
            from stviz.embedders.batching import verified_tokenize

            fast = self.fast_tokenizer
            self._tokenize = (verified_tokenize(self._reference_tokenize, fast, self.tokenizer.model_max_length)
                              if fast is not None else self._reference_tokenize)
        return self._tokenize

    def _reference_tokenize(self, texts: list) -> dict:
        """bert-score's own tokens (``sent_encode``) and padding (``padding``): the reference of the fast path."""
        from bert_score.utils import padding, sent_encode

        def encode(text: str) -> list[int]:
            # sent_encode gives an empty text its special tokens alone through a method transformers 5 dropped.
            if not text.strip():
                return self.tokenizer.encode("", add_special_tokens=True)
            return sent_encode(self.tokenizer, text)

        padded, _, mask = padding([encode(str(t)) for t in texts], self.tokenizer.pad_token_id)
        return {"input_ids": padded, "attention_mask": mask}


def _padded(stats: list, device):
    """A batch of (states, weights) padded as bert-score pads them (states with 2.0, weights with 0) and its mask."""
    import torch
    from torch.nn.utils.rnn import pad_sequence

    states = pad_sequence([s for s, _ in stats], batch_first=True, padding_value=2.0).to(device)
    weights = pad_sequence([w for _, w in stats], batch_first=True).to(device)
    lengths = torch.tensor([len(s) for s, _ in stats])
    mask = (torch.arange(int(lengths.max())).expand(len(stats), -1) < lengths[:, None]).to(device)
    return states, mask, weights


class OnnxTokenStates:
    """The model interface ``model(ids, attention_mask=...)[0]`` over an ONNX Runtime encoder.

    :meth:`BertScoreModel.token_states` calls its model that way, and so does bert-score's own loop
    (``bert_encode``, the reference the tests compare with), which also reads ``eval``, ``to`` and ``parameters``.
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
