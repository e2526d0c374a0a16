"""Style classifiers: fit / predict_proba, lexicons, held-out reports, caching, save / load."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from stviz.cache import Cache
from stviz.measures.style.classifiers import load_classifier, save_classifier, train_style_classifier
from stviz.measures.style.classifiers.tfidf import TfidfStyleClassifier
from stviz.measures.style.classifiers.transformer import TransformerStyleClassifier
from stviz.measures.style.lexicon import learn_style_lexicon
from stviz.data.schema import DataError

POSITIVE = ["great", "wonderful", "delicious", "friendly", "amazing", "lovely"]
NEGATIVE = ["awful", "terrible", "rude", "bland", "horrible", "dirty"]
NOUNS = ["food", "staff", "room", "service", "pizza", "place", "waiter", "coffee"]


def toy_sentiment() -> tuple[list[str], list[str]]:
    """72 short review sentences whose sentiment rests on one adjective."""
    texts, labels = [], []
    for noun, (pos, neg) in zip(itertools.cycle(NOUNS), itertools.product(POSITIVE, NEGATIVE)):
        texts += [f"the {noun} was {pos} .", f"the {noun} was {neg} ."]
        labels += ["positive", "negative"]
    return texts, labels


def test_tfidf_classifier_fits_and_predicts_distributions():
    texts, labels = toy_sentiment()
    clf = TfidfStyleClassifier().fit(texts, labels)
    probs = clf.predict_proba(["the food was great .", "the staff was rude ."])
    assert probs.shape == (2, 2) and np.allclose(probs.sum(1), 1)
    assert list(clf.classes_) == ["negative", "positive"]
    assert list(clf.predict(["the food was great .", "the staff was rude ."])) == ["positive", "negative"]


def test_style_lexicon_holds_the_largest_weights_with_sign(tmp_path):
    texts, labels = toy_sentiment()
    cache = Cache(tmp_path)
    lexicon = learn_style_lexicon(texts, labels, top_k=12, cache=cache)
    assert len(lexicon) == 12
    assert set(lexicon) == set(POSITIVE) | set(NEGATIVE)  # nouns and 'the' / 'was' carry no style
    assert all(lexicon[w] > 0 for w in POSITIVE) and all(lexicon[w] < 0 for w in NEGATIVE)
    weights = [abs(v) for v in lexicon.values()]
    assert weights == sorted(weights, reverse=True)
    assert len(learn_style_lexicon(texts, labels, top_k=3, cache=cache)) == 3


def test_lexicon_learned_from_a_sample_of_yelp_sentiment(yelp_sentiment):
    from stviz.measures.style.lexicon import lexicon_from_dataset

    lexicon = lexicon_from_dataset(yelp_sentiment, top_k=50, max_texts=5_000)
    assert len(lexicon) == 50
    # Sentiment words lead, signed toward the second style ('positive'); content words do not.
    assert lexicon["great"] > 0 and lexicon["worst"] < 0
    assert not {"food", "restaurant", "table"} & set(lexicon)


def test_bad_training_data_raises_data_error():
    with pytest.raises(DataError, match="at least two styles"):
        TfidfStyleClassifier().fit(["a b", "c d"], ["x", "x"])
    with pytest.raises(DataError, match="2 texts but 1 labels"):
        TfidfStyleClassifier().fit(["a", "b"], ["x"])
    with pytest.raises(DataError, match="top_k"):
        learn_style_lexicon(["a", "b"], ["x", "y"], top_k=0)


def test_training_reports_held_out_accuracy_and_is_cached(tmp_path):
    texts, labels = toy_sentiment()
    cache = Cache(tmp_path)
    trained = train_style_classifier(texts, labels, "lr", test_size=0.25, cache=cache)
    assert trained.n_test == 18 and trained.n_train == 54
    assert int(trained.confusion.to_numpy().sum()) == trained.n_test
    assert trained.accuracy == pytest.approx(np.trace(trained.confusion.to_numpy()) / trained.n_test)
    assert trained.accuracy > 0.5
    assert cache.summary()["results"] == 1
    again = train_style_classifier(texts, labels, "lr", test_size=0.25, cache=cache)
    assert again.id == trained.id and cache.summary()["results"] == 1


def test_save_and_load_round_trip(tmp_path):
    texts, labels = toy_sentiment()
    trained = train_style_classifier(texts, labels, "lr", cache=Cache(tmp_path / "cache"))
    folder = save_classifier(trained, tmp_path / "clf")
    assert (folder / "report.json").exists()
    loaded = load_classifier(folder)
    assert np.allclose(loaded.predict_proba(texts[:5]), trained.predict_proba(texts[:5]))
    with pytest.raises(DataError, match="no classifier"):
        load_classifier(tmp_path / "empty")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "classifier.pkl").write_bytes(b"not a pickle")
    with pytest.raises(DataError, match="could not read"):
        load_classifier(tmp_path / "bad")


def saved_before_the_move(monkeypatch, save, obj, *classes):
    """``save(obj)`` as stviz wrote it before issue 41: ``classes`` named by their modules under ``stviz.classify``."""
    import sys
    import types

    with monkeypatch.context() as patch:
        for cls in classes:
            old = cls.__module__.replace("stviz.measures.style.classifiers", "stviz.classify")
            patch.setitem(sys.modules, old, types.ModuleType(old))
            patch.setattr(sys.modules[old], cls.__name__, cls, raising=False)
            patch.setattr(cls, "__module__", old)
        return save(obj)


def test_a_classifier_saved_before_the_move_still_loads(tmp_path, monkeypatch):
    from stviz.measures.style.classifiers.training import TrainedClassifier

    texts, labels = toy_sentiment()
    trained = train_style_classifier(texts, labels, "lr", cache=Cache(tmp_path / "cache"))
    folder = saved_before_the_move(monkeypatch, lambda t: save_classifier(t, tmp_path / "clf"), trained,
                                   TrainedClassifier, TfidfStyleClassifier)
    assert b"stviz.classify.training" in (folder / "classifier.pkl").read_bytes()
    loaded = load_classifier(folder)
    assert type(loaded) is TrainedClassifier and type(loaded.estimator) is TfidfStyleClassifier
    assert np.allclose(loaded.predict_proba(texts[:5]), trained.predict_proba(texts[:5]))


def test_a_style_scorer_saved_before_the_move_still_loads(tmp_path, monkeypatch):
    from stviz.measures.style.classifiers.scorers import StyleRegressor
    from stviz.measures.style.saved import SavedScorer, load_scorer, save_scorer

    texts, labels = toy_sentiment()
    scores = [1.0 if label == "positive" else -1.0 for label in labels]
    scorer = SavedScorer("toy", "ridge-tfidf", StyleRegressor("ridge-tfidf").fit(texts, scores), "toy", "sentiment",
                         "positive", len(texts), {"mae": 0.1, "spearman": 0.9, "pearson": 0.9, "folds": 5})
    folder = saved_before_the_move(monkeypatch, lambda s: save_scorer(s, tmp_path / "toy"), scorer, StyleRegressor)
    assert b"stviz.classify.scorers" in (folder / "scorer.pkl").read_bytes()
    loaded = load_scorer(str(folder))
    assert type(loaded.model) is StyleRegressor and np.allclose(loaded.predict(texts[:4]), scorer.predict(texts[:4]))


def test_transformer_head_matches_its_torch_model():
    """The torch encoder + head (used for attributions) computes what predict_proba returns."""
    import torch

    from stviz.measures.style.classifiers.transformer import minilm_tokenizer

    texts, labels = toy_sentiment()
    clf = TransformerStyleClassifier(fine_tune=False).fit(texts, labels)
    assert not clf.fine_tuned_
    probs = clf.predict_proba(texts[:6])
    enc = minilm_tokenizer()(texts[:6], padding=True, return_tensors="pt")
    with torch.no_grad():
        torch_probs = torch.softmax(clf.torch_model()(enc["input_ids"], enc["attention_mask"]), -1).numpy()
    assert np.allclose(probs, torch_probs, atol=1e-4)
    assert (clf.predict(texts[:6]) == np.array(labels[:6])).mean() >= 5 / 6


def test_fine_tuning_path_updates_the_encoder():
    """The GPU path (forced here on CPU with one short epoch) trains the encoder and predicts with it."""
    texts, labels = toy_sentiment()
    clf = TransformerStyleClassifier(fine_tune=True, epochs=1).fit(texts[:32], labels[:32])
    assert clf.fine_tuned_ and clf.encoder_state_ is not None
    probs = clf.predict_proba(texts[:4])
    assert probs.shape == (4, 2) and np.allclose(probs.sum(1), 1, atol=1e-5)


def test_yelp_sentiment_classifier_is_accurate(yelp_sentiment):
    from stviz.measures.style.classifiers import train_on_dataset

    trained = train_on_dataset(yelp_sentiment, "lr", max_texts=40_000)
    assert trained.classes == ["negative", "positive"]
    assert trained.accuracy >= 0.93  # measured 0.957-0.960 on 8,000 held-out sentences


def test_cli_classify_train_writes_a_loadable_classifier(tmp_path, capsys):
    from stviz.cli import main

    assert main(["classify", "train", "--dataset", "demo", "--kind", "lr", "--out", str(tmp_path / "clf")]) == 0
    out = capsys.readouterr().out
    assert "held-out accuracy" in out and "| true |" in out
    assert load_classifier(tmp_path / "clf").classes == ["biblical", "formal", "informal", "shakespearean", "tweets"]
    assert main(["classify", "train", "--dataset", "nowhere", "--kind", "lr", "--out", str(tmp_path / "x")]) == 2


def test_pair_files_give_labelled_texts_from_sources_and_references():
    import pandas as pd

    from stviz.data.labels import labelled_texts
    from stviz.data.schema import Dataset

    pairs = pd.DataFrame({"source": ["hey u", "sup", "hey u"], "output": ["Hello.", "Hi there.", "Greetings."],
                          "source_style": "informal", "target_style": "formal",
                          "reference": ["Hello, you.", "How are you?", "Hello, you."]})
    frame = labelled_texts(Dataset(name="up", title="up", pairs=pairs))
    assert sorted(map(tuple, frame.to_numpy())) == [("Hello, you.", "formal", "hey u"), ("How are you?", "formal", "sup"),
                                                    ("hey u", "informal", "hey u"), ("sup", "informal", "sup")]
    with pytest.raises(DataError, match="no style labels"):
        labelled_texts(Dataset(name="bare", title="bare", pairs=pairs[["source", "output"]]))


def test_one_style_pairs_say_which_views_do_not_apply():
    import pandas as pd

    from stviz.data.schema import Dataset
    from stviz.measures.style.classifiers import OneStyleError, train_on_dataset

    pairs = pd.DataFrame({"source": ["hey u", "sup", "yo"], "output": ["Hello.", "Hi there.", "Greetings."],
                          "source_style": "informal", "target_style": "formal"})
    with pytest.raises(OneStyleError, match="one style only .informal.*intensity, token attributions"):
        train_on_dataset(Dataset(name="sgdd-like", title="t", pairs=pairs), "lr")
    # The same verdict before any training, for pages that must decide what to draw.
    from stviz.data import load_dataset
    from stviz.measures.style.classifiers import check_style_labels

    with pytest.raises(OneStyleError, match="one style only .informal"):
        check_style_labels(Dataset(name="sgdd-like", title="t", pairs=pairs))
    check_style_labels(load_dataset("demo"))  # five styles: no error


def test_chance_accuracy_and_reliability_warning(tmp_path):
    texts, labels = toy_sentiment()
    trained = train_style_classifier(texts, labels, "lr", test_size=0.25, cache=Cache(tmp_path))
    counts = trained.confusion.to_numpy().sum(axis=1)
    assert trained.chance_accuracy == pytest.approx(counts.max() / counts.sum())
    assert "commonest style" in trained.summary()
    assert "only 18 held-out" in trained.reliability_warning(min_test=20)
    strong = train_style_classifier(texts, labels, "lr", test_size=0.25, cache=Cache(tmp_path))
    strong.accuracy = 1.0
    assert strong.reliability_warning(min_test=10) is None
    strong.accuracy = strong.chance_accuracy
    assert "weak" in strong.reliability_warning(min_test=10)


def test_a_classifier_learned_from_pairs_is_tested_on_inputs_it_never_saw(corpora, tmp_path):
    # An input and its references share their words: split apart, the classifier learned an input's words as the
    # source style and judged its rewrite by them. On RUSSE 2022's final test a random split measured 0.506 (chance).
    from stviz.data import load_dataset
    from stviz.data.labels import GROUP, labelled_texts
    from stviz.measures.style.classifiers.training import held_out_split, train_on_dataset

    dataset = load_dataset("russe2022-humaneval")
    frame = labelled_texts(dataset)
    styles, inputs = frame["style"].tolist(), frame[GROUP].tolist()
    train, test = held_out_split(styles, inputs, 0.2, 0)
    assert not {inputs[i] for i in train} & {inputs[i] for i in test}
    assert {styles[i] for i in test} == set(styles) and abs(len(test) / len(styles) - 0.2) < 0.02
    grouped = train_on_dataset(dataset, "lr", cache=Cache(tmp_path))
    assert grouped.n_test == len(test)
    at_random = train_style_classifier(frame["text"].tolist(), styles, "lr", cache=Cache(tmp_path))
    assert at_random.n_test == len(test) and grouped.accuracy > at_random.accuracy + 0.1  # 0.709 against 0.506 here


def test_a_split_by_group_falls_back_to_a_stratified_one_with_too_few_groups():
    from stviz.measures.style.classifiers.training import held_out_split

    labels = ["a", "b"] * 10
    train, test = held_out_split(labels, ["one"] * 10 + ["two"] * 10, 0.2, 0)  # 2 groups for 5 folds
    assert sorted(train + test) == list(range(20)) and {labels[i] for i in test} == {"a", "b"} and len(test) == 4
