"""LLM judges (llm:MODEL[:ASPECT]) against a real HTTP server on 127.0.0.1 (tests/llm_stub.py), and the
learned-metric specs (comet:MODEL, bleurt:MODEL) without their packages or checkpoints."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from llm_stub import StubLLM, expected_from_logprobs, expected_score
from stviz.analyses import judges
from stviz.analyses import metrics_vs_humans as mvh
from stviz.cache import Cache
from stviz.cli import main
from stviz.data.schema import DataError
from stviz.metrics import compute_metric, get_card
from stviz.metrics import llm, llm_client
from stviz.metrics.learned import LearnedMetricError, parse_learned

KEY = "sk-test-6f1c0a9e-do-not-store-4b2d"
SOURCES = [f"the meeting on day {i} went well ." for i in range(12)]
OUTPUTS = [f"the meeting on day {i} was {'fine' * (i % 4)} ." for i in range(12)]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """A fresh stviz home (cache), no LLM settings from the developer's environment, settings reset after."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    for name in ("STVIZ_LLM_URL", "STVIZ_LLM_KEY", "OPENAI_API_KEY", "STVIZ_LLM_PROMPTS", "STVIZ_LLM_CONCURRENCY",
                 "STVIZ_LLM_READ"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(llm_client, "BACKOFF_SECONDS", 0.01)
    llm._latency.clear()
    yield
    llm.reset()


@pytest.fixture()
def stub():
    with StubLLM() as server:
        yield server


def pairs_file(tmp_path: Path, unparsable: int = 0) -> Path:
    """A pair file with human scores; the first ``unparsable`` outputs get a reply with no score from the stub."""
    outputs = [("UNPARSABLE " + o) if i < unparsable else o for i, o in enumerate(OUTPUTS)]
    frame = pd.DataFrame({"source": SOURCES, "output": outputs, "human_content": np.linspace(1, 5, len(SOURCES))})
    path = tmp_path / "pairs.csv"
    frame.to_csv(path, index=False)
    return path


def test_scores_are_parsed_and_each_pair_is_asked_once(stub, tmp_path):
    llm.configure(url=stub.url)
    cache = Cache(tmp_path / "cache")
    values = compute_metric("llm:stub-judge", SOURCES, OUTPUTS, cache=cache)
    assert values.tolist() == [expected_score(o) for o in OUTPUTS]
    assert stub.requests == len(SOURCES)
    # The shipped content prompt, filled; any request (they are concurrent, so they arrive in any order).
    assert any("Original: the meeting on day 0 went well ." in prompt for prompt in stub.prompts)
    again = compute_metric("llm:stub-judge", SOURCES, OUTPUTS, cache=cache)
    assert again.tolist() == values.tolist() and stub.requests == len(SOURCES)  # a rerun asks nothing
    # Per pair, not per array: other pairs with 4 already judged ask only for the 2 new ones (an interrupted run resumes).
    mixed = compute_metric("llm:stub-judge", SOURCES[:4] + ["a", "b"], OUTPUTS[:4] + ["c", "dd"], cache=cache)
    assert stub.requests == len(SOURCES) + 2 and mixed.tolist()[:4] == values.tolist()[:4]


def test_an_interrupted_run_keeps_what_finished(stub, tmp_path):
    llm.configure(url=stub.url, concurrency=1)
    stub.statuses = [None] * 5 + [(401, {})]  # five answers, then the server refuses: the run stops there
    cache = Cache(tmp_path / "cache")
    with pytest.raises(llm_client.LLMError, match="HTTP 401"):
        compute_metric("llm:stub-judge", SOURCES, OUTPUTS, cache=cache)
    assert 6 <= stub.requests <= 7  # a call in flight when the error came is waited for and kept
    values = compute_metric("llm:stub-judge", SOURCES, OUTPUTS, cache=cache)
    assert stub.requests == len(SOURCES) + 1  # every pair asked once over both runs, plus the refused call
    assert values.tolist() == [expected_score(o) for o in OUTPUTS]


def test_the_key_is_sent_but_never_written_to_disk_or_said(tmp_path, monkeypatch, capsys):
    with StubLLM(key=KEY) as server:
        monkeypatch.setenv("STVIZ_LLM_KEY", KEY)
        out = tmp_path / "values.csv"
        assert main(["metrics", "--dataset", str(pairs_file(tmp_path, unparsable=2)), "--metrics", "llm:stub-judge",
                     "--llm-url", server.url, "--out", str(out)]) == 0
        assert server.requests == len(SOURCES)
    captured = capsys.readouterr()
    home = tmp_path / "home"
    files = [p for p in home.rglob("*") if p.is_file()] + [out, out.with_suffix(".llm-unparsed.csv")]
    assert any(p.name.startswith("judgments.sqlite") for p in files)
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in captured.err + captured.out


def test_unparsed_replies_are_nan_and_kept_with_their_text(stub, tmp_path, capsys):
    path = pairs_file(tmp_path, unparsable=3)
    out = tmp_path / "v.csv"
    assert main(["metrics", "--dataset", str(path), "--metrics", "llm:stub-judge,bleu", "--llm-url", stub.url,
                 "--out", str(out)]) == 0
    values = pd.read_csv(out)
    assert values["llm:stub-judge"].isna().sum() == 3 and values["llm:stub-judge"].notna().sum() == len(SOURCES) - 3
    replies = pd.read_csv(tmp_path / "v.llm-unparsed.csv")
    assert len(replies) == 3 and set(replies["reply"]) == {"I would rather not rate this rewrite, sorry."}
    assert replies["output"].str.startswith("UNPARSABLE").all()
    err = capsys.readouterr().err
    assert "3 of 12 replies held no score" in err and "wrote 3 unparsed LLM replies" in err
    # correlate says so too, and writes them where asked
    assert main(["correlate", "--dataset", str(path), "--metrics", "llm:stub-judge", "--llm-url", stub.url,
                 "--llm-replies", str(tmp_path / "r.csv")]) == 0
    text = capsys.readouterr()
    assert "LLM judge stub-judge (content)" in text.out and (tmp_path / "r.csv").exists()
    assert stub.requests == len(SOURCES)  # correlate read every judgment from the cache


def test_rate_limits_and_server_errors_are_retried(stub, tmp_path):
    llm.configure(url=stub.url, concurrency=1)
    stub.statuses = [(429, {"Retry-After": "0"}), (503, {}), (429, {"Retry-After": "0"})]
    values = compute_metric("llm:stub-judge", SOURCES[:3], OUTPUTS[:3], cache=Cache(tmp_path / "c"))
    assert values.tolist() == [expected_score(o) for o in OUTPUTS[:3]]
    assert stub.requests == 3 + 3


def test_retry_after_is_honoured():
    assert llm_client._retry_after("2") == 2.0 and llm_client._retry_after(None) is None
    assert llm_client._retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: at once
    assert llm_client._retry_after("100000") == llm_client.MAX_WAIT_SECONDS


@pytest.mark.parametrize("case", ["401", "404", "refused", "no-url"])
def test_hopeless_answers_end_in_one_line_and_exit_2(case, tmp_path, monkeypatch, capsys):
    with StubLLM(key=KEY) as server:
        url = {"refused": "http://127.0.0.1:9/v1", "no-url": None}.get(case, server.url)
        monkeypatch.setenv("STVIZ_LLM_KEY", "sk-wrong-key-123" if case == "401" else KEY)
        model = "no-such-model" if case == "404" else "stub-judge"
        argv = ["correlate", "--dataset", str(pairs_file(tmp_path)), "--metrics", f"llm:{model}"]
        assert main(argv + (["--llm-url", url] if url else [])) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err and "sk-wrong-key-123" not in err and KEY not in err
    expected = {"401": "answered HTTP 401 (sent a key that was refused): set STVIZ_LLM_KEY",
                "404": "answered HTTP 404 for model 'no-such-model'", "refused": "connection refused",
                "no-url": "give --llm-url URL or set STVIZ_LLM_URL"}[case]
    assert expected in lines[0], lines[0]


def test_calls_in_flight_never_exceed_the_concurrency(tmp_path, capsys):
    with StubLLM(latency=0.05) as server:
        assert main(["metrics", "--dataset", str(pairs_file(tmp_path)), "--metrics", "llm:stub-judge",
                     "--llm-url", server.url, "--llm-concurrency", "3", "--out", str(tmp_path / "v.csv")]) == 0
        assert server.requests == len(SOURCES) and server.max_in_flight == 3
    err = capsys.readouterr().err
    # said before the run: calls left after the timed ones, their measured time, the concurrency
    assert "9 calls to http://127.0.0.1:" in err and "(3 timed), 3 at a time" in err


def test_the_cost_box_counts_calls_timed_on_a_few_pairs(stub, tmp_path):
    from stviz.data.intake.build import load_pairs_file

    llm.configure(url=stub.url)
    dataset = load_pairs_file(pairs_file(tmp_path))[0]
    cost = mvh.estimate(dataset, mvh.Options(metrics=("llm:stub-judge", "bleu")))
    assert cost.calls == len(SOURCES) - llm.PROBE_CALLS and stub.requests == llm.PROBE_CALLS
    assert len(cost.call_plans) == 1 and "3 timed" in cost.call_plans[0]
    again = mvh.estimate(dataset, mvh.Options(metrics=("llm:stub-judge",)))  # a redrawn page asks nothing more
    assert stub.requests == llm.PROBE_CALLS and again.calls == cost.calls
    result = mvh.run(dataset, mvh.Options(metrics=("llm:stub-judge",)))
    assert stub.requests == len(SOURCES)  # the timed calls counted toward the run
    assert not judges.judge_notes(dataset, result.metrics, result.values)


def test_specs_aspects_and_prompt_templates(stub, tmp_path, capsys):
    assert llm.parse_spec("llm:qwen2.5:7b") == ("qwen2.5:7b", "content")
    assert llm.parse_spec("llm:qwen2.5:7b:fluency") == ("qwen2.5:7b", "fluency")
    with pytest.raises(DataError, match="names no model"):
        llm.parse_spec("llm:")
    content, style = get_card("llm:m"), get_card("llm:m:style")
    assert content.options["prompt"] != style.options["prompt"] and content.value_range == (1.0, 5.0)
    assert "llm:m" not in mvh.metric_choices(None)  # nothing is offered (or run) unless asked
    custom = tmp_path / "content.txt"
    custom.write_text("# scale: 0-10\nJudge {source} against {output}. One number.\n")
    llm.configure(url=stub.url, prompts=[f"content={custom}"])
    card = get_card("llm:stub-judge")
    assert card.value_range == (0.0, 10.0) and "content.txt" in card.label and card.options["prompt"].startswith("Judge")
    with pytest.raises(DataError, match="ASPECT=FILE"):
        llm.configure(prompts=["tone=x.txt"])
    bad = tmp_path / "bad.txt"
    bad.write_text("no placeholder")
    llm.configure(prompts=[f"fluency={bad}"])
    with pytest.raises(DataError, match="no {output} placeholder"):
        get_card("llm:x:fluency")


def test_a_changed_template_is_a_new_judge(stub, tmp_path):
    cache = Cache(tmp_path / "cache")
    llm.configure(url=stub.url)
    compute_metric("llm:stub-judge", SOURCES[:2], OUTPUTS[:2], cache=cache)
    custom = tmp_path / "c.txt"
    custom.write_text("Rate it.\nRewrite: {output}\n")
    llm.configure(url=stub.url, prompts=[f"content={custom}"])
    compute_metric("llm:stub-judge", SOURCES[:2], OUTPUTS[:2], cache=cache)
    assert stub.requests == 4 and stub.prompts[-1].startswith("Rate it.")


def test_learned_metric_specs_and_their_missing_parts(tmp_path, monkeypatch):
    assert parse_learned("comet:Unbabel/wmt22-comet-da") == ("comet", "Unbabel/wmt22-comet-da")
    assert get_card("bleurt:Elron/bleurt-large-512").label == "BLEURT (Elron/bleurt-large-512)"
    with pytest.raises(DataError, match="names no model"):
        get_card("comet:")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(LearnedMetricError) as comet_error:
        compute_metric("comet:Unbabel/wmt22-comet-da", ["a"], ["b"], cache=Cache(tmp_path / "c"))
    assert "pip install unbabel-comet" in str(comet_error.value) and "the checkpoint 'Unbabel/wmt22-comet-da'" in str(
        comet_error.value)
    with pytest.raises(LearnedMetricError) as bleurt_error:
        compute_metric(f"bleurt:{tmp_path / 'nowhere'}", ["a"], ["b"], cache=Cache(tmp_path / "c"))
    assert "bleurt-pytorch" in str(bleurt_error.value) and "nowhere" in str(bleurt_error.value)


def test_a_learned_metric_is_compared_with_the_files_column(tmp_path, monkeypatch):
    """With a checkpoint present, bleurt:MODEL sits beside the file's BLEURT column, with their agreement said."""
    from stviz.data.schema import Dataset
    from stviz.metrics import learned

    column = "metric:Elron/bleurt-large-512"  # as SGDD-TST ships it
    dataset = Dataset("t", "t", pairs=pd.DataFrame({"source": SOURCES, "output": OUTPUTS,
                                                    "human:content": np.arange(12.0), column: np.linspace(0, 1, 12)}))
    monkeypatch.setattr(learned, "bleurt", lambda s, o, model="", progress=None: np.linspace(0, 1, len(s)) + 0.01)
    monkeypatch.setattr(learned, "_card", _card_with(learned, learned._card))
    result = mvh.run(dataset, mvh.Options(metrics=("bleurt:Elron/bleurt-large-512", column)))
    note = next(n for n in result.notes if "against the file's" in n)
    assert "Pearson r = 1.000" in note and "mean |difference| = 0.010" in note


def _card_with(module, build):
    """The learned card computed by the module's (patched) bleurt function."""
    from dataclasses import replace

    return lambda name: replace(build(name), compute=module.bleurt)


def test_parse_score_never_guesses():
    assert [llm.parse_score(r) for r in ("5", " 3.5 ", "Score: 2", "4/5", "**1**", '{"score": 4}')] == [5, 3.5, 2, 4, 1, 4]
    assert all(math.isnan(llm.parse_score(r)) for r in ("", "4 or 5", "I'd say 4", "0", "6", "four", None))
    assert llm.parse_score("9", (0, 10)) == 9


@pytest.mark.slow
def test_with_the_ray_engine_calls_are_spread_over_workers_and_replies_come_back(tmp_path, monkeypatch,
                                                                               one_ray_at_a_time):
    """--engine ray: the missing pairs go through the engine's pair mapping (two actors); the values, the
    unparsed replies and the per-pair store equal the local run's, and the key reaches the workers by their
    environment only (a local Ray's workers inherit the driver's)."""
    import logging

    import ray

    from stviz import engine

    with StubLLM(key=KEY, unparsable=("UNPARSABLE",)) as server:
        monkeypatch.setenv("STVIZ_LLM_KEY", KEY)
        ray.init(address="local", num_cpus=2, object_store_memory=100 * 2**20, include_dashboard=False,
                 log_to_driver=False, logging_level=logging.WARNING)
        try:
            llm.configure(url=server.url, concurrency=2)
            outputs = [("UNPARSABLE " + o) if i < 2 else o for i, o in enumerate(OUTPUTS)]
            with engine.use(engine.Engine("ray", workers=2, batch_size=4)):
                values = compute_metric("llm:stub-judge", SOURCES, outputs, cache=Cache(tmp_path / "c"))
        finally:
            ray.shutdown()
        assert server.requests == len(SOURCES)
    assert np.isnan(values[:2]).all() and values[2:].tolist() == [expected_score(o) for o in outputs[2:]]
    replies = llm.unparsed_replies("llm:stub-judge", SOURCES, outputs, cache=Cache(tmp_path / "c"))
    assert replies["position"].tolist() == [0, 1] and replies["reply"].str.startswith("I would rather").all()
    assert all(KEY.encode() not in p.read_bytes() for p in (tmp_path / "c").rglob("*") if p.is_file())


def test_failures_ranks_pairs_by_an_llm_judge(stub, tmp_path, capsys):
    assert main(["failures", "--dataset", str(pairs_file(tmp_path, unparsable=1)), "--metric", "llm:stub-judge",
                 "--llm-url", stub.url, "--top", "3"]) == 0
    out, err = capsys.readouterr()
    assert "pairs match" in out
    assert "under LLM judge stub-judge (content)" in out and "1 of 12 replies held no score" in err
    assert "1 LLM replies held no score (first: 'I would rather not rate" in err


# -- the expected score from a server's log probabilities ----------------------------------------------------------
def test_a_server_giving_logprobs_is_read_as_the_expected_score(tmp_path):
    with StubLLM(logprobs="given", unparsable=("UNPARSABLE",)) as server:
        llm.configure(url=server.url)
        outputs = ["UNPARSABLE " + OUTPUTS[0]] + OUTPUTS[1:4]
        values = compute_metric("llm:stub-judge", SOURCES[:4], outputs, cache=Cache(tmp_path / "cache"))
    # the stub's score at 0.6 and the next one (" 5": another spelling) at 0.3; a word first: NaN, its text unparsed
    assert np.isnan(values[0])
    assert values[1:] == pytest.approx([expected_from_logprobs(o) for o in outputs[1:]])
    replies = llm.unparsed_replies("llm:stub-judge", SOURCES[:4], outputs, cache=Cache(tmp_path / "cache"))
    assert replies["position"].tolist() == [0] and replies["reply"][0] == "I would rather not rate this rewrite, sorry."


def test_without_logprobs_the_number_in_the_reply_is_read_and_the_cache_key_says_which(tmp_path):
    cache = Cache(tmp_path / "cache")
    with StubLLM(logprobs="refused") as server:  # HTTP 400 when asked: asked again without them, from then on
        llm.configure(url=server.url, concurrency=1)
        values = compute_metric("llm:stub-judge", SOURCES[:3], OUTPUTS[:3], cache=cache)
        assert values.tolist() == [expected_score(o) for o in OUTPUTS[:3]] and server.requests == 4
    with StubLLM(logprobs="given") as server:
        llm.configure(url=server.url, read="text")  # a judge read from its text is another judge: asked again
        assert compute_metric("llm:stub-judge", SOURCES[:3], OUTPUTS[:3], cache=cache).tolist() == values.tolist()
        assert server.requests == 3
    with pytest.raises(DataError, match="read as one of expected, text"):
        llm.configure(read="logits")
