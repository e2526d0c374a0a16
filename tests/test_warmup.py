"""The server's warm-up: the default models load once, in a background thread, through the loaders the views use."""

from __future__ import annotations

import threading

from stviz import warmup


def test_warm_up_loads_every_default_model_and_a_view_then_finds_them_loaded():
    from stviz.metrics.entities import load_ner
    from stviz.metrics.wordnet import load_wordnet

    seconds = warmup.warm_up()
    assert set(seconds) == set(warmup.STEPS), seconds  # every embedded default loads here
    hits = load_wordnet.cache_info().hits, load_ner.cache_info().hits
    load_wordnet(), load_ner()  # what a view calls: served from the loaded copies
    assert (load_wordnet.cache_info().hits, load_ner.cache_info().hits) == (hits[0] + 1, hits[1] + 1)


def test_a_model_that_fails_is_skipped_and_the_others_still_load():
    loaded = []

    def broken():
        raise OSError("no such model")

    seconds = warmup.warm_up({"broken": broken, "fine": lambda: loaded.append(True)})
    assert list(seconds) == ["fine"] and loaded == [True]


def test_the_background_thread_starts_once_per_process_and_can_be_turned_off(monkeypatch):
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup, "STEPS", {})
    monkeypatch.setenv("STVIZ_WARMUP", "0")
    assert warmup.start_in_background() is None
    monkeypatch.setenv("STVIZ_WARMUP", "1")
    first = warmup.start_in_background()
    assert isinstance(first, threading.Thread) and warmup.start_in_background() is first
    first.join(timeout=60)
    assert not first.is_alive()
