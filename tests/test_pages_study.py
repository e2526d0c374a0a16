"""The Rating study page under Streamlit's AppTest: a study created from the form, the rater's screen (blind,
escaped, each answer saved by its button), links that do not open, and the ratings on the Meta-evaluation page."""

from __future__ import annotations

import numpy as np
import pytest

from streamlit.testing.v1 import AppTest

from pagetest import PAGES, run_page, shown
from stviz.studies import Protocol, open_store
from ui.text import literal

HOSTILE = "<img src=x onerror=alert(1)> **bold** $x$"


@pytest.fixture
def db(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'studies.sqlite3'}"
    monkeypatch.setenv("STVIZ_STUDIES_DB", url)
    return open_store(url)


def _screen(at: AppTest) -> str:
    """Everything the page shows as text: headings, markdown, captions, HTML, progress, button labels."""
    parts = [e.value for e in (*at.markdown, *at.caption, *at.subheader, *at.title)]
    parts += [e.proto.body for e in at.get("html")] + [e.proto.text for e in at.get("progress")]
    parts += [b.label for b in at.button]
    return " ".join(str(p) for p in parts)


def _page(params: dict, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(PAGES / "9_Rating_study.py"), default_timeout=600)
    for key, value in params.items():
        at.query_params[key] = value
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at.run()


def test_the_form_creates_a_blind_study_and_opens_its_owner_view(corpora, db):
    at = _page({}, {"dataset_name": "li2018-yelp"})
    assert not at.exception, at.exception
    at.number_input(key="study-inputs").set_value(4)
    at.number_input(key="study-raters").set_value(2)
    at.get("form_submit_button")[0].click()  # the form's one button
    at.run()
    assert not at.exception, at.exception
    (study,) = db.studies()
    assert at.query_params["own"] in (study.owner_token, [study.owner_token])  # a reload keeps the owner's view
    assert len(study.items) == 12 and len(db.raters(study.id)) == 2
    assert {i["system"] for i in study.items} == {"CrossAligned", "DeleteAndRetrieve", "DeleteOnly"}
    assert not any(s in study.title for s in ("CrossAligned", "DeleteOnly"))
    owner = _page({"own": study.owner_token})
    assert not owner.exception, owner.exception
    assert "Krippendorff" in shown(owner.markdown) and len(owner.dataframe) == 2  # progress, each rater
    assert "style: α not measurable yet (0 raters; 0 items rated by two or more" in shown(owner.markdown)


def test_a_rater_sees_one_escaped_item_and_each_answer_is_saved(db):
    items = [{"input": "a", "source": HOSTILE, "output": "fine " + HOSTILE, "system": "SecretSystem",
              "source_style": "informal", "target_style": "formal", "language": "en"}] * 3
    study = db.create_study("Formality **bold** [x](http://a)", "demo", Protocol(aspects=("style", "fluency"),
                                                                             repeats=0), items)
    rater = db.add_rater(study)
    at = _page({"rate": rater.token})
    assert not at.exception, at.exception
    assert at.subheader[0].value == literal(study.title)  # the title as written: no bold, no link (issue 68, 13)
    page = " ".join(e.proto.body for e in at.get("html"))
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page  # user text escaped
    assert "SecretSystem" not in _screen(at) and "(formal)" in _screen(at)  # blind: no system name
    assert "Item 1 of 3" in _screen(at)
    assert "says the server is not responding, your answers so far are still saved" in _screen(at)  # a server stop
    at.button(key="answer-0-style-4").click().run()
    assert db.answers(study.id)[["aspect", "value"]].values.tolist() == [["style", 4.0]]
    assert "natural English text" in _screen(at)  # the next question of the same item: fluency
    at.button(key="skip-0-fluency").click().run()
    assert "Item 2 of 3" in _screen(at)
    other = db.add_rater(study)
    assert db.answers(study.id)["rater"].eq(rater.id).all() and other.id != rater.id


def test_links_that_do_not_open_say_so(db):
    at = _page({"rate": "not-a-token"})
    assert not at.exception and "not valid" in at.error[0].value
    at = _page({"own": "not-a-token"}, {"dataset_name": "demo"})
    assert not at.exception and "not valid" in at.error[0].value


def test_the_study_ratings_reach_the_meta_evaluation_page_with_alpha(db):
    items = [{"input": str(k), "source": f"the food was bad {k}", "output": f"the food was good {k}",
              "system": "AB"[k % 2], "source_style": "negative", "target_style": "positive"} for k in range(12)]
    study = db.create_study("t", "demo", Protocol(aspects=("content",), repeats=0), items)
    rng = np.random.default_rng(0)
    for rater in [db.add_rater(study) for _ in range(3)]:
        for position, item in enumerate(rater.sequence):
            db.record(rater, position, "content", float(np.clip(item % 5 + 1 + rng.integers(-1, 2), 1, 5)))
    at = run_page("8_Meta_evaluation.py", dataset=f"study:{study.id}",
                  state={"meta-sets": [f"study:{study.id}"], "meta-boot": 100, "meta-levels": ["sentence"],
                         "meta-tab": "Every row"})
    assert not at.exception, at.exception
    from stviz.data import load_dataset  # the page's alpha is the dataset's (against krippendorff: test_studies)

    expected = load_dataset(f"study:{study.id}").rater_agreement()["content"].alpha
    assert f"content: α = {expected:.3f} (3 raters, 12 pairs)" in " ".join(c.value for c in at.caption).replace("\\", "")
    rows = [frame.value for frame in at.dataframe if "human" in frame.value]
    assert rows and set(rows[0]["human"]) == {"content_mean"}  # the raters' mean, a human column of the study


def test_a_study_whose_raters_share_one_item_says_its_alpha_is_not_measurable_yet(db):
    # Each rater has their own order: after a few answers the raters may have one item in common, or none.
    items = [{"input": str(k), "source": f"the food was bad {k}", "output": f"the food was good {k}",
              "system": "AB"[k % 2], "source_style": "negative", "target_style": "positive"} for k in range(12)]
    study = db.create_study("t", "demo", Protocol(aspects=("content",), repeats=0), items)
    raters = [db.add_rater(study) for _ in range(2)]
    first, second = raters[0].sequence[:3], raters[1].sequence
    shared = first[0]
    db.record(raters[0], 0, "content", 2.0)
    db.record(raters[1], second.index(shared), "content", 4.0)
    db.record(raters[1], next(k for k, item in enumerate(second) if item not in first), "content", 5.0)
    at = run_page("8_Meta_evaluation.py", dataset=f"study:{study.id}",
                  state={"meta-sets": [f"study:{study.id}"], "meta-boot": 100, "meta-levels": ["sentence"]})
    assert not at.exception, at.exception
    said = " ".join(c.value for c in at.caption).replace("\\", "")
    assert f"study:{study.id} · content: α not measurable yet (2 raters; 1 pair rated by two or more" in said


def test_the_raters_server_shows_rating_links_and_nothing_else(db, monkeypatch):
    monkeypatch.setenv("STVIZ_RATERS_ONLY", "1")  # `stviz dashboard --raters-only`
    study = db.create_study("t", "demo", Protocol(aspects=("style",), repeats=0),
                            [{"input": "a", "source": "s", "output": "o", "system": "x"}])
    rater = db.add_rater(study)
    assert "Item 1 of 1" in _screen(_page({"rate": rater.token}))
    for at in (_page({"own": study.owner_token}), _page({}), run_page("8_Meta_evaluation.py", dataset="demo"),
               run_page(str(PAGES.parent / "app.py"))):
        assert not at.exception, at.exception
        assert "rating studies only" in at.info[0].value
        assert not len(at.dataframe) and not at.get("plotly_chart") and not at.get("form_submit_button")


def test_a_pairwise_screen_shows_two_unnamed_outputs_and_saves_the_preference(db):
    items = [{"input": "a", "first": {"system": "SysA", "source": "bad food", "output": "good food",
                                      "source_style": "negative", "target_style": "positive"},
              "second": {"system": "SysB", "source": "bad food", "output": "bad food !",
                         "source_style": "negative", "target_style": "positive"}}]
    study = db.create_study("t", "demo", Protocol(kind="pairwise", aspects=("style",), repeats=0), items)
    rater = db.add_rater(study)
    at = _page({"rate": rater.token})
    screen = _screen(at)
    assert not at.exception and "good food" in screen and "bad food !" in screen
    assert "SysA" not in screen and "SysB" not in screen
    assert [b.label for b in at.button][:3] == ["first · 1", "about the same · 2", "second · 3"]  # with its key
    at.button(key="answer-0-style-1").click().run()  # key 1: the first output
    assert db.answers(study.id)["value"].tolist() == [1.0]
    assert "you rated all 1 item. Thank you" in " ".join(e.value for e in at.success)


def test_a_damaged_database_is_the_same_one_message_on_the_page(db, tmp_path):
    study = db.create_study("t", "demo", Protocol(aspects=("style",), repeats=0),
                            [{"input": "a", "source": "s", "output": "o", "system": "x"}])
    rater = db.add_rater(study)
    path = tmp_path / "studies.sqlite3"
    path.write_bytes(b"not a database " * 1000)
    for params in ({"rate": rater.token}, {"own": study.owner_token}, {}):
        at = _page(params, {"dataset_name": "demo"})
        assert not at.exception, (params, at.exception)
        said = " ".join(e.value for e in at.error).replace("\\", "")
        assert f"the studies database {path} is damaged (file is not a database)" in said, (params, said)
        assert "move it aside" in said


def test_the_owner_reads_alpha_as_status_and_meta_evaluation_say_it(db):
    items = [{"input": str(k), "source": f"s {k}", "output": f"o {k}", "system": "x"} for k in range(6)]
    study = db.create_study("t", "demo", Protocol(aspects=("style",), repeats=0), items)
    ann, bob = db.add_rater(study), db.add_rater(study)
    db.record(ann, 0, "style", 2.0)
    db.record(bob, bob.sequence.index(ann.sequence[0]), "style", 4.0)  # one item in common: not measurable yet
    at = _page({"own": study.owner_token})
    assert not at.exception, at.exception
    said = shown(at.markdown).replace("\\", "")
    assert ("style: α not measurable yet (2 raters; 1 item rated by two or more of them, and it needs two such items "
            "with two different values)") in said
    assert "None" not in said


def test_a_rater_who_skipped_or_flagged_items_is_told_how_many_were_rated(db):
    study = db.create_study("t", "demo", Protocol(aspects=("style",), repeats=0),
                            [{"input": str(k), "source": f"s {k}", "output": f"o {k}", "system": "x"} for k in range(3)])
    rater, other = db.add_rater(study), db.add_rater(study)
    for position in range(3):
        db.record(rater, position, "*", None, "skipped")
    at = _page({"rate": rater.token})
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("Done: you rated 0 of 3 items and skipped 3. Thank you!")
    db.record(other, 0, "style", 4.0)
    db.record(other, 1, "*", None, "skipped")
    db.record(other, 2, "*", None, "flagged")
    assert _page({"rate": other.token}).success[0].value.startswith(
        "Done: you rated 1 of 3 items, skipped 1 and flagged 1 as unreadable. Thank you!")


def _keys(at: AppTest, *events: tuple[str, str]) -> AppTest:
    """The page's key log as its key logger sends it: every key so far, each with the question shown when pressed."""
    log = [*(at.session_state["study-keys"]["log"] if "study-keys" in at.session_state else [])]
    log += [{"n": len(log) + k + 1, "screen": screen, "key": key} for k, (screen, key) in enumerate(events)]
    at.session_state["study-keys"] = {"log": log}
    return at.run()


def test_each_key_counts_once_for_the_question_shown_when_it_was_pressed(db):
    """Issue 68 (item 12): keys that reach the server together (1, 2, S pressed on the first question before the
    page redrew) count once, the first for its own question; a key pressed on a question no longer asked is never
    applied to the one asked now; a log handled again (a new session on the same page) saves nothing twice."""
    items = [{"input": f"i{k}", "source": f"source {k}", "output": f"output {k}", "system": "s"} for k in range(3)]
    study = db.create_study("t", "demo", Protocol(aspects=("style", "content"), repeats=0), items)
    rater = db.add_rater(study)
    at = _page({"rate": rater.token})
    saved = lambda: {(p, a, None if v != v else v) for p, a, v in  # noqa: E731
                     db.answers(study.id)[["position", "aspect", "value"]].itertuples(index=False)}
    _keys(at, ("0:style", "1"), ("0:style", "2"), ("0:style", "S"))
    assert not at.exception and saved() == {(0, "style", 1.0)}
    assert "2 keys pressed before this question was shown were not counted" in _screen(at)
    assert "<b>Content</b> (2 of 2)" in _screen(at)
    _keys(at, ("0:style", "5"), ("0:content", "S"), ("0:content", "3"))  # a late key, then S on the question shown
    assert saved() == {(0, "style", 1.0), (0, "*", None)} and "Item 2 of 3" in _screen(at)
    again = _page({"rate": rater.token}, {"study-keys": at.session_state["study-keys"]})  # the same log, anew
    assert not again.exception and saved() == {(0, "style", 1.0), (0, "*", None)}
    _keys(again, ("1:style", "4"))
    assert saved() == {(0, "style", 1.0), (0, "*", None), (1, "style", 4.0)}
