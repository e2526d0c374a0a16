"""The embedded default models, loaded in a background thread as soon as the dashboard server starts.

A cold view pays two kinds of cost: the work on its data (embedding, scoring; a preview cuts it down) and
the fixed cost of loading the libraries and models a process needs once (torch and sentence-transformers,
MiniLM, WordNet, spaCy, GloVe, BERTScore's encoder): 15-25 s on two cores, more than a preview's own work.
The server loads them while the researcher is still on the Home page, through the same loaders the views
use (each loads once per process, and a view that asks during the warm-up waits for the same load instead of
starting another). A model that fails to load here is skipped quietly: the view that needs it says why.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)


def _minilm() -> None:
    from stviz.embedders import SentenceTransformerEmbedder

    SentenceTransformerEmbedder("minilm").encode(["The food was great."])  # the backend chosen and run once


def _wordnet() -> None:
    from stviz.metrics.wordnet import load_wordnet

    load_wordnet()


def _spacy() -> None:
    from stviz.metrics.entities import load_ner

    load_ner()


def _glove() -> None:
    from stviz.embedders import DEFAULT_WORD_VECTORS, WordVectorEmbedder

    WordVectorEmbedder(DEFAULT_WORD_VECTORS).encode(["the food was great"])


def _bertscore() -> None:
    from stviz.metrics.content import bertscore

    bertscore(["The food was great."], ["The food was awful."])


#: What the default views need, most widely needed first.
STEPS: dict[str, Callable[[], None]] = {"MiniLM": _minilm, "WordNet": _wordnet, "spaCy NER": _spacy,
                                        "GloVe": _glove, "BERTScore": _bertscore}


def warm_up(steps: dict[str, Callable[[], None]] | None = None) -> dict[str, float]:
    """Load each model now; returns the seconds each took (a failed one is logged and skipped)."""
    seconds = {}
    for name, load in (steps or STEPS).items():
        start = time.perf_counter()
        try:
            load()
        except Exception as exc:  # noqa: BLE001 - the view that needs the model reports it properly
            log.info("warm-up: %s did not load (%s: %s)", name, type(exc).__name__, exc)
            continue
        seconds[name] = time.perf_counter() - start
    return seconds


_thread: threading.Thread | None = None
_thread_guard = threading.Lock()


def wait_for_loads() -> None:
    """Block until the loads started in this process (if any) are done. Work that imports torch and the models'
    libraries while the warm-up thread is halfway through importing them can be handed a partially initialised module
    ("module 'torch' has no attribute 'Tensor'"): a job that may come at once waits here first."""
    if _thread is not None:
        _thread.join()


def enabled() -> bool:
    """Whether the server warms up (``STVIZ_WARMUP=0`` turns it off)."""
    return _switched_on("STVIZ_WARMUP")


def results_enabled() -> bool:
    """Whether the server computes the built-in views' results before anyone asks (:mod:`stviz.ready`;
    ``STVIZ_WARM_RESULTS=0`` turns it off). Here, where nothing heavy is imported, for the command that starts it."""
    return _switched_on("STVIZ_WARM_RESULTS")


def _switched_on(name: str) -> bool:
    return os.environ.get(name, "1").strip().lower() not in ("0", "off", "no", "false")


def start_in_background() -> threading.Thread | None:
    """Start the warm-up once per process (later calls return the same thread); None when it is turned off."""
    global _thread
    if not enabled():
        return None
    with _thread_guard:
        if _thread is None:
            _thread = threading.Thread(target=warm_up, name="stviz-warm-up", daemon=True)
            _thread.start()
    return _thread


__all__ = ["STEPS", "enabled", "results_enabled", "start_in_background", "wait_for_loads", "warm_up"]
