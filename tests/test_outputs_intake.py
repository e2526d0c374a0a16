"""Issue 33's released-output folders and zips: read exactly or refused with one line, alike on the command
line (a folder, ``--dataset X.zip``) and on the page (the upload kept and surveyed by stviz.data.released.kept_outputs).

Every refusal is checked for server paths: no message may show where a folder or an upload lies on disk.
"""

from __future__ import annotations

import io
import unicodedata
import zipfile

import pytest

from stviz.cli import main
from stviz.cli.common import load_dataset_arg, load_outputs_arg
from stviz.data.released import kept_outputs
from stviz.data.released.kept_outputs import extract_zip, load_outputs, open_outputs, save_outputs
from stviz.data.schema import DataError

NEG = ["the soup was cold .", "service was slow .", "i will never return .", "the staff ignored us ."]
POS = ["great pasta and wine .", "friendly owner !", "best tacos in town .", "we loved the music ."]
TO_POS = ["the soup was warm .", "service was quick .", "i will always return .", "the staff welcomed us ."]
TO_NEG = ["awful pasta and wine .", "rude owner !", "worst tacos in town .", "we hated the music ."]


def text(lines) -> str:
    return "\n".join(lines) + "\n"


def flat(systems=("SysA", "SysB")) -> dict[str, str]:
    """Li et al.'s flat layout: inputs sentiment.test.0/1 beside sentiment.test.0/1.SYSTEM."""
    files = {"sentiment.test.0": text(NEG), "sentiment.test.1": text(POS)}
    for s in systems:
        files[f"sentiment.test.0.{s}"] = text(f"{t} {s.lower()}" for t in TO_POS)
        files[f"sentiment.test.1.{s}"] = text(f"{t} {s.lower()}" for t in TO_NEG)
    return files


def style_transformer() -> dict[str, str]:
    """Dai et al. 2019's release: output.0/1.SYSTEM, inputs test.neg / test.pos, references reference.neg / .pos."""
    return {"output.0.StyleTransformer": text(TO_POS), "output.1.StyleTransformer": text(TO_NEG),
            "test.neg": text(NEG), "test.pos": text(POS),
            "reference.neg": text(t.replace(".", "!") for t in TO_POS), "reference.pos": text(TO_NEG)}


def zipped(files: dict[str, str | bytes], prefix: str = "") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(prefix + name, data)
    return buffer.getvalue()


def folder(root, files: dict[str, str | bytes]):
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return root


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """An empty STVIZ_HOME: kept uploads of one test never serve another, and their paths are known."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def three_ways(tmp_path, files, capsys, **flags):
    """The datasets a folder gives, its zip on the command line gives, and its zip uploaded on the page gives."""
    plain = load_outputs_arg(folder(tmp_path / "release", files), **flags)[0]
    archive = tmp_path / "release.zip"
    archive.write_bytes(zipped(files, prefix="release/"))
    cli_zip = load_outputs_arg(archive, **flags)[0]
    name = save_outputs([("release.zip", archive.read_bytes())])
    if flags.get("directions"):
        name = kept_outputs.OutputsChoice.from_name(name).changed(directions=flags["directions"]).name
    page = load_outputs(name)
    capsys.readouterr()
    return plain, cli_zip, page


def pairs(ds) -> list[tuple]:
    cols = ["system", "direction", "source", "output"] + [c for c in ds.pairs.columns if c.startswith("reference")]
    return [tuple(r) for r in ds.pairs[cols].itertuples(index=False)]


def refusal(tmp_path, capsys, files, *flags, wrap: str = "") -> str:
    """The one error line of `leaderboard --dataset FOLDER` and of its zip, checked equal and free of paths."""
    root = folder(tmp_path / "release", files)
    archive = tmp_path / "release.zip"
    archive.write_bytes(zipped(files, prefix=wrap))
    lines = []
    for target in (root, archive):
        assert main(["leaderboard", "--dataset", str(target), *flags]) == 2
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "Traceback" not in err
        assert str(tmp_path) not in err and "/cache/" not in err  # no server path in any line said
        lines.append(errors[0])
    assert lines[0] == lines[1]
    return lines[0]


# -- silently wrong before -------------------------------------------------------------------------------
def test_a_results_summary_and_other_files_are_listed_as_ignored_never_ranked(tmp_path, capsys, home):
    files = flat() | {"bleu_scores.txt": "SysA\t23.4\nSysB\t25.1\n", "README.md": "# outputs\n",
                      "config.yaml": "lr: 1\n", "eval.py": "print(1)\n", "train.log": "epoch 1 loss 3.2\n",
                      "results": "SysA 23.4\nSysB 25.1\n"}
    plain, cli_zip, page = three_ways(tmp_path, files, capsys)
    assert set(plain.pairs["system"]) == {"SysA", "SysB"}
    assert pairs(plain) == pairs(cli_zip) == pairs(page)
    kept = open_outputs(save_outputs([("release.zip", zipped(files, "release/"))]))
    table = kept.inventory.table()
    ignored = table[table["role"] == "ignored"]
    assert set(ignored["file"]) == {"bleu_scores.txt", "README.md", "config.yaml", "eval.py", "train.log", "results"}
    assert set(table.loc[table["role"] == "system", "system"]) == {"SysA", "SysB"}


def test_directions_missing_one_of_the_folder_are_refused_naming_it(tmp_path, capsys):
    error = refusal(tmp_path, capsys, flat(), "--directions", "0=negative>positive,2=positive>negative")
    assert error == ("error: --directions names 0, 2 but the folder's directions are 0, 1: direction 1 would have no "
                     "styles; the folder has no direction 2; give DIR=SOURCE>TARGET for each of its directions")


def test_style_transformer_release_is_read_as_released_references_per_direction(tmp_path, capsys, home):
    plain, cli_zip, page = three_ways(tmp_path, style_transformer(), capsys)
    assert pairs(plain) == pairs(cli_zip) == pairs(page)
    got = plain.pairs.set_index("direction")
    assert got.loc["0", "source"].tolist() == NEG and got.loc["0", "output"].tolist() == TO_POS
    assert got.loc["1", "source"].tolist() == POS and got.loc["1", "output"].tolist() == TO_NEG
    assert got.loc["0", "reference"].tolist() == [t.replace(".", "!") for t in TO_POS]  # its own reference only
    assert got.loc["1", "reference"].tolist() == TO_NEG
    assert "reference:2" not in plain.pairs  # one reference each, never both files on both directions
    assert got.loc["0", "target_style"].iloc[0] == "positive"
    assert any(n.startswith("direction 0 reads test.neg (the negative inputs)") for n in plain.notes)


def test_style_named_references_given_on_the_command_line_go_to_their_direction(tmp_path, capsys):
    files = style_transformer()
    refs = {n: files.pop(n) for n in ("reference.neg", "reference.pos")}
    folder(tmp_path / "refs", refs)
    ds = load_outputs_arg(folder(tmp_path / "release", files),
                          references=[str(tmp_path / "refs" / n) for n in refs])[0].pairs.set_index("direction")
    assert ds.loc["0", "reference"].tolist() == [t.replace(".", "!") for t in TO_POS]
    assert ds.loc["1", "reference"].tolist() == TO_NEG and "reference:2" not in ds


def test_inputs_copied_in_as_stem_digit_with_style_references_need_directions(tmp_path, capsys):
    files = style_transformer()
    files["output.0"], files["output.1"] = files.pop("test.neg"), files.pop("test.pos")
    error = refusal(tmp_path, capsys, files)
    assert error.startswith("error: release cannot be compared: reference.neg line") is False
    assert "reference.neg holds the negative references, but no direction of the folder (0, 1) is known to start " \
           "from negative; say which is which with --directions 0=SOURCE>TARGET,1=SOURCE>TARGET" in error
    ds = load_outputs_arg(folder(tmp_path / "again", files),
                          directions="0=negative>positive,1=positive>negative")[0].pairs.set_index("direction")
    assert ds.loc["0", "reference"].tolist() == [t.replace(".", "!") for t in TO_POS] and "reference:2" not in ds


def test_a_reference_without_direction_is_refused_unless_given_for_all(tmp_path, capsys):
    files = flat()
    folder(tmp_path / "refs", {"gold.txt": text(TO_POS)})
    error = refusal(tmp_path, capsys, files, "--references", str(tmp_path / "refs" / "gold.txt"))
    assert error.endswith("gold.txt names no direction and the folder has 2 (0, 1): name it by direction "
                          "(reference.0, reference.neg) or give --references DIR=FILE (all=FILE for every direction)")
    ds = load_outputs_arg(tmp_path / "release", references=[f"0={tmp_path / 'refs' / 'gold.txt'}"])[0]
    by = ds.pairs.set_index("direction")
    assert by.loc["0", "reference"].tolist() == TO_POS * 2 and by.loc["1", "reference"].isna().all()


# -- refused where a reader could do better ---------------------------------------------------------------
def test_trailing_blank_lines_end_the_file_a_blank_line_inside_is_an_empty_output(tmp_path, capsys, home):
    files = flat()
    files["sentiment.test.0.SysA"] += "\n\n"
    files["sentiment.test.1.SysB"] = text(TO_NEG[:2] + [""] + TO_NEG[3:])
    plain, cli_zip, page = three_ways(tmp_path, files, capsys)
    assert pairs(plain) == pairs(cli_zip) == pairs(page)
    assert plain.pairs.query("system == 'SysA' and direction == '0'")["output"].tolist() == [f"{t} sysa" for t in TO_POS]
    assert "sentiment.test.0.SysA: 2 blank line(s) at the end (line 5-6) were read as the end of the file" in plain.notes
    assert plain.pairs.query("system == 'SysB' and direction == '1'")["output"].tolist()[2] == ""


def test_a_short_file_names_its_blank_lines(tmp_path, capsys):
    files = flat()
    files["sentiment.test.0.SysA"] = text([TO_POS[0], "", TO_POS[2]])
    error = refusal(tmp_path, capsys, files)
    assert "sentiment.test.0.SysA line 4: 3 lines of bare outputs (blank lines: 2), but the inputs" in error


def test_a_wrapper_folder_is_stepped_into_as_in_a_zip(tmp_path, capsys, home):
    wrapped = {f"yelp_outputs/{n}": d for n, d in flat().items()}
    plain, cli_zip, page = three_ways(tmp_path, wrapped, capsys)
    assert set(plain.pairs["system"]) == {"SysA", "SysB"} and plain.name == "yelp_outputs"
    assert pairs(plain) == pairs(cli_zip) == pairs(page)


def test_the_released_layout_stem_is_named_when_inputs_are_missing(tmp_path, capsys):
    files = {"output.0.StyleTransformer": text(TO_POS), "output.1.StyleTransformer": text(TO_NEG)}
    error = refusal(tmp_path, capsys, files)
    assert "add the inputs as output.0 (beside output.0.StyleTransformer)" in error


def test_leaderboard_and_every_command_take_a_zip(tmp_path, capsys, home):
    archive = tmp_path / "outputs.zip"
    archive.write_bytes(zipped(flat(), prefix="outputs/"))
    assert main(["leaderboard", "--dataset", str(archive), "--metrics", "bleu", "--n-resamples", "100",
                 "--format", "csv", "--directions", "0=negative>positive,1=positive>negative"]) == 0
    out, err = capsys.readouterr()
    assert "SysA" in out and "| system" in err and str(tmp_path) not in err
    ds = load_dataset_arg(str(archive))  # what correlate, style, similarity ... read for --dataset
    assert len(ds.pairs) == 16


def test_nfd_outputs_equal_nfc_inputs_for_every_measure(tmp_path, capsys, home):
    files = flat(("SysA",))
    files["sentiment.test.0"] = text(["café naïve ."] + NEG[1:])
    files["sentiment.test.0.SysA"] = text([unicodedata.normalize("NFD", "café naïve .")] + TO_POS[1:])
    plain, cli_zip, page = three_ways(tmp_path, files, capsys)
    first = plain.pairs.iloc[0]
    assert first["source"] == first["output"] == "café naïve ."
    assert any(n.startswith("Texts of 1 row(s) were normalised to Unicode NFC (SysA line 1)") for n in plain.notes)


# -- zips: nested, huge, encrypted ----------------------------------------------------------------------
def test_a_zip_inside_the_zip_is_named_and_no_server_path_is_shown(tmp_path, capsys, home):
    inner = zipped(flat(), prefix="inner/")
    error = refusal(tmp_path, capsys, {"inner.zip": inner})
    assert error == ("error: no system output files in release: expected STEM.DIRECTION.SYSTEM files, one folder per "
                     "system, folders per direction, or SYSTEM.tsv files with input<TAB>output lines (ignored: "
                     "inner.zip: a zip inside the folder: unzip it and give its folder instead)")
    kept = open_outputs(save_outputs([("outputs.zip", zipped({"inner.zip": inner}))]))
    with pytest.raises(DataError) as caught:
        kept.inventory.check()
    assert str(home) not in str(caught.value) and "inner.zip" in str(caught.value)
    assert str(home) not in kept.inventory.table().to_string()


def test_a_zip_of_too_many_entries_is_refused_from_its_directory_before_reading_it(tmp_path, monkeypatch):
    monkeypatch.setattr(kept_outputs, "MAX_FILES", 50)
    data = zipped({f"f{i}.txt": "x" for i in range(51)})
    monkeypatch.setattr(kept_outputs.zipfile, "ZipFile", lambda *a, **k: pytest.fail("the zip was parsed"))
    with pytest.raises(DataError, match=r"^'big.zip' holds 51 entries; at most 50 files are unpacked \(refused before "):
        extract_zip(data, tmp_path / "out", filename="big.zip")
    assert not (tmp_path / "out").exists()


def test_a_password_protected_zip_says_so(tmp_path, capsys):
    data = bytearray(zipped({"release/sentiment.test.0": "x\n"}))
    central = data.index(b"PK\x01\x02")
    data[6] |= 0x1  # the encryption flag, in the local header and the central directory, as `zip -e` writes it
    data[central + 8] |= 0x1
    path = tmp_path / "secret.zip"
    path.write_bytes(bytes(data))
    assert main(["leaderboard", "--dataset", str(path)]) == 2
    err = capsys.readouterr().err
    assert "error: 'secret.zip': the zip is password-protected; unzip it and upload the files" in err
    assert "ZipInfo" not in err and str(tmp_path) not in err


# -- the page: the same inventory, the same refusal, no server path ----------------------------------------
def _leaderboard_page(name: str):
    from pagetest import run_page

    # As the upload box leaves it: the kept outputs shown, their inventory first (ui.outputs.outputs_section).
    return run_page("7_Leaderboard.py", state={"outputs-pending": name})


def test_the_page_shows_a_nested_zip_refusal_without_server_paths(home):
    name = save_outputs([("outputs.zip", zipped({"inner.zip": zipped(flat(), prefix="inner/")}))])
    at = _leaderboard_page(name)
    assert not at.exception
    said = " ".join(e.value for e in at.error)
    assert "inner.zip: a zip inside the folder: unzip it and give its folder instead" in said.replace("\\", "")
    everything = " ".join(str(e.value) for kind in ("error", "markdown", "caption", "info") for e in at.get(kind))
    assert str(home) not in everything and "/cache/" not in everything


def test_the_page_lists_ignored_files_and_reads_style_named_inputs(home):
    files = style_transformer() | {"bleu_scores.txt": "StyleTransformer\t23.4\n"}
    at = _leaderboard_page(save_outputs([("release.zip", zipped(files, prefix="release/"))]))
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert set(table.loc[table["role"] == "ignored", "file"]) == {"bleu_scores.txt"}
    assert set(table.loc[table["role"] == "reference", "direction"]) == {"0 (negative>positive)", "1 (positive>negative)"}
