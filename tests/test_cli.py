"""The command line: data listing, embedding to files, and clear errors with exit code 2."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from stviz.cli import main


def test_data_list_shows_counts(corpora, capsys):
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    assert "11 styles, 11,000 sentences" in out
    assert "10,287 pairs" in out and "2,928 pairs, 3 systems, 12 settings" in out


def test_embed_writes_parquet_and_npy(tmp_path, capsys):
    out = tmp_path / "demo.parquet"
    assert main(["embed", "--dataset", "demo", "--embedder", "glove-mean", "--out", str(out)]) == 0
    frame = pd.read_parquet(out)
    assert len(frame) == 120 and {"text", "style", "v0", "v49"} <= set(frame.columns)
    npy = tmp_path / "pairs.npy"
    assert main(["embed", "--dataset", "demo-pairs", "--embedder", "glove-sum", "--texts", "output", "--out", str(npy)]) == 0
    assert np.load(npy).shape == (72, 50)
    err = capsys.readouterr().err
    assert "embedding" in err and "GloVe 6B 50d (sum): " in err and "of tokens have no vector" in err


def test_embed_accepts_a_pair_file(tmp_path):
    pairs = tmp_path / "mine.tsv"
    pairs.write_text("source\toutput\nhey there\tHello.\n\tempty source\n")
    out = tmp_path / "v.npy"
    assert main(["embed", "--dataset", str(pairs), "--embedder", "glove-sum", "--out", str(out)]) == 0
    assert np.load(out).shape == (2, 50)  # one usable pair: its source and its output


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    assert main(["embed", "--dataset", "no-such-data", "--out", str(tmp_path / "x.npy")]) == 2
    assert main(["embed", "--dataset", "demo", "--embedder", "bogus", "--out", str(tmp_path / "x.npy")]) == 2
    assert main(["embed", "--dataset", "demo", "--embedder", "glove-sum", "--out", str(tmp_path / "x.txt")]) == 2
    assert main(["data", "import", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "error: unknown dataset 'no-such-data'" in err and "error: unknown embedder 'bogus'" in err
    assert "Traceback" not in err


def test_module_entry_point_runs():
    result = subprocess.run([sys.executable, "-m", "stviz", "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "data" in result.stdout and "embed" in result.stdout


# -- issue 9: the mapping on the command line --------------------------------------------------------
def _pairs_file(tmp_path):
    path = tmp_path / "rated.csv"
    path.write_text("text_1,text_2,label_1,label_2,label_3,bleu,extra\n"
                    "hey there,Hello there.,4,5,4,0.1,1\ngimme that,Please give me that.,2,3,3,0.2,2\n"
                    "see u,Goodbye.,1,1,2,0.3,3\n")
    return path


def test_detected_mapping_is_printed_on_every_run(tmp_path, capsys):
    out = tmp_path / "v.npy"
    assert main(["embed", "--dataset", str(_pairs_file(tmp_path)), "--embedder", "glove-sum", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert ("columns: source=text_1,output=text_2,metric=bleu,metric=extra,rater=label_1,rater=label_2,rater=label_3"
            "   (change with --columns ROLE=COL,...)") in err
    assert "note: 'label_mean' is the mean of the 3 raters' scores, offered as a human score" in err


def test_columns_option_changes_the_mapping_in_any_order(tmp_path, capsys):
    out = tmp_path / "v.npy"
    assert main(["embed", "--columns", "source=text_2,output=text_1,human-lower=extra,metric=", "--dataset",
                 str(_pairs_file(tmp_path)), "--embedder", "glove-sum", "--texts", "source", "--out", str(out)]) == 0
    assert "columns: source=text_2,output=text_1,human-lower=extra,rater=label_1" in capsys.readouterr().err
    assert np.load(out).shape == (3, 50)  # the three sources: text_2 now
    from stviz.cli.common import load_dataset_arg

    ds = load_dataset_arg(str(_pairs_file(tmp_path)), columns="source=text_2,output=text_1,human-lower=extra")
    assert ds.pairs["source"].tolist()[0] == "Hello there." and not ds.human_higher_is_better("human:extra")


def test_a_column_in_two_roles_exits_2_with_one_line(tmp_path, capsys):
    assert main(["embed", "--dataset", str(_pairs_file(tmp_path)), "--columns", "source=text_1,output=text_1",
                 "--out", str(tmp_path / "x.npy")]) == 2
    err = capsys.readouterr().err
    assert "error: column 'text_1' is mapped twice (source and output): give each column one role\n" in err
    assert "Traceback" not in err


def test_extra_human_column_for_correlate(tmp_path):
    from stviz.data.intake.build import load_pairs_file

    ds, mapping, _ = load_pairs_file(_pairs_file(tmp_path), extra_human=["extra"])
    assert "human:extra" in ds.human_columns and "metric:extra" not in ds.metric_columns
    assert mapping.describe().startswith("source=text_1,output=text_2,human=extra,metric=bleu")


def test_one_size_limit_on_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STVIZ_MAX_UPLOAD_MB", "1")
    big = tmp_path / "big.csv"
    big.write_bytes(b"source,output\n" + b"a,b\n" * 300_000)
    assert main(["embed", "--dataset", str(big), "--out", str(tmp_path / "x.npy")]) == 2
    assert capsys.readouterr().err.endswith(
        "error: 'big.csv' is 1.1 MB; the limit is 1 MB per file (set STVIZ_MAX_UPLOAD_MB to raise it, or split the file)\n")
    monkeypatch.delenv("STVIZ_MAX_UPLOAD_MB")
    with pytest.raises(SystemExit):
        main(["embed", "--help"])
    assert "(at most 200 MB per file; STVIZ_MAX_UPLOAD_MB changes the limit)" in " ".join(capsys.readouterr().out.split())


def test_every_command_is_registered_by_the_module_the_lazy_parser_imports():
    import argparse
    import importlib

    from stviz.cli import COMMAND_MODULES, COMMANDS

    registered = {}
    for name in COMMAND_MODULES:
        sub = argparse.ArgumentParser().add_subparsers(dest="command")
        importlib.import_module(f"stviz.cli.{name}").register(sub)
        registered.update({command: name for command in sub.choices})
    assert registered == COMMANDS


def test_a_command_line_imports_only_its_commands_module():
    # The other commands' modules import every analysis (scipy.stats, the meta-evaluation): seconds of start-up.
    code = ("import sys; from stviz.cli import build_parser; build_parser(['--backend', 'torch', 'similarity', "
            "'--help']); print(sorted(m for m in sys.modules if m.startswith('stviz.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "stviz.cli.similarity" in out and "stviz.cli.metrics" not in out and "stviz.cli.meta'" not in out
    from stviz.cli import COMMANDS, build_parser, command_named

    assert command_named(["--help", "similarity"]) is None and command_named(["similarit"]) is None
    assert len(build_parser(["--help"])._subparsers._group_actions[0].choices) == len(COMMANDS)


# -- issue 68: one default per help line ----------------------------------------------------------------------------
def _every_action(parser):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from ((f"{name} {where}", a) for where, a in _every_action(sub))
        else:
            yield "/".join(action.option_strings) or action.dest, action


def test_every_help_line_says_its_default_once_and_never_an_empty_one():
    from stviz.cli import build_parser

    actions = list(_every_action(build_parser()))
    assert len(actions) > 200  # every command's flags, sub-commands' included
    twice = [where for where, a in actions if (a.help or "").count("(default") > 1]
    empty = [where for where, a in actions if "(default: )" in (a.help or "") or "(default: none) (default" in (a.help or "")]
    assert twice == [] and empty == []
