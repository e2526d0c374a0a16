"""The home page under Streamlit's AppTest: dataset choice, summary, embedders, errors."""

from __future__ import annotations

import re
from pathlib import Path

from pagetest import plain
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def run_app(dataset: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if dataset:
        at.session_state["dataset_name"] = dataset
    return at.run()


def test_home_page_shows_the_demo_by_default():
    at = run_app()
    assert not at.exception
    assert any("Demo: five styles" in s.value for s in at.subheader)
    labels = {m.label: m.value for m in at.metric}
    assert labels["Styles"] == "5" and labels["Pairs"] == "72"
    assert any("Illustrative" in w.value for w in at.warning)


def test_home_page_on_a_real_corpus(corpora):
    at = run_app("mir-yelp")
    assert not at.exception
    labels = {m.label: m.value for m in at.metric}
    assert labels["Pairs"] == "2,928" and labels["Systems"] == "3" and labels["Settings"] == "12"
    assert len(at.get("plotly_chart")) >= 3


def test_choosing_another_dataset_sticks(corpora):
    at = run_app()
    at.radio[0].set_value("cds").run()
    assert not at.exception
    assert at.session_state["dataset_name"] == "cds"
    assert {m.label: m.value for m in at.metric}["Sentences"] == "11,000"


def test_word_vector_embedders_report_out_of_vocabulary_rates():
    at = run_app()
    assert any("out of vocabulary" in c.value for c in at.caption)


def test_a_lost_upload_falls_back_to_an_available_dataset():
    at = run_app("upload:gone.csv")
    assert not at.exception
    assert at.session_state["dataset_name"] == "demo"


# -- issue 9: names shown literally, a damaged cache, a shared deployment ----------------------------
def test_a_note_is_shown_as_one_sentence_with_one_full_stop():
    from ui.text import as_sentence

    assert as_sentence("the classifier is weak: read its figures with care.") == \
        "The classifier is weak: read its figures with care."
    assert as_sentence("no scorer applies") == "No scorer applies."
    assert as_sentence("which pole?") == "Which pole?"


def test_literal_shows_markdown_latex_and_directives_as_written():
    import ui

    assert ui.literal("**bold** $x^2$ [a](http://b) :red[x] :smile: <b>") == (
        "\\*\\*bold\\*\\* \\$x^2\\$ \\[a\\](http\u2060://b) \\:red\\[x\\] \\:smile: \\<b\\>")
    assert ui.literal("# big\nline") == "\\# big line" and ui.literal("1. first") == "1\\. first"
    assert ui.literal("Demo: five styles") == "Demo: five styles"


# remark-gfm's literal autolinks as Streamlit 1.67's Markdown runs them (static/js/StreamlitMarkdown.*.js, from
# mdast-util-gfm-autolink-literal): a match would become a link on the page.
GFM_AUTOLINKS = [re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I),
                 re.compile(r"(?:^|(?<=[\s\W]))([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)")]


def test_literal_leaves_no_bare_url_or_address_for_markdown_to_link():
    import ui

    for name in ("http://evil.example/x", "HTTPS://evil.example", "see www.evil.example now", "bob@lab.example.org",
                 "sys-https://a.b", "mailto:bob@lab.example"):
        shown = ui.literal(name)
        assert not any(p.search(shown) for p in GFM_AUTOLINKS), shown
        assert plain(shown) == name  # read on screen as written (the joiner is invisible)


def test_an_upload_is_reached_only_through_its_link(tmp_path, monkeypatch):
    from stviz.data.intake.kept_uploads import load_upload, save_upload
    from stviz.data.intake.mapping import detect_mapping
    from stviz.data.intake.readers import read_pairs_file

    data = b"source,output,human\nsecret plan,Secret plan.,4\nour draft,Our draft.,3\n"
    frame, _ = read_pairs_file("private-lab.csv", data)
    name = save_upload("private-lab.csv", data, detect_mapping(frame))  # kept by one researcher's session
    assert re.fullmatch(r"upload:[0-9a-f]{40}", name)  # a 160-bit content hash: the link is the key
    other = run_app()  # another researcher's session on the same server
    assert not other.exception
    listed = [*other.sidebar.selectbox[0].options, *(o for r in other.radio for o in r.options)]
    assert not any("private-lab" in option or name in option for option in listed), listed
    assert "private-lab.csv" not in repr([m.value for m in [*other.markdown, *other.caption]])
    assert load_upload(name).name == "private-lab.csv"  # the link itself reopens it
    mine = run_app(name)
    assert not mine.exception and any("private-lab.csv" in o for o in mine.sidebar.selectbox[0].options)


def test_home_page_survives_a_damaged_cache_and_says_so(tmp_path, monkeypatch):
    import sqlite3

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "vectors.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 8192)
    with sqlite3.connect(tmp_path / "cache" / "vectors.sqlite") as conn:
        try:
            conn.execute("SELECT 1 FROM vectors").fetchone()
        except sqlite3.DatabaseError as exc:  # the reproduction: what every page raised before
            assert "malformed" in str(exc) or "not a database" in str(exc)
    at = run_app()
    assert not at.exception
    assert any("was damaged" in w.value for w in at.sidebar.warning)
    assert any("Cache:" in m.value for m in at.sidebar.markdown)


def clear_buttons(at: AppTest) -> list[str]:
    """The sidebar's buttons but the Models panel's (the cache's 'Clear' is what these tests look at)."""
    return [b.label for b in at.sidebar.button if b.key != "models-check"]


def test_clear_cache_asks_first_and_can_be_turned_off(monkeypatch):
    at = run_app()
    assert clear_buttons(at) == ["Yes, clear the cache"]  # inside the 'Clear cache…' popover
    monkeypatch.setenv("STVIZ_ALLOW_CLEAR_CACHE", "0")
    at = run_app()
    assert not at.exception and not clear_buttons(at)


def test_clear_cache_is_an_operators_action_on_a_teams_server(monkeypatch):
    from stviz.serving import clearing_allowed, is_loopback

    monkeypatch.setenv("STVIZ_TEAM", "1")  # what `stviz dashboard --team` sets for its server
    monkeypatch.delenv("STVIZ_ALLOW_CLEAR_CACHE", raising=False)
    at = run_app()
    assert not at.exception and not clear_buttons(at)
    monkeypatch.setenv("STVIZ_ALLOW_CLEAR_CACHE", "1")  # the operator allows it
    assert clear_buttons(run_app()) == ["Yes, clear the cache"]
    monkeypatch.delenv("STVIZ_TEAM")
    monkeypatch.delenv("STVIZ_ALLOW_CLEAR_CACHE")
    assert clearing_allowed("127.0.0.1") and clearing_allowed("localhost") and clearing_allowed(None)
    assert not clearing_allowed("0.0.0.0") and not clearing_allowed("10.1.2.3") and not is_loopback("stviz.lab.org")


def test_clear_cache_lists_the_areas_and_deletes_uploads_only_when_ticked(tmp_path, monkeypatch):
    from stviz.cache import Cache

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    root = tmp_path / "cache"
    Cache.write_file(root / "onnx" / "abc" / "model.onnx", b"x" * 2000)
    Cache.write_file(root / "uploads" / ("f" * 40) / "data", b"source,output\na,b\n")
    at = run_app()
    listing = " ".join(m.value for m in at.sidebar.markdown)
    assert "**onnx** (2.0 KB)" in listing and "**uploads**" not in listing  # uploads: a box of their own
    assert at.sidebar.checkbox(key="clear-cache-uploads").label.startswith("Also delete uploaded files (18 B)")
    at.sidebar.button(key="clear-cache-confirm").click().run()
    assert not at.exception and not (root / "onnx").exists() and (root / "uploads").is_dir()
    (said,) = [s.value for s in at.sidebar.success]
    assert said.startswith("Cleared vectors") and "Kept uploads (18 B: asked for separately)." in said
    at.sidebar.checkbox(key="clear-cache-uploads").check().run()
    at.sidebar.button(key="clear-cache-confirm").click().run()
    assert not (root / "uploads").exists()


def test_uploaded_names_are_shown_literally(monkeypatch):
    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import detect_mapping
    from stviz.data.intake.readers import read_pairs_file

    name = "**bold**_$x^2$_[link](http://example.org).csv"
    frame, _ = read_pairs_file(name, b"source,output,system\nhi,Hello.,:red[sys]\nbye,Goodbye.,$y$\n")
    ds = apply_mapping(frame, detect_mapping(frame), name=name, title=f"Uploaded: {name}")
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["dataset_name"] = f"upload:{name}"
    at.session_state["uploaded_dataset"] = ds
    at.run()
    assert not at.exception
    escaped = "\\*\\*bold\\*\\*\\_\\$x^2\\$\\_\\[link\\](http\u2060://example.org).csv"
    assert at.subheader[0].value == f"Uploaded: {escaped}"
    # The sidebar's dataset menu shows options as plain text: the name as written, never rendered.
    assert any(name in option for option in at.sidebar.selectbox[0].options)


class _Upload:
    """A file as st.file_uploader hands it to the page (AppTest has no uploader of its own)."""

    def __init__(self, name: str, data: bytes):
        self.name, self.size, self.file_id, self._data = name, len(data), f"id-{name}", data

    def getvalue(self) -> bytes:
        return self._data


def test_home_asks_a_file_without_style_columns_its_direction_suggested_from_the_file(tmp_path, monkeypatch):
    # Asked only on Meta-evaluation before, with 'informal>formal' for any file: now in Home's column confirmation,
    # suggested from the file's name, confirmed with the columns, and kept with the upload.
    import streamlit as st

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    rows = "".join(f"you are a stupid idiot number {k},you are wrong number {k},{k % 5 + 1}\n" for k in range(20))
    upload = _Upload("detox_outputs.csv", ("source,output,content\n" + rows).encode())
    monkeypatch.setattr(st, "file_uploader", lambda *args, **kwargs: upload)
    at = run_app()
    box = at.text_input(key=f"map-{upload.file_id}-direction")
    assert box.value == "toxic>neutral" and "Suggested from its name 'detox_outputs.csv'" in box.help
    next(b for b in at.button if b.label == "Use this file").click()
    at.run()
    assert not at.exception, at.exception
    from stviz.data.intake.kept_uploads import load_upload

    ds = load_upload(at.session_state["dataset_name"])  # the kept upload (a link) has the direction too
    assert set(ds.pairs["target_style"]) == {"neutral"} and set(ds.pairs["source_style"]) == {"toxic"}


def test_a_direction_is_suggested_from_a_file_s_name_or_values():
    import pandas as pd

    from stviz.data.intake.file_direction import suggest_direction

    assert suggest_direction("gyafc_outputs.tsv")[0] == "informal>formal"
    assert suggest_direction("yelp-test.csv")[0] == "negative>positive"
    assert suggest_direction("run3.csv", pd.DataFrame({"task": ["detoxification"] * 2, "x": ["toxic", "toxic"]})) == \
        ("toxic>neutral", "its values")
    assert suggest_direction("run3.csv", pd.DataFrame({"source": ["a b c"], "output": ["d e f"]})) == ("", "")
