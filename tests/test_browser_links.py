"""Real-browser tests of shareable views: a reload or a copied link reopens the same view and numbers,
and an uploaded dataset survives a reload (the server keeps it under a content hash)."""

from __future__ import annotations

import pytest
from browserkit import SCREENSHOTS, exceptions, menu, serve_app, sidebar_dataset, use_upload, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def heatmap_values(page) -> list:
    """The z values of every heatmap drawn on the page (plotly's decoded arrays)."""
    return page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot =>
        (plot._fullData || []).filter(t => t.type === 'heatmap').map(t => Array.from(t.z, row => Array.from(row))))""")


def test_a_link_opened_first_on_a_new_server_shows_the_app_menu(browser):
    # Streamlit lists a pages/ folder by itself; a fresh server's first session, opened on a deep
    # link, showed that listing ("app" first) instead of stviz's menu. Needs its own new server.
    # Streamlit's menu is off (config.toml) and the sidebar draws the app's own (ui.sidebar._menu).
    server = serve_app("streamlit-first-link.log")
    url = next(server)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.goto(f"{url}/Failure_cases?dataset=demo")
        wait_for_app(page, timeout_s=600)
        page.screenshot(path=str(SCREENSHOTS / "first-link-menu.png"))
        assert page.locator("[data-testid='stSidebarNav']").count() == 0  # no automatic listing
        entries = [entry.strip() for entry in menu(page).inner_text().split("\n") if entry.strip()]
        assert "app" not in entries and entries[0] == "Home", entries
        assert entries.index("Home") < entries.index("Style similarity") < entries.index("Leaderboard"), entries
        assert exceptions(page) == []
        assert page.locator("h1", has_text="Failure cases").count() == 1
        # The current page's link is the one highlighted (st.page_link gives it a background).
        links = menu(page).locator("a").evaluate_all(
            "links => links.map(a => [a.innerText.trim(), getComputedStyle(a).backgroundColor])")
        assert [label for label, colour in links if colour != "rgba(0, 0, 0, 0)"] == ["Failure cases"], links
    finally:
        server.close()


def test_a_reload_and_a_copied_link_reopen_the_same_view(app_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.goto(f"{app_url}/Style_similarity")
    wait_for_app(page, timeout_s=600)
    # Change the view: GloVe only, self-pairs included.
    page.get_by_text("self-pairs included (the paper's wording)").click()
    wait_for_app(page, timeout_s=600)
    assert "include_self=true" in page.url and "dataset=demo" in page.url
    before = heatmap_values(page)
    assert before
    page.reload()
    wait_for_app(page, timeout_s=600)
    assert page.get_by_role("radio", name="self-pairs included (the paper's wording)").is_checked()
    assert heatmap_values(page) == before
    link = page.url
    context.close()

    fresh = browser.new_context(viewport={"width": 1400, "height": 1600})  # another person, no session
    other = fresh.new_page()
    other.goto(link)
    wait_for_app(other, timeout_s=600)
    assert exceptions(other) == []
    assert other.get_by_role("radio", name="self-pairs included (the paper's wording)").is_checked()
    assert heatmap_values(other) == before
    other.screenshot(path=str(SCREENSHOTS / "link-style-similarity.png"), full_page=True)
    fresh.close()


def test_the_dataset_follows_the_link_and_switches_from_the_sidebar(app_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.goto(f"{app_url}/Metrics_vs_humans?dataset=mir-yelp&metrics=bleu&with_ne=false&by=system")
    wait_for_app(page, timeout_s=900)
    assert exceptions(page) == []
    sidebar = page.locator("[data-testid='stSidebar']")
    assert sidebar_dataset(page).startswith("Mir et al. Yelp outputs")
    page.get_by_text("mean over systems").first.wait_for(state="attached", timeout=60_000)  # a grid cell
    # Switch the dataset from the sidebar of this page.
    sidebar.locator("[data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="Demo: five styles and 72 transfer pairs (illustrative)").click()
    wait_for_app(page, timeout_s=900)
    assert "dataset=demo" in page.url and exceptions(page) == []
    context.close()


def test_an_uploaded_dataset_survives_a_reload_and_a_link(app_url, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = context.new_page()
    page.goto(app_url)
    wait_for_app(page)
    pairs = tmp_path / "linked_pairs.csv"
    pairs.write_text("input,prediction,model,human_rating\n"
                     "gimme that,Please give me that.,sys1,5\nsee u,Goodbye.,sys2,3\nhey,Hello there.,sys1,4\n")
    use_upload(page, pairs)
    page.get_by_text("Using linked_pairs.csv: 3 pairs").wait_for(timeout=60_000)
    assert "dataset=upload%3A" in page.url or "dataset=upload:" in page.url
    page.reload()
    wait_for_app(page)
    assert page.get_by_text("Uploaded: linked_pairs.csv").first.is_visible()
    link = page.url
    context.close()
    other = browser.new_context().new_page()
    other.goto(link)
    wait_for_app(other)
    assert other.get_by_text("Uploaded: linked_pairs.csv").first.is_visible() and exceptions(other) == []
    # A link to an upload the server no longer holds says so, and shows the demo.
    other.goto(f"{app_url}/?dataset=upload:0123456789abcdef0123456789abcdef01234567")
    wait_for_app(other)
    assert other.get_by_text("no longer on this server").first.is_visible()
