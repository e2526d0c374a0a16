"""A logistic head over the shipped MiniLM's mean-pooled, unit-normalised sentence vectors.

The encoder stays frozen on CPU (the vectors then come from the shared embedding cache); with a
GPU it is fine-tuned together with the head. Either way :meth:`TransformerStyleClassifier.torch_model`
gives the differentiable encoder + head that token attributions (:mod:`stviz.measures.style.attribution`) need.
"""

from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from stviz.data.schema import DataError
from stviz.measures.style.classifiers.checks import check_training_data
from stviz.progress import Progress


class TransformerStyleClassifier:
    """A logistic head over MiniLM mean-pooled unit vectors; the encoder is fine-tuned only on a GPU."""

    kind = "transformer"

    def __init__(self, embedder: str = "minilm", C: float = 4.0, fine_tune: str | bool = "auto",
                 epochs: int = 2, learning_rate: float = 2e-5, max_length: int = 128, random_state: int = 0):
        self.embedder = embedder
        self.C = C
        self.fine_tune = fine_tune
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.max_length = max_length
        self.random_state = random_state

    def get_params(self) -> dict:
        """Constructor parameters (a natural cache key)."""
        from stviz.embedders import parse_embedder, vector_cache_id

        # "auto" is resolved here: a model fine-tuned on a GPU and a frozen one must not share a cache key;
        # and the vectors' cache id says which backend made them (int8 vectors train a different head).
        return {"kind": self.kind, "embedder": vector_cache_id(parse_embedder(self.embedder)), "C": self.C,
                "fine_tune": self._will_fine_tune(),
                "epochs": self.epochs, "learning_rate": self.learning_rate,
                "max_length": self.max_length, "random_state": self.random_state}

    def _will_fine_tune(self) -> bool:
        from stviz.embedders import select_device

        if self.fine_tune == "auto":
            # On CPU a fine-tuning epoch over tens of thousands of sentences takes hours; the
            # frozen encoder with a trained head is the practical default there.
            return select_device() == "cuda"
        return bool(self.fine_tune)

    def fit(self, texts: Sequence[str], labels: Sequence[str], progress: Progress | None = None):
        """Train the head on cached MiniLM vectors, then (GPU) fine-tune encoder and head; returns self."""
        from sklearn.linear_model import LogisticRegression

        from stviz.embedders import embed, unit_normalise

        if self.embedder != "minilm":
            raise DataError("the transformer classifier supports the shipped MiniLM ('minilm') only")
        texts, labels = check_training_data(texts, labels)
        vectors = unit_normalise(embed(texts, "minilm", progress=progress))
        head = LogisticRegression(C=self.C, max_iter=2000, random_state=self.random_state).fit(vectors, labels)
        self.classes_ = np.array(head.classes_)
        self.head_weight_, self.head_bias_ = _softmax_head(head)
        self.encoder_state_ = None
        self.fine_tuned_ = False
        if self._will_fine_tune():
            self._fine_tune(texts, labels)
        return self

    def _fine_tune(self, texts: list[str], labels: list[str]) -> None:
        import torch

        torch.manual_seed(self.random_state)
        model = self.torch_model()
        model.train()
        device = next(model.parameters()).device
        target = torch.tensor([int(np.flatnonzero(self.classes_ == y)[0]) for y in labels], device=device)
        optimiser = torch.optim.AdamW(model.parameters(), lr=self.learning_rate)
        tokenizer = minilm_tokenizer()
        rng = np.random.default_rng(self.random_state)
        for _ in range(self.epochs):
            for batch in np.array_split(rng.permutation(len(texts)), max(1, len(texts) // 32)):
                enc = tokenizer([texts[i] for i in batch], padding=True, truncation=True,
                                max_length=self.max_length, return_tensors="pt").to(device)
                loss = torch.nn.functional.cross_entropy(model(enc["input_ids"], enc["attention_mask"]), target[batch])
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
        model.eval()
        self.head_weight_ = model.head.weight.detach().cpu().numpy().copy()
        self.head_bias_ = model.head.bias.detach().cpu().numpy().copy()
        self.encoder_state_ = {k: v.detach().cpu().numpy() for k, v in model.encoder.state_dict().items()}
        self.fine_tuned_ = True
        self._torch_model = None

    def torch_model(self):
        """The differentiable MiniLM encoder + linear head (logits), built once and kept."""
        model = getattr(self, "_torch_model", None)
        if model is None:
            model = _build_torch_model(self)
            self._torch_model = model
        return model

    def predict_proba(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Style distribution per text (softmax of the head), columns in the order of ``classes_``."""
        from stviz.embedders import embed, unit_normalise

        texts = [str(t) for t in texts]
        if self.fine_tuned_:
            return self._predict_fine_tuned(texts)
        vectors = unit_normalise(embed(texts, "minilm", progress=progress))
        return _softmax(vectors @ self.head_weight_.T + self.head_bias_)

    def _predict_fine_tuned(self, texts: list[str]) -> np.ndarray:
        import torch

        model = self.torch_model()
        device = next(model.parameters()).device
        tokenizer = minilm_tokenizer()
        out = []
        for start in range(0, len(texts), 64):
            enc = tokenizer(texts[start:start + 64], padding=True, truncation=True,
                            max_length=self.max_length, return_tensors="pt").to(device)
            with torch.inference_mode():
                out.append(torch.softmax(model(enc["input_ids"], enc["attention_mask"]), -1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, len(self.classes_)))

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Most probable style per text."""
        return self.classes_[self.predict_proba(texts).argmax(1)]

    def __getstate__(self) -> dict:
        # The torch module is rebuilt from the stored weights after unpickling.
        state = dict(self.__dict__)
        state.pop("_torch_model", None)
        return state


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def _softmax_head(head) -> tuple[np.ndarray, np.ndarray]:
    """(weight, bias) of a softmax layer equal to a fitted scikit-learn LogisticRegression."""
    coef, intercept = head.coef_.astype(np.float32), head.intercept_.astype(np.float32)
    if coef.shape[0] == 1:
        # Binary LR: p(class 1) = sigmoid(w.x + b) = softmax([0, w.x + b])[1].
        coef = np.vstack([np.zeros_like(coef), coef])
        intercept = np.array([0.0, intercept[0]], dtype=np.float32)
    return coef, intercept


_tokenizers = threading.local()


def minilm_tokenizer():
    """The shipped MiniLM's (fast) tokenizer, one per thread.

    A Hugging Face fast tokenizer is reconfigured (padding, truncation) by each call and refuses
    concurrent use ("Already borrowed"); Streamlit sessions are threads, so each gets its own copy
    (it loads in milliseconds and holds no weights).
    """
    tokenizer = getattr(_tokenizers, "minilm", None)
    if tokenizer is None:
        from stviz.embedders import shipped_minilm_path
        from stviz.models.loading import load_tokenizer

        tokenizer = _tokenizers.minilm = load_tokenizer(str(shipped_minilm_path()))
    return tokenizer


def verify_classifier(precision: str = "fp32"):
    """The MiniLM classifier's forward pass on its known answer: logits of fixed sentences under a fixed head.

    The head is the recorded MiniLM vectors of two of the sentences, so the answer is what sentence-transformers'
    vectors give (the classifier's torch model must compute what :func:`stviz.embedders.embed` computes).
    KnownAnswerError when it fails.
    """
    from stviz.embedders import select_device, shipped_minilm_path
    from stviz.models import known_answers as ka
    from stviz.models.loading import content_key

    source = str(shipped_minilm_path())
    use = ka.ModelUse("style classifier's forward pass", "MiniLM-L6 + linear head", source, content_key(source),
                      "torch", select_device(), precision)
    return ka.verify(use, "minilm-classifier", _probe_logits)


def _probe_logits(texts: list[str]) -> np.ndarray:
    """Logits of ``texts`` by the classifier's torch model with the known answer's head (unit vectors, no bias)."""
    import torch

    from stviz.models.known_answers import answer

    head = np.asarray(answer("minilm-vectors")["outputs"][:2], dtype=np.float32)
    probe = TransformerStyleClassifier()
    probe.head_weight_ = head / np.linalg.norm(head, axis=1, keepdims=True)
    probe.head_bias_, probe.encoder_state_ = np.zeros(2, np.float32), None
    model = _build_torch_model(probe)
    enc = minilm_tokenizer()(list(texts), padding=True, truncation=True, max_length=probe.max_length,
                             return_tensors="pt").to(next(model.parameters()).device)
    with torch.inference_mode():
        return model(enc["input_ids"], enc["attention_mask"]).float().cpu().numpy()


def _build_torch_model(clf: TransformerStyleClassifier):
    import torch

    from stviz.embedders import masked_mean_pool, select_device, shipped_minilm_path
    from stviz.models.loading import load_pretrained

    class MiniLMStyleModel(torch.nn.Module):
        """MiniLM -> masked mean pooling -> unit length -> linear head (what encode() + the head compute)."""

        def __init__(self, encoder, weight: np.ndarray, bias: np.ndarray):
            super().__init__()
            self.encoder = encoder
            self.head = torch.nn.Linear(weight.shape[1], weight.shape[0])
            with torch.no_grad():
                self.head.weight.copy_(torch.from_numpy(np.asarray(weight, np.float32)))
                self.head.bias.copy_(torch.from_numpy(np.asarray(bias, np.float32)))

        def forward(self, input_ids, attention_mask):
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            pooled = masked_mean_pool(hidden, attention_mask)
            return self.head(torch.nn.functional.normalize(pooled, p=2, dim=1))

    verify_classifier()
    encoder = load_pretrained(str(shipped_minilm_path()), "encoder", label="MiniLM (style classifier)")
    if clf.encoder_state_ is not None:
        encoder.load_state_dict({k: torch.from_numpy(v) for k, v in clf.encoder_state_.items()})
    model = MiniLMStyleModel(encoder, clf.head_weight_, clf.head_bias_).to(select_device())
    model.eval()
    return model
