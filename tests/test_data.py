"""Loaders of the real corpora, the demo, uploaded pair files, and corpus import / fetch."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from conftest import SHARED_CORPORA
from stviz.data import available_datasets, load_dataset
from stviz.data.intake.build import apply_mapping
from stviz.data.intake.mapping import detect_mapping
from stviz.data.intake.readers import read_pairs_file
from stviz.data.schema import DataError, Dataset


# -- real corpora -----------------------------------------------------------------------------
def test_cds_has_eleven_styles_of_a_thousand(cds):
    counts = cds.texts["style"].value_counts()
    assert len(counts) == 11 and (counts == 1000).all()
    assert "shakespeare" in counts and "english_tweets" in counts


def test_sgdd_pairs_scores_and_metric_columns(sgdd):
    assert len(sgdd.pairs) == 10287
    assert sgdd.pairs["human:average"].between(1, 3).all()
    for col in ("metric:bleu", "metric:chrf", "metric:Elron/bleurt-large-512", "metric:scipy_ner", "metric:w2v_cossim"):
        assert col in sgdd.metric_columns
    first = sgdd.pairs.iloc[0]
    assert first["source"] == "4th of March, 4 people going."
    assert first["human:average"] == pytest.approx(2.666666667)
    assert first["metric:bleu"] == pytest.approx(0.3491329799666463)


def test_mir_yelp_aligns_human_scores_with_pairs(mir_yelp):
    pairs = mir_yelp.pairs
    assert len(pairs) == 12 * 244
    assert sorted(pairs["system"].unique()) == ["ARAE", "CAAE", "DAR"]
    one = pairs[(pairs["system"] == "CAAE") & (pairs["setting"] == "rho=0.01")]
    published = np.load(SHARED_CORPORA / "mir-yelp/evaluations/human/content_preservation/CAAE_rho_0_01.npy")
    np.testing.assert_allclose(one["human:content_preservation"], published)
    assert (one["source_style"].iloc[:122] == "negative").all() and (one["target_style"].iloc[:122] == "positive").all()
    assert one["output"].iloc[0] == (SHARED_CORPORA / "mir-yelp/transfer_model_outputs/CAAE/rho_0_01/sentiment.test.0.tsf").read_text().splitlines()[0].strip()
    # Naturalness was rated for 9 settings; DAR gamma=0.1 has none.
    dar = pairs[(pairs["system"] == "DAR") & (pairs["setting"] == "gamma=0.1")]
    assert dar["human:naturalness"].isna().all() and one["human:naturalness"].notna().all()
    assert set(one["human:naturalness_relative"].dropna()) <= {"input", "output"}
    assert "human:naturalness_relative" not in mir_yelp.human_columns  # categorical, not a score
    assert mir_yelp.lexicon["worst"] < 0 < mir_yelp.lexicon["great"]
    assert len(mir_yelp.lexicon) > 100


def test_yelp_sentiment_labels(yelp_sentiment):
    texts = yelp_sentiment.texts
    assert set(texts["style"]) == {"negative", "positive"}
    assert set(texts["split"]) == {"dev", "test"}
    assert len(texts) == 25278 + 38205 + 50278 + 76392


def test_paradetox_comments_and_rewrites_as_released(corpora):
    # Read independently with the csv module: a quoted TSV, seven rewrites holding a line break inside their quotes.
    import csv

    with (SHARED_CORPORA / "paradetox" / "paradetox.tsv").open(encoding="utf-8", newline="") as handle:
        header, *rows = list(csv.reader(handle, delimiter="\t"))
    assert header == ["toxic", "neutral1", "neutral2", "neutral3"] and len(rows) == 11927
    rewrites = [(r[0], cell) for r in rows for cell in r[1:] if cell]
    kept = [(toxic, text) for toxic, text in rewrites if text.strip() != toxic.strip()]
    assert (len(rewrites), len(kept)) == (19743, 19617)
    texts = load_dataset("paradetox").texts
    assert texts["style"].value_counts().to_dict() == {"neutral": 19617, "toxic": 11927}
    assert sorted(zip(texts.loc[texts["style"] == "neutral", "input"], texts.loc[texts["style"] == "neutral", "text"])) \
        == sorted(kept)  # each rewrite with its comment, the group a held-out test keeps on one side
    assert ("dont cry bitch laugh ! ! ! laugh ! ! ! ! just kidding",
            "don't cry! laugh! laugh!\nI'm just kidding.") in kept  # one text, its line break kept
    assert not set(texts.loc[texts["style"] == "toxic", "text"]) & set(texts.loc[texts["style"] == "neutral", "text"])
    assert any("126 rewrites identical to their toxic comment are left out" in n for n in load_dataset("paradetox").notes)


def test_demo_works_offline_and_is_marked_illustrative():
    demo = load_dataset("demo")
    assert demo.illustrative and demo.has_styles and demo.has_systems
    assert demo.counts()["styles"] == 5 and demo.counts()["pairs"] == 72
    assert demo.human_columns == ["human:content_preservation", "human:style_transfer_intensity"]


def test_every_listed_dataset_loads_or_says_how_to_get_it(corpora):
    infos = available_datasets()
    assert {i.name for i in infos} >= {"demo", "cds", "sgdd-tst", "mir-yelp", "yelp-sentiment", "paradetox"}
    for info in infos:
        assert info.available
        assert isinstance(load_dataset(info.name), Dataset)
    with pytest.raises(DataError, match="unknown dataset"):
        load_dataset("no-such-dataset")


# -- uploads ------------------------------------------------------------------------------------
PAIRS = pd.DataFrame({
    "input": ["hi there", "gimme that", "see u", "see u"],
    "prediction": ["Hello.", "Please give me that.", "Goodbye.", "Goodbye."],
    "model": ["a", "a", "b", "b"],
    "human_fluency": [4, 5, 3, 3],
    "bleu": [0.1, 0.2, 0.3, 0.3],
})


def _bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    if fmt == "csv":
        return frame.to_csv(index=False).encode()
    if fmt == "tsv":
        return frame.to_csv(index=False, sep="\t").encode()
    if fmt == "jsonl":
        return frame.to_json(orient="records", lines=True).encode()
    buf = io.BytesIO()
    frame.to_excel(buf, index=False)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "xlsx"])
def test_upload_formats_detect_the_same_mapping(fmt):
    frame, notes = read_pairs_file(f"pairs.{fmt}", _bytes(PAIRS, fmt))
    mapping = detect_mapping(frame)
    assert mapping.roles["source"] == "input" and mapping.roles["output"] == "prediction"
    assert mapping.roles["system"] == "model"
    assert mapping.human == ["human_fluency"] and mapping.metrics == ["bleu"]
    ds = apply_mapping(frame, mapping)
    assert ds.human_columns == ["human:fluency"] and ds.metric_columns == ["metric:bleu"]
    assert len(ds.pairs) == 3  # the exact duplicate row is dropped...
    assert any("duplicate" in n for n in ds.notes)  # ...and said so


def test_upload_reports_empty_rows_and_bad_numbers():
    frame = PAIRS.astype(str).copy()
    frame.loc[1, "prediction"] = ""
    frame.loc[0, "human_fluency"] = "n/a"
    table, _ = read_pairs_file("p.csv", frame.to_csv(index=False).encode())
    ds = apply_mapping(table, detect_mapping(table))
    assert "Dropped 1 row(s) with an empty source or output (lines 3)." in ds.notes
    assert ("Column 'human_fluency': 1 value(s) are not finite numbers and were left empty (lines 2 ('n/a'))."
            in ds.notes)
    assert np.isnan(ds.pairs["human:fluency"].iloc[0])


def test_non_utf8_file_is_decoded_and_the_user_told():
    data = "source,output\ncaf\xe9 ok,Caf\xe9 is fine.\n".encode("cp1252")
    frame, notes = read_pairs_file("latin.csv", data)
    assert frame.iloc[0]["source"] == "café ok"
    assert notes[0] == ("'latin.csv' is not UTF-8 (line 2 has the byte 0xE9); it was decoded as Windows-1252. "
                        "Check accented characters, or re-save as UTF-8.")


@pytest.mark.parametrize("name,data,message", [
    ("pairs.pdf", b"%PDF", "unsupported file type"),
    ("empty.csv", b"   \n", "is empty"),
    ("bad.jsonl", b'{"source": "a", "output": "b"}\nnot json\n', "line 2 is not a JSON object"),
    ("dup.csv", b"a,a\nx,y\n", "repeated column names"),
])
def test_unreadable_files_get_clear_messages(name, data, message):
    with pytest.raises(DataError, match=message):
        read_pairs_file(name, data)


def test_too_large_file_is_refused(monkeypatch):
    monkeypatch.setenv("STVIZ_MAX_UPLOAD_MB", "1")
    with pytest.raises(DataError) as refused:
        read_pairs_file("big.csv", b"source,output\n" + b"a,b\n" * 300_000)
    assert str(refused.value) == ("'big.csv' is 1.1 MB; the limit is 1 MB per file "
                                  "(set STVIZ_MAX_UPLOAD_MB to raise it, or split the file)")


def test_missing_mapped_columns_are_named():
    frame, _ = read_pairs_file("p.csv", b"score,bleu\n1,0.5\n2,0.7\n")
    with pytest.raises(DataError, match="no column is mapped to 'source'; the file has: score, bleu"):
        apply_mapping(frame, detect_mapping(frame))


# -- import and fetch ----------------------------------------------------------------------------
def test_import_verifies_files(tmp_path, monkeypatch):
    from stviz.data.corpora import sources

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))
    fake = tmp_path / "src" / "cds"
    fake.mkdir(parents=True)
    for rel in sources.MANIFEST["cds"]:
        (fake / rel).write_bytes((SHARED_CORPORA / "cds" / rel).read_bytes())
    (fake / "joyce.txt").write_text("tampered\n")
    with pytest.raises(DataError, match="differs from the published version"):
        sources.import_folder(tmp_path / "src", ["cds"])
    assert not sources.is_installed("cds")  # nothing half-installed
    status = sources.import_folder(SHARED_CORPORA, ["cds"])
    assert status["cds"].startswith("imported") and sources.is_installed("cds")


class _Response:
    def __init__(self, content: bytes, status: int = 200):
        self.content, self.status_code = content, status


def test_fetch_downloads_verifies_and_installs(tmp_path, monkeypatch):
    # The network is the true external border: the download answers with the published bytes.
    import requests

    from stviz.data.corpora import sources

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    asked = []

    def fake_get(self, url, timeout):
        asked.append(url)
        rel = url.split("/HEAD/", 1)[1].replace("dataset/", "").replace("metric/", "")
        return _Response((SHARED_CORPORA / "sgdd-tst" / rel).read_bytes())

    monkeypatch.setattr(requests.Session, "get", fake_get)
    seen = []
    sources.fetch("sgdd-tst", progress=lambda d, t: seen.append(d))
    assert sources.is_installed("sgdd-tst") and seen[-1] == len(sources.MANIFEST["sgdd-tst"])
    assert "https://raw.githubusercontent.com/s-nlp/SGDD-TST/HEAD/metric/SGDD-TST_with_metrics.csv" in asked


def test_fetch_offline_fails_fast_and_points_to_import(tmp_path, monkeypatch):
    import requests

    from stviz.data.corpora import sources

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))

    def offline(self, url, timeout):
        raise requests.ConnectionError("no route to host")

    monkeypatch.setattr(requests.Session, "get", offline)
    with pytest.raises(DataError, match="offline.*data import"):
        sources.fetch("cds")
    assert not sources.is_installed("cds")
    monkeypatch.setattr(requests.Session, "get", lambda self, url, timeout: _Response(b"<html>", 404))
    with pytest.raises(DataError, match="HTTP 404"):
        sources.fetch("cds")


def test_paradetox_is_fetched_from_its_pinned_commit_or_refused_offline(tmp_path, monkeypatch):
    import requests

    from stviz.data.corpora import sources

    monkeypatch.setenv("STVIZ_HOME", str(tmp_path))
    asked = []

    def published(self, url, timeout):
        asked.append(url)
        rel = url.removeprefix("https://raw.githubusercontent.com/s-nlp/paradetox/d97b17d/")
        local = {"README.md": "README.upstream.md", "LICENSE": "LICENSE", "paradetox/paradetox.tsv": "paradetox.tsv"}
        return _Response((SHARED_CORPORA / "paradetox" / local[rel]).read_bytes())

    monkeypatch.setattr(requests.Session, "get", published)
    sources.fetch("paradetox")
    assert sources.is_installed("paradetox") and len(load_dataset("paradetox").texts) == 11927 + 19617
    assert "https://raw.githubusercontent.com/s-nlp/paradetox/d97b17d/paradetox/paradetox.tsv" in asked
    assert "CC0" in sources.SOURCES["paradetox"].licence
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "offline"))

    def offline(self, url, timeout):
        raise requests.ConnectionError("no route to host")

    monkeypatch.setattr(requests.Session, "get", offline)
    with pytest.raises(DataError, match="could not download paradetox.*offline.*data import DIR"):
        sources.fetch("paradetox")
    assert not sources.is_installed("paradetox")
    status = sources.import_folder(SHARED_CORPORA, ["paradetox"])  # the way offline: a local copy
    assert status["paradetox"] == "imported (3 files)" and sources.is_installed("paradetox")


def test_manifest_matches_the_shared_corpora():
    manifest = json.loads((__import__("stviz.data.corpora.sources", fromlist=["x"]).Path(__file__).parents[1]
                           / "stviz/data/corpora/manifest.json").read_text())
    for corpus, files in manifest.items():
        for rel, (size, _) in files.items():
            assert (SHARED_CORPORA / corpus / rel).stat().st_size == size
