"""Nothing leaves the machine from the browser: a session that opens Home and every view asks only the app's
own server for anything (no icon font, script, style sheet or image from a CDN), so the dashboard works
offline and tells no third party what is being looked at."""

from __future__ import annotations

import re

import pytest
from browserkit import ROOT, SCREENSHOTS, exceptions, menu, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
VIEWS = [path.stem.split("_", 1)[1].replace("_", " ") for path in sorted((ROOT / "pages").glob("[0-9]*_*.py"))]


def outside(url: str, app_url: str) -> bool:
    """Whether a request leaves the app's own origin (inline data: and blob: URLs never leave the browser)."""
    return not (url.startswith((f"{app_url}/", "data:", "blob:")) or url == app_url)


def test_a_session_through_every_page_requests_nothing_outside_the_app(app_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))  # pages and their workers alike
    page = context.new_page()
    page.goto(f"{app_url}/?dataset=demo")
    wait_for_app(page)
    page.locator("[data-testid='stMetricValue']").first.wait_for(timeout=60_000)
    for title in VIEWS:
        menu(page).get_by_text(title, exact=True).click()  # one session: the menu, not a new URL
        # The menu names a page by its file ("Meta evaluation"), its heading may hyphenate ("Meta-evaluation").
        page.locator("h1", has_text=re.compile(title.replace(" ", "[ -]"))).wait_for(timeout=600_000)
        wait_for_app(page, timeout_s=600)
        assert exceptions(page) == [], title
    page.screenshot(path=str(SCREENSHOTS / "offline-last-view.png"), full_page=True)
    context.close()
    assert len(requests) > 10  # the recorder saw the session's own traffic
    assert [url for url in requests if outside(url, app_url)] == []
