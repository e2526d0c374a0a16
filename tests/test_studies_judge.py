"""An LLM judge as a rater of a study (issue 65, item 6): it answers the items through the study's protocol (the
stub server of tests/llm_stub.py, whose score is a function of the output), its answers are a machine rater's (never
counted among the people), its agreement with the people is computed as independent code computes it, an interrupted
run resumes, and in the study's dataset it is a measure (meta-eval lists it), not a rating."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from llm_stub import StubLLM, expected_score
from scipy.stats import spearmanr

from stviz.cli import main
from stviz.data.schema import DataError
from stviz.metrics import llm
from stviz.studies import Protocol, open_store
from stviz.studies.judges import judge_agreement, judge_aspects, run_judge
from stviz.studies.results import agreement, progress, study_dataset, study_pairs
from stviz.studies.store import MACHINES

JUDGE = "llm:stub-judge"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """A cold judgment store and no LLM settings from the environment."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    for name in ("STVIZ_LLM_URL", "STVIZ_LLM_KEY", "OPENAI_API_KEY", "STVIZ_LLM_PROMPTS", "STVIZ_LLM_READ"):
        monkeypatch.delenv(name, raising=False)
    llm._latency.clear()
    yield
    llm.reset()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """The database tests run on both backends (a judge's answers are written a block in one transaction)."""
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path / 'studies.sqlite3'}")
    store = open_store(request.getfixturevalue("postgres_url"))
    with store.backend.connect() as con:
        con.execute("TRUNCATE answers, raters, studies")
    return store


def _items(n: int, language: str = "en") -> list[dict]:
    # Outputs of different lengths: the stub's score (1 + len % 5) then varies over the whole scale.
    return [{"input": f"i{k}", "source": f"the food was bad {k}", "output": "good food" + "!" * k, "system": "AB"[k % 2],
             "source_style": "negative", "target_style": "positive", "language": language} for k in range(n)]


def _study_with_two_people(store, n: int = 12, protocol: Protocol | None = None, seed: int = 0):
    """Two people who answer every item near the stub's score (so the judge agrees with them, not perfectly)."""
    protocol = protocol or Protocol(aspects=("style", "content"), repeats=0)
    study = store.create_study("t", "demo", protocol, _items(n))
    rng = np.random.default_rng(seed)
    people = [store.add_rater(study) for _ in range(2)]
    for rater in people:
        for position, item in enumerate(rater.sequence):
            truth = expected_score(study.items[item]["output"])
            for aspect in protocol.aspects:
                store.record(rater, position, aspect, float(np.clip(truth + rng.integers(-1, 2), 1, 5)))
    return study, people


def test_a_judge_answers_every_item_as_a_machine_rater_compared_with_the_people(store):
    study, people = _study_with_two_people(store)
    with StubLLM() as stub:
        llm.configure(url=stub.url)
        run = run_judge(store, study, JUDGE)
    assert run.written == 24 and stub.requests == 24  # one call per item and aspect
    assert [r.id for r in store.raters(study.id)] == [r.id for r in people]  # the judge is no person
    (judge,) = store.judges(study.id)
    assert judge.judge == JUDGE and store.rater_for_token(judge.token) is None  # no link opens a judge
    answers, judged = store.answers(study.id), store.answers(study.id, who=MACHINES)
    assert set(answers["rater"]) == {r.id for r in people} and set(judged["rater"]) == {judge.id}
    assert progress(study, people, answers)["rater"].tolist() == ["rater 1", "rater 2"]
    mine = judged[judged["aspect"] == "style"].set_index("item")["value"]
    assert [mine[k] for k in range(12)] == [expected_score(item["output"]) for item in study.items]
    table = judge_agreement(study, people, answers, [judge], judged).set_index("aspect")
    for aspect in ("style", "content"):
        matrix = (answers[answers["aspect"] == aspect].pivot(index="rater", columns="item", values="value")
                  .reindex([r.id for r in people]).to_numpy(float))
        machine = judged[judged["aspect"] == aspect].set_index("item")["value"].reindex(range(12)).to_numpy(float)
        assert table.loc[aspect, "rho with the people's mean"] == pytest.approx(spearmanr(machine, matrix.mean(0))[0])
        assert table.loc[aspect, "alpha (people)"] == pytest.approx(
            agreement(study, people, answers).set_index("aspect").loc[aspect, "alpha"])
        assert table.loc[aspect, "alpha with the judge"] == pytest.approx(krippendorff.alpha(
            reliability_data=np.vstack([matrix, machine]), level_of_measurement="interval"))
        assert table.loc[aspect, "items"] == 12


def test_the_judge_is_a_measure_of_the_studys_dataset_not_a_rating(store):
    study, people = _study_with_two_people(store)
    with StubLLM() as stub:
        llm.configure(url=stub.url)
        run_judge(store, study, JUDGE)
    ds = study_dataset(store, study.id)
    assert sorted(ds.human_columns) == ["human:content_mean", "human:style_mean"]  # the people's mean alone
    assert "metric:llm:stub-judge:style" in ds.pairs and "metric:llm:stub-judge:content" in ds.pairs
    assert ds.rater_agreement()["style"].raters == 2
    assert any("LLM judges that answered as raters are measures here" in n for n in ds.notes)
    frame, added = study_pairs(store, study)
    assert added == ["llm:stub-judge:style", "llm:stub-judge:content"]


def test_a_judge_on_another_scale_is_rescaled_and_a_pairwise_one_prefers(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    three = store.create_study("t", "demo", Protocol(aspects=("fluency",), scale="0-0.5-1", repeats=0), _items(6))
    pairwise_items = [{"input": "i", "first": a, "second": b} for a, b in zip(_items(4), _items(4)[::-1])]
    pairwise = store.create_study("p", "demo", Protocol(kind="pairwise", aspects=("style",), repeats=0),
                                  pairwise_items)
    with StubLLM() as stub:
        llm.configure(url=stub.url)
        run_judge(store, three, "llm:stub-judge:fluency")
        run_judge(store, pairwise, JUDGE)
    judged = store.answers(three.id, who=MACHINES).set_index("item")["value"]
    assert [judged[k] for k in range(6)] == [(expected_score(i["output"]) - 1) / 4 for i in three.items]
    preferred = store.answers(pairwise.id, who=MACHINES).set_index("item")["value"]
    for k, item in enumerate(pairwise_items):
        first, second = expected_score(item["first"]["output"]), expected_score(item["second"]["output"])
        assert preferred[k] == (1.0 if first - second > 0.5 else 0.0 if second - first > 0.5 else 0.5)


def test_an_interrupted_judge_resumes_with_the_items_it_has_not_answered(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    study = store.create_study("t", "demo", Protocol(aspects=("content",), repeats=0), _items(40))

    def stop_after_the_first_block(done, total):
        raise KeyboardInterrupt

    with StubLLM() as stub:
        llm.configure(url=stub.url)
        with pytest.raises(KeyboardInterrupt):
            run_judge(store, study, JUDGE, progress=stop_after_the_first_block)
        assert len(store.answers(study.id, who=MACHINES)) == 16  # the first block is written
        run = run_judge(store, study, JUDGE)
        assert run.written == 24 and stub.requests == 40  # each pair asked once over both runs
    assert len(store.answers(study.id, who=MACHINES)) == 40 and len(store.judges(study.id)) == 1


def test_specs_that_are_no_judge_for_this_study_are_refused_in_one_line():
    protocol = Protocol(aspects=("style", "fluency"))
    assert judge_aspects("llm:qwen2.5:7b", protocol) == {"style": "llm:qwen2.5:7b:style",
                                                         "fluency": "llm:qwen2.5:7b:fluency"}
    assert judge_aspects("llm:m:fluency", protocol) == {"fluency": "llm:m:fluency"}
    with pytest.raises(DataError, match="no LLM judge"):
        judge_aspects("bleu", protocol)
    with pytest.raises(DataError, match="a content judge has nothing to answer"):
        judge_aspects("llm:m:content", protocol)


def test_the_cli_adds_a_judge_reports_it_exports_it_and_meta_eval_lists_it(tmp_path, capsys, monkeypatch):
    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    store = open_store(db)
    study, _ = _study_with_two_people(store)
    with StubLLM() as stub:
        assert main(["study", "--db", db, "judge", study.id, "--judge", JUDGE, "--llm-url", stub.url]) == 0
        err = capsys.readouterr().err
        assert "calls to http://127.0.0.1:" in err and "24 answers written" in err
        assert main(["study", "--db", db, "judge", study.id, "--judge", JUDGE, "--llm-url", stub.url]) == 0
        assert "every item is answered already" in capsys.readouterr().err and stub.requests == 24
    assert main(["study", "--db", db, "list"]) == 0
    assert "  2 raters      48 answers  t  (and 1 LLM judge)" in capsys.readouterr().out  # people's answers only
    assert main(["study", "--db", db, "status", study.id]) == 0
    status = capsys.readouterr().out
    assert "LLM judges (machine raters, not counted among the raters above)" in status
    assert "rho with the people's mean" in status and "(2 raters, 12 items)" in status
    assert main(["study", "--db", db, "export", study.id, "-o", str(tmp_path / "s.csv")]) == 0
    assert {"llm:stub-judge:style", "llm:stub-judge:content"} <= set(pd.read_csv(tmp_path / "s.csv").columns)
    monkeypatch.setenv("STVIZ_STUDIES_DB", db)
    assert main(["meta-eval", "--datasets", f"study:{study.id}", "--level", "sentence", "--bootstrap", "100",
                 "--metrics", "chrf,metric:llm:stub-judge:style,metric:llm:stub-judge:content"]) == 0
    out = capsys.readouterr().out  # (without --metrics, the default measures and the set's own columns, the judge's)
    assert "llm:stub-judge:style" in out and "llm:stub-judge:content" in out and "(2 raters, 12 pairs)" in out


def test_a_judge_whose_server_is_down_is_one_error_line(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    study, _ = _study_with_two_people(open_store(db), n=4)
    assert main(["study", "--db", db, "judge", study.id, "--judge", JUDGE, "--llm-url", "http://127.0.0.1:9/v1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "Traceback" not in "\n".join(err)


# -- the owner's page (AppTest) ----------------------------------------------------------------------------------
def _owner_page(study, monkeypatch, url: str):
    from streamlit.testing.v1 import AppTest

    from pagetest import PAGES

    monkeypatch.setenv("STVIZ_LLM_URL", url)
    at = AppTest.from_file(str(PAGES / "9_Rating_study.py"), default_timeout=600)
    at.query_params["own"] = study.owner_token
    return at.run()


def test_the_owner_estimates_confirms_and_reads_the_judges_agreement(tmp_path, monkeypatch):
    from pagetest import shown

    db = f"sqlite:///{tmp_path / 'page.sqlite3'}"
    monkeypatch.setenv("STVIZ_STUDIES_DB", db)
    store = open_store(db)
    study, people = _study_with_two_people(store)
    with StubLLM() as stub:
        at = _owner_page(study, monkeypatch, stub.url)
        assert not at.exception, at.exception
        at.text_input(key="study-judge-spec").set_value("bleu").run()
        at.button(key="study-judge-estimate").click().run()
        assert "'bleu' is no LLM judge" in " ".join(e.value for e in at.error).replace("\\", "")
        at.text_input(key="study-judge-spec").set_value("llm:<img src=x onerror=alert(1)>**m**").run()
        at.button(key="study-judge-estimate").click().run()
        said = " ".join(e.value for e in at.error)
        assert "\\<img" in said and "\\*\\*m\\*\\*" in said  # the spec is shown as typed, never as HTML
        assert not at.exception, at.exception
        at.text_input(key="study-judge-spec").set_value(JUDGE).run()
        at.button(key="study-judge-estimate").click().run()
        said = shown(at.markdown).replace("\\", "").replace("\u2060", "")
        assert "9 calls to http://127.0.0.1:" in said and stub.requests == 1 + 6  # the refused model; 3 timed per aspect
        assert not store.judges(study.id)  # nothing more runs before the click
        at.button(key="study-judge-run").click().run()
        assert not at.exception, at.exception
        assert stub.requests == 1 + 24 and len(store.judges(study.id)) == 1
    assert "llm:stub-judge: 24 answers written." in [e.value.replace("\\", "") for e in at.success]
    agreement = next(d.value for d in at.dataframe if "rho with the people's mean" in d.value)
    assert agreement["judge"].tolist() == [JUDGE, JUDGE] and agreement["items"].tolist() == [12, 12]
    assert "(2 raters, 12 items)" in shown(at.markdown)  # the people's alpha: the judge is no rater


@pytest.mark.slow  # loads SmolLM2 (about a minute on two cores); three items only
def test_the_in_process_judge_answers_the_english_items_and_leaves_the_others_to_the_people(tmp_path):
    from stviz.metrics import compute_metric

    store = open_store(f"sqlite:///{tmp_path / 's.sqlite3'}")
    items = _items(3)[:2] + [{**_items(3)[2], "source": "das Essen war schlecht", "output": "das Essen war gut",
                              "language": "de"}]
    study = store.create_study("t", "demo", Protocol(aspects=("fluency",), scale="0-0.5-1", repeats=0), items)
    run = run_judge(store, study, "llm:smollm2")
    assert run.written == 2 and "1 of 3 items in other languages are left to the people" in run.notes[0]
    judged = store.answers(study.id, who=MACHINES).set_index("item")["value"]
    expected = (compute_metric("llm:smollm2:fluency", [i["source"] for i in items[:2]],
                               [i["output"] for i in items[:2]]) - 1) / 4  # its 1-5 score on the study's 0-1
    assert judged.sort_index().tolist() == pytest.approx(expected.tolist()) and 2 not in judged.index


def test_the_meta_evaluation_page_lists_the_judge_among_the_measures(tmp_path, monkeypatch):
    from pagetest import run_page

    db = f"sqlite:///{tmp_path / 'page.sqlite3'}"
    monkeypatch.setenv("STVIZ_STUDIES_DB", db)
    store = open_store(db)
    study, _ = _study_with_two_people(store, protocol=Protocol(aspects=("content",), repeats=0))
    with StubLLM() as stub:
        llm.configure(url=stub.url)
        run_judge(store, study, JUDGE)
    at = run_page("8_Meta_evaluation.py", dataset=f"study:{study.id}",
                  state={"meta-sets": [f"study:{study.id}"], "meta-boot": 100, "meta-levels": ["sentence"],
                         "meta-tab": "Every row"})
    assert not at.exception, at.exception
    rows = next(frame.value for frame in at.dataframe if "human" in frame.value)
    assert set(rows["human"]) == {"content_mean"}  # the people's mean: the judge is no rating
    assert any("llm:stub-judge:content" in str(m) for m in rows["measure"])
    assert "content: α = " in " ".join(c.value for c in at.caption) and "(2 raters, 12 pairs)" in " ".join(
        c.value for c in at.caption)
