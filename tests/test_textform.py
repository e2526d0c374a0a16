"""One text form for every measure: forms found per group, tokenised the Treebank way when they differ."""

from __future__ import annotations

import pandas as pd
import pytest

from stviz.analyses import leaderboard
from stviz.data.schema import Dataset
from stviz.textform import forms_table, needs_one_form, text_form, tokenise, tokenise_text


def test_forms_are_told_apart():
    released = text_form("system", ["it 's good .", "i do n't like it !", "the food was great"])
    written = text_form("human", ["It's good.", "I don't like it!", "The food was great"])
    assert released.form == "tokenised, lower-cased" and written.form == "detokenised"
    assert text_form("none", ["plain words here"]).form.startswith("unknown")


def test_tokenising_gives_the_released_form_and_keeps_it():
    assert tokenise_text('It\'s good. I don\'t "like" it!') == 'it \'s good. i do n\'t " like " it !'
    assert tokenise_text("It's good.") == "it 's good ."
    released = ["it 's good .", "i do n't like it !", "_num_ stars , would eat again ."]
    assert tokenise(released) == released  # the released form is a fixed point
    assert tokenise(["a", None, "a"]) == ["a", None, "a"]


def test_one_form_only_when_forms_differ_or_asked():
    same = forms_table({"a": ["it 's good ."], "b": ["i do n't know ."]})
    mixed = forms_table({"a": ["it 's good ."], "b": ["I don't know."]})
    assert not needs_one_form(same, "auto") and needs_one_form(mixed, "auto")
    assert needs_one_form(same, "tokenised") and not needs_one_form(mixed, "as-is")
    with pytest.raises(ValueError, match="choose one of"):
        needs_one_form(same, "lowercase")


def _pairs() -> Dataset:
    pairs = pd.DataFrame({"source": ["it 's bad .", "service is slow ."] * 2,
                          "output": ["it 's good .", "service is fast .", "It's good.", "Service is fast!"],
                          "system": ["model", "model", "Human", "Human"],
                          "reference": ["It's good.", "Service is quick."] * 2})
    return Dataset("tiny-outputs", "tiny", pairs=pairs)


def test_the_leaderboard_compares_every_group_in_one_form():
    dataset = _pairs()
    ds, pairs, line = leaderboard.in_one_text_form(dataset, dataset.pairs, ["reference"], "auto")
    assert pairs["output"].tolist()[2:] == ["it 's good .", "service is fast !"]
    assert pairs["reference"].tolist()[:2] == ["it 's good .", "service is quick ."]
    assert ds.pairs is pairs and dataset.pairs["output"][2] == "It's good."  # the dataset is untouched
    assert "tokenised (Treebank) and lower-cased" in line and "detokenised: outputs of Human, reference" in line
    _, kept, line = leaderboard.in_one_text_form(dataset, dataset.pairs, ["reference"], "as-is")
    assert kept is dataset.pairs and line.startswith("text form: compared as written")


def test_bleu_no_longer_counts_punctuation_spacing():
    dataset = _pairs()
    options = dict(metrics=("bleu",), n_resamples=100, level=0.9)
    as_is = leaderboard.run(dataset, leaderboard.Options(text_form="as-is", **options))
    one_form = leaderboard.run(dataset, leaderboard.Options(**options))

    def bleu(result, system):
        return result.scores.set_index(["system", "metric"]).loc[(system, "bleu"), "value"]

    # The model's first output is the reference as released outputs write it: scored as written,
    # sacrebleu's 13a tokens "it 's" and "it's" differ; in one form they match.
    assert bleu(one_form, "model") > bleu(as_is, "model")
    assert one_form.text_form.startswith("text form: every input")
