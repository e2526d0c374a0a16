"""BERTScore computed as bert-score computes it, fed by stviz: equal to the library's own loop, and its pass over the
texts shared with MiniLM's sentence vectors where the numbers are the same."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from stviz.data import load_dataset
from stviz.metrics.bertscore_model import bert_scorer
from stviz.metrics.content import minilm_vector_sharing


@pytest.fixture(scope="module")
def pairs(corpora):
    frame = load_dataset("sgdd-tst").pairs.head(200)
    sources, outputs = frame["source"].astype(str).tolist(), frame["output"].astype(str).tolist()
    # A text beyond MiniLM's 256 tokens (bert-score truncates at 512) and repeated inputs, as systems share them.
    return sources + ["word " * 400, sources[0]], outputs + ["other " * 300, outputs[1]]


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_f1_equals_bert_scores_own_loop(pairs, backend):
    from bert_score.utils import bert_cos_score_idf

    sources, outputs = pairs
    scorer = bert_scorer("minilm", 6, backend)
    idf = defaultdict(lambda: 1.0)
    idf[scorer.tokenizer.sep_token_id] = idf[scorer.tokenizer.cls_token_id] = 0
    reference = bert_cos_score_idf(scorer.model, sources, outputs, scorer.tokenizer, idf, batch_size=64,
                                   device=scorer.device)[..., 2].numpy()
    ours = scorer.f1(outputs, sources).numpy()
    assert np.abs(ours - reference).max() < 1e-5  # the same operations in other batches: float rounding
    assert type(scorer.tokenize).__name__ == "FastFeatures"  # bert-score's ids, from the Rust core (checked)


def test_a_blank_output_scores_instead_of_crashing():
    # bert-score's sent_encode calls a tokenizer method transformers 5 removed for an empty text.
    f1 = bert_scorer("minilm", 6, "torch").f1(["   ", "the food was good"], ["the food was good", "the food was good"])
    assert f1[0] == 0 and f1[1] > 0.99


def test_bertscore_leaves_minilms_vectors_and_the_cosine_needs_no_second_pass(pairs, tmp_path, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    from stviz.cache import default_cache
    from stviz.embedders import SentenceTransformerEmbedder, unit_normalise
    from stviz.metrics import compute_metric

    sources, outputs = pairs
    compute_metric("bertscore", sources, outputs)
    embedder = SentenceTransformerEmbedder("minilm")
    _, missing = default_cache().get_vectors(embedder.vector_id, sources + outputs)
    assert sorted({(sources + outputs)[i] for i in missing}) == ["other " * 300, "word " * 400]  # beyond 256 tokens
    cosine = compute_metric("cosine:minilm", sources, outputs)
    fresh = np.einsum("ij,ij->i", unit_normalise(embedder._encode_at("fp32", sources)),
                      unit_normalise(embedder._encode_at("fp32", outputs)))
    assert np.abs(cosine - fresh).max() < 1e-5


def test_no_sharing_where_the_numbers_would_differ():
    assert minilm_vector_sharing("minilm", 6, "onnx-int8") is None  # int8 states are not fp32 vectors
    assert minilm_vector_sharing("minilm", 3, "torch") is None  # fewer layers: other states
    assert minilm_vector_sharing("/some/other/model", 6, "torch") is None
    assert minilm_vector_sharing("minilm", 6, "onnx") is not None


def test_a_frame_asking_the_cosine_first_still_computes_bertscore_first(pairs, tmp_path, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    import pandas as pd

    from stviz.embedders import SentenceTransformerEmbedder
    from stviz.metrics import computation_order, metric_frame

    assert computation_order(["cosine:minilm", "bleu", "bertscore+ne"]) == ["bertscore+ne", "cosine:minilm", "bleu"]
    assert computation_order(["cosine:minilm", "bleu"]) == ["cosine:minilm", "bleu"]  # nothing to feed it
    sources, outputs = pairs
    encoded = []
    real = SentenceTransformerEmbedder._encode_at
    monkeypatch.setattr(SentenceTransformerEmbedder, "_encode_at", lambda self, precision, texts, *args, **kwargs:
                        encoded.extend(texts) or real(self, precision, texts, *args, **kwargs))
    frame = metric_frame(pd.DataFrame({"source": sources, "output": outputs}), ["cosine:minilm", "bleu", "bertscore"])
    assert list(frame.columns) == ["cosine:minilm", "bleu", "bertscore"]  # the order asked
    # MiniLM ran on no text of the pairs but those BERTScore could not give (its known-answer texts aside).
    assert sorted(set(encoded) & set(sources + outputs)) == ["other " * 300, "word " * 400]
