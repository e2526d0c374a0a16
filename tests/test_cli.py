"""The command line: data listing, embedding to files, and clear errors with exit code 2."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd

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
