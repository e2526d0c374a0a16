"""The Style similarity and Embedding map pages under Streamlit's AppTest."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[1] / "pages"
SIMILARITY = str(PAGES / "1_Style_similarity.py")
MAP = str(PAGES / "2_Embedding_map.py")


def run_page(path: str, dataset: str | None = None, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(path, default_timeout=600)
    if dataset:
        at.session_state["dataset_name"] = dataset
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at.run()


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def values(array) -> np.ndarray:
    """A plotly JSON array, plain or base64-typed ({'dtype', 'bdata', 'shape'}), as numpy."""
    if isinstance(array, dict):
        flat = np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
        shape = [int(n) for n in str(array.get("shape", len(flat))).split(",")]
        return flat.reshape(shape)
    return np.asarray(array)


def test_similarity_page_on_the_demo():
    at = run_page(SIMILARITY)
    assert not at.exception, at.exception
    heat = figures(at)[0]
    assert [t["type"] for t in heat["data"]] == ["heatmap", "heatmap"]  # two embedders side by side
    assert any("<b>" in cell for row in heat["data"][0]["text"] for cell in row)  # row maxima marked
    assert len(at.metric) == 2 and "/5 = " in at.metric[0].value
    assert "without" not in at.metric[0].value


def test_similarity_page_leakage_ranking_and_self_pairs():
    at = run_page(SIMILARITY, state={"sim-leakage": True, "sim-include-self": True})
    assert not at.exception, at.exception
    assert any("Most style-invariant" in s.value for s in at.success)
    assert any(t["data"][0]["type"] == "bar" for t in figures(at))


def test_similarity_page_says_when_a_dataset_has_no_styles():
    from stviz.data.schema import Dataset

    pairs = pd.DataFrame({"source": ["a b", "c d"], "output": ["a c", "c e"]})
    at = run_page(SIMILARITY, "upload:pairs.csv",
                  {"uploaded_dataset": Dataset(name="pairs", title="my pairs", pairs=pairs)})
    assert not at.exception, at.exception
    assert any("no style labels" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_similarity_page_on_cds(corpora):
    # GloVe only: seconds from a cold cache (MiniLM on 11,000 sentences is covered by the repro test).
    at = run_page(SIMILARITY, "cds", {"sim-embedders": ["glove-sum"]})
    assert not at.exception, at.exception
    heat = figures(at)[0]
    assert len(heat["data"]) == 1 and values(heat["data"][0]["z"]).shape == (11, 11)
    assert at.metric[0].value == "3/11 = 27.3%"
    assert any("Table 7" in m.value for m in at.markdown)


def test_map_page_on_the_demo_with_tsne():
    at = run_page(MAP)
    assert not at.exception, at.exception
    fig = figures(at)[0]
    assert {t["type"] for t in fig["data"]} == {"scattergl"}
    assert {t["name"] for t in fig["data"]} == {"biblical", "formal", "informal", "shakespearean", "tweets"}
    assert any("Draw a box or lasso" in c.value for c in at.caption)


def test_map_page_on_cds_has_11000_points(corpora):
    at = run_page(MAP, "cds", {"map-method": "pca", "map-embedder": "glove-sum"})
    assert not at.exception, at.exception
    fig = figures(at)[0]
    assert sum(len(values(t["x"])) for t in fig["data"]) == 11_000
    assert len(fig["data"]) == 11


def test_map_page_colours_pair_outputs_by_system_and_score():
    from stviz.data import load_dataset

    at = run_page(MAP, "demo-pairs", {"map-method": "pca", "map-source": "outputs", "map-embedder": "glove-sum",
                                      "map-colour": "system"})
    assert not at.exception, at.exception
    systems = load_dataset("demo-pairs").pairs["system"].unique()
    assert {t["name"] for t in figures(at)[0]["data"]} == set(systems)
    human = load_dataset("demo-pairs").human_columns[0]
    at.selectbox(key="map-colour").set_value(human).run()
    assert not at.exception, at.exception
    data = figures(at)[0]["data"]
    assert len(data) == 1 and data[0]["marker"]["showscale"]
