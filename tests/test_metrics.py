"""Content-preservation metrics: values on known pairs, modifications, caching, WordNet, CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stviz.cache import Cache
from stviz.data.schema import DataError
from stviz.data.schema import Dataset
from stviz.metrics import (available_metrics, builtin_cards, compute_metric, content, default_metrics, get_card,
                           metric_frame, with_ne_merge)
from stviz.metrics import wordnet as wn
from stviz.metrics.modify import apply_modification, mask_style_words, remove_style_words

SRC = ["the food was good and the staff was friendly .", "we flew to Paris on Monday ."]
SAME = list(SRC)
OTHER = ["a completely unrelated sentence about rockets .", "purple elephants dance quietly ."]
LEXICON = {"good": 2.0, "friendly": 1.5, "terrible": -2.0}


@pytest.fixture()
def cache(tmp_path):
    return Cache(tmp_path / "cache")


def test_cards_describe_every_builtin_and_precomputed_columns():
    pairs = pd.DataFrame({"source": ["a"], "output": ["b"], "metric:bleurt": [0.1], "metric:wmd_custom": [1.0]})
    names = available_metrics(Dataset("x", "x", pairs=pairs))
    cards = {n: get_card(n) for n in with_ne_merge(names)}
    for name, card in builtin_cards().items():
        assert card.citation and card.label and card.compute is not None, name
    assert cards["wmd"].kind == "distance" and cards["wmd-sim"].kind == "similarity"
    assert cards["metric:bleurt"].precomputed and cards["metric:bleurt"].higher_is_better
    assert not cards["metric:wmd_custom"].higher_is_better
    assert "bleu+ne" in cards and "metric:bleurt+ne" in cards and "ne+ne" not in cards
    assert get_card("cosine:glove-max").options == {"embedder": "glove-max"}
    with pytest.raises(DataError, match="unknown metric"):
        get_card("bleurt-magic")


def test_one_default_list_leaves_slow_metrics_out_of_large_data_and_columns_out_of_modified_texts():
    small = Dataset("s", "s", pairs=pd.DataFrame({"source": ["a"] * 10, "output": ["b"] * 10, "metric:bleurt": 0.5}))
    large = Dataset("l", "l", pairs=pd.DataFrame({"source": ["a"] * 5000, "output": ["b"] * 5000}))
    names, notes = default_metrics(small)
    assert {"bleu", "chrf", "rougeL", "bertscore", "ne", "cosine:minilm", "metric:bleurt"} <= set(names) and not notes
    names, notes = default_metrics(large)
    assert "bertscore" not in names and "bleu" in names and "BERTScore" in notes[0]
    names, notes = default_metrics(small, modification="masking")
    assert "metric:bleurt" not in names and "precomputed" in notes[0]


def test_metric_docstring_examples_run():
    import doctest

    from stviz.metrics import entities

    for module in (content, entities):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize("name", ["bleu", "chrf", "chrf++", "rouge1", "rouge2", "rouge3", "rougeL", "meteor",
                                  "cosine:glove-mean", "wmd-sim"])
def test_identical_pairs_score_higher_than_unrelated(name, cache):
    same = compute_metric(name, SRC, SAME, cache=cache)
    other = compute_metric(name, SRC, OTHER, cache=cache)
    assert (same > other).all(), (name, same, other)


def test_remembered_stems_give_the_libraries_own_scores(sgdd):
    # ROUGE and METEOR remember each word's Porter stem; on real pairs they must equal rouge-score's
    # and nltk's defaults exactly.
    from nltk.translate.meteor_score import meteor_score
    from rouge_score import rouge_scorer

    from stviz.embedders import tokenize
    from stviz.metrics.wordnet import load_wordnet

    rows = sgdd.pairs.iloc[:2000]
    src, out = rows["source"].tolist(), rows["output"].tolist()
    for rouge_type in content.ROUGE_TYPES:
        library = rouge_scorer.RougeScorer([rouge_type], use_stemmer=True)
        expected = [library.score(s, o)[rouge_type].fmeasure for s, o in zip(src, out)]
        np.testing.assert_array_equal(content.rouge(src, out, rouge_type=rouge_type), expected)
    wordnet, _ = load_wordnet()
    expected = [meteor_score([tokenize(s, lowercase=False)], tokenize(o, lowercase=False), wordnet=wordnet)
                for s, o in zip(src[:500], out[:500])]
    np.testing.assert_array_equal(content.meteor(src[:500], out[:500]), expected)


def test_scales_and_known_values(cache):
    np.testing.assert_allclose(compute_metric("bleu", SRC, SAME, cache=cache), 100.0)
    np.testing.assert_allclose(compute_metric("chrf", SRC, SAME, cache=cache), 100.0)
    np.testing.assert_allclose(compute_metric("rougeL", SRC, SAME, cache=cache), 1.0)
    np.testing.assert_allclose(compute_metric("wmd", SRC, SAME, cache=cache), 0.0, atol=1e-6)
    wmd = compute_metric("wmd", SRC, OTHER, cache=cache)
    np.testing.assert_allclose(compute_metric("wmd-sim", SRC, OTHER, cache=cache), 1 / (1 + wmd))
    # sacrebleu sentence BLEU with 'exp' smoothing gives a non-zero score without a 4-gram match
    assert 0 < compute_metric("bleu", ["the cat sat"], ["the cat ran"], cache=cache)[0] < 100


def test_embedding_cosine_of_identical_texts_is_one(cache):
    np.testing.assert_allclose(compute_metric("cosine:minilm", SRC, SAME, cache=cache), 1.0, atol=1e-5)
    assert (compute_metric("cosine:minilm", SRC, OTHER, cache=cache) < 0.5).all()


def test_bertscore_uses_shipped_minilm(cache):
    same = compute_metric("bertscore", SRC[:1], SAME[:1], cache=cache)
    other = compute_metric("bertscore", SRC[:1], OTHER[:1], cache=cache)
    assert same[0] == pytest.approx(1.0, abs=1e-4) and other[0] < same[0]
    assert "layer 6" in get_card("bertscore").label


def test_results_are_cached_per_texts_and_options(cache, monkeypatch):
    first = compute_metric("chrf", SRC, OTHER, cache=cache)

    def fail(*args, **kwargs):
        raise AssertionError("recomputed although cached")

    from dataclasses import replace

    from stviz.metrics import registry

    monkeypatch.setitem(registry._REGISTRY, "chrf", replace(registry._REGISTRY["chrf"], compute=fail))
    np.testing.assert_array_equal(compute_metric("chrf", SRC, OTHER, cache=cache), first)
    with pytest.raises(AssertionError, match="recomputed"):  # other texts are a cache miss
        compute_metric("chrf", SRC, list(reversed(OTHER)), cache=cache)


def test_modifications_follow_mir_et_al():
    texts = ["The food was GOOD , staff friendly !"]
    assert remove_style_words(texts, LEXICON) == ["The food was , staff !"]
    assert mask_style_words(texts, LEXICON) == ["The food was customstyle , staff customstyle !"]
    assert apply_modification(texts, "none") == texts
    # Only style words change: punctuation runs, contractions and spacing elsewhere stay as written.
    untouched = ["wow ... you 're right", "it wasn't bad,really"]
    assert mask_style_words(untouched, LEXICON) == untouched
    assert remove_style_words(untouched, LEXICON) == untouched
    assert mask_style_words(["Good... you 're GOOD!"], LEXICON) == ["customstyle... you 're customstyle!"]
    with pytest.raises(DataError, match="lexicon"):
        apply_modification(texts, "masking", None)
    with pytest.raises(DataError, match="unknown modification"):
        apply_modification(texts, "paraphrase", LEXICON)


def test_masked_wmd_differs_from_removed_because_the_placeholder_has_a_vector(cache):
    src = ["the food was good and cheap"]
    out = ["the food was terrible and cheap"]
    masked = compute_metric("wmd", src, out, modification="masking", lexicon=LEXICON, cache=cache)
    removed = compute_metric("wmd", src, out, modification="removal", lexicon=LEXICON, cache=cache)
    plain = compute_metric("wmd", src, out, cache=cache)
    # both style slots become the placeholder: they align at zero cost, so masked = 0 here
    assert masked[0] == pytest.approx(0.0, abs=1e-6)
    assert removed[0] == pytest.approx(0.0, abs=1e-6) and plain[0] > 0.05
    src2, out2 = ["good food"], ["food"]
    assert compute_metric("wmd", src2, out2, modification="masking", lexicon=LEXICON, cache=cache)[0] > 0


def test_bad_input_raises_clear_errors(cache):
    with pytest.raises(DataError, match="align"):
        compute_metric("bleu", SRC, SRC[:1], cache=cache)
    with pytest.raises(DataError, match="lexicon"):
        compute_metric("bleu", SRC, SRC, modification="removal", cache=cache)
    with pytest.raises(DataError, match="precomputed"):
        compute_metric("metric:bleurt", SRC, SRC, cache=cache)


def test_metric_frame_serves_precomputed_columns_and_merges(cache):
    pairs = pd.DataFrame({"source": SRC, "output": OTHER, "metric:given": [0.2, 0.4],
                          "metric:scipy_ner": [1.0, 0.0], "metric:scipy_proprotion": [0.5, 0.25]})
    frame = metric_frame(pairs, ["metric:given", "metric:given+ne", "bleu+ne"], ne_source="columns", cache=cache)
    np.testing.assert_allclose(frame["metric:given"], [0.2, 0.4])
    np.testing.assert_allclose(frame["metric:given+ne"], [0.2 * 0.5 + 1.0 * 0.5, 0.4 * 0.75 + 0.0])
    bleu = compute_metric("bleu", SRC, OTHER, cache=cache) / 100
    np.testing.assert_allclose(frame["bleu+ne"], bleu * [0.5, 0.75] + [0.5, 0.0])
    with pytest.raises(DataError, match="precomputed on the unmodified"):
        metric_frame(pairs, ["metric:given"], modification="masking", lexicon=LEXICON, cache=cache)


# -- WordNet / METEOR ------------------------------------------------------------------------------
def test_wordnet_is_available_here_and_gives_synonym_matches(cache):
    status = wn.wordnet_status()
    assert status.available, status.message  # `make test` installs wordnet-base / wordnet-sense-index
    assert get_card("meteor").label == "METEOR (WordNet 3.0)"
    with_syn = compute_metric("meteor", ["the car was fast"], ["the auto was fast"], cache=cache)[0]
    exact = compute_metric("meteor", ["the car was fast"], ["the rocket was fast"], cache=cache)[0]
    assert with_syn > exact


def test_wordnet_builds_from_debian_files(tmp_path):
    corpus = wn.build_from_debian(tmp_path)
    assert (corpus / "lexnames").read_text().count("\n") == 45
    assert not any(p.is_symlink() for p in corpus.iterdir())
    reader = wn._reader(corpus)
    assert "movie" in {l.name() for s in reader.synsets("film") for l in s.lemmas()}


def test_a_second_build_keeps_a_whole_copy_and_replaces_an_incomplete_one(tmp_path):
    # Several processes of a fresh home build at once: a builder that finds a whole copy in place (another's,
    # perhaps being read) keeps it; only a copy left incomplete (an older stviz, a killed build) is replaced.
    corpus = wn.build_from_debian(tmp_path)
    inode = corpus.stat().st_ino
    assert wn.build_from_debian(tmp_path) == corpus and corpus.stat().st_ino == inode
    (corpus / "index.sense").unlink()
    assert wn.build_from_debian(tmp_path) == corpus and wn._complete_corpus(corpus)
    assert sorted(p.name for p in corpus.parent.iterdir()) == ["wordnet"]  # no temporary folder left behind


def test_meteor_without_wordnet_is_exact_plus_stem_and_labelled(monkeypatch, cache):
    status = wn.WordNetStatus(False, "none", "", "no WordNet")
    monkeypatch.setattr(wn, "load_wordnet", lambda: (wn._NoSynonyms(), status))
    monkeypatch.setattr(wn, "wordnet_status", lambda: status)
    assert "exact+stem" in get_card("meteor").label
    fallback = compute_metric("meteor", ["the car was fast"], ["the auto was fast"], cache=cache)[0]
    stem = compute_metric("meteor", ["the cars were fast"], ["the car were fast"], cache=cache)[0]
    monkeypatch.undo()
    full = compute_metric("meteor", ["the car was fast"], ["the auto was fast"], cache=cache)[0]
    assert fallback < full  # cached separately: the WordNet state is part of the cache key
    assert stem > fallback  # stems still match


# -- command line ------------------------------------------------------------------------------------
def test_cli_metrics_and_correlate(tmp_path, capsys):
    from stviz.cli import main

    out = tmp_path / "m.csv"
    assert main(["metrics", "--dataset", "demo-pairs", "--metrics", "bleu,chrf,rougeL", "--with-ne",
                 "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    assert {"bleu", "chrf", "rougeL", "bleu+ne", "source", "output"} <= set(frame.columns)
    assert main(["correlate", "--dataset", "demo-pairs", "--metrics", "bleu,wmd", "--by", "system",
                 "--bootstrap", "200", "--williams", "--format", "md"]) == 0
    text = capsys.readouterr().out
    assert "95% CI" in text and r"\|r\| (distance)" in text and "mean over systems" in text and "Williams" in text
    table = [line for line in text.splitlines() if line.startswith("| WMD")]
    header = next(line for line in text.splitlines() if line.startswith("| metric"))
    # an escaped '|' in a cell keeps every Markdown row as wide as the header
    assert table and all(row.replace(r"\|", "").count("|") == header.count("|") for row in table)
    p_cells = [row.replace(r"\|", "").split("|")[9].strip() for row in table]
    assert all(p == "" or p == "<0.001" or 0.001 <= float(p) <= 1 for p in p_cells)  # never 0.000
    assert main(["correlate", "--dataset", "demo-pairs", "--metrics", "nonsense"]) == 2
    assert "error: unknown metric" in capsys.readouterr().err
    for command in (["correlate", "--dataset", "demo-styles"], ["metrics", "--dataset", "demo-styles",
                                                                  "--out", str(tmp_path / "x.csv")]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert "no (source, output) pairs" in err and "Traceback" not in err


def test_cli_learns_a_style_lexicon_for_masking(tmp_path, capsys):
    from stviz.cli import main

    out = tmp_path / "masked.csv"
    # The demo ships no lexicon: masking must say how to get one, then work with a learned one.
    assert main(["metrics", "--dataset", "demo-pairs", "--metrics", "bleu", "--modification", "masking",
                 "--out", str(out)]) == 2
    assert "style lexicon" in capsys.readouterr().err
    assert main(["metrics", "--dataset", "demo-pairs", "--metrics", "bleu", "--modification", "masking",
                 "--lexicon", "learn:demo-styles:40", "--out", str(out)]) == 0
    assert "40 words learned from demo-styles" in capsys.readouterr().err
    masked = pd.read_csv(out)["bleu"]
    assert main(["metrics", "--dataset", "demo-pairs", "--metrics", "bleu", "--out", str(out)]) == 0
    assert not np.allclose(masked, pd.read_csv(out)["bleu"])  # the learned words were masked
    assert main(["metrics", "--dataset", "demo-pairs", "--metrics", "bleu", "--modification", "masking",
                 "--lexicon", "learn:no-such-corpus", "--out", str(out)]) == 2
