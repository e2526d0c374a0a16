"""Issue 9: sessions of one dashboard are threads sharing models; 8 of them computing at once.

Each thread computes METEOR (NLTK's WordNet reader), named-entity scores (spaCy) and MiniLM
embeddings (sentence-transformers) on its own pairs, all released together by a barrier, with
the shared loaders cold (WordNet is even built from Debian's files during the race). Every
result must equal the same computation run alone, and no thread may fail.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from stviz.cache import Cache
from stviz.embedders import embed
from stviz.metrics import entities, wordnet
from stviz.metrics.content import meteor

THREADS = 8


@pytest.fixture
def cold_shared_models(tmp_path, monkeypatch):
    """A fresh stviz home (WordNet not built yet) and every shared loader emptied."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    for loader in (wordnet.locate_wordnet, wordnet.load_wordnet, entities.load_ner):
        loader.cache_clear()
    yield
    for loader in (wordnet.locate_wordnet, wordnet.load_wordnet):
        loader.cache_clear()  # later tests find the regular home's copy again


def _work(pairs, tmp_path, k: int) -> dict[str, np.ndarray]:
    sources, outputs = pairs
    cache = Cache(tmp_path / f"cache-{k}")  # a cache of its own: every thread really computes
    few_sources, few_outputs = sources[:80], outputs[:80]
    return {"meteor": meteor(sources, outputs),  # many words: WordNet lookups overlap in time
            "ne": entities.entity_scores(few_sources, few_outputs, cache=cache)[0],
            "minilm": embed(few_sources + few_outputs, "minilm", cache=cache)}


@pytest.mark.slow
def test_eight_sessions_compute_at_once_without_errors_and_alike(cds, tmp_path, cold_shared_models):
    # CDS sentences (11 styles, a wide vocabulary) paired across styles: without the WordNet lock this
    # reproduced "'NoneType' object has no attribute 'lemmas'" in 7 or 8 of the 8 threads.
    texts = cds.texts["text"].tolist()
    chunks = [(texts[k::THREADS][:500], texts[k + 3::THREADS][:500]) for k in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    results: dict[int, dict] = {}
    errors: list[str] = []

    def session(k: int) -> None:
        try:
            barrier.wait()
            results[k] = _work(chunks[k], tmp_path / "threads", k)
        except Exception as exc:  # noqa: BLE001 - every failure is collected and shown
            errors.append(f"thread {k}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=session, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert wordnet.wordnet_status().available  # the race did not leave METEOR without WordNet
    for k in range(THREADS):
        alone = _work(chunks[k], tmp_path / "alone", k)
        for name, values in alone.items():
            np.testing.assert_allclose(results[k][name], values, rtol=1e-6, atol=1e-6, err_msg=f"{name}, thread {k}")
