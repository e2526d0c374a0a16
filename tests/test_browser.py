"""Real-browser tests: the app served by Streamlit, driven in Debian's headless Chromium.

One test uploads a pair file and picks a corpus on the home page; one opens every file in
pages/ (so each new page is covered) and fails on any Streamlit exception block.
"""

from __future__ import annotations

import pytest
from browserkit import (ROOT, SCREENSHOTS, exceptions, menu, pick_corpus, plotly_traces, sidebar_dataset,
                        upload_file, use_upload, wait_for_app)

PAGES = sorted((ROOT / "pages").glob("*.py"))
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_home_upload_and_corpus_choice(app_url, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    page.goto(app_url)
    wait_for_app(page)
    assert page.get_by_text("Demo: five styles and 72 transfer pairs").first.is_visible()
    # Upload a pair file with user text that must never become markup.
    pairs = tmp_path / "my_pairs.csv"
    pairs.write_text("input,prediction,model,human_rating\n"
                     "<script>alert(1)</script> hey,Hello there.,sys1,4\n"
                     "gimme that,Please give me that.,sys1,5\n"
                     "see u,Goodbye.,sys2,3\n")
    use_upload(page, pairs)
    page.get_by_text("Using my_pairs.csv: 3 pairs").wait_for(timeout=60_000)
    assert page.locator("script:text('alert(1)')").count() == 0
    page.screenshot(path=str(SCREENSHOTS / "home-upload.png"), full_page=True)
    # Pick a real corpus.
    pick_corpus(page, "Corpus of Diverse Styles")
    page.locator("[data-testid='stMetricValue']", has_text="11,000").first.wait_for(timeout=60_000)
    assert exceptions(page) == []
    page.screenshot(path=str(SCREENSHOTS / "home-cds.png"), full_page=True)


@pytest.mark.parametrize("page_file", PAGES, ids=[p.stem for p in PAGES])
def test_every_page_renders_without_exception(app_url, browser, page_file):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    url_path = page_file.stem.split("_", 1)[1] if page_file.stem[0].isdigit() else page_file.stem
    page.goto(f"{app_url}/{url_path}")
    wait_for_app(page, timeout_s=600)
    page.screenshot(path=str(SCREENSHOTS / f"{page_file.stem}.png"), full_page=True)
    assert exceptions(page) == [], f"{page_file.name} raised in the browser"
    assert page.locator("h1").count() >= 1




def test_cds_similarity_heatmap_and_map_of_11000_points(app_url, browser):
    """Issue 3's browser check: on CDS, both pages draw, the heatmap has 11 styles, the map 11,000 points."""
    page = browser.new_page(viewport={"width": 1400, "height": 1800})
    page.goto(app_url)
    wait_for_app(page)
    pick_corpus(page, "Corpus of Diverse Styles")
    page.locator("[data-testid='stMetricValue']", has_text="11,000").first.wait_for(timeout=60_000)
    # Move through the sidebar: a new URL would start a new session, back on the demo.
    nav = menu(page)
    nav.get_by_text("Style similarity").click()
    page.get_by_text("Mean cosine similarity between styles").wait_for(timeout=900_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    heatmaps = [t for plot in plotly_traces(page) for t in plot if t["type"] == "heatmap"]
    assert heatmaps and all(t["n"] == 11 for t in heatmaps)
    page.screenshot(path=str(SCREENSHOTS / "cds-style-similarity.png"), full_page=True)

    nav.get_by_text("Embedding map").click()
    page.locator(".js-plotly-plot").first.wait_for(timeout=900_000)
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    points = [t for plot in plotly_traces(page) for t in plot if t["type"] == "scattergl"]
    assert sum(t["n"] for t in points) == 11_000 and len(points) == 11  # one WebGL trace per style
    page.screenshot(path=str(SCREENSHOTS / "cds-embedding-map.png"), full_page=True)


def test_two_sessions_upload_at_once_and_never_see_each_others_data(app_url, browser, tmp_path):
    """Issue 9: two browser contexts (two sessions) upload different files of the same name at the same time."""
    files = {}
    for who, system, human in (("a", "alpha-system", "fluency_alpha"), ("b", "beta-system", "meaning_beta")):
        folder = tmp_path / who
        folder.mkdir()
        rows = 3 if who == "a" else 5
        files[who] = folder / "pairs.csv"  # the same file name in both sessions
        files[who].write_text("source,output,system," + human + "\n" + "".join(
            f"{who} source {i},{who} output {i},{system},{i % 5 + 1}\n" for i in range(rows)))
    contexts = {who: browser.new_context(viewport={"width": 1400, "height": 1600}) for who in files}
    pages = {who: ctx.new_page() for who, ctx in contexts.items()}
    for page in pages.values():
        page.goto(app_url)
    for page in pages.values():
        wait_for_app(page)
    for who, page in pages.items():  # both files go up before either mapping is confirmed
        upload_file(page, files[who])
    # The one size limit, as the CLI help and the README state it.
    assert pages["a"].get_by_text("at most 200 MB per file").count() >= 1
    for page in pages.values():
        page.get_by_role("button", name="Use this file").wait_for(timeout=60_000)
    for page in pages.values():
        page.get_by_role("button", name="Use this file").click()
    for who, page in pages.items():
        page.get_by_text(f"Using pairs.csv: {3 if who == 'a' else 5} pairs").wait_for(timeout=120_000)
        wait_for_app(page)
    for who, page in pages.items():
        other = "b" if who == "a" else "a"
        text = page.content()
        assert exceptions(page) == []
        assert page.locator("[data-testid='stMetricValue']", has_text="3" if who == "a" else "5").count() >= 1
        assert ("alpha-system" if who == "a" else "beta-system") in text
        assert ("beta-system" if who == "a" else "alpha-system") not in text, f"session {who} shows {other}'s systems"
        assert ("meaning_beta" if who == "a" else "fluency_alpha") not in text
        page.screenshot(path=str(SCREENSHOTS / f"two-sessions-{who}.png"), full_page=True)
    # Session a moves to another view and back: still its own file.
    nav = menu(pages["a"])
    nav.get_by_text("Metrics vs humans").click()
    wait_for_app(pages["a"], timeout_s=600)
    assert exceptions(pages["a"]) == []
    assert "beta-system" not in pages["a"].content() and "b source" not in pages["a"].content()
    # A name full of Markdown and LaTeX is shown as written.
    odd = tmp_path / "**bold** $x^2$ [link](example.org) :red[y].csv"
    odd.write_text(files["a"].read_text())
    nav.get_by_text("Home").first.click()
    wait_for_app(pages["a"])
    use_upload(pages["a"], odd)
    name = "**bold** $x^2$ [link](example.org) :red[y].csv"
    assert name in sidebar_dataset(pages["a"])
    main_text = pages["a"].locator("[data-testid='stMain']").inner_text()
    assert f"Uploaded: {name} (3 pairs)" in main_text and f"Using {name}: 3 pairs" in main_text
    assert "\\" not in main_text  # no escaping backslash shows
    assert pages["a"].locator("[data-testid='stSidebar'] .katex, [data-testid='stSidebar'] strong a").count() == 0
    for ctx in contexts.values():
        ctx.close()
