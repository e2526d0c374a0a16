"""Li et al. 2018 as three built-in datasets: outputs aligned with inputs, references, crowd ratings."""

from __future__ import annotations

import lib2to3  # noqa: F401 - fails loudly (not a skip) if this Python can no longer translate run_eval.py
import subprocess
import sys

import pytest

from conftest import SHARED_CORPORA
from stviz.data import available_datasets, load_dataset
from stviz.data.corpora.li2018 import PAPER_ORDER, SYSTEM_NAMES, human_evaluation_table
from stviz.data.corpora.sources import MANIFEST, SOURCES

DOMAINS = ("yelp", "amazon", "captions")


@pytest.fixture(scope="module")
def li2018(corpora):
    return {d: load_dataset(f"li2018-{d}") for d in DOMAINS}


def test_three_datasets_from_one_corpus_with_remote_paths(corpora):
    names = {i.name: i for i in available_datasets()}
    for d in DOMAINS:
        assert names[f"li2018-{d}"].available and "fetch li2018" in names[f"li2018-{d}"].how_to_get
    source = SOURCES["li2018"]
    assert source.remote_path("li2018", "outputs/yelp/sentiment.test.0.mit") == "evaluation/outputs/yelp/sentiment.test.0.mit"
    assert source.remote_path("li2018", "data/yelp/reference.0") == "data/yelp/reference.0"
    assert source.url("li2018", "run_eval.py").startswith("https://raw.githubusercontent.com/lijuncen/")
    assert len(MANIFEST["li2018"]) == 72


def test_pairs_systems_styles_and_references(li2018):
    yelp = li2018["yelp"].pairs
    assert yelp.groupby("system").size().to_dict() == {s: 1000 for s in PAPER_ORDER}
    first = yelp[(yelp["system"] == "CrossAligned") & (yelp["line"] == 0) & (yelp["direction"] == "0")].iloc[0]
    assert first["source"] == "ever since joes has changed hands it 's just gotten worse and worse ."
    assert first["output"] == "i recommend that has out to it 's always great and fun ."
    assert (first["source_style"], first["target_style"]) == ("negative", "positive")
    assert first["reference"] == "Ever since joes has changed hands it's gotten better and better."
    human = yelp[yelp["system"] == "Human"]
    assert (human["output"] == human["reference"]).all()  # the human rewrites are the references
    captions = li2018["captions"].pairs
    assert set(captions["source_style"]) == {"factual"}
    assert set(captions["target_style"]) == {"romantic", "humorous"}
    assert set(li2018["captions"].texts["style"]) == {"romantic", "humorous"}
    assert any("not UTF-8" in n for n in li2018["captions"].notes)  # sentiment.train.1 is cp1252


def test_amazon_deleteonly_skipped_line_is_realigned_not_shifted(li2018):
    pairs = li2018["amazon"].pairs
    delete_only = pairs[(pairs["system"] == "DeleteOnly") & (pairs["direction"] == "0")]
    assert len(delete_only) == 499 and 400 not in set(delete_only["line"])
    raw = (SHARED_CORPORA / "li2018/outputs/amazon/sentiment.test.0.label").read_text().splitlines()
    # File line 401 (0-based 400) holds the output for official input line 402 (0-based 401).
    row = delete_only[delete_only["line"] == 401].iloc[0]
    assert row["output"] == raw[400].split("\t")[1].strip()
    assert any("DeleteOnly" in n and "no output for 1 input" in n for n in li2018["amazon"].notes)
    # Amazon's references come in another order than the inputs: matched by text.
    assert pairs["reference"].notna().all()


def test_every_rated_output_gets_its_scores(li2018):
    for d in DOMAINS:
        pairs = li2018[d].pairs
        rated = pairs["human:grammaticality"].notna()
        assert rated.sum() == 8 * 400
        assert (pairs.loc[rated, "line"] < 200).all()
        assert pairs.loc[rated, ["human:grammaticality", "human:attribute", "human:content"]].isin(range(1, 6)).all().all()


def _authors_script_means(domain: str, tmp_path) -> dict[str, dict[str, float]]:
    """Run the authors' run_eval.py (Python 2, translated by lib2to3) on the corpus; its printed means."""
    script = (SHARED_CORPORA / "li2018" / "run_eval.py").read_text()
    from lib2to3 import refactor

    tool = refactor.RefactoringTool(refactor.get_fixers_from_package("lib2to3.fixes"))
    translated = tmp_path / "run_eval3.py"
    translated.write_text(str(tool.refactor_string(script + "\n", "run_eval.py")))
    folder = {"yelp": "yelp", "amazon": "amazon", "captions": "captions"}[domain]
    arg = {"captions": "caption"}.get(domain, domain)
    done = subprocess.run([sys.executable, str(translated), arg, str(SHARED_CORPORA / "li2018/outputs" / folder),
                           str(SHARED_CORPORA / f"li2018/human_ratings/ratings-{folder}.csv"), "-n", "200"],
                          capture_output=True, text=True, check=True)
    means: dict[str, dict[str, float]] = {}
    model = None
    for line in done.stdout.splitlines():
        if line and not line.startswith(" "):
            model = line.strip()
            means[model] = {}
        elif ":" in line and model:
            key, value = line.strip().split(":")
            means[model][key] = float(value.split("+/-")[0])
    return means


@pytest.mark.parametrize("domain", DOMAINS)
def test_human_evaluation_table_equals_the_authors_aggregation(li2018, domain, tmp_path):
    """The paper's human-evaluation table, recomputed from the raw ratings, equals what the authors' script prints."""
    ours = human_evaluation_table(li2018[domain].pairs)
    theirs = _authors_script_means(domain, tmp_path)
    assert len(theirs) == 8
    for suffix, values in theirs.items():
        row = ours.loc[SYSTEM_NAMES[suffix]]
        # The script prints three decimals.
        assert row["grammaticality"] == pytest.approx(values["grammaticality"], abs=5.01e-4)
        assert row["attribute"] == pytest.approx(values["sentiment"], abs=5.01e-4)
        assert row["content"] == pytest.approx(values["topic"], abs=5.01e-4)
        assert row["success"] == pytest.approx(values["success"], abs=5.01e-4)
        assert row["n"] == 400


def test_human_table_values_pinned(li2018):
    """Our recomputation from the raw ratings (pinned; the authors' script agrees, test above)."""
    table = human_evaluation_table(li2018["yelp"].pairs)
    assert table.loc["DeleteAndRetrieve", "success"] == pytest.approx(0.2875)
    assert table.loc["Human", "grammaticality"] == pytest.approx(4.555)
    # Among the systems, DeleteAndRetrieve succeeds most often in every domain, as the paper reports.
    for d in DOMAINS:
        success = human_evaluation_table(li2018[d].pairs)["success"].drop("Human")
        assert success.idxmax() == "DeleteAndRetrieve"
