"""Slices on the pages (AppTest): saved in the session and carried by the URL; an empty slice, a bad regex and a
link's unreadable slice each give one clear message and no traceback."""

from __future__ import annotations

from pagetest import PAGES, plain, run_page, shown
from streamlit.testing.v1 import AppTest

from stviz.analyses.slices import make_slice

STATE = {"mvh-metrics": ["bleu"], "mvh-methods": ["pearson"]}


def slice_tables(at) -> list:
    return [d.value for d in at.dataframe if "95% CI" in d.value.columns]


def test_an_empty_slice_is_said_and_the_others_computed():
    slices = {"demo": [make_slice("nobody", "system=nobody"), make_slice("careful", "system=careful")]}
    at = run_page("3_Metrics_vs_humans.py", state={**STATE, "slices": slices})
    assert not at.exception, at.exception
    assert "slice 'nobody' (system is nobody) keeps none of the 72 pairs" in shown(at.info)
    assert len(slice_tables(at)) == 2  # all pairs and 'careful'
    assert '"nobody":"system=nobody"' in str(at.query_params["slices"])


def save(at, name: str, spec: str) -> AppTest:
    at.text_input(key="mvh-slices-name").input(name)
    at.text_input(key="mvh-slices-spec").input(spec)
    return next(b for b in at.button if b.label == "Save slice").click().run()


def test_a_slice_saved_on_the_page_goes_into_the_url():
    at = save(run_page("3_Metrics_vs_humans.py", state=STATE), "*odd* name", "length>=8")
    assert not at.exception, at.exception
    assert "*odd* name" in str(at.query_params["slices"])
    text = " ".join(m.value for m in at.markdown)
    assert r"**\*odd\* name**" in text  # the name shown literally, not as emphasis
    assert "*odd* name**: input length (words) >= 8 · 51 of 72 pairs" in plain(text)
    assert len(slice_tables(at)) == 2


def test_a_bad_regex_is_one_message():
    at = save(run_page("3_Metrics_vs_humans.py", state=STATE), "odd", "output~([")
    assert not at.exception, at.exception
    assert "the regular expression /([/ is not valid" in plain(" ".join(e.value for e in at.error))
    assert not slice_tables(at)


def test_a_link_with_slices_shows_them_and_says_what_it_left_out():
    at = AppTest.from_file(str(PAGES / "3_Metrics_vs_humans.py"), default_timeout=600)
    at.session_state["dataset_name"] = "demo"
    at.query_params.update({"dataset": "demo", "metrics": "bleu", "methods": "pearson",
                            "slices": '{"careful":"system=careful","bad":"length>=x"}'})
    at.run()
    assert not at.exception, at.exception
    assert "slice 'bad'" in plain(shown(at.caption)) and "'x' is not a number" in plain(shown(at.caption))
    assert len(slice_tables(at)) == 2
