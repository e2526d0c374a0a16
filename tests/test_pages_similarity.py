"""The Style similarity and Embedding map pages under Streamlit's AppTest."""

from __future__ import annotations


import pandas as pd
from pagetest import PAGES, figures, plain, run_page, shown, values
from streamlit.testing.v1 import AppTest

SIMILARITY = str(PAGES / "1_Style_similarity.py")
MAP = str(PAGES / "2_Embedding_map.py")


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
    assert "no style labels" in shown(at.info)
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
    assert "draw a box or lasso" in shown(at.caption)


def test_map_page_on_cds_has_11000_points(corpora):
    at = run_page(MAP, "cds", {"map-method": "pca", "map-embedder": "glove-sum"})
    assert not at.exception, at.exception
    fig = figures(at)[0]
    assert sum(len(values(t["x"])) for t in fig["data"]) == 11_000
    assert len(fig["data"]) == 11


def test_map_page_colours_pair_outputs_by_system_and_score():
    from stviz.data import load_dataset

    at = run_page(MAP, "demo-pairs", {"map-method": "pca", "map-texts": "outputs", "map-embedder": "glove-sum",
                                      "map-colour": "system"})
    assert not at.exception, at.exception
    systems = load_dataset("demo-pairs").pairs["system"].unique()
    assert {t["name"] for t in figures(at)[0]["data"]} == set(systems)
    human = load_dataset("demo-pairs").human_columns[0]
    at.selectbox(key="map-colour").set_value(human).run()
    assert not at.exception, at.exception
    data = figures(at)[0]["data"]
    assert len(data) == 1 and data[0]["marker"]["showscale"]


def _uploaded(frame: pd.DataFrame, name: str = "pairs.csv") -> dict:
    """Session state for an uploaded pair file, built the way the home page builds it."""
    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import detect_mapping

    ds = apply_mapping(frame, detect_mapping(frame), name=name, title=f"Uploaded: {name}")
    return {"uploaded_dataset": ds}


def _single_style_pairs() -> pd.DataFrame:
    return pd.DataFrame({"source": [f"this is sentence {i} , sadly" for i in range(8)],
                         "output": [f"this is output {i}" for i in range(8)],
                         "source_style": "informal", "target_style": "formal"})


def test_similarity_page_explains_a_single_style_dataset():
    at = run_page(SIMILARITY, "upload:pairs.csv", _uploaded(_single_style_pairs()))
    assert not at.exception, at.exception
    text = shown(at.info)
    assert "Not applicable" in text and "a single style ('informal'" in text
    assert "distinct source sentences" in text  # says where the style labels come from
    assert not at.get("plotly_chart") and not at.error


def test_pages_on_sgdd_say_the_view_does_not_apply_and_map_the_outputs(corpora):
    at = run_page(SIMILARITY, "sgdd-tst")
    assert not at.exception, at.exception
    assert "Not applicable" in shown(at.info) and "10,044" in shown(at.info)
    assert not at.get("plotly_chart")
    # The map offers the outputs first (coloured by score), not one-colour style-labelled sources.
    at = run_page(MAP, "sgdd-tst", {"map-method": "pca", "map-embedder": "glove-sum"})
    assert not at.exception, at.exception
    assert at.radio(key="map-texts").options == ["system outputs (pairs)", "source sentences (pairs)"]
    data = figures(at)[0]["data"]
    assert len(data) == 1 and data[0]["marker"]["showscale"]  # a score colour scale
    assert sum(len(values(t["x"])) for t in data) == 10_287


SCRIPT = "<script>alert('xss')</script> great <b>bold</b> food"


def _script_pairs() -> pd.DataFrame:
    rows = [{"source": f"{w} food number {i}", "output": "meh", "source_style": s, "target_style": "x"}
            for i in range(6) for w, s in (("great", "positive"), ("awful", "negative"))]
    rows += [{"source": SCRIPT, "output": "<img src=x onerror=alert(1)>", "source_style": "positive",
              "target_style": "negative"},
             {"source": "bad & *worse* _food_", "output": "ok", "source_style": "<i>neg</i>ative", "target_style": "x"},
             {"source": "awful, never again", "output": "ok", "source_style": "<i>neg</i>ative", "target_style": "x"}]
    return pd.DataFrame(rows)


def _no_raw_html(at: AppTest) -> None:
    """No element that renders HTML carries the uploaded markup."""
    for kind in ("markdown", "caption", "info", "warning", "error", "success"):
        for el in at.get(kind):
            if getattr(el.proto, "allow_html", False):
                assert "<script" not in el.proto.body and "<i>neg" not in el.proto.body


def test_similarity_page_shows_markup_in_styles_as_text():
    at = run_page(SIMILARITY, "upload:x.csv", {**_uploaded(_script_pairs(), "x.csv"), "sim-embedders": ["glove-sum"]})
    assert not at.exception, at.exception
    heat = figures(at)[0]["data"][0]
    # Plotly reads a subset of HTML in labels: the style must arrive escaped, shown as typed.
    assert "&lt;i&gt;neg&lt;/i&gt;ative" in heat["x"] and not any("<i>" in str(x) for x in heat["x"])
    _no_raw_html(at)
    most_similar = [df.value for df in at.dataframe if "most similar" in df.value.columns][0]
    assert "<i>neg</i>ative" in set(most_similar["style"])  # tables show the raw text (rendered as text)
    matrix = at.table[0].value  # st.table renders Markdown: its style names arrive escaped, shown as typed
    assert "<i>neg</i>ative" not in set(matrix.index) and "<i>neg</i>ative" in {plain(s) for s in matrix.index}


def test_map_page_shows_markup_in_sentences_as_text():
    state = {**_uploaded(_script_pairs(), "x.csv"), "map-method": "pca", "map-embedder": "glove-sum",
             "map-texts": "sources", "map-colour": "style"}
    at = run_page(MAP, "upload:x.csv", state)
    assert not at.exception, at.exception
    traces = figures(at)[0]["data"]
    hover = [t for trace in traces for t in trace["text"]]
    assert any("&lt;script&gt;alert('xss')&lt;/script&gt;" in t for t in hover)
    assert not any("<script" in t or "<b>" in t for t in hover)
    assert "&lt;i&gt;neg&lt;/i&gt;ative" in {t["name"] for t in traces}
    _no_raw_html(at)


def test_similarity_page_leaves_out_a_style_with_one_sentence():
    pairs = _script_pairs()
    pairs.loc[len(pairs)] = {"source": "a lone sentence", "output": "x", "source_style": "lonely", "target_style": "x"}
    at = run_page(SIMILARITY, "upload:x.csv", {**_uploaded(pairs, "x.csv"), "sim-embedders": ["glove-sum"]})
    assert not at.exception, at.exception
    assert "fewer than 2 sentences: lonely (1)" in shown(at.caption) and not at.error
    assert "lonely" not in figures(at)[0]["data"][0]["x"]


def test_large_corpus_is_sampled_explicitly_on_both_pages(corpora):
    at = run_page(SIMILARITY, "yelp-sentiment", {"sim-embedders": ["glove-sum"]})
    assert not at.exception, at.exception
    per_style = at.selectbox(key="sim-per-style")
    assert per_style.value == 1000 and "min or more with MiniLM" in per_style.options[0]  # "all" says its cost
    assert "Sampled 2,000 of 190,153 sentences" in shown(at.caption)
    at = run_page(MAP, "yelp-sentiment", {"map-method": "pca", "map-embedder": "glove-sum"})
    assert not at.exception, at.exception
    assert "Sampled 5,000 of 190,153" in shown(at.caption)
    assert "stratified sample of 5,000 of 190,153" in figures(at)[0]["layout"]["title"]["text"]
