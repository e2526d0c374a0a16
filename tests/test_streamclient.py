"""benchmarks/streamclient.py: a view opened through Streamlit's protocol, with no browser, gets what a browser gets
(its title, then its result, then the end of the page's run), timed in that order."""

from __future__ import annotations

import sys

import pytest
from streamlit.proto.Block_pb2 import Block
from streamlit.proto.Element_pb2 import Element

from browserkit import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import streamclient  # noqa: E402 - a script of benchmarks/, imported for its functions
from load import DONE_TEXT  # noqa: E402


def test_an_element_reads_as_drawn_without_markdowns_emphasis_and_a_tab_by_its_label():
    element = Element()
    element.markdown.body = "**72 pairs** match; the 20 with `the largest` rank difference"
    assert streamclient.element_text(element) == "72 pairs match; the 20 with the largest rank difference"
    element = Element()
    element.progress.text = "Computing: about 2 min left"
    assert streamclient.TIME_LEFT.search(streamclient.element_text(element))
    assert streamclient.element_text(Element()) == ""
    tab = Block()
    tab.tab.label = "Sets and flags"  # a tab's label is a container's, not an element's
    assert streamclient.block_label(tab) == "Sets and flags" and streamclient.block_label(Block()) == ""


def _opened(*args) -> dict:
    return streamclient.run_apart(streamclient.open_view(*args))


@pytest.mark.browser
def test_a_view_opened_through_the_protocol_arrives_whole(app_url, browser):
    # The session's browser is asked for, so that this runs beside playwright's loop as it does in `make test`.
    seen = _opened(app_url, "Failure_cases", "demo", DONE_TEXT["Failure_cases"], 600)
    assert seen["errors"] == 0 and seen["queued"] is None
    assert seen["page"] is not None and seen["result"] is not None and seen["full"] is not None, seen
    assert seen["page"] <= seen["result"] <= seen["full"]
    # A view that is not one of the app's pages: the server says so, and the client counts an error at once.
    missing = _opened(app_url, "No_such_view", "demo", "never shown", 600)
    assert missing["errors"] == 1 and missing["full"] is None
