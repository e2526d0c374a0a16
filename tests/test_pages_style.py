"""The Token attributions and Tradeoffs pages under Streamlit's AppTest, and the token HTML they draw."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pagetest import PAGES, plain, run_page, shown

from stviz.data.schema import Dataset
from stviz.plots.style import tokens_html, tradeoff_figure

EVIL = "<script>alert('x')</script> the food was awful"


def evil_upload() -> Dataset:
    """An uploaded pair file whose texts carry HTML."""
    good = [f"the {n} was great <b>really</b>" for n in ("food", "room", "staff", "pizza", "bar", "menu")]
    bad = [EVIL] + [f"the {n} was awful & cold" for n in ("room", "staff", "pizza", "bar", "menu")]
    pairs = pd.DataFrame({"source": bad + good, "output": good + bad,
                          "source_style": ["negative"] * 6 + ["positive"] * 6,
                          "target_style": ["positive"] * 6 + ["negative"] * 6,
                          "system": ["s1", "s2"] * 6})
    return Dataset(name="evil.csv", title="evil.csv", pairs=pairs)


def test_tokens_html_escapes_every_piece():
    text = "<script>alert(1)</script> & good"
    spans = [(0, 8), (8, 16), (17, 26), (27, 28), (29, 33)]
    out = tokens_html(text, spans, np.array([0.1, -0.2, 0.3, 0.0, 0.9]), [False, False, True, False, False])
    assert "<script>" not in out and "&lt;script&gt;" in out and "&amp;" in out
    assert out.count("<span") == 5 and "line-through" in out


def test_tradeoff_figure_joins_settings_and_marks_the_front():
    table = pd.DataFrame({"system": ["A", "A", "A", "B"], "setting": ["rho=5", "rho=0.1", "rho=1", "g=1"],
                          "x": [0.9, 0.1, 0.5, 0.4], "y": [0.1, 0.9, 0.5, 0.3]})
    fig = tradeoff_figure(table, "x", "y")
    lines = {t.name: t for t in fig.data}
    assert list(lines["A"].text) == ["rho=0.1", "rho=1", "rho=5"]  # hyper-parameter order
    assert len(lines["Pareto front"].x) == 3
    long = tradeoff_figure(table, "x", "y", y_label="content preservation (cosine: MiniLM-L6, higher = more similar)")
    assert "<br>" in long.layout.yaxis.title.text  # long axis titles are wrapped, not cut off


def test_tradeoff_labels_of_close_points_take_different_sides():
    """Settings are written beside the points; two near-identical points must not stack their labels."""
    table = pd.DataFrame({"system": ["A", "A", "B"], "setting": ["gamma=0.1", "gamma=1", "rho=1"],
                          "x": [0.700, 0.701, 0.2], "y": [0.500, 0.501, 0.9]})
    fig = tradeoff_figure(table, "x", "y")
    a = {t.name: t for t in fig.data}["A"]
    first, second = a.textposition
    assert first != second
    assert "right" not in first and "right" not in second  # at the right edge: labels go left, into the plot
    assert a.cliponaxis is False  # a label past an axis end is drawn, not cut


def test_tradeoffs_page_on_the_demo():
    at = run_page("6_Tradeoffs.py", "demo")
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) >= 4  # two tradeoff plots, confusion matrix, reference histograms
    assert "held-out accuracy" in shown(at.caption)


@pytest.mark.slow
def test_tradeoffs_page_on_mir_yelp_compares_with_raters(corpora):
    at = run_page("6_Tradeoffs.py", "mir-yelp")
    assert not at.exception and not at.error
    headers = [h.value for h in at.subheader]
    assert any("Table 7" in h for h in headers) and any("Naturalness classifier vs raters" in h for h in headers)
    agreement = at.dataframe[-1].value  # the last table on the page
    assert list(agreement.index) == ["ARAE", "CAAE", "DAR", "all pairs"]
    assert 0.55 < agreement.loc["all pairs", "agreement"] < 0.75  # measured 0.59; Mir et al. 0.68


def test_token_attributions_page_escapes_texts():
    at = run_page("4_Token_attributions.py", upload=evil_upload())
    assert not at.exception and not at.error
    html_blocks = [m.value for m in at.markdown if "<span" in m.value and "line-height: 2" in m.value]
    assert len(html_blocks) == 2  # source and output
    diff = [m.value for m in at.markdown if "<span" in m.value and m.value not in html_blocks]
    assert len(diff) == 2 and "<b>" not in " ".join(diff)  # the pair's story below: its word diff, escaped too
    # The tokenizer splits "<script>" into "<", "script", ">": each piece is escaped on its own.
    assert "&lt;" in html_blocks[0] and "alert" in html_blocks[0]
    assert "<script" not in html_blocks[0] and "<b>" not in " ".join(html_blocks)
    labels = [m.label for m in at.metric]
    assert labels == ["Content preservation, unmasked", "Content preservation, masked"]
    # The slider re-masks from cached attributions.
    at.slider(key="attr-threshold").set_value(0.6).run()
    assert not at.exception


def test_pages_explain_when_the_data_does_not_fit():
    for page in ("6_Tradeoffs.py", "4_Token_attributions.py"):
        at = run_page(page, "demo-styles")
        assert not at.exception and "no (source, output) pairs" in shown(at.info), page
    pairs = pd.DataFrame({"source": ["hey u", "sup"], "output": ["Hello.", "Hi there."]})
    at = run_page("6_Tradeoffs.py", upload=Dataset(name="no-target.csv", title="no-target.csv", pairs=pairs))
    assert not at.exception and "target-style column" in shown(at.info)


def test_pages_say_what_applies_to_one_style_pairs():
    pairs = pd.DataFrame({"source": ["hey u", "sup", "yo"], "output": ["Hello.", "Hi there.", "Greetings."],
                          "source_style": "informal", "target_style": "formal"})
    for page in ("4_Token_attributions.py", "6_Tradeoffs.py"):
        at = run_page(page, upload=Dataset(name="one.csv", title="one.csv", pairs=pairs))
        assert not at.exception and not at.error
        assert "one style only" in shown(at.info) and "Not available here" in shown(at.info)
        # no controls that could do nothing here (the sidebar's dataset menu is every page's)
        assert not at.radio and not [s for s in at.selectbox if s.key != "sidebar-dataset"]


@pytest.mark.slow
def test_tradeoffs_page_on_mir_yelp(mir_yelp):
    at = run_page("6_Tradeoffs.py", "mir-yelp")
    assert not at.exception and not at.error
    assert len(at.dataframe) >= 2  # per-setting table and the Table 7 correlations
    # The classifier's confusion matrix is folded, and drawn only once its expander is opened (ui.lazy).
    assert "trade-confusion" not in [chart.key for chart in at.get("plotly_chart")]
    at.session_state["trade-confusion-open"] = True
    charts = [chart.key for chart in at.run().get("plotly_chart")]
    assert "trade-confusion" in charts and len(charts) >= 3


def test_an_uploaded_file_name_is_shown_as_written_in_menus_and_captions():
    import ui

    name = "**bold**<b>x</b>_[link](http://e.x).csv"
    # Styles no built-in corpus covers: the classifier then learns from the upload, whose name its caption gives.
    styles = {"negative": "grumpy", "positive": "cheerful"}
    pairs = evil_upload().pairs.replace({"source_style": styles, "target_style": styles})
    odd = Dataset(name=name, title=f"Uploaded: {name}", pairs=pairs)
    home = run_page(str(PAGES.parent / "app.py"), upload=odd)
    assert not home.exception
    assert home.subheader[0].value == f"Uploaded: {ui.literal(name)}"  # escaped: no bold, no link, no HTML
    # Select box options are plain text (the name as written); radio labels are Markdown (escaped).
    assert any(name in option for option in home.sidebar.selectbox[0].options)
    assert any(name in plain(option) for option in home.radio[0].options)
    attributions = run_page("4_Token_attributions.py", upload=odd)
    assert not attributions.exception
    caption = next(c.value for c in attributions.caption if c.value.startswith("Style classifier:"))
    assert ui.literal(name) in caption and plain(caption).count(name) == 1
