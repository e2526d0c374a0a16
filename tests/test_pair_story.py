"""The pair story shared by every view, the what-if re-scoring, and the map's search and nearest neighbours."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stviz.analyses import embedding_map, pair_story, what_if
from stviz.data import load_dataset
from stviz.data.schema import DataError


@pytest.fixture(scope="module")
def demo():
    return load_dataset("demo")


@pytest.fixture(scope="module")
def trained(demo):
    from stviz.analyses.attributions import classifier

    return classifier(demo)


def test_nearest_neighbours_by_cosine_distance_leave_the_sentence_out():
    vectors = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.3], [-1.0, 0.0]])  # lengths differ: cosine ignores them
    rows, distances = embedding_map.nearest_neighbours(vectors, 0, k=3)
    assert rows == [2, 1, 3]
    assert distances == pytest.approx([1 - 3 / np.hypot(3, 0.3), 1.0, 2.0], abs=1e-3)
    assert embedding_map.nearest_neighbours(vectors, 1, k=10)[0] == [2, 0, 3]  # k capped at the others
    assert embedding_map.nearest_neighbours(np.zeros((2, 3)), 0, k=1) == ([1], [1.0])  # a zero vector is far


def test_matching_rows_is_literal_and_case_insensitive():
    texts = pd.Series(["Hello there", "a (b) c", "HELLO", "nothing"])
    assert embedding_map.matching_rows(texts, "hello") == [0, 2]
    assert embedding_map.matching_rows(texts, "(b)") == [1]  # no regex
    assert embedding_map.matching_rows(texts, "  ") == []


def test_map_points_carry_their_pair(demo):
    from stviz.reduce import colour_columns, map_frame

    outputs = map_frame(demo, "outputs")
    assert list(outputs["pair"]) == list(demo.pairs.index)
    assert "pair" not in colour_columns(outputs)[1]  # a row number is not a score to colour by
    sources = map_frame(demo, "sources")
    first = demo.pairs.reset_index().drop_duplicates("source").set_index("source")["index"]
    assert list(sources["pair"]) == list(first.loc[sources["text"]])


def test_neighbours_table_names_styles_and_distances():
    styles = load_dataset("demo-styles")
    from stviz.reduce import map_frame

    frame = map_frame(styles, "texts").head(40)
    points = frame.assign(row=range(len(frame)), x=0.0, y=0.0)
    table = embedding_map.neighbours(points, "minilm", 3, k=5)
    assert len(table) == 5 and 3 not in set(table["row"])
    assert {"text", "style", "cosine distance"} <= set(table.columns)
    assert table["cosine distance"].is_monotonic_increasing
    with pytest.raises(DataError, match="not on the map"):
        embedding_map.neighbours(points, "minilm", 999)


def test_failure_cases_tell_the_shared_story(demo):
    from stviz.analyses import failure_cases

    pair = int(demo.pairs.index[3])
    told = failure_cases.run(demo, failure_cases.Options(metric="bleu", pair=pair)).story
    shared = pair_story.open_story(demo, pair, metric="bleu")
    pd.testing.assert_frame_equal(told.metrics, shared.metrics)
    assert (told.source, told.output, told.facts) == (shared.source, shared.output, shared.facts)
    with pytest.raises(DataError, match="no pair 99999"):
        pair_story.open_story(demo, 99999)


def test_story_has_the_classifier_probabilities(demo, trained):
    story = pair_story.open_story(demo, int(demo.pairs.index[0]), trained=trained)
    assert list(story.styles["style"]) == list(trained.classes)
    assert story.styles[["source", "output"]].sum().to_numpy() == pytest.approx([1.0, 1.0])


def test_what_if_rescores_the_edit_and_leaves_the_original_alone(demo, trained, monkeypatch):
    from stviz.cache import Cache

    pair = int(demo.pairs.index[0])
    before = pair_story.story_values(demo)
    pairs_before = demo.pairs.copy()
    keys = []
    memo = Cache.memo

    def spy(self, kind, params, *args, **kwargs):
        keys.append((kind, params))
        return memo(self, kind, params, *args, **kwargs)

    monkeypatch.setattr(Cache, "memo", spy)
    edited = "Kindly forward the quarterly report to me before Friday afternoon."
    result = what_if.what_if(demo, pair, output=edited, trained=trained)
    monkeypatch.undo()
    table = result.metrics.set_index("name")
    assert table.loc["bleu", "edited"] != pytest.approx(table.loc["bleu", "original"])
    assert table.loc["bleu", "original"] == pytest.approx(before.loc[pair, "bleu"])
    styles = result.styles.set_index("style")
    assert not np.allclose(styles["edited output"], styles["original output"], atol=1e-3)
    assert set(result.attributions) == {("original", "output"), ("edited", "output")}
    assert result.changed_sides == ["output"]
    # Every cache entry written or read is keyed by texts, never by the pair's number.
    assert keys and not any("pair" in params for _, params in keys if isinstance(params, dict))
    assert any(edited in params.get("outputs", ()) for kind, params in keys if kind == "metric")
    pd.testing.assert_frame_equal(pair_story.story_values(demo), before)
    pd.testing.assert_frame_equal(demo.pairs, pairs_before)


def test_what_if_refuses_an_empty_edit(demo):
    with pytest.raises(DataError, match="empty"):
        what_if.what_if(demo, int(demo.pairs.index[0]), output="   ")


def test_word_diff_escapes_every_word():
    from stviz.plots.metrics import word_diff_html

    left, right = word_diff_html("<script>alert(1)</script> was bad", "<b>it</b> was good & fine")
    assert "<script>" not in left and "&lt;script&gt;" in left
    assert "<b>it</b>" not in right and "&lt;b&gt;" in right and "&amp;" in right
