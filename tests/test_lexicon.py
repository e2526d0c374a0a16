"""Lexicon specs: parsed once (stviz.measures.style.lexicon.LexiconSpec), described the same on every page and
command."""

from __future__ import annotations

import pytest

from stviz.data import load_dataset
from stviz.measures.style.lexicon import LexiconSpec, describe_lexicon


@pytest.mark.parametrize("spec, kind, corpus, size, text", [
    (None, "shipped", None, None, "dataset"), ("dataset", "shipped", None, None, "dataset"),
    ("shipped", "shipped", None, None, "dataset"), ("none", "none", None, None, "none"),
    ("learn", "learn", None, None, "learn"), ("learn:300", "learn", None, 300, "learn:300"),
    ("learn:yelp-sentiment", "learn", "yelp-sentiment", None, "learn:yelp-sentiment"),
    ("learn:yelp-sentiment:300", "learn", "yelp-sentiment", 300, "learn:yelp-sentiment:300"),
    ("words.json", "file", None, None, "words.json"), ("learned.json", "file", None, None, "learned.json"),
])
def test_every_spec_is_read_once_and_written_back(spec, kind, corpus, size, text):
    parsed = LexiconSpec.parse(spec)
    assert (parsed.kind, parsed.corpus, parsed.size, parsed.text) == (kind, corpus, size, text)
    assert LexiconSpec.parse(parsed.text) == parsed


def test_a_size_alone_is_the_number_of_words_learned_from_the_datasets_own_texts():
    demo = load_dataset("demo")
    own = LexiconSpec.parse("learn:300").describe(demo)
    assert "300 words learned from demo's own" in own and "learned from 300" not in own
    other = LexiconSpec.parse("learn:yelp-sentiment:300").describe(demo)
    assert "300 words learned from yelp-sentiment" in other
    # With the words in hand, the line counts them; the source and the size menu come from the same reading.
    assert describe_lexicon("learn:300", {f"w{i}": 1.0 for i in range(300)}, demo) == own
    assert LexiconSpec.parse("learn:yelp-sentiment:300").source == "learn:yelp-sentiment"
    assert LexiconSpec.parse("learn:300").source == "learn" and LexiconSpec.parse("learn").words == 500


def test_no_lexicon_says_so():
    demo = load_dataset("demo")
    assert LexiconSpec.parse("none").describe(demo) == "no style lexicon"
    assert LexiconSpec.parse(None).resolve(demo) is None  # the demo ships none
