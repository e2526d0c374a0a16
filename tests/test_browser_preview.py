"""A long cold view in a real browser: the sampled preview first, then the full result replaces it without a click,
and a reload while the full run computes shows the preview again, then the full result (issue 26)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from browserkit import ROOT, SCREENSHOTS, exceptions, open_tab, serve_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]
# BERTScore keeps the full run busy for a minute or more after the preview on a cold cache, so the reload
# below lands while it computes (with MiniLM cosine alone the full run could end before the reload).
VIEW = "/Metrics_vs_humans?dataset=mir-yelp&metrics=cosine:minilm,bertscore&methods=pearson"


@pytest.fixture()
def cold_app(tmp_path, monkeypatch, corpora):
    """An app server of its own: a fresh cache (corpora imported) and every cold run counted as long."""
    home = tmp_path / "home"
    subprocess.run([sys.executable, "-m", "stviz", "data", "import", str(corpora)], cwd=ROOT, check=True,
                   env={**os.environ, "STVIZ_HOME": str(home)}, capture_output=True)
    monkeypatch.setenv("STVIZ_HOME", str(home))
    monkeypatch.setenv("STVIZ_CONFIRM_SECONDS", "0")
    monkeypatch.setenv("STVIZ_WARMUP", "1")  # as a user's server: the default models load in the background
    server = serve_app("streamlit-preview.log")
    yield next(server)
    server.close()
    shutil.rmtree(home, ignore_errors=True)


def _banner(page):
    return page.locator("[data-testid='stAlertContentInfo']").filter(has_text=re.compile(r"preview: [\d,]+ of"))


def test_preview_then_full_result_and_a_reload_in_between(cold_app, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(cold_app + VIEW)
    _banner(page).first.wait_for(timeout=240_000)  # the preview, without a click
    assert "preview=" in page.url
    page.get_by_text(re.compile(r"Correlations \(preview: [\d,]+ of [\d,]+ pairs\)")).first.wait_for(timeout=120_000)
    page.screenshot(path=str(SCREENSHOTS / "preview-metrics-vs-humans.png"), full_page=True)
    assert not exceptions(page)
    for tab in ("Scatter", "Metric values"):  # only the open tab is drawn (ui.lazy): each on the sample's rows
        open_tab(page, tab)
        assert not exceptions(page), tab
    page.reload()  # a new session while the full run computes in the server
    _banner(page).first.wait_for(timeout=240_000)
    # The full result replaces the preview by itself (the page polls the background run, then reruns).
    _banner(page).first.wait_for(state="detached", timeout=600_000)  # else: the full result never replaced it
    page.get_by_text("Correlations", exact=True).first.wait_for(timeout=120_000)
    assert "preview=" not in page.url
    assert not exceptions(page)
    page.screenshot(path=str(SCREENSHOTS / "preview-replaced-by-full.png"), full_page=True)
