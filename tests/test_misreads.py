"""Zero silent misreads, third round (issue 56): every class of the held-out kit's silent misreads, on data made here
(and the shared corpora where a release layout is involved): a file is read exactly, or refused in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stviz.cli import main
from stviz.data.intake.build import load_pairs_file

from style_axis_data import parallel


def _rated(tmp_path, ratings, name="rated.csv"):
    informal, formal = parallel()
    texts = (informal + formal)[:len(ratings)]
    path = tmp_path / name
    pd.DataFrame({"sentence": texts, "formality": ratings}).to_csv(path, index=False)
    return path


# -- style scorers that learned nothing, and names replaced -------------------------------------------------------
def test_a_scorer_of_constant_ratings_is_refused_and_nothing_is_saved(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    path = _rated(tmp_path, [1.0] * 40)
    assert main(["classify", "train", "--ratings", str(path), "--name", "flat"]) == 2
    err = capsys.readouterr().err
    assert "every one of the 40 ratings is 1: a scorer cannot learn a style from ratings that do not vary" in err
    assert "Traceback" not in err and "ConstantInputWarning" not in err
    assert not (tmp_path / "home" / "scorers" / "flat").exists()
    path = _rated(tmp_path, [1.0] * 37 + [2.0] * 3, "almost.csv")
    assert main(["classify", "train", "--ratings", str(path), "--name", "almost"]) == 2
    assert "only 3 of the 40 ratings differ from 1: too little variation" in capsys.readouterr().err


def test_saving_a_scorer_under_a_taken_name_says_what_it_replaced(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    rng = np.random.default_rng(0)
    first = _rated(tmp_path, list(np.r_[rng.normal(-1, 0.5, 24), rng.normal(1, 0.5, 24)].round(2)), "first.csv")
    assert main(["classify", "train", "--ratings", str(first), "--name", "mine"]) == 0
    assert "replaced" not in capsys.readouterr().err
    assert main(["classify", "train", "--ratings", str(first), "--name", "mine", "--kind", "ridge-tfidf"]) == 0
    err = capsys.readouterr().err
    assert "note: replaced the scorer saved as 'mine' before (ridge-tfidf on first 'formality', 48 sentences)" in err


# -- missing cells, whatever their spelling -----------------------------------------------------------------------
def test_empty_rating_cells_are_said_with_their_lines_like_written_ones(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("source,output,rating\na b,c d,4\ne f,g h,\ni j,k l,NaN\nm n,o p,3\nq r,s t,  \n",
                    encoding="utf-8")
    dataset, _, _ = load_pairs_file(path)
    notes = " ".join(dataset.notes)
    assert "Column 'rating': 1 cell(s) written as a missing value (None, NaN, null) were read as missing (lines 4" in notes
    assert "Column 'rating': 2 empty cell(s) were read as missing (lines 3 ('')" in notes and "6 ('')" in notes


# -- a path that is not there is said as such, for every verb ---------------------------------------------------
@pytest.mark.parametrize("argv", [["meta-eval", "--datasets", "gone/ratings.csv"], ["meta-eval", "--datasets", "r.csv"],
                                  ["classify", "train", "--ratings", "gone.csv"], ["correlate", "--dataset", "gone.tsv"],
                                  ["leaderboard", "--dataset", "gone/"], ["leaderboard", "--dataset", "demo",
                                                                          "--style-data", "gone.csv"]])
def test_a_missing_file_is_no_such_file_not_an_unknown_dataset(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error: no such file or folder: 'gone" in err or "error: no such file or folder: 'r.csv'" in err
    assert "unknown dataset" not in err and "Traceback" not in err


# -- a user's model that is not what it says ----------------------------------------------------------------------
def test_a_minilm_copy_with_one_weight_changed_is_checked_against_minilms_answer_and_refused(tmp_path):
    import torch
    from safetensors.torch import load_file, save_file

    from stviz.embedders import SentenceTransformerEmbedder
    from stviz.models.known_answers import KnownAnswerError
    from test_known_answers import copy_minilm

    folder = copy_minilm(tmp_path / "my-minilm")
    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    name = "encoder.layer.2.output.dense.weight"
    tensors[name] = tensors[name] + 0.05 * torch.randn_like(tensors[name], generator=torch.Generator().manual_seed(0))
    save_file(tensors, str(path), metadata={"format": "pt"})  # the same shapes: it loads completely
    with pytest.raises(KnownAnswerError, match="its configuration and tokenizer are all-MiniLM-L6-v2"):
        SentenceTransformerEmbedder(str(folder)).encode(["a sentence"])
    # A model of the user's own (its own config) is checked as one: it loads, and its vectors are its own.
    config = folder / "config.json"
    config.write_text(config.read_text().replace('"hidden_act"', '"_name_or_path": "my-minilm", "hidden_act"'))
    vectors = SentenceTransformerEmbedder(str(folder)).encode(["a sentence"])
    assert np.isfinite(vectors).all()


# -- one output column per system --------------------------------------------------------------------------------
def test_one_column_per_system_is_read_as_systems(tmp_path, capsys):
    from stviz.data.intake.mapping import detect_mapping

    informal, formal = parallel()
    frame = pd.DataFrame({"source": informal, "DualRL": formal, "DeleteOnly": [s + " indeed" for s in informal],
                          "RetrieveOnly": [f.replace(".", "!") for f in formal]})
    path = tmp_path / "wide_systems.csv"
    frame.to_csv(path, index=False)
    assert detect_mapping(frame).describe() == "source=source,output=DualRL,output=DeleteOnly,output=RetrieveOnly"
    dataset = load_pairs_file(path)[0]
    assert list(dataset.pairs["system"].unique()) == ["DualRL", "DeleteOnly", "RetrieveOnly"]
    assert len(dataset.pairs) == 3 * len(frame)
    rows = dataset.pairs[dataset.pairs["system"] == "DeleteOnly"]
    assert rows["output"].tolist() == frame["DeleteOnly"].tolist() and rows["source"].tolist() == informal
    assert dataset.notes[0].startswith("One output column per system (a wide file): DualRL, DeleteOnly, RetrieveOnly")
    assert main(["leaderboard", "--dataset", str(path), "--metrics", "self_bleu", "--n-resamples", "100",
                 "--benchmark", "none"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ("DualRL", "DeleteOnly", "RetrieveOnly"))
    # Declared on the command line: two of the three columns.
    chosen, mapping, _ = load_pairs_file(path, columns="output=DualRL,output=RetrieveOnly")
    assert set(chosen.pairs["system"]) == {"DualRL", "RetrieveOnly"} and mapping.unused(frame) == ["DeleteOnly"]


def test_a_text_column_beside_the_output_is_not_a_system():
    from stviz.data.intake.mapping import detect_mapping

    informal, formal = parallel()
    frame = pd.DataFrame({"source": informal, "rewrite_a": formal,
                          "comment": ["checked by Ann on Tuesday"] * len(formal)})
    assert not detect_mapping(frame).outputs  # the comment rewrites nothing of the source


# -- Shen et al.'s release ----------------------------------------------------------------------------------------
def _shen_release(root, corpora):
    """language-style-transfer as released: data/yelp/sentiment.{dev,test}.{0,1}, tmp/ transfers and reconstructions."""
    (root / "data" / "yelp").mkdir(parents=True)
    (root / "tmp").mkdir()
    for d in ("0", "1"):
        lines = (corpora / "yelp-sentiment" / f"sentiment.test.{d}").read_text(encoding="utf-8").splitlines()[:40]
        dev = (corpora / "yelp-sentiment" / f"sentiment.dev.{d}").read_text(encoding="utf-8").splitlines()[:40]
        (root / "data" / "yelp" / f"sentiment.test.{d}").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (root / "data" / "yelp" / f"sentiment.dev.{d}").write_text("\n".join(dev) + "\n", encoding="utf-8")
        swap = ("good", "bad") if d == "1" else ("bad", "good")
        (root / "tmp" / f"sentiment.test.{d}.tsf").write_text(
            "\n".join(line.replace(*swap) + " ." for line in lines) + "\n", encoding="utf-8")
        (root / "tmp" / f"sentiment.test.{d}.rec").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "README.md").write_text("# language-style-transfer\n", encoding="utf-8")
    return root


def test_shens_release_reads_the_transfers_and_lists_the_reconstructions(tmp_path, capsys, corpora):
    import shutil

    checkout = _shen_release(tmp_path / "language-style-transfer", corpora)
    zipped = shutil.make_archive(str(tmp_path / "language-style-transfer-master"), "zip", tmp_path,
                                 "language-style-transfer")
    for given in (checkout, zipped):
        assert main(["leaderboard", "--dataset", str(given), "--metrics", "self_bleu", "--n-resamples", "100",
                     "--benchmark", "none", "--directions", "0=negative>positive,1=positive>negative"]) == 0
        out, err = capsys.readouterr()
        systems = [line.split("|")[1].strip() for line in out.splitlines()[2:] if line.startswith("|")]
        assert systems == ["language-style-transfer"]  # one system: the transfers; the reconstructions never
        assert err.count("(ignored: a reconstruction of the input") == 2
        assert "tmp/sentiment.test.0.tsf" in err and "data/yelp/sentiment.test.0" in err


# -- a partial system on a benchmark ---------------------------------------------------------------------------
def test_a_partial_system_is_compared_on_the_same_inputs(tmp_path, capsys, corpora):
    inputs = (corpora / "dualrl" / "data" / "yelp" / "test.0").read_text(encoding="utf-8").splitlines()[:30]
    path = tmp_path / "partial.csv"
    pd.DataFrame({"source": inputs, "output": [s.replace("bad", "good") for s in inputs]}).to_csv(path, index=False)
    assert main(["leaderboard", "--dataset", str(path), "--metrics", "self_bleu", "--n-resamples", "100",
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert ("the uploaded outputs cover 30 of the benchmark's 1,000 test inputs: the published systems are compared "
            "on the same 30 inputs") in err
    from io import StringIO

    board = pd.read_csv(StringIO(out))
    assert (board["n"] == 30).all() and board["system"].nunique() > 10


def test_a_user_models_fingerprint_is_recorded_and_a_change_said(tmp_path, monkeypatch):
    from stviz.models import known_answers as ka

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    use = ka.ModelUse("cosine", "mine", str(tmp_path), "aaaa")
    assert ka.fingerprint_note(use) == "; fingerprint aaaa recorded"
    changed = ka.fingerprint_note(ka.ModelUse("cosine", "mine", str(tmp_path), "bbbb"))
    assert "its files changed since its first use here (fingerprint aaaa)" in changed


# -- issue 68: style columns under the names people give them -------------------------------------------------------
@pytest.mark.parametrize("source_name,target_name", [("style_from", "style_to"), ("from_style", "to_style"),
                                                     ("src_style", "tgt_style"), ("source_label", "target")])
def test_a_target_style_column_under_any_usual_name_is_the_pairs_target_style(tmp_path, source_name, target_name):
    informal, formal = parallel()
    frame = pd.DataFrame({"source": informal, "output": formal, source_name: "informal", target_name: "formal",
                          "content": np.arange(len(formal)) % 5 + 1.0})
    path = tmp_path / "styles.csv"
    frame.to_csv(path, index=False)
    dataset, mapping, _ = load_pairs_file(path)
    assert mapping.roles["source_style"] == source_name and mapping.roles["target_style"] == target_name
    assert set(dataset.pairs["target_style"]) == {"formal"} and set(dataset.pairs["source_style"]) == {"informal"}
    assert (f"'{target_name}' is read as the pairs' target style: its name says so and its cells name styles "
            "(formal).") in dataset.notes
    assert not mapping.unused(frame)


def test_a_target_column_of_sentences_is_still_a_reference():
    from stviz.data.intake.mapping import detect_mapping

    informal, formal = parallel()
    frame = pd.DataFrame({"source": informal, "output": formal, "target": [f + " Indeed." for f in formal]})
    mapping = detect_mapping(frame)
    assert mapping.references == ["target"] and "target_style" not in mapping.roles


# -- issue 68: human ratings that cannot be correlated, or are written in words -----------------------------------
def _texts(n: int) -> tuple[list[str], list[str]]:
    informal, formal = parallel()
    return [f"{informal[i % 24]} {i}" for i in range(n)], [f"{formal[i % 24]} {i}" for i in range(n)]


def test_a_rating_that_never_varies_is_said_once_in_metrics_vs_humans_and_meta_evaluation(tmp_path, capsys):
    from stviz.analyses import metrics_vs_humans

    sources, outputs = _texts(30)
    path = tmp_path / "flat.csv"
    pd.DataFrame({"source": sources, "output": outputs, "content": 3}).to_csv(path, index=False)
    said = "content: every pair has the same rating (3): no correlation can be computed"
    assert main(["correlate", "--dataset", str(path), "--metrics", "bleu,chrf", "--bootstrap", "20"]) == 0
    assert capsys.readouterr().err.count(f"note: {said}") == 1
    assert main(["meta-eval", "--datasets", str(path), "--metrics", "bleu,chrf", "--bootstrap", "20"]) == 0
    assert capsys.readouterr().err.count(f"note: in flat: {said}") == 1
    result = metrics_vs_humans.run(load_pairs_file(path)[0], metrics_vs_humans.Options(metrics=("bleu",), bootstrap=20))
    assert result.notes.count(said) == 1  # the page shows the analysis's notes


@pytest.mark.parametrize("scale", [("low", "medium", "high"), ("very low", "low", "medium", "high", "very high"),
                                   ("bad", "ok", "good"), ("poor", "fair", "good", "very good", "excellent"),
                                   ("strongly disagree", "disagree", "neutral", "agree", "strongly agree")])
def test_a_rating_written_in_words_of_a_known_scale_is_read_as_its_ranks_and_said(tmp_path, scale):
    sources, outputs = _texts(30)
    ranks = [1 + i % len(scale) for i in range(30)]
    path = tmp_path / "worded.csv"
    pd.DataFrame({"source": sources, "output": outputs,
                  "content": [scale[r - 1].title() for r in ranks]}).to_csv(path, index=False)
    dataset, mapping, _ = load_pairs_file(path)
    assert mapping.human == ["content"]
    assert dataset.pairs["human:content"].tolist() == ranks
    mapped = ", ".join(f"{word} = {k}" for k, word in enumerate(scale, 1))
    assert f"Column 'content': its ratings are written in words, read on the scale {mapped}." in dataset.notes


def test_a_rating_in_words_of_no_known_scale_is_said_and_refused_naming_the_column_and_its_words(tmp_path, capsys):
    from stviz.data.schema import DataError

    sources, outputs = _texts(30)
    path = tmp_path / "grades.csv"
    pd.DataFrame({"source": sources, "output": outputs,
                  "content": [("great", "meh", "nope")[i % 3] for i in range(30)]}).to_csv(path, index=False)
    dataset, mapping, _ = load_pairs_file(path)
    assert mapping.human == [] and mapping.unused(pd.read_csv(path)) == ["content"]
    assert ("'content' is read as no role: named like a human rating, its cells are words on no scale stviz knows "
            "('great', 'meh', 'nope'); write them as numbers.") in dataset.notes
    with pytest.raises(DataError, match=r"column 'content' holds words, not numbers \('great', 'meh', 'nope'\)"):
        load_pairs_file(path, columns="human=content")
    assert main(["correlate", "--dataset", str(path), "--human", "content", "--metrics", "bleu"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "'content'" in errors[0] and "'great', 'meh', 'nope'" in errors[0]
