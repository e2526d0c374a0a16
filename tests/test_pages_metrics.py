"""The Metrics vs humans and Failure cases pages under Streamlit's AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from stviz.data.schema import Dataset

PAGES = Path(__file__).resolve().parents[1] / "pages"
METRICS_PAGE = str(PAGES / "3_Metrics_vs_humans.py")
FAILURE_PAGE = str(PAGES / "5_Failure_cases.py")
EVIL = "<script>alert('x')</script>"


def run_page(path: str, dataset: str | None = None, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(path, default_timeout=600)
    if dataset:
        at.session_state["dataset_name"] = dataset
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at.run()


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def html_blocks(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.proto.allow_html]


def test_metrics_page_on_the_demo():
    at = run_page(METRICS_PAGE, state={"mvh-metrics": ["bleu", "wmd", "ne"]})
    assert not at.exception, at.exception
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert any(t.startswith("Correlation with") for t in titles)
    assert any("named-entity merge" in t for t in titles)
    assert any("Williams" in t for t in titles)
    forest = figures(at)[0]
    names = {y for trace in forest["data"] for y in trace["y"]}
    assert any("|r|" in n for n in names)  # the distance is marked
    assert any("+ NE" in n for n in names)  # merged variants are metrics too


def test_metrics_page_mir_average_with_masking(corpora):
    at = run_page(METRICS_PAGE, "mir-yelp", {"mvh-metrics": ["bleu", "wmd"], "mvh-mod": "masking", "mvh-by": "system",
                                            "mvh-ne": False, "mvh-methods": ["pearson"], "mvh-boot": 200})
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    means = table[table["group"] == "mean over systems"].set_index("metric")["r"]
    assert 0.40 < means["BLEU"] < 0.52 and 0.40 < means["WMD (GloVe 6B 50d)"] < 0.52


def test_failure_page_on_the_demo_opens_a_pair():
    at = run_page(FAILURE_PAGE, state={"fail-metric": "bleu"})
    assert not at.exception, at.exception
    assert len(at.dataframe) >= 3  # ranking, metric percentiles, human judgments
    ranking = at.dataframe[0].value
    assert ranking["rank_difference"].is_monotonic_decreasing
    assert any("<span" in block for block in html_blocks(at))  # the word diff is drawn


def _evil_dataset() -> Dataset:
    pairs = pd.DataFrame({
        "source": [f"meet Anna in Paris {EVIL} on Monday", "the food was good", "we fly to Rome tomorrow"],
        "output": [f"meet Anna in <b>Berlin</b> {EVIL} on Monday <img src=x onerror=alert(1)>",
                   "the meal was good", "we fly to Rome today"],
        "system": ["a", "b", "a"],
        "human:score": [1.0, 3.0, 2.0],
    })
    return Dataset(name="evil", title="evil.csv", pairs=pairs)


def test_failure_page_escapes_user_text():
    at = AppTest.from_file(FAILURE_PAGE, default_timeout=600)
    at.session_state["dataset_name"] = "upload:evil.csv"
    at.session_state["uploaded_dataset"] = _evil_dataset()
    at.session_state["fail-metric"] = "bleu"
    at.session_state["fail-search"] = "Anna"  # search narrows the list to the hostile pair
    at.run()
    assert not at.exception, at.exception
    assert len(at.dataframe[0].value) == 1
    blocks = html_blocks(at)
    assert blocks, "no HTML was rendered"
    joined = "\n".join(blocks)
    assert "<script" not in joined and "<img" not in joined and "<b>" not in joined
    assert "&lt;script&gt;" in joined and "&lt;img" in joined
