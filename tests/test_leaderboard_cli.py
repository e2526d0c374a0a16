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


# -- issue 20: folders of released outputs are surveyed and refused before anything is computed -------------
NEG = ["the food was cold .", "bad service !", "never again .", "the staff was rude .", "so slow ."]
POS = ["great food .", "lovely staff !", "will return .", "so friendly .", "fast and fresh ."]


def _write(path, lines, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))


def _release(root, systems=("CrossAligned", "DualRL", "Human0")):
    """Per-system folders with each direction twice: bare (test.0.tsf) and input<TAB>output (test.0-1.tsf)."""
    for system in systems:
        for key, other, inputs in (("0", "1", NEG), ("1", "0", POS)):
            outputs = [f"{t} {system.lower()}" for t in inputs]
            _write(root / system / f"test.{key}.tsf", outputs)
            _write(root / system / f"test.{key}-{other}.tsf", [f"{i}\t{o}" for i, o in zip(inputs, outputs)])
    return root


@pytest.fixture
def no_computation(monkeypatch):
    """Fail the test if the leaderboard computes anything: a refusal must come before any metric."""
    calls = []
    monkeypatch.setattr(leaderboard, "run", lambda *args, **kwargs: calls.append(args) or pytest.fail("computed"))
    return calls


def _refused(folder, capsys, *extra):
    code = main(["leaderboard", "--dataset", str(folder), *extra])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2 and len(errors) == 1 and "Traceback" not in err, err
    return errors[0]


def test_folders_that_cannot_be_compared_are_refused_before_any_metric(tmp_path, capsys, no_computation):
    flat = tmp_path / "flat"
    _write(flat / "sentiment.test.0.alpha", NEG)
    _write(flat / "sentiment.test.0.beta", NEG)
    assert "no inputs file for direction '0'" in _refused(flat, capsys)
    _write(flat / "sentiment.test.0", NEG)
    _write(flat / "reference.0", NEG[:-1])
    line = _refused(flat, capsys)
    assert "reference.0 line 5: 4 lines of bare references, but the inputs (sentiment.test.0) have 5" in line
    odd = tmp_path / "odd"
    for folder in ("neg2pos", "negative2awesome"):
        _write(odd / folder / "sysA.txt", [f"{t}\tx" for t in NEG])
    assert "unknown direction name 'negative2awesome'" in _refused(odd, capsys)
    per_system = _release(tmp_path / "systems", ("sysA", "sysB"))
    (per_system / "sysB" / "extra.txt").write_text("x\n")
    assert "unknown direction name" in _refused(per_system, capsys)
    assert no_computation == []


def test_a_release_with_bare_and_tab_copies_is_read_once_and_compared(tmp_path, capsys):
    root = _release(tmp_path / "yelp")
    _write(tmp_path / "refs" / "reference0.0", [f"{t} caf\xe9" for t in POS], encoding="cp1252")
    _write(tmp_path / "refs" / "reference0.1", NEG)
    code = main(["leaderboard", "--dataset", str(root), "--references", *map(str, sorted((tmp_path / "refs").iterdir())),
                 "--directions", "0=negative>positive,1=positive>negative", "--metrics", "bleu,self_bleu,perplexity",
                 "--n-resamples", "100", "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    inventory = [line for line in err.splitlines() if line.split("|")[2:3] in ([" system "], [" human "])]
    assert len(inventory) == 6 and all("-" in line.split("|")[6] for line in inventory)  # the tab copies used
    assert "differ from the official inputs" not in err and "Windows-1252" in err
    table = pd.read_csv(io.StringIO(out))
    assert sorted(table["system"].unique()) == ["CrossAligned", "DualRL", "Human0"]
    assert (table.query("metric == 'self_bleu'")["n"] == 10).all()  # 5 inputs x 2 directions, once each


def test_domain_folders_give_one_leaderboard_each_or_the_one_named(tmp_path, capsys):
    _release(tmp_path / "outputs" / "yelp", ("sysA", "sysB"))
    _release(tmp_path / "outputs" / "gyafc", ("sysC", "sysD"))
    args = ["leaderboard", "--dataset", str(tmp_path / "outputs"), "--metrics", "self_bleu", "--n-resamples", "100",
            "--format", "csv"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "2 datasets, one leaderboard each: gyafc, yelp" in err
    lines = out.splitlines()
    assert sum(line.startswith("system,metric") for line in lines) == 2  # two CSV tables, gyafc then yelp
    assert {line.split(",")[0] for line in lines} >= {"sysA", "sysB", "sysC", "sysD"}
    assert main(args + ["--domain", "yelp"]) == 0
    out, err = capsys.readouterr()
    assert set(pd.read_csv(io.StringIO(out))["system"]) == {"sysA", "sysB"} and "dataset yelp" in err


def test_pairs_without_a_target_style_are_noted_not_a_traceback():
    pairs = pd.DataFrame({"source": NEG + POS, "output": POS + NEG, "system": ["a", "b"] * 5,
                          "target_style": ["positive"] * 5 + [None] * 5})
    assert leaderboard.target_styles(pairs) is None
    assert leaderboard.target_styles(pairs.fillna("negative")) == ["positive"] * 5 + ["negative"] * 5
    from stviz.data.schema import Dataset
    result = leaderboard.run(Dataset("mixed", "mixed", pairs=pairs),
                             leaderboard.Options(metrics=("perplexity", "self_bleu"), n_resamples=100))
    assert any("5 of 10 pairs have no target style" in n for n in result.notes)
