"""Issue 42: a repository as researchers download it (a checkout, or GitHub's zip of it) is read exactly on the
command line and on the page; a one-system folder gives a one-row board; a path that is not there says so; a
benchmark's published systems are shown alone."""

from __future__ import annotations

import io

import pandas as pd
import pytest
import sacrebleu

from conftest import SHARED_CORPORA
from repository_data import IGNORED, WRAPPER, released_lines, write_repository, zip_repository
from stviz.cli import main
from stviz.cli.common import load_outputs_arg
from stviz.data.released.kept_outputs import OutputsChoice, load_outputs, open_outputs, save_outputs
from stviz.data.released.repository import find_subsets
from test_outputs_intake import folder, style_transformer, zipped

BOARD = ["--metrics", "bleu,self_bleu", "--n-resamples", "100"]


@pytest.fixture()
def home(tmp_path, monkeypatch, corpora):
    """An empty STVIZ_HOME with the corpora of the test home (a kept upload of one test never serves another)."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "corpora").symlink_to(corpora)
    return tmp_path / "home"


def _rows(ds) -> list[tuple]:
    columns = ["system", "direction", "source", "output", "target_style"] + \
        [c for c in ds.pairs.columns if c.startswith("reference")]
    return [tuple(r) for r in ds.pairs[columns].itertuples(index=False)]


def _three_ways(tmp_path, subset: str):
    """The dataset a checkout gives (--dataset FOLDER), its zip on the command line, and its zip uploaded."""
    checkout = load_outputs_arg(write_repository(tmp_path / "checkout"), domain=subset)[0]
    archive = zip_repository(tmp_path / f"{WRAPPER}.zip")
    cli_zip = load_outputs_arg(archive, domain=subset)[0]
    name = OutputsChoice.from_name(save_outputs([(archive.name, archive.read_bytes())])).changed(domain=subset).name
    return checkout, cli_zip, load_outputs(name), open_outputs(name)


@pytest.mark.parametrize("subset, outputs, data", [("yelp", "yelp", "yelp"), ("imdb", "imbd", "imdb")])
def test_a_repository_is_read_exactly_from_its_checkout_its_zip_and_the_page(tmp_path, capsys, home, subset, outputs,
                                                                              data):
    checkout, cli_zip, page, kept = _three_ways(tmp_path, subset)
    assert _rows(checkout) == _rows(cli_zip) == _rows(page)
    pairs = checkout.pairs
    assert set(pairs["system"]) == {"ours_cond", "ours_multi"}  # the system from the file name, never the folder
    for system in ("ours_cond", "ours_multi"):
        for direction, style, target in (("0", "neg", "positive"), ("1", "pos", "negative")):
            rows = pairs[(pairs["system"] == system) & (pairs["direction"] == direction)]
            assert rows["output"].tolist() == released_lines(f"outputs/{outputs}/output.{direction}.{system}")
            assert rows["source"].tolist() == released_lines(f"data/{data}/test.{style}")
            assert set(rows["target_style"]) == {target}
            if subset == "yelp":  # one reference per direction, its own: reference.neg rewrites the negative inputs
                assert rows["reference"].tolist() == released_lines(f"data/yelp/reference.{style}")
    assert "reference:2" not in pairs and ("reference" in pairs) == (subset == "yelp")
    table = kept.inventory.table()
    ignored = dict(zip(table.loc[table["role"] == "ignored", "file"], table.loc[table["role"] == "ignored", "system"]))
    expected = {p: why for p, why in IGNORED.items() if not p.startswith("data/") or p.startswith(f"data/{data}/")}
    assert set(ignored) == set(expected)  # train/dev, vocabularies, code, README, licence: listed, never read
    assert all(why in ignored[path] for path, why in expected.items())
    assert [d.name for d in kept.domains] == ["imdb", "yelp"] and kept.compared.name == subset
    assert kept.inventory.problems == [] and str(home) not in " ".join(kept.inventory.notes)


def test_a_differently_named_data_folder_is_taken_by_content_and_said(tmp_path):
    (imdb,) = [s for s in find_subsets(write_repository(tmp_path / "r")) if s.name == "imdb"]
    assert imdb.names == ("imdb", "imbd") and imdb.where(WRAPPER) == "outputs/imbd, data/imdb"
    note = imdb.layout().notes[0]
    assert note.startswith("outputs/imbd is read with data/imdb: output.0.ours_cond shares 0.72 of its words with "
                           "test.neg")


def test_the_command_line_places_each_dataset_of_the_repository_on_its_benchmark(tmp_path, capsys, home):
    archive = zip_repository(tmp_path / f"{WRAPPER}.zip")
    assert main(["leaderboard", "--dataset", str(archive), *BOARD, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "2 datasets, one leaderboard each: imdb, yelp (--subset NAME for one)" in err
    assert "benchmark: the IMDb test set of Dai et al. 2019: 2,000 of 2,000 inputs matched; placed among its 2" in err
    assert "benchmark: the Yelp test set of Li et al. 2018: 1,000 of 1,000 inputs matched; placed among its 13" in err
    assert "ours_cond: its 1,000 outputs are the published StyleTransformer-cond's, line for line" in err
    imdb, yelp = (pd.read_csv(io.StringIO(t)).set_index(["system", "metric"])["value"]
                  for t in ("system,metric" + part for part in out.split("system,metric")[1:]))
    assert len(set(yelp.index.get_level_values(0))) == 15 and len(set(imdb.index.get_level_values(0))) == 4
    for system, expected in (("ours_cond", 48.52), ("ours_multi", 55.11)):
        assert yelp[(system, "bleu")] == pytest.approx(_sacrebleu_bleu(system), abs=1e-4)  # the CSV's 4 decimals
        assert yelp[(system, "bleu")] == pytest.approx(expected, abs=0.005)  # issue 42's independent run
        assert yelp[(system, "bleu")] == yelp[(f"StyleTransformer-{system[5:]}", "bleu")]
    assert "Traceback" not in err and str(tmp_path) not in err.replace(str(archive), "")
    assert main(["leaderboard", "--dataset", str(archive), "--subset", "imbd", *BOARD, "--benchmark", "none"]) == 0
    assert "dataset imdb (outputs/imbd, data/imdb):" in capsys.readouterr().err
    assert main(["leaderboard", "--dataset", str(archive), "--subset", "amazon"]) == 2
    assert "error: --subset amazon: " in capsys.readouterr().err


def _sacrebleu_bleu(system: str) -> float:
    """BLEU of a Style Transformer system against the yelp card's four references, by sacrebleu alone."""
    dualrl = SHARED_CORPORA / "dualrl" / "references" / "yelp"
    hyps = released_lines(f"outputs/yelp/output.0.{system}") + released_lines(f"outputs/yelp/output.1.{system}")
    refs = [(dualrl / f"reference{k}.0").read_bytes().decode("cp1252" if k == 2 else "utf-8").splitlines()
            + (dualrl / f"reference{k}.1").read_text(encoding="utf-8").splitlines() for k in range(4)]
    return sacrebleu.corpus_bleu(hyps, [[r.strip() for r in ref] for ref in refs], lowercase=True, force=True).score


def test_a_one_system_folder_gives_a_one_row_board(tmp_path, capsys):
    files = style_transformer()  # one system's outputs, its inputs and references, not on any benchmark
    root = folder(tmp_path / "mine", files)
    assert main(["leaderboard", "--dataset", str(root), *BOARD, "--significance", "bootstrap"]) == 0
    out, err = capsys.readouterr()
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert len(table) == 3 and table[2].startswith("| StyleTransformer | ")  # header, rule, one row
    assert "rank" not in table[0] and "[" in table[2]  # intervals, no rank: a rank compares systems
    assert "note: one system (StyleTransformer): its measures with 95% intervals; no paired tests" in err
    assert "note: one system: no paired tests" in err and "p-values" not in out
    hyps = [line for name in ("output.0.StyleTransformer", "output.1.StyleTransformer")
            for line in files[name].splitlines()]
    refs = files["reference.neg"].splitlines() + files["reference.pos"].splitlines()
    expected = sacrebleu.corpus_bleu(hyps, [refs], lowercase=True, force=True).score
    assert f"| {expected:.1f} [" in table[2]


def test_a_missing_path_says_no_such_file(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "pairs.csv"
    for args in (["leaderboard", "--dataset", str(missing)],
                 ["leaderboard", "--dataset", str(tmp_path / "gone.zip"), "--references", "reference.0"],
                 ["leaderboard", "--dataset", str(tmp_path / "gone.zip"), "--directions", "0=a>b,1=b>a"],
                 ["correlate", "--dataset", "pairs.csv"]):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.count("error:") == 1 and "error: no such file or folder: '" in err, err
        assert "unknown dataset" not in err and "apply to a folder" not in err
    assert main(["leaderboard", "--dataset", "no-such-name"]) == 2
    assert "error: unknown dataset 'no-such-name'" in capsys.readouterr().err
    assert main(["leaderboard"]) == 2
    assert "give --dataset" in capsys.readouterr().err


def test_the_page_reads_the_repository_zip_and_offers_its_datasets(tmp_path, home):
    from pagetest import run_page

    archive = zip_repository(tmp_path / f"{WRAPPER}.zip")
    name = save_outputs([(archive.name, archive.read_bytes())])
    state = {"outputs-pending": name, "board-metrics": ["bleu", "self_bleu"], "board-resamples": 100,
             "board-full-open": True}  # the full table, unfolded
    at = run_page("7_Leaderboard.py", state=state)
    assert not at.exception and not at.error
    choice = at.selectbox(key=f"outputs-domain:{OutputsChoice.from_name(name).key}")
    assert choice.label == "Dataset in the repository" and choice.options == ["imdb", "yelp"]
    at = choice.select("yelp").run()
    assert not at.exception and not at.error
    inventory = next(d.value for d in at.dataframe if "role" in d.value.columns)
    assert set(inventory.loc[inventory["role"] == "system", "system"]) == {"ours_cond", "ours_multi"}
    assert "data/yelp/train.neg" in set(inventory["file"]) and "data/imdb/train.neg" not in set(inventory["file"])
    assert any("On a known benchmark" in i.value and "Yelp" in i.value for i in at.info)
    board = next(d.value for d in at.dataframe if "BLEU against the references" in d.value.columns)
    assert len(board) == 15 and {"ours_cond", "ours_multi", "DualRL"} <= set(board.index)
    assert board.loc["ours_cond", "BLEU against the references"] == pytest.approx(48.52, abs=0.005)


def test_a_one_system_board_on_the_page_has_no_paired_tests(tmp_path, home):
    from pagetest import run_page, shown

    name = save_outputs([("mine.zip", zipped(style_transformer(), prefix="mine/"))])
    state = {"outputs-pending": name, "board-metrics": ["bleu", "self_bleu"], "board-resamples": 100}
    at = run_page("7_Leaderboard.py", state=state | {"board-full-open": True})  # the full table, unfolded
    assert not at.exception and not at.error
    board = next(d.value for d in at.dataframe if "BLEU against the references" in d.value.columns)
    assert list(board.index) == ["StyleTransformer"] and not any("rank" in c for c in board.columns)
    assert [t.label for t in at.tabs] == ["Two metrics at once", "Per direction", "Worst and best outputs"]  # no paired tests
    assert "One system (StyleTransformer): its measures with 95% intervals; no paired tests" in shown(at.caption)


def test_dualrl_and_li2018_releases_read_as_repositories(corpora, capsys):
    """Two other releases as their repositories lay them out: DualRL's outputs/yelp/SYSTEM/ with references/yelp/
    and data/yelp/; Li et al.'s outputs/DOMAIN/ with data/DOMAIN/, whose captions folder is data/imagecaption."""
    (yelp,) = load_outputs_arg(SHARED_CORPORA / "dualrl")
    assert yelp.pairs["system"].nunique() == 15 and yelp.reference_columns == [
        "reference", "reference:2", "reference:3", "reference:4"]  # 11 systems, Human0-3 (a system by default)
    li = {d.name: d for d in load_outputs_arg(SHARED_CORPORA / "li2018")}
    assert sorted(li) == ["amazon", "imagecaption", "yelp"]
    assert li["imagecaption"].pairs["system"].nunique() == 8 and li["yelp"].reference_columns == ["reference"]
    err = capsys.readouterr().err
    assert "dataset imagecaption (outputs/captions, data/imagecaption):" in err
    assert any(n.startswith("outputs/captions is read with data/imagecaption:") for n in li["imagecaption"].notes)


def test_a_pair_file_without_a_system_column_is_one_system(tmp_path, capsys):
    from test_outputs_intake import NEG, TO_POS

    path = tmp_path / "mine.csv"
    refs = [t.replace(" .", " !") for t in TO_POS]
    pd.DataFrame({"source": NEG, "output": TO_POS, "reference": refs}).to_csv(path, index=False)
    assert main(["leaderboard", "--dataset", str(path), *BOARD, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out))
    assert set(table["system"]) == {"mine"} and set(table["metric"]) == {"bleu", "self_bleu"}
    assert "the pairs name no system: they are one system, called 'mine'" in err
    expected = sacrebleu.corpus_bleu(TO_POS, [refs], lowercase=True).score
    assert table.set_index("metric").loc["bleu", "value"] == pytest.approx(expected, abs=1e-4)
