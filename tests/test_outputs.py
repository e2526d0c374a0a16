"""Readers for published system outputs: layouts, encodings, alignment with the inputs, references."""

from __future__ import annotations

import pytest

from stviz.data.directions import Direction, parse_direction, parse_direction_styles
from stviz.data.released.inventory import survey
from stviz.data.released.output_folders import load_outputs_folder, output_domains
from stviz.data.released.output_layouts import direction_in_name
from stviz.data.released.outputs import align_inputs, decode_lines, read_reference_lines, split_columns
from stviz.data.schema import DataError

INPUTS = ["the food was cold .", "great service !", "never again ."]


def write(path, lines, encoding="utf-8"):
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def direction_and_system(name):
    direction, _, after, _ = direction_in_name(name)
    return (direction.key if direction else None), (".".join(after) or None)


def test_file_names_give_direction_and_system():
    assert direction_and_system("sentiment.test.0.multi_decoder") == ("0", "multi_decoder")
    assert direction_and_system("sentiment.test.1.tsf") == ("1", None)
    assert direction_and_system("sentiment.test.1") == ("1", None)
    assert direction_and_system("system_a.tsv") == (None, None)
    assert direction_and_system("test.0-1.tsf") == ("0", None)
    assert direction_and_system("sentiment.test.neg2pos.mine") == ("negative>positive", "mine")


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


# -- issue 20: the layouts the field releases, read once and checked before anything is computed -----------
NEG = ["the food was cold .", "bad service !", "never again ."]
POS = ["great food .", "lovely staff !", "will return ."]


def tabbed(inputs, outputs):
    return [f"{i}\t{o}" for i, o in zip(inputs, outputs)]


def counts(ds):
    """{(system, direction): rows} of a dataset's pairs."""
    return ds.pairs.groupby(["system", "direction"]).size().to_dict()


def test_one_parser_of_direction_names():
    assert len({parse_direction(n).key for n in ("0", "0-1", "0to1", "0_to_1")}) == 1
    assert parse_direction("1-0").key == "1" != parse_direction("0").key
    assert parse_direction("neg2pos") == Direction("negative", "positive")
    assert parse_direction("pos2neg").styles == ("positive", "negative")
    assert parse_direction("informal_to_formal") == parse_direction("i2f") == Direction("informal", "formal")
    assert parse_direction("formal2informal").key == parse_direction("f2i").key == "formal>informal"
    for name in ("seq2seq", "word2vec", "test", "tsf", "CrossAligned", "formal2sarcastic"):
        assert parse_direction(name) is None, name
    assert parse_direction("formal2sarcastic", known_styles=["sarcastic"]).styles == ("formal", "sarcastic")
    assert parse_direction_styles("0-1=negative>positive,1=positive>negative") == {
        "0": ("negative", "positive"), "1": ("positive", "negative")}
    with pytest.raises(DataError, match="DIR=SOURCE>TARGET"):
        parse_direction_styles("nonsense=a>b")


def test_direction_folders_are_two_directions_not_one_system(tmp_path):
    for folder, inputs in (("formal2informal", NEG), ("informal_to_formal", POS)):
        (tmp_path / folder).mkdir()
        for system in ("sysA", "sysB"):
            write(tmp_path / folder / f"{system}.txt", tabbed(inputs, [f"{system} {t}" for t in inputs]))
    ds = load_outputs_folder(tmp_path)
    assert counts(ds) == {(s, d): 3 for s in ("sysA", "sysB") for d in ("formal>informal", "informal>formal")}
    rows = ds.pairs[ds.pairs["direction"] == "formal>informal"]
    assert set(rows["source_style"]) == {"formal"} and set(rows["target_style"]) == {"informal"}
    assert rows["source"].tolist()[:3] == NEG


@pytest.mark.parametrize("names", [("formal2informal.txt", "informal2formal.txt"), ("test.f2i.txt", "test.i2f.txt"),
                                   ("neg2pos", "pos2neg")])
def test_named_directions_in_file_names_of_system_folders(tmp_path, names):
    for system in ("sysA", "sysB"):
        (tmp_path / system).mkdir()
        for name, inputs in zip(names, (NEG, POS)):
            write(tmp_path / system / name, tabbed(inputs, [f"{system} {t}" for t in inputs]))
    ds = load_outputs_folder(tmp_path)
    assert sorted(ds.pairs["system"].unique()) == ["sysA", "sysB"]
    assert ds.pairs["direction"].nunique() == 2 and len(ds.pairs) == 12
    assert ds.pairs["target_style"].notna().all()


def test_flat_named_directions_with_inputs_files(tmp_path):
    write(tmp_path / "sentiment.test.neg2pos", NEG)
    write(tmp_path / "sentiment.test.pos2neg", POS)
    for system in ("alpha", "beta"):
        write(tmp_path / f"sentiment.test.neg2pos.{system}", [f"{system} {t}" for t in NEG])
        write(tmp_path / f"sentiment.test.pos2neg.{system}", [f"{system} {t}" for t in POS])
    ds = load_outputs_folder(tmp_path)
    assert counts(ds) == {(s, d): 3 for s in ("alpha", "beta") for d in ("negative>positive", "positive>negative")}


def test_a_folder_with_only_the_tab_separated_copies_is_one_system(tmp_path):
    folder = tmp_path / "DualRL"
    folder.mkdir()
    write(folder / "test.0-1.tsf", tabbed(NEG, ["good food .", "good service !", "again ."]))
    write(folder / "test.1-0.tsf", tabbed(POS, ["bad food .", "rude staff !", "never again ."]))
    ds = load_outputs_folder(folder, styles={"0": ("negative", "positive"), "1": ("positive", "negative")})
    assert counts(ds) == {("DualRL", "0"): 3, ("DualRL", "1"): 3}
    assert ds.pairs.loc[ds.pairs["direction"] == "1", "source"].tolist() == POS


def dualrl_like(root, systems=("CrossAligned", "DualRL", "Human0")):
    """A DualRL-style release: per-system folders, each direction as bare and as input<TAB>output lines."""
    root.mkdir(parents=True, exist_ok=True)
    for system in systems:
        (root / system).mkdir()
        for key, other, inputs in (("0", "1", NEG), ("1", "0", POS)):
            outputs = [f"{system} says {t}" for t in inputs]
            write(root / system / f"test.{key}.tsf", outputs)
            write(root / system / f"test.{key}-{other}.tsf", tabbed(inputs, outputs))
    return root


def test_bare_and_tab_copies_are_read_once_with_inputs_from_the_tab_files(tmp_path):
    root = dualrl_like(tmp_path / "yelp")
    refs = tmp_path / "refs"
    refs.mkdir()
    write(refs / "reference0.0", [f"caf\xe9 {t}" for t in NEG], encoding="cp1252")
    write(refs / "reference1.0", [f"other {t}" for t in NEG])
    write(refs / "reference0.1", [f"ref {t}" for t in POS])
    inventory = survey(root, reference_files=sorted(refs.iterdir()))
    assert inventory.problems == []
    table = inventory.table()
    systems = table[table["role"].isin(["system", "human"])]
    assert len(systems) == 6 and not systems.duplicated(["system", "direction"]).any()
    assert systems["file"].str.contains("-").all() and systems["also"].str.contains(r"test\.\d\.tsf").all()
    assert set(table.loc[table["role"] == "inputs", "file"]) == {"input column of CrossAligned/test.0-1.tsf",
                                                                 "input column of CrossAligned/test.1-0.tsf"}
    ds = load_outputs_folder(root, reference_files=sorted(refs.iterdir()))
    assert counts(ds) == {(s, d): 3 for s in ("CrossAligned", "DualRL", "Human0") for d in "01"}
    first = ds.pairs[(ds.pairs["direction"] == "0")].iloc[0]
    assert (first["reference"], first["reference:2"]) == ("caf\xe9 the food was cold .", "other the food was cold .")
    assert any("Windows-1252" in n for n in ds.notes)
    assert any("test.0-1.tsf used" in n for n in ds.notes)
    assert not any("differ from the official inputs" in n for n in ds.notes)


def test_humans_are_a_system_or_references_as_the_user_says(tmp_path):
    root = dualrl_like(tmp_path / "yelp")
    kept = survey(root)
    assert set(kept.table().query("role == 'human'")["system"]) == {"Human0"}
    as_refs = load_outputs_folder(root, humans="reference")
    assert sorted(as_refs.pairs["system"].unique()) == ["CrossAligned", "DualRL"]
    assert as_refs.pairs["reference"].str.startswith("Human0 says").all()


def test_two_copies_with_different_outputs_are_refused_naming_both(tmp_path):
    root = dualrl_like(tmp_path / "yelp", systems=("sysA", "sysB"))
    write(root / "sysB" / "test.0.tsf", ["sysB says the food was cold .", "something else", "x"])
    with pytest.raises(DataError, match=r"test\.0-1\.tsf and test\.0\.tsf") as error:
        load_outputs_folder(root)
    assert "\n" not in str(error.value)
    assert survey(root).problems[0].line == 2


def test_short_bare_files_and_unknown_direction_names_are_refused_with_file_and_counts(tmp_path):
    write(tmp_path / "sentiment.test.0", NEG)
    write(tmp_path / "sentiment.test.0.alpha", ["a", "b", "c"])
    write(tmp_path / "sentiment.test.0.beta", ["a", "b"])
    with pytest.raises(DataError, match=r"sentiment\.test\.0\.beta line 3: 2 lines of bare outputs, but the "
                                        r"inputs \(sentiment\.test\.0\) have 3"):
        load_outputs_folder(tmp_path)
    write(tmp_path / "sentiment.test.0.beta", ["a", "b", "c"])
    write(tmp_path / "reference.0", ["r1", "r2"])
    with pytest.raises(DataError, match=r"reference\.0 line 3: 2 lines of bare references"):
        load_outputs_folder(tmp_path)
    odd = tmp_path / "odd"
    for folder in ("formal2informal", "formal2sarcastic"):
        (odd / folder).mkdir(parents=True)
        write(odd / folder / "sysA.txt", tabbed(NEG, NEG))
    with pytest.raises(DataError, match="unknown direction name 'formal2sarcastic'"):
        load_outputs_folder(odd)


def test_domain_folders_are_compared_one_at_a_time(tmp_path):
    dualrl_like(tmp_path / "outputs" / "yelp")
    dualrl_like(tmp_path / "outputs" / "amazon", systems=("sysA", "sysB"))
    assert [d.name for d in output_domains(tmp_path / "outputs")] == ["amazon", "yelp"]
    assert [d.name for d in output_domains(tmp_path / "outputs", "yelp")] == ["yelp"]
    # systems, not domains
    assert [d.folder for d in output_domains(tmp_path / "outputs" / "yelp")] == [tmp_path / "outputs" / "yelp"]
    with pytest.raises(DataError, match="--subset imdb: outputs holds the datasets amazon, yelp"):
        output_domains(tmp_path / "outputs", "imdb")
