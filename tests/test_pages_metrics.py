"""The Metrics vs humans and Failure cases pages under Streamlit's AppTest."""

from __future__ import annotations

import pandas as pd
import pytest
from pagetest import PAGES, figures, open_tab, run_page, shown
from streamlit.testing.v1 import AppTest

from stviz.data.schema import Dataset

METRICS_PAGE = str(PAGES / "3_Metrics_vs_humans.py")
FAILURE_PAGE = str(PAGES / "5_Failure_cases.py")
EVIL = "<script>alert('x')</script>"


def html_blocks(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.proto.allow_html]


def test_metrics_page_on_the_demo():
    at = run_page(METRICS_PAGE, state={"mvh-metrics": ["bleu", "wmd", "ne"], "mvh-ne": True,
                                       "mvh-w-view": "every pair of metrics"})
    assert not at.exception, at.exception
    forest = figures(at)[0]  # the first tab's; the others are drawn once opened (ui.lazy)
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert any(t.startswith("Correlation with") for t in titles)
    assert [chart.key for chart in at.get("plotly_chart")] == ["mvh-forest"]
    titles = [f["layout"]["title"]["text"] for f in figures(open_tab(at, "mvh-tab", "Named entities"))]
    assert any("named-entity merge" in t for t in titles)
    assert [chart.key for chart in at.get("plotly_chart")] == ["mvh-ne-plot"]
    titles = [f["layout"]["title"]["text"] for f in figures(open_tab(at, "mvh-tab", "Significance"))]
    assert any("Williams" in t for t in titles)
    names = set(forest["layout"]["yaxis"]["ticktext"])
    assert any("|r|" in n for n in names)  # the distance is marked
    assert any("+ NE" in n for n in names)  # merged variants are metrics too


def test_metrics_page_mir_average_with_masking(corpora):
    at = run_page(METRICS_PAGE, "mir-yelp", {"mvh-metrics": ["bleu", "wmd"], "mvh-mod": "masking", "mvh-by": "system",
                                            "mvh-ne": False, "mvh-methods": ["pearson"], "mvh-boot": 200})
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    means = table[table["group"] == "mean over systems"].set_index("metric")["r"]
    assert 0.40 < means["BLEU (0-100)"] < 0.52 and 0.40 < means["WMD (GloVe 6B 50d)"] < 0.52


def test_metrics_page_masks_with_a_learned_lexicon(corpora):
    # The demo ships no lexicon; masking is offered with one learned from the demo's own styles or Yelp.
    base = {"mvh-metrics": ["bleu"], "mvh-ne": False, "mvh-methods": ["pearson"], "mvh-boot": 100}
    plain = run_page(METRICS_PAGE, state=base)
    at = run_page(METRICS_PAGE, state={**base, "mvh-mod": "masking", "mvh-lexicon": "learn:yelp-sentiment",
                                       "mvh-lexicon-size": 200})
    assert not at.exception, at.exception
    options = at.selectbox(key="mvh-lexicon").options
    assert any("this dataset's style-labelled texts" in o for o in options)
    assert any("Yelp sentiment" in o for o in options)
    assert any("200 words learned from yelp" in c.value and "strongest first" in c.value for c in at.caption)
    r = lambda t: t.dataframe[0].value.set_index("metric")["r"].iloc[0]  # noqa: E731
    assert r(at) != r(plain)


def test_failure_page_on_the_demo_opens_a_pair():
    at = run_page(FAILURE_PAGE, state={"fail-metric": "bleu"})
    assert not at.exception, at.exception
    assert len(at.dataframe) >= 3  # ranking, metric percentiles, human judgments
    ranking = at.dataframe[0].value
    assert ranking["rank difference"].is_monotonic_decreasing
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


def _upload(at: AppTest, ds: Dataset) -> AppTest:
    at.session_state["dataset_name"] = f"upload:{ds.name}"
    at.session_state["uploaded_dataset"] = ds
    return at


def _no_human_dataset() -> Dataset:
    pairs = pd.DataFrame({"source": ["I met John in London on Monday.", "the service was slow", "we loved it"],
                          "output": ["I met Mary in London on Friday.", "the service was fast", "we hated it"]})
    return Dataset(name="nohuman.csv", title="Uploaded: nohuman.csv", pairs=pairs)


def test_metrics_page_without_human_scores_still_computes_the_metrics():
    at = _upload(AppTest.from_file(METRICS_PAGE, default_timeout=600), _no_human_dataset())
    at.session_state["mvh-metrics"] = ["bleu", "ne"]
    at.session_state["mvh-ne"] = True
    at.run()
    assert not at.exception, at.exception
    info = shown(at.info)
    assert "has no human scores" in info and "nothing to correlate" in info
    values = at.dataframe[0].value
    assert len(values) == 3 and {"source", "output", "BLEU (0-100)", "BLEU (0-100) + NE", "Named-entity Jaccard"} <= set(values.columns)
    assert not figures(at)  # no correlation plots without human scores


def test_failure_page_without_human_scores_says_what_is_missing():
    at = _upload(AppTest.from_file(FAILURE_PAGE, default_timeout=600), _no_human_dataset()).run()
    assert not at.exception, at.exception
    info = shown(at.info)
    assert "no numeric human score" in info and "Metrics vs humans" in info
    assert not at.dataframe


@pytest.mark.parametrize("page", [METRICS_PAGE, FAILURE_PAGE])
def test_pages_say_they_do_not_apply_to_sentences_without_pairs(page):
    at = run_page(page, "demo-styles")
    assert not at.exception, at.exception
    info = shown(at.info)
    assert "Not applicable" in info and "no (source, output) pairs" in info
    assert not at.dataframe and not figures(at)


def test_pages_do_not_apply_to_cds(corpora):
    for page in (METRICS_PAGE, FAILURE_PAGE):
        at = run_page(page, "cds")
        assert not at.exception, at.exception
        assert "Not applicable" in shown(at.info)


def test_metrics_page_states_resamples_and_formats_p_values():
    at = run_page(METRICS_PAGE, state={"mvh-metrics": ["bleu", "wmd"], "mvh-ne": False})
    assert not at.exception, at.exception
    assert at.selectbox(key="mvh-boot").value == 200  # the default: seconds, not minutes, on 10,000 pairs
    assert "200 resamples" in shown(at.caption)
    table = at.dataframe[0].value
    assert table["p"].map(lambda p: p == "" or p == "<0.001" or 0 <= float(p) <= 1).all()
    assert "human" not in table  # the page has one human column, named in the title
    best = open_tab(at, "mvh-tab", "Significance").dataframe[0].value  # against the best metric by default
    assert list(best.columns) == ["metric", "r", "p (best > metric)"]


def test_failure_story_shows_the_pair_context_and_formats_votes(corpora):
    at = run_page(FAILURE_PAGE, "mir-yelp", {"fail-metric": "bleu"})
    assert not at.exception, at.exception
    ranking = at.dataframe[0].value
    assert list(ranking.columns[:4]) == ["rank difference", "metric − human (points)", "metric value", "human score"]
    captions = shown(at.caption)
    assert "→" in captions  # system · setting · source style → target style
    assert any(t.value.startswith("masking:") for t in at.text)


def test_a_human_column_where_higher_means_different_is_negated(corpora):
    at = run_page(METRICS_PAGE, "sgdd-tst", {"mvh-metrics": ["metric:bleu"], "mvh-ne": False,
                                            "mvh-human": "human:vote_different", "mvh-methods": ["spearman"]})
    assert not at.exception, at.exception
    assert "lower means more content kept: it is negated throughout" in shown(at.caption)  # said, from the data layer
    assert figures(at)[0]["layout"]["title"]["text"].startswith("Correlation with −vote_different")
    assert (at.dataframe[0].value["r"] > 0).all()  # BLEU agrees with raters: positive once negated
