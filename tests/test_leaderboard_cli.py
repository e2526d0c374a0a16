"""The leaderboard analysis and command: options, renames, folders of outputs, formats, bad input."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from stviz.analyses import leaderboard
from stviz.analyses.base import NotApplicable
from stviz.cli import main
from stviz.data import load_dataset
from stviz.data.schema import DataError


def test_options_validate_renames_and_level():
    with pytest.raises(DataError, match="OLD=NEW"):
        leaderboard.Options(rename=("nonsense",))
    with pytest.raises(DataError, match="below 1"):
        leaderboard.Options(level=1.0)
    with pytest.raises(DataError, match="not one of"):
        leaderboard.Options(metrics=("bleu", "nope"))


def test_applies_only_to_pairs_of_several_systems():
    assert leaderboard.applies_to(load_dataset("demo-styles"))
    with pytest.raises(NotApplicable):
        leaderboard.run(load_dataset("demo-styles"))


def test_renames_by_file_suffix_or_name(corpora):
    ds = load_dataset("li2018-yelp")
    renamed = leaderboard.apply_renames(ds.pairs, ("fader=SE", "Human=References"))
    assert {"SE", "References"} <= set(renamed["system"]) and "StyleEmbedding" not in set(renamed["system"])
    assert set(ds.pairs["system"]) >= {"StyleEmbedding"}  # the dataset itself is untouched


def test_cli_on_li2018_csv_and_latex(corpora, capsys):
    code = main(["leaderboard", "--dataset", "li2018-yelp", "--metrics", "accuracy,bleu", "--n-resamples", "100",
                 "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert set(table["metric"]) >= {"accuracy", "bleu", "human:success"}
    assert {"low", "high", "rank_best", "rank_worst"} <= set(table.columns)
    assert "sacrebleu bleu: nrefs:1|case:lc" in err and "no other reference column" in err
    code = main(["leaderboard", "--dataset", "li2018-yelp", "--metrics", "accuracy", "--n-resamples", "100",
                 "--format", "latex", "--significance", "randomization"])
    out, _ = capsys.readouterr()
    assert code == 0 and "\\begin{tabular}" in out and "p-values (randomization)" in out


def test_cli_reads_a_folder_of_outputs_with_reference_files(tmp_path, capsys):
    inputs = ["the food was cold .", "great service !", "never again .", "the staff was rude .", "i loved it ."] * 4
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "test.0").write_text("\n".join(inputs) + "\n")
    (tmp_path / "out" / "test.0.copy").write_text("\n".join(inputs) + "\n")
    (tmp_path / "out" / "test.0.other").write_text("\n".join(f"{i} indeed" for i in inputs) + "\n", encoding="latin-1")
    refs = tmp_path / "reference.0"
    refs.write_text("\n".join(f"{i}\tnot {i}" for i in inputs) + "\n")
    code = main(["leaderboard", "--dataset", str(tmp_path / "out"), "--references", str(refs), "--directions",
                 "0=negative>positive", "--metrics", "bleu,self_bleu,chrf", "--n-resamples", "100",
                 "--format", "csv"])
    out, _ = capsys.readouterr()
    assert code == 0
    table = pd.read_csv(io.StringIO(out)).set_index(["system", "metric"])
    assert table.loc[("copy", "self_bleu"), "value"] == pytest.approx(100.0)


def test_cli_bad_input_is_one_error_line(tmp_path, capsys):
    assert main(["leaderboard", "--dataset", "li2018-yelp", "--reference-columns", "reference:7",
                 "--metrics", "bleu"]) == 2
    assert "error: no reference column(s) reference:7" in capsys.readouterr().err
    assert main(["leaderboard", "--dataset", str(tmp_path), "--metrics", "bleu"]) == 2
    assert "error: no system output files" in capsys.readouterr().err
    assert main(["leaderboard", "--dataset", "demo-styles"]) == 2
    assert "error:" in capsys.readouterr().err
