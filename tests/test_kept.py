"""A view's full result kept whole (stviz.analyses.kept): read back without computing under the same view, dataset
content, options, corpora, code and settings; computed afresh when any of them differs."""

from __future__ import annotations

import dataclasses

import pytest

import kept_view
from stviz.analyses import failure_cases
from stviz.analyses.kept import is_kept, keep_run, kept_result, result_key
from stviz.data import load_dataset
from stviz.languages import with_language

VIEW = "kept_view"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty STVIZ_HOME: nothing kept yet."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    kept_view.RUNS.clear()
    return tmp_path


def test_a_full_run_is_kept_and_read_back_without_computing(home):
    demo = load_dataset("demo")
    options = kept_view.Options(scale=2)
    assert kept_result(VIEW, demo, options) == (False, None) and not is_kept(VIEW, demo, options)
    assert keep_run(VIEW, demo, options) == {"pairs": 144, "trained": None}
    assert kept_result(VIEW, demo, options) == (True, {"pairs": 144, "trained": None}) and is_kept(VIEW, demo, options)
    assert keep_run(VIEW, load_dataset("demo"), kept_view.Options(scale=2))["pairs"] == 144  # read, not run
    assert kept_view.RUNS == [("demo", options)]
    keep_run(VIEW, demo, kept_view.Options(scale=3))  # other options: computed
    assert len(kept_view.RUNS) == 2


def test_the_key_follows_the_data_and_the_settings_that_change_numbers(home, monkeypatch):
    demo, options = load_dataset("demo"), kept_view.Options()
    key = result_key(VIEW, demo, options)
    assert result_key(VIEW, load_dataset("demo"), options) == key  # the same content loaded again
    edited = dataclasses.replace(demo, pairs=demo.pairs.assign(output=demo.pairs["output"].str.upper()))
    assert result_key(VIEW, edited, options) != key  # same name, other content
    assert result_key(VIEW, with_language(demo, "de"), options) != key
    assert result_key("another_view", demo, options) != key
    monkeypatch.setenv("STVIZ_WORKERS", "7")  # how the server runs: the same result
    assert result_key(VIEW, demo, options) == key
    monkeypatch.setenv("STVIZ_BACKEND", "onnx-int8")  # other numbers
    assert result_key(VIEW, demo, options) != key


def test_runs_with_arguments_that_are_not_derived_from_the_options_are_not_kept(home):
    demo = load_dataset("demo")
    keep_run(VIEW, demo, kept_view.Options(), trained="the default classifier")  # what run would train itself
    assert is_kept(VIEW, demo, kept_view.Options())
    keep_run(VIEW, demo, kept_view.Options(scale=5), uploads=("another set",))  # Meta-evaluation's other sets
    assert not is_kept(VIEW, demo, kept_view.Options(scale=5))


def test_a_filter_applied_on_the_warm_cache_is_not_kept_but_the_pages_opening_is():
    from stviz.analyses.opening import opening_options

    # The shared test home: its vectors are cached. Whether the opening was kept by an earlier run or not, it is now.
    demo = load_dataset("demo")
    opening = opening_options(failure_cases.__name__, demo)
    clicked = opening.changed(pair=int(demo.pairs.index[3]))  # a row opened: shown from the kept work
    keep_run(failure_cases.__name__, demo, clicked)
    assert not is_kept(failure_cases.__name__, demo, clicked)
    keep_run(failure_cases.__name__, demo, opening)
    assert is_kept(failure_cases.__name__, demo, opening)
