"""Issue 20's and issue 33's files through the command line: read exactly, or exit 2 with one 'error:' line."""

from __future__ import annotations

import pytest

from intake_cases import check_read
from intake_issue33 import issue33_cases
from intake_malformed import issue20_cases
from stviz.cli import build_parser, main
from stviz.cli.common import load_dataset_arg

CASES = issue20_cases() + issue33_cases()


def _argv(case, path) -> list[str]:
    """``correlate --dataset FILE`` with the case's reading flags, as a user would type them."""
    argv = ["correlate", "--dataset", str(path)]
    for flag, value in (("--columns", case.columns), ("--sheet", case.sheet), ("--encoding", case.encoding),
                        ("--skip-rows", case.skip_rows)):
        if value is not None:
            argv += [flag, str(value)]
    if case.header != "auto":
        argv += ["--header", case.header]
    return argv


@pytest.mark.parametrize("case", [c for c in CASES if c.error], ids=lambda c: c.name)
def test_refused_file_exits_2_with_one_error_line(case, tmp_path, capsys):
    path = tmp_path / case.filename
    path.write_bytes(case.data)
    assert main(_argv(case, path)) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {case.error}"] and "Traceback" not in err


@pytest.mark.parametrize("case", [c for c in CASES if not c.error], ids=lambda c: c.name)
def test_read_file_gives_its_exact_pairs_through_the_flags(case, tmp_path, capsys):
    path = tmp_path / case.filename
    path.write_bytes(case.data)
    args = build_parser().parse_args(_argv(case, path))
    ds = load_dataset_arg(args.dataset)
    err = capsys.readouterr().err.splitlines()
    said = [line[len("note: "):] for line in err if line.startswith("note: ")]
    printed = next(line for line in err if line.startswith("columns: "))
    assert check_read(case, ds, PrintedMapping(printed[len("columns: "):].split("   (")[0]), said) is None


class PrintedMapping:
    """The mapping as the command printed it on stderr ('columns: ...'), checked against the case's."""

    def __init__(self, line: str):
        self.line = line

    def describe(self) -> str:
        """The printed line."""
        return self.line


def test_correlate_runs_on_scores_written_as_fractions(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("source,output,rating\nThe food was great.,The food was bad.,4/5\nHe said hi.,She said hello.,1/5\n"
                    "Nice day.,Nice day!,5/5\nI am here.,I'm here.,3/5\n")
    assert main(["correlate", "--dataset", str(path), "--metrics", "chrf", "--bootstrap", "10"]) == 0
    err = capsys.readouterr().err
    assert "note: Column 'rating': 4 fraction(s) a/b were read as their value (lines 2 ('4/5' read as 0.8)" in err


def test_a_kept_upload_is_reopened_with_its_reading_options(tmp_path, monkeypatch):
    # The page's reading options (as --header/--skip-rows) go with the kept upload, so a link reads it alike.
    from stviz.data.intake.kept_uploads import load_upload, save_upload, upload_key
    from stviz.data.intake.mapping import detect_mapping
    from stviz.data.intake.readers import read_pairs_file

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    data = b"made by: lab, 2024\nsource,output\nx,y\n"
    reading = {"skip_rows": 1}
    frame, _ = read_pairs_file("p.csv", data, **reading)
    mapping = detect_mapping(frame)
    name = save_upload("p.csv", data, mapping, reading=reading)
    assert load_upload(name).pairs[["source", "output"]].values.tolist() == [["x", "y"]]
    assert upload_key("p.csv", data, mapping) == upload_key("p.csv", data, mapping, reading={})  # old keys unchanged
