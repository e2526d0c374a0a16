"""A file a built-in corpus releases, given as a file or uploaded, is read as the built-in reads it
(stviz.data.corpora.releases): InFormal's ``hi_annotations.jsonl`` was refused ("no human-score columns") while the built-in read the same file."""

from __future__ import annotations

import json
import unicodedata

import pytest

from stviz.data.intake.build import load_pairs_file
from stviz.data.intake.mapping import detect_mapping
from stviz.data.intake.readers import read_pairs_file

SAME, SLIGHT, OTHER = "Approximately Same Meaning", "Slight Difference in Meaning", "Different Meaning"


def _record(k: int) -> dict:
    """One pair as InFormal releases it: two candidates, LaBSE, three workers' labels."""
    labels = [(SAME, "candidate_1"), (SLIGHT, "Equal"), (OTHER if k % 3 == 0 else SAME, "candidate_0")]
    return {"candidate_0": f"यह वाक्य संख्या {k} है", "candidate_1": f"यह वाक्य क्रमांक {k} है।", "labse": 0.5 + k / 100,
            "annotations": [{"semantic_similarity": s, "formal_sent": f} for s, f in labels]}


@pytest.fixture
def release_file(tmp_path):
    """A small file in InFormal's release layout, named as the release names Hindi's."""
    path = tmp_path / "hi_annotations.jsonl"
    path.write_text("\n".join(json.dumps(_record(k), ensure_ascii=False) for k in range(12)) + "\n", encoding="utf-8")
    return path


def test_a_release_file_given_as_a_file_is_read_as_the_built_in_reads_it(release_file):
    ds, mapping, notes = load_pairs_file(release_file)
    assert ds.human_columns[:2] == ["human:similarity_mean", "human:formality_gain"]  # the built-in's ratings, in order
    assert ds.metric_columns == ["metric:labse"] and len(ds.rater_groups["similarity"]) == 3
    assert ds.pairs["human:similarity_mean"].round(4).tolist() == [0.5 if k % 3 == 0 else 0.8333 for k in range(12)]
    assert set(ds.pairs["human:formality_gain"]) == {0.0}  # +1, 0, -1: one vote each way
    assert ds.pairs["source"].iloc[0] == "यह वाक्य संख्या 0 है" and set(ds.pairs["language"]) == {"hi"}
    assert any("laid out as InFormal releases its files" in note and "its language, hi, from its name" in note
               for note in notes)


def test_an_uploaded_release_file_is_mapped_as_the_built_in(release_file, tmp_path, monkeypatch):
    # The page's upload reads the bytes (read_pairs_file) and proposes detect_mapping's roles for confirming.
    frame, notes = read_pairs_file("my-copy.jsonl", release_file.read_bytes())
    mapping = detect_mapping(frame)
    assert mapping.human == ["similarity_mean", "formality_gain"] and mapping.metrics == ["labse"]
    assert mapping.raters == ["similarity_1", "similarity_2", "similarity_3"] and "language" not in mapping.roles
    assert any("read as the built-in 'informal' reads it" in note for note in notes)
    from stviz.data.intake.kept_uploads import load_upload, save_upload

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    reopened = load_upload(save_upload("my-copy.jsonl", release_file.read_bytes(), mapping))  # a link reopens it
    assert reopened.human_columns[:2] == ["human:similarity_mean", "human:formality_gain"]


def test_the_built_in_and_the_file_agree_on_the_real_release(corpora):
    from stviz.data import load_dataset
    from stviz.languages import one_language, with_language

    built_in = one_language(with_language(load_dataset("informal"), "hi"), "this")[0]
    ds, _, _ = load_pairs_file(corpora / "informal" / "hi_annotations.jsonl")
    for column in ("human:similarity_mean", "human:formality_gain", "metric:labse"):
        assert ds.pairs[column].tolist() == built_in.pairs[column].tolist(), column
    for column in ("source", "output"):  # a file's texts: NFC, trimmed (said)
        assert ds.pairs[column].tolist() == [unicodedata.normalize("NFC", t).strip() for t in built_in.pairs[column]], \
            column
