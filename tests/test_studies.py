"""Rating studies (issue 57): sampling, the database (SQLite and a real PostgreSQL server, the same tests), answers
that are never lost, agreement against independent computations, the study as a dataset, and the CLI."""

from __future__ import annotations

import json
import re
import sqlite3
import threading

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from stviz.cli import main
from stviz.data.schema import DataError
from stviz.studies import Protocol, open_store
from stviz.studies.results import (agreement, next_position, progress, rater_agreement, study_dataset,
                                   study_frame)
from stviz.studies.sampling import credited_systems, merged_outputs, sample_items, study_systems
from stviz.studies.store import MIGRATIONS, SCHEMA_VERSION, SKIPPED, WHOLE_ITEM, rater_sequence

SYSTEMS = ["CrossAligned", "DeleteAndRetrieve", "DeleteOnly"]


@pytest.fixture(scope="module")
def yelp(corpora):
    from stviz.data import load_dataset

    return load_dataset("li2018-yelp")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """Each test of the database runs on both backends: the same code, a different server."""
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path / 'studies.sqlite3'}")
    url = request.getfixturevalue("postgres_url")
    store = open_store(url)
    with store.backend.connect() as con:  # a clean database per test: the server is shared by the session
        con.execute("TRUNCATE answers, raters, studies")
    return store


def _items(n: int = 6) -> list[dict]:
    return [{"input": f"i{k}", "source": f"source {k}", "output": f"output {k}", "system": "s"} for k in range(n)]


# -- sampling --------------------------------------------------------------------------------------------------
def test_a_sample_is_stratified_by_direction_and_system_and_seeded(yelp):
    items = sample_items(yelp, SYSTEMS, 20, seed=3)
    frame = pd.DataFrame([{**item, "system": name} for item in items for name in credited_systems(item)])
    assert len(frame) == 60 and len(items) == 59  # two systems wrote one of the texts alike: one item, both credited
    assert frame.groupby("system").size().to_dict() == {s: 20 for s in SYSTEMS}
    inputs = frame.drop_duplicates("input")
    assert inputs["source_style"].value_counts().to_dict() == {"negative": 10, "positive": 10}
    assert (frame.groupby("input")["system"].nunique() == 3).all()  # every system on the same inputs
    for _, row in frame.iterrows():  # each item is the dataset's own pair
        match = yelp.pairs[(yelp.pairs["system"] == row["system"]) & (yelp.pairs["source"] == row["source"])
                           & (yelp.pairs["source_style"] == row["source_style"])]
        assert row["output"] in set(match["output"])
    assert items == sample_items(yelp, SYSTEMS, 20, seed=3)
    assert items != sample_items(yelp, SYSTEMS, 20, seed=4)
    assert set(frame["language"]) == {"en"}  # carried to the rater's question


def test_pairwise_items_pair_every_two_systems_of_an_input(yelp):
    items = sample_items(yelp, SYSTEMS, 4, seed=0, kind="pairwise")
    assert len(items) == 4 * 3
    for item in items:
        assert item["first"]["source"] == item["second"]["source"]
        assert item["first"]["system"] != item["second"]["system"]


def test_sampling_refuses_what_it_cannot_draw(yelp):
    with pytest.raises(DataError, match="no system named Nobody"):
        sample_items(yelp, ["Nobody"], 2)
    with pytest.raises(DataError, match="ask for at most"):
        sample_items(yelp, SYSTEMS, 10_000)
    assert study_systems(yelp)[:3] == SYSTEMS


def test_a_second_key_for_one_question_never_replaces_the_first(store):
    """Issue 68 (item 12): record_once writes only while the question asked is unanswered and its item not skipped."""
    study = store.create_study("t", "demo", Protocol(aspects=("style", "content")), _items())
    rater = store.add_rater(study, "ann")
    assert store.record_once(rater, 0, "style", 1.0)
    assert not store.record_once(rater, 0, "style", 3.0)  # a late key on the same question
    assert not store.record_once(rater, 0, WHOLE_ITEM, None, SKIPPED, asked="style")  # S pressed on that question
    assert store.record_once(rater, 0, "content", 4.0)
    assert store.record_once(rater, 1, WHOLE_ITEM, None, SKIPPED, asked="style")
    assert not store.record_once(rater, 1, "style", 2.0)  # a late key on a skipped item
    got = {(p, a, None if pd.isna(v) else v)
           for p, a, v in store.answers(study.id)[["position", "aspect", "value"]].itertuples(index=False)}
    assert got == {(0, "style", 1.0), (0, "content", 4.0), (1, "*", None)}


def test_a_rater_sees_every_item_once_and_repeats_late():
    order = rater_sequence(20, 3, np.random.default_rng(1))
    assert len(order) == 23 and set(order) == set(range(20))
    for item in {i for i in order if order.count(i) == 2}:
        first, again = [k for k, i in enumerate(order) if i == item]
        assert again > 10 and again > first


# -- the database ----------------------------------------------------------------------------------------------
def test_answers_are_kept_replaced_and_read_back(store):
    study = store.create_study("t", "demo", Protocol(aspects=("style", "content")), _items())
    rater = store.add_rater(study, "ann")
    store.record(rater, 0, "style", 2.0)
    store.record(rater, 0, "style", 4.0)  # answering again replaces the answer
    store.record(rater, 0, "content", 5.0, seconds=1.5)
    store.record(rater, 1, WHOLE_ITEM, None, SKIPPED)
    again = open_store(_url(store))  # a new server process: everything is in the database
    answers = again.answers(study.id)
    got = {(p, a, None if pd.isna(v) else v, s)
           for p, a, v, s in answers[["position", "aspect", "value", "status"]].itertuples(index=False)}
    assert got == {(0, "style", 4.0, "rated"), (0, "content", 5.0, "rated"), (1, "*", None, "skipped")}
    assert again.rater_for_token(rater.token).sequence == rater.sequence
    assert again.study_for_owner(study.owner_token).id == study.id
    assert again.rater_for_token("guess") is None and again.study_for_owner("guess") is None
    assert next_position(study, rater, answers) == 2


def test_tokens_are_long_random_and_distinct(store):
    study = store.create_study("t", "demo", Protocol(), _items())
    tokens = [store.add_rater(study).token for _ in range(20)] + [study.owner_token]
    assert len(set(tokens)) == len(tokens) and all(len(t) >= 24 for t in tokens)


def test_a_closed_study_takes_no_answer(store):
    study = store.create_study("t", "demo", Protocol(), _items())
    rater = store.add_rater(study)
    store.close_study(study.id)
    with pytest.raises(DataError, match="closed"):
        store.record(rater, 0, "style", 3.0)
    assert not store.study(study.id).is_open


def test_many_raters_at_once_lose_no_answer(store):
    study = store.create_study("t", "demo", Protocol(repeats=0), _items(30))
    raters = [store.add_rater(study) for _ in range(12)]
    errors = []

    def rate(rater):
        try:
            for position in range(len(rater.sequence)):
                store.record(rater, position, "style", float(position % 5 + 1))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=rate, args=(r,)) for r in raters]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    answers = store.answers(study.id)
    assert len(answers) == 12 * 30
    assert (answers["value"].to_numpy() == answers["position"].to_numpy() % 5 + 1).all()


def test_an_older_database_is_migrated_with_its_answers(tmp_path):
    path = tmp_path / "old.sqlite3"
    con = sqlite3.connect(path)  # a database as the first schema wrote it
    con.execute("CREATE TABLE stviz_schema (version INTEGER NOT NULL)")
    con.execute("INSERT INTO stviz_schema VALUES (1)")
    for statement in MIGRATIONS[0]:
        con.execute(statement)
    con.execute("INSERT INTO studies VALUES ('s1', 't', 'demo', ?, ?, 'owner', 1.0, NULL)",
                (json.dumps(Protocol().to_dict()), '[{"source": "a", "output": "b", "system": "x"}]'))
    con.execute("INSERT INTO raters VALUES ('r1', 's1', 'ann', 'tok', '[0]', 1.0)")
    con.execute("INSERT INTO answers VALUES ('r1', 0, 0, 'style', 4.0, 'rated', 1.0)")
    con.commit()
    con.close()
    store = open_store(f"sqlite:///{path}")
    answers = store.answers("s1")
    assert answers["value"].tolist() == [4.0] and answers["seconds"].isna().all()
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT version FROM stviz_schema").fetchone()[0] == SCHEMA_VERSION
        con.execute("UPDATE stviz_schema SET version = 99")
    with pytest.raises(DataError, match="newer stviz"):
        open_store(f"sqlite:///{path}")


def test_a_bad_database_url_is_one_clear_error():
    with pytest.raises(DataError, match="sqlite:///PATH"):
        open_store("mysql://x")
    with pytest.raises(DataError, match="cannot reach the studies database"):
        open_store("postgresql://nobody:secret@127.0.0.1:1/none")


def _url(store) -> str:
    backend = store.backend
    return backend.url if store.kind == "postgresql" else f"sqlite:///{backend.path}"


# -- results against independent computations -----------------------------------------------------------------
def _rated_study(store, raters: int = 3, items: int = 12, seed: int = 0):
    """A study whose raters answer every screen with values near a shared truth (and repeats as they like)."""
    rng = np.random.default_rng(seed)
    study = store.create_study("t", "demo", Protocol(aspects=("style", "content"), repeats=2), _items(items))
    truth = rng.integers(1, 6, size=items)
    people = [store.add_rater(study) for _ in range(raters)]
    for rater in people:
        for position, item in enumerate(rater.sequence):
            for aspect in ("style", "content"):
                value = float(np.clip(truth[item] + rng.integers(-1, 2), 1, 5))
                store.record(rater, position, aspect, value)
    return study, people


def test_agreement_equals_krippendorff_on_the_raters_first_answers(store):
    study, raters = _rated_study(store)
    answers = store.answers(study.id)
    table = agreement(study, raters, answers).set_index("aspect")
    for aspect in ("style", "content"):
        first = (answers[answers["aspect"] == aspect].sort_values("position")
                 .drop_duplicates(["rater", "item"]).pivot(index="rater", columns="item", values="value"))
        first = first.reindex([r.id for r in raters])
        expected = krippendorff.alpha(reliability_data=first.to_numpy(float), level_of_measurement="interval")
        assert table.loc[aspect, "alpha"] == pytest.approx(expected, abs=1e-12)
        assert table.loc[aspect, "items rated by 2+"] == 12


def test_each_rater_against_the_others_and_themself(store):
    study, raters = _rated_study(store, seed=2)
    answers = store.answers(study.id)
    table = rater_agreement(study, raters, answers).set_index("rater")
    first = (answers[answers["aspect"] == "style"].sort_values("position").drop_duplicates(["rater", "item"])
             .pivot(index="rater", columns="item", values="value").reindex([r.id for r in raters]))
    mine, others = first.iloc[0].to_numpy(), first.iloc[1:].mean().to_numpy()
    assert table.loc[raters[0].name, "style: rho with the others"] == pytest.approx(spearmanr(mine, others)[0])
    mine_all = answers[(answers["rater"] == raters[0].id)]
    repeated = mine_all.groupby(["item", "aspect"]).filter(lambda g: len(g) == 2).sort_values("position")
    same = repeated.groupby(["item", "aspect"])["value"].agg(lambda v: v.iloc[0] == v.iloc[1])
    assert table.loc[raters[0].name, "same answer when repeated"] == pytest.approx(same.mean())
    done = progress(study, raters, answers)
    assert done["done"].tolist() == [14, 14, 14] and done["of"].tolist() == [14, 14, 14]


def test_the_study_is_a_dataset_and_its_export_reads_back_the_same(store, tmp_path):
    from stviz.data.intake.build import load_pairs_file

    study, raters = _rated_study(store, seed=5)
    answers = store.answers(study.id)
    ds = study_dataset(store, study.id)
    assert ds.name == f"study:{study.id}"
    assert sorted(ds.human_columns) == ["human:content_mean", "human:style_mean"]
    frame = study_frame(study, raters, answers)
    expected = frame[["style_1", "style_2", "style_3"]].mean(axis=1).to_numpy()
    assert np.allclose(ds.pairs["human:style_mean"].to_numpy(), expected)
    status_alpha = agreement(study, raters, answers).set_index("aspect")["alpha"]
    assert ds.rater_agreement()["style"].alpha == pytest.approx(status_alpha["style"])
    path = tmp_path / "export.csv"
    frame.to_csv(path, index=False)
    back, mapping, _ = load_pairs_file(path)
    assert not mapping.metrics and set(mapping.raters) == {c for c in frame if c[-2:] in ("_1", "_2", "_3")}
    assert sorted(back.human_columns) == sorted(ds.human_columns)
    assert np.allclose(back.pairs["human:style_mean"].to_numpy(), expected)
    assert back.rater_agreement()["content"].alpha == pytest.approx(status_alpha["content"])


def test_a_pairwise_study_scores_each_output_by_its_wins(store):
    items = [{"input": "i", "first": {"system": "A", "source": "s", "output": "a"},
              "second": {"system": "B", "source": "s", "output": "b"}},
             {"input": "i", "first": {"system": "C", "source": "s", "output": "c"},
              "second": {"system": "A", "source": "s", "output": "a"}}]
    study = store.create_study("t", "demo", Protocol(kind="pairwise", aspects=("style",), repeats=0), items)
    rater = store.add_rater(study)
    for position, item in enumerate(rater.sequence):
        store.record(rater, position, "style", {0: 1.0, 1: 0.5}[item])  # A beats B; C and A the same
    frame = study_frame(study, [rater], store.answers(study.id)).set_index("system")
    assert frame.loc["A", "style_1"] == pytest.approx(0.75)  # won once, tied once
    assert frame.loc["B", "style_1"] == 0.0 and frame.loc["C", "style_1"] == 0.5


def test_a_study_without_answers_says_so(store):
    study = store.create_study("t", "demo", Protocol(), _items())
    store.add_rater(study)
    with pytest.raises(DataError, match="no answers yet"):
        study_dataset(store, study.id)


# -- the command line ------------------------------------------------------------------------------------------
def test_the_cli_creates_reports_exports_and_closes(corpora, tmp_path, capsys, monkeypatch):
    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    assert main(["study", "--db", db, "create", "--dataset", "li2018-yelp", "--systems", *SYSTEMS, "--inputs", "4",
                 "--raters", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("owner (") and "/Rating_study?own=" in out[0] and len(out) == 3
    study_id = out[0].split("(")[1].split(")")[0]
    store = open_store(db)
    study = store.study(study_id)
    assert len(study.items) == 12 and "CrossAligned" not in study.title  # the title raters see names no system
    for rater in store.raters(study_id):
        for position in range(len(rater.sequence)):
            for aspect in study.protocol.aspects:
                store.record(rater, position, aspect, 3.0 + position % 2)
    assert main(["study", "--db", db, "status", study_id]) == 0
    status = capsys.readouterr().out
    assert "Krippendorff" in status and "rater 2" in status
    lines = status.splitlines()  # a clean table: no index column, times to the second in the local ISO form
    assert lines[2] == "| rater | done | of | skipped | flagged unreadable | last answer |"
    row = lines[4].split(" | ")
    assert row[0] == "| rater 1" and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[+-]\d\d:\d\d \|", row[-1]), row
    assert main(["study", "--db", db, "export", study_id, "-o", str(tmp_path / "s.csv")]) == 0
    assert list(pd.read_csv(tmp_path / "s.csv").columns)[-1] == "fluency_2"
    monkeypatch.setenv("STVIZ_STUDIES_DB", db)
    assert main(["meta-eval", "--datasets", f"study:{study_id}", "--level", "sentence", "--bootstrap", "100"]) == 0
    assert "style_mean" in capsys.readouterr().out
    assert main(["study", "--db", db, "close", study_id]) == 0
    assert not open_store(db).study(study_id).is_open
    assert main(["study", "--db", db, "status", "nope"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == "error: no study 'nope' in this database"


def test_a_database_error_is_one_clear_message_and_nothing_is_half_written(store):
    study = store.create_study("t", "demo", Protocol(), _items())
    rater = store.add_rater(study)
    store.record(rater, 0, "style", 3.0)
    with store.backend.connect() as con:  # the answers table gone under a running server
        con.execute("ALTER TABLE answers RENAME TO answers_elsewhere")
    with pytest.raises(DataError, match="the studies database did not answer"):
        store.record(rater, 1, "style", 4.0)
    with store.backend.connect() as con:
        con.execute("ALTER TABLE answers_elsewhere RENAME TO answers")
    assert store.answers(study.id)["value"].tolist() == [3.0]


def test_the_export_neutralises_formula_cells(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'f.sqlite3'}"
    store = open_store(db)
    study = store.create_study("t", "demo", Protocol(aspects=("style",), repeats=0),
                               [{"input": "i", "source": "s", "output": '=HYPERLINK("http://x")', "system": "x"}])
    store.record(store.add_rater(study), 0, "style", 3.0)
    assert main(["study", "--db", db, "export", study.id, "-o", str(tmp_path / "f.csv")]) == 0
    assert pd.read_csv(tmp_path / "f.csv")["output"].tolist() == ["'=HYPERLINK(\"http://x\")"]


# -- a damaged database (issue 68) -------------------------------------------------------------------------------
def _damaged_home(tmp_path, monkeypatch, damage: str):
    """STVIZ_HOME with a study whose database is then truncated or overwritten with garbage; its path and study id."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("STVIZ_STUDIES_DB", raising=False)
    store = open_store()
    study = store.create_study("t", "demo", Protocol(aspects=("style",), repeats=0), _items())
    store.record(store.add_rater(study), 0, "style", 3.0)
    store.backend._anchor.close()  # the server gone: the log is folded into the file
    path = tmp_path / "home" / "studies.sqlite3"
    data = path.read_bytes()
    path.write_bytes(data[:5000] if damage == "truncated" else np.random.default_rng(0).bytes(len(data)))
    return path, study.id


def _files(folder) -> dict:
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_damaged_database_is_one_error_line_naming_the_file_and_nothing_is_touched(tmp_path, capsys, monkeypatch,
                                                                                      damage):
    path, study_id = _damaged_home(tmp_path, monkeypatch, damage)
    before = _files(path.parent)
    for argv in (["study", "list"], ["study", "status", study_id], ["study", "export", study_id, "-o",
                                                                      str(tmp_path / "x.csv")],
                 ["study", "create", "--dataset", "demo", "--inputs", "1"],
                 ["meta-eval", "--datasets", f"study:{study_id}", "--level", "sentence"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"error: the studies database {path} is damaged"), (argv, err)
        assert "move it aside" in err[0] and "never deletes it" in err[0]
    assert _files(path.parent) == before
    with pytest.raises(DataError, match="is damaged"):
        open_store(f"sqlite:///{path}")


def test_the_database_and_its_log_are_created_owner_only(tmp_path):
    import os
    import stat

    mask = os.umask(0o022)
    try:
        store = open_store(f"sqlite:///{tmp_path / 'new' / 'deeper' / 'studies.sqlite3'}")
        study = store.create_study("t", "demo", Protocol(aspects=("style",), repeats=0), _items())
        with store.backend.connect() as con:  # the log and its index exist while a connection has the file open
            con.execute("UPDATE studies SET title = 'u'")
            files = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "new" / "deeper").iterdir()}
    finally:
        os.umask(mask)
    assert files == {"studies.sqlite3": 0o600, "studies.sqlite3-shm": 0o600, "studies.sqlite3-wal": 0o600}
    assert {stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "new", tmp_path / "new" / "deeper")} == {0o700}


# -- alpha said one way, per language (issue 68) -----------------------------------------------------------------
def _two_language_study(store, seed: int = 0):
    """Three raters on 12 items, the first 6 in English and the rest in German (each language its own raters' set)."""
    items = [{"input": f"i{k}", "source": f"the food was bad {k}", "output": f"the food was good {k}", "system": "AB"[k % 2],
              "source_style": "negative", "target_style": "positive", "language": "en" if k < 6 else "de"}
             for k in range(12)]
    study = store.create_study("t", "demo", Protocol(aspects=("style",), repeats=0), items)
    rng = np.random.default_rng(seed)
    raters = [store.add_rater(study) for _ in range(3)]
    for rater in raters:
        for position, item in enumerate(rater.sequence):
            store.record(rater, position, "style", float(np.clip(item % 5 + 1 + rng.integers(-1, 2), 1, 5)))
    return study, raters


def _alpha_of(answers, raters, items) -> float:
    matrix = answers[answers["item"].isin(items)].pivot(index="rater", columns="item", values="value")
    return krippendorff.alpha(reliability_data=matrix.reindex([r.id for r in raters]).to_numpy(float),
                              level_of_measurement="interval")


def test_alpha_not_measurable_yet_is_said_the_same_way_in_status_and_its_table(tmp_path, capsys):
    from stviz.data.schema import RaterAgreement, alpha_text

    assert alpha_text(RaterAgreement(0.7123, 40, 3)) == "α = 0.712 (3 raters, 40 pairs)"
    db = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    store = open_store(db)
    study = store.create_study("t", "demo", Protocol(aspects=("style",), repeats=0), _items())
    ann, bob = store.add_rater(study), store.add_rater(study)
    store.record(ann, 0, "style", 2.0)
    store.record(bob, bob.sequence.index(ann.sequence[0]), "style", 4.0)  # one item in common
    said = ("α not measurable yet (2 raters; 1 item rated by two or more of them, and it needs two such items with "
            "two different values)")
    assert agreement(study, [ann, bob], store.answers(study.id))["said"].tolist() == [said]
    assert main(["study", "--db", db, "status", study.id]) == 0
    out = capsys.readouterr().out
    assert f"- style: {said}" in out and "nan" not in out.split("Krippendorff")[1].split("Each rater")[0]


def test_a_study_in_two_languages_has_an_alpha_per_language_in_status_meta_eval_and_its_export(tmp_path, capsys,
                                                                                                  monkeypatch):
    from stviz.data.intake.build import load_pairs_file

    db = f"sqlite:///{tmp_path / 'l.sqlite3'}"
    store = open_store(db)
    study, raters = _two_language_study(store)
    answers = store.answers(study.id)
    expected = {"en": _alpha_of(answers, raters, range(6)), "de": _alpha_of(answers, raters, range(6, 12))}
    table = agreement(study, raters, answers).set_index("language")
    assert table["alpha"].to_dict() == pytest.approx(expected, abs=1e-12)
    assert main(["study", "--db", db, "status", study.id]) == 0
    status = capsys.readouterr().out
    for code, alpha in expected.items():
        assert f"- style [{code}]: α = {alpha:.3f} (3 raters, 6 items)" in status
    monkeypatch.setenv("STVIZ_STUDIES_DB", db)
    assert main(["meta-eval", "--datasets", f"study:{study.id}", "--level", "sentence", "--bootstrap", "100",
                 "--metrics", "chrf"]) == 0
    out = capsys.readouterr().out
    for code, alpha in expected.items():  # the study's own alpha, per language as its tables (issue 68)
        assert f"- study:{study.id} [{code}] · style: α = {alpha:.3f} (3 raters, 6 pairs)" in out
    path = tmp_path / "export.csv"
    study_frame(study, raters, answers).to_csv(path, index=False)
    back, _, _ = load_pairs_file(path)
    note = next(n for n in back.notes if "Krippendorff" in n)
    assert f"per language: en {expected['en']:.3f} over 6 pairs, de {expected['de']:.3f} over 6 pairs" in note


# -- identical outputs of two systems (issue 68, item 13) ------------------------------------------------------
def _three_systems(tmp_path):
    """Four inputs rewritten by A, B and C, where B wrote A's text on the first two (once with other spacing) and
    all three wrote the same text on the last."""
    from stviz.data.intake.build import load_pairs_file

    rows = []
    for k in range(4):
        texts = {"A": f"good food {k}", "B": f"good  food {k}" if k < 2 else f"fine food {k}", "C": f"great food {k}"}
        if k == 3:
            texts = {name: "the same rewrite" for name in "ABC"}
        rows += [{"source": f"bad food {k}", "output": text, "system": name} for name, text in texts.items()]
    path = tmp_path / "three.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return load_pairs_file(path)[0]


def test_identical_outputs_of_two_systems_are_one_item_credited_to_both(store, tmp_path):
    ds = _three_systems(tmp_path)
    items = sample_items(ds, ["A", "B", "C"], 4, seed=0)
    assert len(items) == 2 + 2 + 3 + 1  # 12 outputs, 8 distinct texts
    shared = [item for item in items if item.get("systems")]
    assert sorted(item["systems"] for item in shared) == [["A", "B"], ["A", "B"], ["A", "B", "C"]]
    assert merged_outputs(items) == 4
    study = store.create_study("t", "demo", Protocol(aspects=("style",), repeats=0), items)
    raters = [store.add_rater(study) for _ in range(2)]
    for r, rater in enumerate(raters):
        for position, item in enumerate(rater.sequence):
            store.record(rater, position, "style", float(1 + (item + r) % 5))
    frame = study_frame(study, raters, store.answers(study.id))
    assert len(frame) == 12 and sorted(frame.groupby("system").size()) == [4, 4, 4]  # every system's output, rated
    for item_number, item in enumerate(items):
        rows = frame[(frame["source"] == item["source"]) & (frame["output"] == item["output"])]
        assert sorted(rows["system"]) == sorted(item.get("systems", [item["system"]]))
        assert (rows[["style_1", "style_2"]] == rows[["style_1", "style_2"]].iloc[0]).all().all()  # rated once
    ds = study_dataset(store, study.id)
    assert len(ds.pairs) == 12 and any(n.startswith("4 outputs were the same text") for n in ds.notes)
    alpha = agreement(study, raters, store.answers(study.id)).set_index("aspect").loc["style"]
    assert alpha["items rated by 2+"] == 8  # agreement counts each text once


def test_a_pairwise_study_compares_distinct_texts_only(store, tmp_path):
    items = sample_items(_three_systems(tmp_path), ["A", "B", "C"], 4, seed=0, kind="pairwise")
    assert len(items) == 1 + 1 + 3  # two texts on the first two inputs, three on the third, one (none) on the last
    assert all(item["first"]["output"].split() != item["second"]["output"].split() for item in items)
    assert merged_outputs(items) == 2  # B's text on the first two inputs
    study = store.create_study("t", "demo", Protocol(kind="pairwise", aspects=("style",), repeats=0), items)
    rater = store.add_rater(study)
    for position, item in enumerate(rater.sequence):
        store.record(rater, position, "style", 1.0)  # the first shown always preferred
    frame = study_frame(study, [rater], store.answers(study.id))
    assert len(frame) == 9  # the last input: nothing to compare, no row
    pair = frame[frame["source"] == "bad food 0"].set_index("system")["style_1"]
    assert pair["A"] == pair["B"] and {pair["A"], pair["C"]} == {0.0, 1.0}  # A and B credited the same text


def test_a_text_credited_to_two_systems_is_one_unit_of_agreement_everywhere(store, tmp_path):
    """The study's dataset and its export read back count a shared text once in alpha, as `study status` does."""
    from stviz.data.intake.build import load_pairs_file

    ds = _three_systems(tmp_path)
    items = sample_items(ds, ["A", "B", "C"], 4)
    study = store.create_study("t", "demo", Protocol(aspects=("style",), repeats=0), items)
    raters = [store.add_rater(study) for _ in range(3)]
    for r, rater in enumerate(raters):
        for position, item in enumerate(rater.sequence):
            store.record(rater, position, "style", float(1 + (item * 2 + (r == 2)) % 5))
    answers = store.answers(study.id)
    status = agreement(study, raters, answers).set_index("aspect").loc["style"]
    ours = study_dataset(store, study.id).rater_agreement()["style"]
    assert (ours.units, ours.alpha) == (status["items rated by 2+"], pytest.approx(status["alpha"])) and ours.units == 8
    study_frame(study, raters, answers).to_csv(tmp_path / "export.csv", index=False)
    back = load_pairs_file(tmp_path / "export.csv")[0].rater_agreement()["style"]
    assert (back.units, back.alpha) == (8, pytest.approx(status["alpha"]))
