"""ui.lazy: hidden tabs and closed expanders build nothing, and a hidden tab's choices are kept until it is opened
again (Streamlit drops the value of a widget a run does not draw)."""

from __future__ import annotations

from pagetest import open_tab, run_page
from streamlit.testing.v1 import AppTest


def _tabs_app():
    import streamlit as st

    import ui

    def chooser():
        st.write(f"chosen: {st.selectbox('Pick', ['a', 'b', 'c'], index=1, key='pick')}")

    ui.draw_tabs({"First": lambda: st.write("first drawn"), "Second": chooser}, key="tabs", keep={"Second": ("pick",)})
    ui.folded("More", "more", lambda: st.write("more drawn"))


def _said(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_only_the_open_tab_and_open_expanders_are_built():
    at = AppTest.from_function(_tabs_app).run()
    assert not at.exception and _said(at) == ["first drawn"]
    at.session_state["more"] = True
    assert _said(at.run()) == ["first drawn", "more drawn"]
    assert _said(open_tab(at, "tabs", "Second")) == ["chosen: b", "more drawn"]


def test_a_hidden_tabs_choice_is_kept_until_it_is_opened_again():
    at = open_tab(AppTest.from_function(_tabs_app).run(), "tabs", "Second")
    at.selectbox(key="pick").set_value("c").run()
    assert _said(at) == ["chosen: c"]
    open_tab(at, "tabs", "First")
    open_tab(at, "tabs", "First")  # two runs without the widget: Streamlit would have dropped it after one
    assert not at.exception and _said(open_tab(at, "tabs", "Second")) == ["chosen: c"]


def test_the_metrics_page_keeps_its_scatter_choice_across_tabs():
    at = run_page("3_Metrics_vs_humans.py", state={"mvh-metrics": ["bleu", "chrf"], "mvh-ne": False,
                                                  "mvh-tab": "Scatter"})
    assert [chart.key for chart in at.get("plotly_chart")] == ["mvh-scatter"]  # the forest plot's tab is hidden
    at.selectbox(key="mvh-scatter-metric").set_value("chrf").run()
    open_tab(at, "mvh-tab", "Correlations")
    assert [chart.key for chart in at.get("plotly_chart")] == ["mvh-forest"]
    assert open_tab(at, "mvh-tab", "Scatter").selectbox(key="mvh-scatter-metric").value == "chrf"
    assert not at.exception, at.exception
