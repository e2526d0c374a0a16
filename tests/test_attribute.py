"""Token attributions (captum Integrated Gradients), word-piece merging, threshold and lexicon masking."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import stviz.measures.style.attribution as attribute
from stviz.cache import Cache
from stviz.data.schema import DataError
from stviz.measures.style.attribution import (apply_word_mask, attribute_text, attribute_texts, mask_by_attribution,
                                              mask_by_lexicon, masking_sweep, select_style_words, sweep_correlations)
from stviz.measures.style.classifiers import train_style_classifier

POSITIVE = ["great", "wonderful", "delicious", "friendly", "amazing", "lovely"]
NEGATIVE = ["awful", "terrible", "rude", "bland", "horrible", "dirty"]
NOUNS = ["food", "staff", "room", "service", "pizza", "place", "waiter", "coffee"]


@pytest.fixture(scope="module")
def sentiment_classifier(tmp_path_factory):
    """MiniLM + head trained on toy reviews whose sentiment rests on one adjective."""
    texts, labels = [], []
    for noun, (pos, neg) in zip(itertools.cycle(NOUNS), itertools.product(POSITIVE, NEGATIVE)):
        texts += [f"the {noun} was {pos} .", f"the {noun} was {neg} ."]
        labels += ["positive", "negative"]
    return train_style_classifier(texts, labels, "transformer", fine_tune=False,
                                  cache=Cache(tmp_path_factory.mktemp("clf")))


def test_cumulative_mass_selection():
    shares = np.array([0.05, 0.5, 0.25, 0.2])
    assert list(select_style_words(shares, 0.5)) == [False, True, False, False]
    assert list(select_style_words(shares, 0.8)) == [False, True, True, False]
    # The top word alone exceeds the threshold: the post masks it anyway; strict masking does not.
    assert list(select_style_words(shares, 0.3)) == [False, True, False, False]
    assert not select_style_words(shares, 0.3, at_least_one=False).any()
    assert not select_style_words(shares, 0.0).any()
    with pytest.raises(DataError, match="between 0 and 1"):
        select_style_words(shares, 30)


def test_never_mask_when_no_word_stands_out():
    flat = np.full(5, 0.2)
    assert select_style_words(flat, 0.3).sum() == 1  # the post's "at least one token"
    assert not select_style_words(flat, 0.3, standout=1.5).any()
    peaked = np.array([0.6, 0.1, 0.1, 0.1, 0.1])
    assert select_style_words(peaked, 0.3, standout=1.5)[0]


def test_masking_strategies_keep_the_rest_verbatim():
    text = "The food was REALLY awful, sadly."
    spans = [(0, 3), (4, 8), (9, 12), (13, 19), (20, 25), (25, 26), (27, 32), (32, 33)]
    chosen = np.array([False, False, False, True, True, False, False, False])
    assert apply_word_mask(text, spans, chosen, "remove") == "The food was , sadly."
    assert apply_word_mask(text, spans, chosen, "placeholder", "[PAD]") == "The food was [PAD] [PAD], sadly."
    with pytest.raises(DataError, match="strategy"):
        apply_word_mask(text, spans, chosen, "blur")


def test_word_pieces_are_merged_by_summing():
    words, spans, scores = attribute._merge_word_pieces(
        "so strikingly bland", [None, 0, 1, 1, 2, None], [[0, 0], [0, 2], [3, 11], [11, 13], [14, 19], [0, 0]],
        np.array([9.0, 0.1, 0.3, 0.2, 0.5, 9.0]))
    assert words == ("so", "strikingly", "bland")
    assert spans == ((0, 2), (3, 13), (14, 19))
    assert np.allclose(scores, [0.1, 0.5, 0.5])


def test_integrated_gradients_find_the_style_word(sentiment_classifier, tmp_path):
    result = attribute_text("the pizza was strikingly awful .", sentiment_classifier, cache=Cache(tmp_path))
    assert result.words == ("the", "pizza", "was", "strikingly", "awful", ".")  # "striking ##ly" is one word
    assert result.style == "negative" and result.probability > 0.5
    assert result.words[int(np.argmax(result.scores))] == "awful"
    assert abs(result.delta) < 0.05  # IG completeness: attributions sum to p(x) - p(baseline)
    assert result.shares.sum() == pytest.approx(1.0)
    masked, chosen = mask_by_attribution(result, 0.3, "placeholder", placeholder="[MASK]")
    assert masked == "the pizza was strikingly [MASK] ." and chosen.sum() == 1
    toward_positive = attribute_text("the pizza was strikingly awful .", sentiment_classifier, "positive",
                                     cache=Cache(tmp_path))
    assert toward_positive.style == "positive" and toward_positive.probability < 0.5
    with pytest.raises(DataError, match="unknown style"):
        attribute_text("x", sentiment_classifier, "formal", cache=Cache(tmp_path))


def test_attributions_are_cached_per_text_and_batches_reuse_them(sentiment_classifier, tmp_path, monkeypatch):
    cache = Cache(tmp_path)
    texts = ["the staff was rude .", "the coffee was lovely .", "the room was dirty ."]
    calls = []
    original = attribute._integrated_gradients
    monkeypatch.setattr(attribute, "_integrated_gradients", lambda t, *a: calls.append(list(t)) or original(t, *a))
    first = attribute_texts(texts[:1], sentiment_classifier, cache=cache)
    both = attribute_texts(texts, sentiment_classifier, cache=cache, batch_size=8)
    assert calls == [texts[:1], sorted(texts[1:], key=len)]  # the opened row is not recomputed
    assert np.allclose(first[0].scores, both[0].scores)
    again = attribute_texts(texts, sentiment_classifier, cache=cache)
    assert len(calls) == 2 and [a.words for a in again] == [a.words for a in both]
    # Batched (padded) and single attributions agree.
    single = original([texts[2]], sentiment_classifier, None, attribute.N_STEPS)[0]
    assert np.allclose(single.scores, both[2].scores, atol=2e-3)


def test_lr_classifier_cannot_attribute(tmp_path):
    lr = train_style_classifier(["good", "great", "bad", "awful"] * 3, ["p", "p", "n", "n"] * 3, "lr",
                                test_size=0.34, cache=Cache(tmp_path))
    with pytest.raises(DataError, match="transformer"):
        attribute_text("good", lr, cache=Cache(tmp_path))


def test_lexicon_masking():
    lexicon = {"awful": -2.0, "great": 1.5}
    assert mask_by_lexicon(["the food was awful ."], lexicon, "remove") == ["the food was ."]
    assert mask_by_lexicon(["Great food !"], lexicon, "placeholder", "[PAD]") == ["[PAD] food !"]


def test_masking_sweep_and_its_correlation_with_humans(sentiment_classifier, tmp_path):
    pairs = pd.DataFrame({"source": ["the food was awful .", "the staff was rude .", "the room was dirty .",
                                     "the pizza was bland ."],
                          "output": ["the food was great .", "the staff was friendly .", "a lovely hotel .",
                                     "the pizza was bland ."],
                          "system": ["a", "a", "b", "b"]})
    sweep = masking_sweep(pairs, sentiment_classifier, thresholds=(0.1, 0.3), cache=Cache(tmp_path))
    assert list(sweep["setting"].unique()) == ["no masking", "remove 10%", "remove 30%", "placeholder 10%",
                                               "placeholder 30%"]
    assert len(sweep) == 5 * len(pairs) and sweep["score"].between(-1, 1.0001).all()
    unmasked = sweep[sweep["setting"] == "no masking"]["score"].to_numpy()
    removed = sweep[sweep["setting"] == "remove 30%"]["score"].to_numpy()
    assert removed[0] > unmasked[0]  # without the sentiment word, "the food was ." equals itself
    table = sweep_correlations(sweep, [4.5, 4.0, 1.0, 5.0])
    assert set(table.index) <= set(sweep["setting"]) and table["pearson_r"].between(-1, 1).all()


def test_cli_attribute_masks_and_scores(tmp_path, capsys):
    from stviz.cli import main

    out_file = tmp_path / "masked.csv"
    assert main(["attribute", "--dataset", "demo", "--sample", "3", "--threshold", "0.3", "--strategy", "placeholder",
                 "--out", str(out_file)]) == 0
    frame = pd.read_csv(out_file)
    assert len(frame) == 3 and frame["masked_source"].str.contains(r"\[PAD\]", regex=True).all()
    assert {"content_unmasked", "content_masked"} <= set(frame)
    assert main(["attribute", "--dataset", "demo", "--strategy", "lexicon-remove", "--out", str(out_file)]) == 2
    assert "ships no style lexicon" in capsys.readouterr().err
