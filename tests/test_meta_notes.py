"""Issue 68, items 10, 15-17: a mixed file's notes said once with their languages, titled by kind, text that follows
the Languages-shown facet, and progress that counts the languages of the whole run."""

from __future__ import annotations

import os

import pandas as pd

from multilingual_data import pairs_frame
from stviz.cli import main
from stviz.data.intake.build import load_pairs_file

LANGUAGES = ("en", "fr", "ru")


def _mixed_file(tmp_path, languages=LANGUAGES) -> str:
    """Pairs in several languages, a language column, content and style ratings (written here, illustrative)."""
    frames = []
    for code in languages:
        frame = pairs_frame(code).assign(language=code)
        frame["content"] = [float((i * 7) % 5 + 1) for i in range(len(frame))]
        frame["style"] = [float((i * 3) % 5 + 1) for i in range(len(frame))]
        frames.append(frame)
    path = tmp_path / "mixed.csv"
    pd.concat(frames, ignore_index=True).to_csv(path, index=False)
    return str(path)


def test_a_note_several_languages_say_is_said_once_with_them():
    from stviz.languages.notes import said_once

    left_out = "ROUGE-1 is left out: it is valid for en texts, and these are in {}; instead: chrF"
    tagged = [("mixed", c, left_out.format(name)) for c, name in (("fr", "French (fr)"), ("ru", "Russian (ru)"))]
    tagged += [("mixed", c, f"language: {c} (from the file's language column)") for c in LANGUAGES]
    tagged += [("mixed", "ru", "only Russian says this"), ("demo", "", "a set of one language")]
    assert said_once(tagged) == [
        "in mixed, 2 languages (fr ru): " + left_out.format("another language"),
        "in mixed, all 3 languages (en fr ru): language: en fr ru (from the file's language column)",
        "in mixed [ru]: only Russian says this", "in demo: a set of one language"]
    assert said_once([("", "fr", "x"), ("", "ru", "x")], {"": 3}) == ["in 2 languages (fr ru): x"]


def test_meta_eval_says_each_note_once_with_the_languages_it_concerns(tmp_path, capsys):
    path = _mixed_file(tmp_path)
    assert main(["meta-eval", "--datasets", path, "--level", "sentence", "--method", "spearman", "--bootstrap", "20",
                 "--format", "csv"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: in mixed")]
    rouge = [line for line in notes if "ROUGE-1 is left out" in line]
    assert rouge == [line for line in rouge if line.startswith("note: in mixed, 2 languages (fr ru): ")] and rouge
    assert len(notes) == len(set(notes)) and len(notes) < 20
    assert not any("[fr]: ROUGE" in line or "[ru]: ROUGE" in line for line in notes)


def test_per_language_runs_of_a_command_say_each_note_once(tmp_path, capsys):
    from stviz.cli.common import for_each_language, print_notes
    from stviz.languages import dataset_language, language_name

    dataset = load_pairs_file(_mixed_file(tmp_path))[0]

    def run_one(part, collect):
        code = dataset_language(part).language
        print_notes(["ROUGE-1 is left out"] + ([f"METEOR is left out: these are in {language_name(code)}"]
                                               if code != "en" else []))
        return pd.DataFrame({"r": [0.5]})

    for_each_language(dataset, "md", run_one)
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: in ")]
    assert err == ["note: in all 3 languages (en fr ru): ROUGE-1 is left out",
                   "note: in 2 languages (fr ru): METEOR is left out: these are in another language"]


def test_the_page_titles_its_notes_by_kind_and_its_text_follows_the_languages_shown(tmp_path):
    from pagetest import plain, run_page, shown

    ds = load_pairs_file(_mixed_file(tmp_path))[0]
    at = run_page("8_Meta_evaluation.py", upload=ds, state={"meta-sets": [ds.name], "meta-boot": 100,
                                                           "meta-levels": ["sentence"]})
    assert not at.exception, at.exception
    titles = [e.label for e in at.expander if e.label.startswith("Notes")]
    assert any(t.startswith("Notes: not computed (") for t in titles)
    assert any(t.startswith("Notes: how it was computed (") for t in titles)
    box = plain(" ".join(e.value for e in at.info))
    assert "mixed [en fr ru]" in box and "mixed [en], " not in box
    at.multiselect(key="meta-languages").set_value(["en", "fr"]).run()
    assert not at.exception, at.exception
    box = plain(" ".join(e.value for e in at.info))
    assert "mixed [en fr]" in box and "ru" not in box.split("Style and fluency")[1].split(":")[0]
    notes = shown(at.caption)
    assert "[ru]" not in notes and "(en fr ru)" not in notes
    at.text_input(key="meta-direction").input("informal>formal").run()
    assert not at.exception, at.exception
    assert "Style" in {s.value for s in at.subheader}
    turned = [c.value for c in at.caption if c.value.startswith("↻")]
    assert turned and not any("ru" in plain(c).split(":")[0] for c in turned), turned


def test_progress_says_the_language_of_the_run_and_the_whole_runs_time_left(tmp_path, monkeypatch):
    from stviz.analyses import meta_evaluation
    from stviz.progress import Reporter

    labels = []

    class Seen(Reporter):
        def stage(self, label):
            labels.append(label)
            return lambda done, total: None

    monkeypatch.setattr("stviz.progress.Timer.elapsed", lambda self: 12.0)
    ds = load_pairs_file(_mixed_file(tmp_path))[0]
    seed = int.from_bytes(os.urandom(3), "big")  # statistics not in the cache yet: their stage reports
    options = meta_evaluation.Options(datasets=(ds.name,), levels=("sentence",), bootstrap=21, seed=seed)
    meta_evaluation.run(None, options, Seen(), uploads=[ds])
    assert labels and all(label.startswith(("language 1 of 3 (", "language 2 of 3 (", "language 3 of 3 ("))
                          for label in labels), labels
    later = [label for label in labels if label.startswith("language 3 of 3")]
    assert later and all("whole run: about 6 s left" in label for label in later), later
