"""The Leaderboard page under Streamlit's AppTest on Li et al.'s Yelp outputs, and where it does not apply."""

from __future__ import annotations

import pytest

from pagetest import figures, open_tab, run_page

FAST = {"board-metrics": ["accuracy", "bleu", "self_bleu", "perplexity", "g2", "h2"], "board-resamples": 200}


@pytest.mark.slow
def test_leaderboard_page_on_li2018_yelp(corpora):
    at = run_page("7_Leaderboard.py", "li2018-yelp", state=FAST | {"board-full-open": True})  # the full table
    assert not at.exception and not at.error
    assert [t.label for t in at.tabs] == ["Is the difference real?", "Two metrics at once", "Per direction",
                                          "Metrics against the raters", "Worst and best outputs"]
    # Only the open tab is drawn (ui.lazy): the intervals above the tabs, and the first tab's paired tests.
    assert [chart.key for chart in at.get("plotly_chart")] == ["board-intervals", "board-heatmap"]
    heatmap = next(f for f in figures(at) if f["data"][0]["type"] == "heatmap")
    assert len(heatmap["data"][0]["y"]) == 8  # every two of the 8 systems
    kinds = {tab: [f["data"][0]["type"] for f in figures(open_tab(at, "board-tab", tab))[1:]]
             for tab in ("Per direction", "Metrics against the raters")}
    assert kinds == {"Per direction": ["bar"], "Metrics against the raters": ["heatmap"]}
    table = next(d.value for d in at.dataframe if "style accuracy (%)" in d.value.columns)
    assert list(table.index) == ["CrossAligned", "StyleEmbedding", "MultiDecoder", "TemplateBased", "RetrieveOnly",
                                 "DeleteOnly", "DeleteAndRetrieve", "Human"]
    assert table.loc["DeleteAndRetrieve", "style accuracy (%)"] == pytest.approx(86.8, abs=0.3)
    assert table.loc["StyleEmbedding", "style accuracy (%) · rank"] == "8"
    assert any("sacrebleu bleu" in c.value for c in at.caption)


def test_not_applicable_to_one_system_or_texts_only():
    at = run_page("7_Leaderboard.py", "demo-styles")
    assert not at.exception
    assert any("Not applicable" in i.value for i in at.info)
