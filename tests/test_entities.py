"""Named-entity overlap and Babakov et al.'s merge."""

from __future__ import annotations

import numpy as np
import pytest

from stviz.cache import Cache
from stviz.metrics import compute_metric
from stviz.metrics.entities import (analyse_entities, entity_diff, entity_jaccard, entity_scores, entity_share,
                                    merge_with_entities, TextEntities)


@pytest.fixture()
def cache(tmp_path):
    return Cache(tmp_path / "cache")


def test_jaccard_defines_the_empty_cases():
    assert entity_jaccard(frozenset(), frozenset()) == 1.0  # nothing to lose: defined as full agreement
    assert entity_jaccard(frozenset({"paris"}), frozenset()) == 0.0
    assert entity_jaccard(frozenset({"paris", "monday"}), frozenset({"paris"})) == 0.5


def test_share_and_merge_formula():
    a, b = TextEntities((), 2, 6), TextEntities((), 3, 4)
    assert entity_share(a, b) == pytest.approx(0.5)
    assert entity_share(TextEntities((), 0, 0), TextEntities((), 0, 0)) == 0.0
    np.testing.assert_allclose(merge_with_entities([0.2, 0.8], [1.0, 0.0], [0.5, 0.25]), [0.6, 0.6])


def test_spacy_finds_lemmatised_entities(cache):
    (doc,) = analyse_entities(["Barack Obama visited Paris on Mondays."], cache=cache)
    keys = doc.keys
    assert "paris" in keys and any("obama" in k for k in keys)
    assert doc.tokens == 6 and 3 <= doc.entity_tokens <= 5  # the full stop is not a word token


def test_entity_scores_and_diff(cache):
    src = ["I fly to Paris on Monday with Lufthansa.", "please call me back"]
    out = ["I fly to London on Monday with Lufthansa.", "call me later please"]
    jaccard, share = entity_scores(src, out, cache=cache)
    assert 0 < jaccard[0] < 1 and jaccard[1] == 1.0
    assert share[0] > 0 and share[1] == 0.0
    diff = entity_diff(src[0], out[0], cache=cache)
    assert {e.key for e in diff.kept} >= {"monday"}
    assert [(a.key, b.key) for a, b in diff.changed] == [("paris", "london")]
    assert not diff.lost and not diff.added


def test_merged_variant_of_a_metric(cache):
    src, out = ["We meet Anna in Berlin tomorrow."], ["We meet Anna in Rome tomorrow."]
    ne, p = entity_scores(src, out, cache=cache)
    chrf = compute_metric("chrf", src, out, cache=cache) / 100
    np.testing.assert_allclose(compute_metric("chrf+ne", src, out, cache=cache), chrf * (1 - p) + ne * p)
    np.testing.assert_allclose(compute_metric("ne", src, out, cache=cache), ne)
    # a distance is merged through its similarity form
    wmd = compute_metric("wmd", src, out, cache=cache)
    np.testing.assert_allclose(compute_metric("wmd+ne", src, out, cache=cache), (1 / (1 + wmd)) * (1 - p) + ne * p)
