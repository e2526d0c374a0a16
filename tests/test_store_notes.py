"""A damaged per-pair store (``pairvalues.sqlite``) set aside is said on the page, once (ui.store_notes)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
from pagetest import plain, run_page
from streamlit.testing.v1 import AppTest

from stviz.cache.pair_values import PairValueStore, pair_key

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def truncated_store(cache: Path) -> Path:
    """A pairvalues.sqlite with rows in it, cut in half (a copy cut short, a disk full mid-write)."""
    store = PairValueStore(cache)
    keys = [pair_key(f"source {i} " * 20, f"output {i} " * 20) for i in range(1000)]
    store.put("some-metric", keys, np.arange(1000.0))
    with sqlite3.connect(store.path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for side in ("-wal", "-shm"):
        Path(str(store.path) + side).unlink(missing_ok=True)
    data = store.path.read_bytes()
    store.path.write_bytes(data[: len(data) // 2])
    return store.path


def said(at: AppTest) -> list[str]:
    """Every place on the page (captions, warnings, sidebar) that says a store was set aside."""
    texts = [plain(e.value) for e in (*at.caption, *at.warning, *at.sidebar.caption, *at.sidebar.warning)]
    return [t for t in texts if "set aside" in t and "pairvalues" in t]


def test_a_view_says_once_that_its_damaged_pair_store_was_set_aside(tmp_path, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    truncated_store(tmp_path / "cache")
    at = run_page("5_Failure_cases.py", state={"fail-metric": "bleu"})  # BLEU goes through the per-pair store
    assert not at.exception
    (aside,) = (tmp_path / "cache").glob("pairvalues.corrupt-*.sqlite")
    (note,) = said(at)  # the page's own run found it: said with the view's notes, near the top
    assert note in [plain(c.value) for c in at.caption] and aside.name in note and "were damaged" in note
    assert not said(at.run())  # once


def test_a_store_set_aside_outside_the_page_is_said_in_the_sidebar_once(tmp_path, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception and not said(at)
    path = truncated_store(tmp_path / "cache")
    assert PairValueStore(path.parent).get("some-metric", [b"x" * 16]) == {}  # as a background run would find it
    at.run()
    (note,) = [plain(w.value) for w in at.sidebar.warning if "set aside" in w.value]
    assert note.startswith("Stored per-pair values in ") and note.endswith("computed again when needed.")
    assert not said(at.run())  # once
    truncated_store(tmp_path / "elsewhere")  # another folder's store is not this server's news
    PairValueStore(tmp_path / "elsewhere").get("some-metric", [b"x" * 16])
    assert not said(at.run())
