"""The LLM judge run in this process (llm:smollm2, llm:hf:...): its expected score, recomputed independently, its
fast paths equal to the plain one, its refusals, its cost plan and its place among the measures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from stviz.data.schema import DataError
from stviz.metrics import compute_metric, get_card
from stviz.metrics import llm_local
from stviz.metrics.llm_prompts import read_template
from stviz.models.loading import rounding_bound

SOURCES = ["The food was great and the staff were friendly.", "I will see you tomorrow at noon.",
           "He won the match in 2019.", "this movie is garbage lol", "Please send me the report by Friday."]
OUTPUTS = ["The food was awful.", "See you tomorrow at twelve!", "He won the game in 2019.",
           "This film is not good.", "Kindly forward the report to me by Friday."]


@pytest.fixture(scope="module")
def judge():
    return llm_local.load(llm_local.resolve("smollm2"), "cpu", "fp32")


def _bound(judge) -> float:
    config = judge.model.config
    return rounding_bound(config.num_hidden_layers, max(config.hidden_size, config.intermediate_size))


def test_one_pairs_expected_score_recomputed_from_the_models_logits(judge):
    """Independently of stviz's batching, prefix cache and token handling: transformers' chat template over the
    whole prompt, the model's last logits, softmax, the score tokens' probabilities, their expected value."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from stviz.metrics.llm_loading import dequantised

    folder = dequantised(llm_local.resolve("smollm2"))
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModelForCausalLM.from_pretrained(folder).eval()
    template = read_template("content")
    prompt = template.text.replace("{source}", SOURCES[0]).replace("{output}", OUTPUTS[0])
    ids = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                        return_tensors="pt", return_dict=True)["input_ids"]
    with torch.no_grad():
        probs = torch.softmax(model(input_ids=ids).logits[0, -1].double(), dim=-1).numpy()
    per_score = np.array([probs[tokenizer.convert_tokens_to_ids(str(k))] +
                          (probs[tokenizer.convert_tokens_to_ids(f"Ġ{k}")] if f"Ġ{k}" in tokenizer.get_vocab() else 0)
                          for k in range(1, 6)])
    expected = float(np.arange(1, 6) @ per_score / per_score.sum())
    ours = compute_metric("llm:smollm2:content", SOURCES, OUTPUTS)
    # The expected score moves by at most (scale width) x the largest probability error, itself bounded by the
    # logits' fp32 rounding (the model's layers x widest sum x 2^-24).
    assert abs(ours[0] - expected) <= 4 * _bound(judge)
    assert ours.shape == (5,) and np.isfinite(ours).all() and ((ours >= 1) & (ours <= 5)).all()


def test_the_prefix_cache_length_sorting_and_batches_change_no_score(judge):
    template = read_template("style")
    plain = llm_local.score_pairs(judge, template.text, template.scale, SOURCES, OUTPUTS, reuse_prefix=False,
                                  sort=False, batch_size=1)
    for options in ({"reuse_prefix": True}, {"sort": True, "batch_size": 2}, {"reuse_prefix": True, "sort": False}):
        fast = llm_local.score_pairs(judge, template.text, template.scale, SOURCES, OUTPUTS, **options)
        for a, b in zip(plain, fast):
            assert np.abs(np.array(a.probabilities) - np.array(b.probabilities)).max() <= _bound(judge), options
            assert a.argmax == b.argmax or min(a.probabilities) < _bound(judge)


def test_every_prompt_shares_the_instructions_and_keeps_its_own_tokens(judge):
    template = read_template("content")
    prompts = llm_local.prompt_ids(judge.tokenizer, template.text, SOURCES, OUTPUTS)
    cut = llm_local.shared_prefix(prompts)
    assert 100 < cut < min(len(p) for p in prompts)  # the instructions (about 150 tokens) run once
    assert all(p[:cut] == prompts[0][:cut] for p in prompts)
    assert llm_local.shared_prefix([[1, 2, 3], [1, 2, 3]]) == 2  # one token is always left to run per pair


def test_a_score_off_the_scale_is_nan_and_the_reading_is_kept():
    low = llm_local.read_score(np.array([0.01, 0.01, 0.0, 0.0, 0.01]), (1, 5))
    assert math.isnan(low.expected) and low.mass == pytest.approx(0.03)
    assert "probability on the scale 0.030" in low.reply()
    even = llm_local.read_score(np.array([0.1, 0.1, 0.1, 0.1, 0.1]), (1, 5))
    assert even.expected == pytest.approx(3.0) and even.argmax == 1.0


def test_each_pair_is_judged_once_and_kept(tmp_path, monkeypatch):
    from stviz.cache import Cache

    cache = Cache(tmp_path / "cache")
    calls = []
    real = llm_local.score_pairs
    monkeypatch.setattr(llm_local, "score_pairs", lambda *a, **k: calls.append(len(a[3])) or real(*a, **k))
    template = read_template("fluency")
    args = ("smollm2", "fluency", template.text, template.scale)
    first = llm_local.local_scores(SOURCES + SOURCES[:2], OUTPUTS + OUTPUTS[:2], *args, cache=cache)
    again = llm_local.local_scores(SOURCES, OUTPUTS, *args, cache=cache)
    assert calls == [5] and np.allclose(first[:5], again) and np.allclose(first[5:], first[:2])


def test_the_cost_plan_times_a_few_pairs_and_keeps_them(tmp_path):
    from stviz.cache import Cache
    from stviz.metrics.llm import plan

    cache = Cache(tmp_path / "cache")
    sources, outputs = SOURCES * 4, [f"{o} ({i})" for i, o in enumerate(OUTPUTS * 4)]
    found = plan("llm:smollm2:content", sources, outputs, cache=cache)
    assert found.server is None and found.measured_calls == 16 and found.calls == 4 and found.seconds_per_call > 0
    assert "4 pairs to judge here" in found.describe() and "s a pair (16 timed)" in found.describe()
    assert plan("llm:smollm2:content", sources[:16], outputs[:16], cache=cache).calls == 0  # the timed ones are kept


def test_the_shipped_judge_is_english_and_left_out_elsewhere_with_what_to_use():
    from stviz.languages.measures import fit_metrics
    from stviz.languages.detect import LanguageReport

    card = get_card("llm:smollm2:style")
    assert card.languages == ("en",) and card.label == "LLM judge smollm2 (style, expected score)"
    kept, notes = fit_metrics(["llm:smollm2:content", "chrf"], LanguageReport("ru"))
    assert kept == ["chrf"] and "LLM judge smollm2 (content, expected score) is left out" in notes[0]
    assert "llm:hf:" in notes[0]


def test_a_model_that_cannot_load_is_one_clear_line(tmp_path):
    with pytest.raises(DataError, match="the GGUF file .* does not exist"):
        get_card(f"llm:hf:{tmp_path / 'missing.gguf'}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="cannot load the judge model"):
        compute_metric(f"llm:hf:{tmp_path / 'empty'}", SOURCES[:1], OUTPUTS[:1])
    with pytest.raises(DataError, match="names no model"):
        get_card("llm:hf:")


def test_a_scale_that_is_not_whole_numbers_is_refused(judge):
    with pytest.raises(DataError, match="whole numbers"):
        llm_local.scale_token_ids(judge.tokenizer, (0.0, 0.5))
