"""The home page under Streamlit's AppTest: dataset choice, summary, embedders, errors."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def run_app(dataset: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if dataset:
        at.session_state["dataset_name"] = dataset
    return at.run()


def test_home_page_shows_the_demo_by_default():
    at = run_app()
    assert not at.exception
    assert any("Demo: five styles" in s.value for s in at.subheader)
    labels = {m.label: m.value for m in at.metric}
    assert labels["Styles"] == "5" and labels["Pairs"] == "72"
    assert any("Illustrative" in w.value for w in at.warning)


def test_home_page_on_a_real_corpus(corpora):
    at = run_app("mir-yelp")
    assert not at.exception
    labels = {m.label: m.value for m in at.metric}
    assert labels["Pairs"] == "2,928" and labels["Systems"] == "3" and labels["Settings"] == "12"
    assert len(at.get("plotly_chart")) >= 3


def test_choosing_another_dataset_sticks(corpora):
    at = run_app()
    at.radio[0].set_value("cds").run()
    assert not at.exception
    assert at.session_state["dataset_name"] == "cds"
    assert {m.label: m.value for m in at.metric}["Sentences"] == "11,000"


def test_word_vector_embedders_report_out_of_vocabulary_rates():
    at = run_app()
    assert any("out of vocabulary" in c.value for c in at.caption)


def test_a_lost_upload_falls_back_to_an_available_dataset():
    at = run_app("upload:gone.csv")
    assert not at.exception
    assert at.session_state["dataset_name"] == "demo"
