"""Readers for published system outputs: layouts, encodings, alignment with the inputs, references."""

from __future__ import annotations

import pytest

from stviz.data.outputs import (align_inputs, decode_lines, direction_and_system, load_outputs_folder,
                                read_reference_lines, split_columns)
from stviz.data.schema import DataError

INPUTS = ["the food was cold .", "great service !", "never again ."]


def write(path, lines, encoding="utf-8"):
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def test_file_names_give_direction_and_system():
    assert direction_and_system("sentiment.test.0.multi_decoder") == ("0", "multi_decoder")
    assert direction_and_system("sentiment.test.1.tsf") == ("1", None)
    assert direction_and_system("sentiment.test.1") == ("1", None)
    assert direction_and_system("system_a.tsv") == (None, None)


def test_lines_keep_blanks_and_survive_other_encodings():
    lines, notes = decode_lines("caf\xe9 ok\r\n\r\nsecond\n".encode("cp1252"), "x.0.sys")
    assert lines == ["café ok", "", "second"]  # the blank line stays: it is an (empty) output
    assert notes and "Windows-1252" in notes[0]
    lines, notes = decode_lines("a\x0cb\nc".encode(), "f")  # a form feed is not a line break
    assert lines == ["a\x0cb", "c"] and notes == []


def test_tab_separated_lines_split_into_input_output_and_target_style():
    inputs, outputs, targets = split_columns(["a\tA\t0", "b\tB\t0"], "f")
    assert (inputs, outputs, targets) == (["a", "b"], ["A", "B"], None)  # a numeric label is not a style
    _, _, targets = split_columns(["a\tA\tformal", "b\tB\tinformal"], "f")
    assert targets == ["formal", "informal"]
    with pytest.raises(DataError, match="no TAB"):
        split_columns(["a\tA", "b\tB", "no tab here"], "f")


def test_alignment_by_text_recovers_a_skipped_line_and_reports_it():
    given = [INPUTS[0], INPUTS[2]]
    alignment = align_inputs(INPUTS, given, 2)
    assert alignment.rows == [0, None, 1]
    assert alignment.missing == [1]
    assert "no output for 1 input" in alignment.describe("sysA")[0]


def test_alignment_keeps_edited_lines_by_position_and_says_so():
    given = [INPUTS[0], "great  service!!", INPUTS[2]]
    alignment = align_inputs(INPUTS, given, 3)
    assert alignment.rows == [0, 1, 2] and alignment.differing == [1]
    assert "differ from the official inputs" in alignment.describe("sysA")[0]


def test_references_in_another_order_with_several_per_input():
    lines = [f"{INPUTS[2]}\tagain , sure .\tmaybe again .", f"{INPUTS[0]}\tthe food was hot .\tit was warm .",
             f"{INPUTS[1]}\tterrible service !"]
    refs, notes = read_reference_lines(lines, INPUTS, "reference.0")
    assert refs == [["the food was hot .", "it was warm ."], ["terrible service !"], ["again , sure .", "maybe again ."]]
    assert notes == []


def test_folder_of_suffixed_files_with_inputs_file_and_references(tmp_path):
    write(tmp_path / "sentiment.test.0", INPUTS)
    write(tmp_path / "sentiment.test.0.alpha", ["the food was hot .", "bad service !", "again soon ."])
    write(tmp_path / "sentiment.test.0.beta", [f"{INPUTS[0]}\tthe food was great .", f"{INPUTS[2]}\tsee you ."])
    write(tmp_path / "reference.0", [f"{i}\tref {k}" for k, i in enumerate(INPUTS)])
    ds = load_outputs_folder(tmp_path, styles={"0": ("negative", "positive")}, system_names={"alpha": "Alpha"})
    pairs = ds.pairs
    assert sorted(pairs["system"].unique()) == ["Alpha", "beta"]
    beta = pairs[pairs["system"] == "beta"]
    assert beta["source"].tolist() == [INPUTS[0], INPUTS[2]]  # beta skipped the second input
    assert beta["output"].tolist() == ["the food was great .", "see you ."]
    assert beta["reference"].tolist() == ["ref 0", "ref 2"]
    assert (pairs["target_style"] == "positive").all()
    assert any("beta" in n and "no output for 1 input" in n for n in ds.notes)


def test_one_folder_per_system_and_tsv_files(tmp_path):
    for system, outs in {"sysA": ["a1", "a2", "a3"], "sysB": ["b1", "b2", "b3"]}.items():
        (tmp_path / system).mkdir()
        write(tmp_path / system / "sentiment.test.0.tsf", outs)
    write(tmp_path / "sentiment.test.0", INPUTS)
    ds = load_outputs_folder(tmp_path)
    assert ds.pairs.groupby("system")["output"].apply(list).to_dict() == {"sysA": ["a1", "a2", "a3"],
                                                                           "sysB": ["b1", "b2", "b3"]}
    tsv = tmp_path / "tsv"
    tsv.mkdir()
    write(tsv / "mine.tsv", [f"{i}\tout {k}\tformal" for k, i in enumerate(INPUTS)], encoding="latin-1")
    ds = load_outputs_folder(tsv)
    assert ds.pairs["system"].unique().tolist() == ["mine"]
    assert ds.pairs["target_style"].unique().tolist() == ["formal"]


def test_bare_outputs_without_inputs_are_refused_with_a_clear_message(tmp_path):
    write(tmp_path / "sentiment.test.0.alpha", ["x", "y"])
    with pytest.raises(DataError, match="no inputs file"):
        load_outputs_folder(tmp_path)
    with pytest.raises(DataError, match="no system output files"):
        load_outputs_folder(_empty(tmp_path))


def _empty(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    return folder
