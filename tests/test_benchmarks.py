"""Benchmark cards on the real corpora: an upload on the Yelp test set is recognised and placed among the published
systems, whose BLEU and self-BLEU equal an independent sacrebleu run on the released files."""

from __future__ import annotations

import io

import pandas as pd
import pytest
import sacrebleu

from stviz.benchmarks import BENCHMARKS, get
from stviz.benchmarks.match import match_key, recognise
from stviz.benchmarks.published import official_inputs, published_pairs
from stviz.cli import main
from stviz.data.schema import Dataset
from conftest import SHARED_CORPORA

DUALRL = SHARED_CORPORA / "dualrl"
FOLDERS = {"CrossAligned": "CrossAlignment_Shen", "StyleEmbedding": "StyleEmbedding_Fu",
           "MultiDecoder": "Multidecoder_Fu", "BackTranslation": "BackTranslation_Pr", "TemplateBased": "TemplateBase_Li",
           "RetrieveOnly": "RetrieveOnly_Li", "DeleteOnly": "DeleteOnly_Li", "DeleteAndRetrieve": "DeleteRetrieve_Li",
           "UnpairedRL": "UnpairedRL_Xu", "UnsuperMT": "UnsuperMT_Zhang", "DualRL": "DualRL"}


def _lines(path) -> list[str]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("cp1252")  # reference2.0 is Windows-1252, as released
    return [line.strip() for line in text.replace("\r\n", "\n").split("\n")[:500]]


def _expected(folder: str) -> tuple[float, float]:
    """BLEU against the four references and self-BLEU, by sacrebleu alone on the released files."""
    hyps, srcs, refs = [], [], [[] for _ in range(4)]
    for d, name in (("0", "test.0-1.tsf"), ("1", "test.1-0.tsf")):
        hyps += [line.split("\t")[1] for line in _lines(DUALRL / "outputs" / "yelp" / folder / name)]
        srcs += _lines(DUALRL / "data" / "yelp" / f"test.{d}")
        for k in range(4):
            refs[k] += _lines(DUALRL / "references" / "yelp" / f"reference{k}.{d}")
    bleu = sacrebleu.corpus_bleu(hyps, refs, lowercase=True, force=True).score
    self_bleu = sacrebleu.corpus_bleu(hyps, [srcs], lowercase=True, force=True).score
    return bleu, self_bleu


def test_cards_list_their_sources_and_gyafc_says_how_to_get_it(corpora, capsys):
    yelp = get("yelp")
    assert yelp.corpora == ["dualrl"] and len(yelp.systems) == 11 and len(yelp.references) == 4
    assert all(s.source and s.licence for b in BENCHMARKS.values() for s in b.systems)
    assert yelp.system("DualRL").reported_value("bleu").value == 55.2
    assert main(["data", "fetch", "gyafc"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "on request" in err and "sha256 unknown" in err
    assert main(["data", "benchmarks"]) == 0 and "yelp" in capsys.readouterr().out


def test_yelp_inputs_and_li2018_reference_are_dualrl_reference0(corpora):
    li = SHARED_CORPORA / "li2018" / "data" / "yelp"
    for d in "01":
        assert official_inputs(get("yelp"))[d] == _lines(li / f"sentiment.test.{d}")
        rewrites = [match_key(line.split("\t")[1]) for line in _lines(li / f"reference.{d}")]
        same = [sum(match_key(a) == b for a, b in zip(_lines(DUALRL / "references" / "yelp" / f"reference{k}.{d}"),
                                                       rewrites)) for k in range(4)]
        assert same[0] >= 0.9 * 500 and max(same[1:]) < 0.1 * 500, same  # reference0 is Li et al.'s, tokenised


def test_li2018_seven_systems_are_dualrl_copies_and_other_domains_load(corpora):
    yelp = published_pairs(get("yelp")).pairs
    li = SHARED_CORPORA / "li2018" / "outputs" / "yelp"
    for name, suffix in (("DeleteOnly", "label"), ("CrossAligned", "mit"), ("DeleteAndRetrieve", "orgin")):
        theirs = [line.split("\t")[1].lower() for line in _lines(li / f"sentiment.test.0.{suffix}")]
        ours = yelp[(yelp["system"] == name) & (yelp["direction"] == "0")].sort_values("line")["output"].str.lower()
        assert ours.tolist() == theirs
    for name in ("amazon", "captions"):
        pairs = published_pairs(get(name)).pairs
        assert pairs["system"].nunique() == 7 and "Human" not in set(pairs["system"])


def test_an_upload_on_the_yelp_test_set_is_ranked_among_the_published_systems(corpora, tmp_path, capsys):
    mine = tmp_path / "mine" / "MySystem"
    mine.mkdir(parents=True)
    for name in ("test.0-1.tsf", "test.1-0.tsf"):  # DualRL's outputs, under another system's name
        (mine / name).write_bytes((DUALRL / "outputs" / "yelp" / "DualRL" / name).read_bytes())
    code = main(["leaderboard", "--dataset", str(tmp_path / "mine"), "--metrics", "bleu,self_bleu",
                 "--n-resamples", "100", "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "benchmark: the Yelp test set of Li et al. 2018: 1,000 of 1,000 inputs matched" in err
    assert "placed among its 11 published systems" in err and "nrefs:4" in err
    table = pd.read_csv(io.StringIO(out)).set_index(["system", "metric"])["value"]
    assert set(table.index.get_level_values(0)) == set(FOLDERS) | {"MySystem"}
    for system, folder in FOLDERS.items():
        bleu, self_bleu = _expected(folder)
        assert table[(system, "bleu")] == pytest.approx(bleu, abs=0.01), system
        assert table[(system, "self_bleu")] == pytest.approx(self_bleu, abs=0.01), system
    assert table[("MySystem", "bleu")] == pytest.approx(table[("DualRL", "bleu")], abs=1e-9)
    assert table[("DualRL", "bleu")] == pytest.approx(54.95, abs=0.01)  # the paper printed 55.2
    assert "reported vs recomputed" in err and "55.20" in err


def test_a_pair_file_is_recognised_by_its_inputs_written_as_people_write(corpora):
    yelp = published_pairs(get("yelp")).pairs
    rows = yelp[yelp["system"] == "UnsuperMT"]
    # Detokenised, capitalised inputs still match the released tokenised ones (the leaderboard's text form).
    sources = rows["source"].str.replace(" 's ", "'s ").str.replace(r" \.$", ".", regex=True).str.capitalize()
    placement = recognise(Dataset("mine", "mine", pairs=pd.DataFrame({"source": sources, "output": rows["output"]})))
    assert placement is not None and placement.benchmark.name == "yelp"
    assert placement.describe().startswith("the Yelp test set of Li et al. 2018: 1,000 of 1,000 inputs matched")
    assert recognise(Dataset("x", "x", pairs=pd.DataFrame({"source": ["hello there"], "output": ["hi"]}))) is None


def test_a_built_in_corpus_is_not_placed_among_its_own_published_systems(corpora):
    """li2018-yelp is Li et al.'s release: its systems are published ones already (the Leaderboard shows 8, not 19)."""
    from stviz.benchmarks.match import recognise
    from stviz.data import load_dataset

    assert recognise(load_dataset("li2018-yelp")) is None
