"""Helpers for the page tests: run a page under Streamlit's AppTest on a chosen dataset, read its figures."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np

from streamlit.testing.v1 import AppTest

from stviz.data.schema import Dataset

PAGES = Path(__file__).resolve().parents[1] / "pages"


def run_page(page: str, dataset: str | None = None, state: dict | None = None,
             upload: Dataset | None = None) -> AppTest:
    """Run ``page`` (a path, or a file name in pages/) once on a named or an uploaded dataset."""
    at = AppTest.from_file(str(PAGES / page), default_timeout=600)  # an absolute path stays as it is
    if upload is not None:
        at.session_state["dataset_name"] = f"upload:{upload.name}"
        at.session_state["uploaded_dataset"] = upload
    elif dataset:
        at.session_state["dataset_name"] = dataset
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at.run()


def open_tab(at: AppTest, key: str, label: str) -> AppTest:
    """Run the page again with the tab ``label`` of the tabs ``key`` open: only the open tab is drawn (ui.lazy)."""
    at.session_state[key] = label
    return at.run()


def figures(at: AppTest) -> list[dict]:
    """The plotly figures a page drew, as dicts."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def plain(markdown: str) -> str:
    """Markdown as read on screen: backslash escapes (how pages show user text literally) removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")  # ui.literal's invisible joiner too


def shown(elements) -> str:
    """The text of info boxes, captions or markdown elements, as read on screen, joined."""
    return " ".join(plain(e.value) for e in elements)


def values(array) -> np.ndarray:
    """A plotly JSON array, plain or base64-typed ({'dtype', 'bdata', 'shape'}), as numpy."""
    if isinstance(array, dict):
        flat = np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
        shape = [int(n) for n in str(array.get("shape", len(flat))).split(",")]
        return flat.reshape(shape)
    return np.asarray(array)
