"""Uploaded system outputs: a zip unpacked safely, kept under the hash of the files, reopened by its name."""

from __future__ import annotations

import io
import zipfile

import pytest

from stviz.data.released import kept_outputs
from stviz.data.released.kept_outputs import (OutputsChoice, extract_zip, is_outputs, load_outputs, open_outputs,
                                     outputs_key, save_outputs)
from stviz.data.schema import DataError

NEG = [f"the {w} was cold ." for w in ("soup", "pasta", "tea", "cake")]
POS = [f"the {w} was fresh ." for w in ("soup", "pasta", "tea", "cake")]


def zipped(files: dict[str, str | bytes]) -> bytes:
    """A zip of {name in the zip: text}, names written as given (so '..' and '/abs' can be tested)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def release(prefix: str = "mine/", references: bool = True) -> dict[str, str]:
    """A flat release of two systems, both directions, references inside, under ``prefix``."""
    files = {f"{prefix}sentiment.test.0": "\n".join(NEG) + "\n", f"{prefix}sentiment.test.1": "\n".join(POS) + "\n"}
    for system in ("alpha", "beta"):
        files[f"{prefix}sentiment.test.0.{system}"] = "\n".join(f"{system} {t}" for t in NEG) + "\n"
        files[f"{prefix}sentiment.test.1.{system}"] = "\n".join(f"{system} {t}" for t in POS) + "\n"
    if references:
        files[f"{prefix}reference.0"] = "\n".join(t.replace("cold", "hot") for t in NEG) + "\n"
        files[f"{prefix}reference.1"] = "\n".join(t.replace("fresh", "stale") for t in POS) + "\n"
    return files


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """An empty STVIZ_HOME, so kept outputs of one test never serve another."""
    monkeypatch.setenv("STVIZ_HOME", str(tmp_path / "home"))  # default_cache() keeps one cache per folder
    return tmp_path / "home"


# -- safe unpacking ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["../evil.txt", "a/../../evil.txt", "/etc/evil.txt", "C:/evil.txt", "a\\..\\..\\evil"])
def test_names_outside_the_folder_are_refused_and_nothing_is_written(tmp_path, bad):
    data = zipped({"mine/sentiment.test.0.alpha": "x\n", bad: "owned\n"})
    with pytest.raises(DataError, match="outside the zip's folder"):
        extract_zip(data, tmp_path / "out", filename="bad.zip")
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil.txt").exists()


def test_macos_shadows_dotfiles_and_folders_are_left_out(tmp_path):
    data = zipped({"mine/": "", "mine/sentiment.test.0.alpha": "x\n", "__MACOSX/mine/._sentiment.test.0.alpha": "junk",
                   "mine/.DS_Store": "junk", ".git/config": "junk"})
    assert extract_zip(data, tmp_path / "out") == ["mine/sentiment.test.0.alpha"]
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == ["mine", "sentiment.test.0.alpha"]


def test_the_size_limit_counts_unpacked_bytes(tmp_path):
    data = zipped({"a.0.alpha": "x" * 6000, "a.0.beta": "y" * 6000})  # compresses to a few hundred bytes
    assert len(data) < 1000
    with pytest.raises(DataError, match="unpacks to at least"):
        extract_zip(data, tmp_path / "out", filename="big.zip", limit=10_000)
    assert not (tmp_path / "out").exists()
    assert len(extract_zip(data, tmp_path / "ok", limit=12_000)) == 2


def test_a_zip_understating_its_sizes_is_stopped_at_the_limit(tmp_path, monkeypatch):
    data = zipped({"a.0.alpha": "x" * 50_000})
    real = zipfile.ZipFile.infolist

    def understated(self):
        infos = real(self)
        for info in infos:
            info.file_size = 10  # the header lies; the bytes unpacked are counted anyway
        return infos

    monkeypatch.setattr(zipfile.ZipFile, "infolist", understated)
    # zipfile reads no further than the stated size and then fails its checksum; the count would stop it too.
    with pytest.raises(DataError, match="the limit is|cannot be unpacked"):
        extract_zip(data, tmp_path / "out", limit=20_000)
    assert not (tmp_path / "out").exists()


def test_not_a_zip_and_too_many_files_are_refused(tmp_path, monkeypatch):
    with pytest.raises(DataError, match="not a readable zip"):
        extract_zip(b"plain text", tmp_path / "out", filename="x.zip")
    monkeypatch.setattr(kept_outputs, "MAX_FILES", 3)
    with pytest.raises(DataError, match="at most 3"):
        extract_zip(zipped({f"f{i}.0.s": "x" for i in range(4)}), tmp_path / "out")


def test_uploaded_files_over_the_limit_together_are_refused(home, monkeypatch):
    monkeypatch.setenv("STVIZ_MAX_UPLOAD_MB", "1")
    with pytest.raises(DataError, match="limit is 1 MB"):
        save_outputs([("a.0.alpha", b"x" * 600_000), ("a.0.beta", b"y" * 600_000)])


# -- keeping and reopening -----------------------------------------------------------------------------
def test_a_zip_is_kept_under_its_hash_and_reopened_by_name(home):
    upload = [("mine.zip", zipped(release()))]
    name = save_outputs(upload)
    assert is_outputs(name) and name == "outputs:" + outputs_key(upload)
    assert (home / "cache" / "uploads" / f"outputs-{outputs_key(upload)}" / "meta.json").is_file()
    assert save_outputs(upload) == name  # the same files: the same name, stored once
    kept = open_outputs(name)
    assert kept.compared.name == "mine" and kept.inventory.problems == []
    table = kept.inventory.table()
    assert set(table["role"]) == {"system", "inputs", "reference"} and len(table) == 8
    ds = load_outputs(name)
    assert sorted(ds.pairs["system"].unique()) == ["alpha", "beta"] and len(ds.pairs) == 16
    assert ds.pairs["reference"].notna().all()
    assert "target_style" not in ds.pairs  # numeric directions: their styles are a choice
    styled = OutputsChoice.from_name(name).changed(directions="0=negative>positive,1=positive>negative").name
    assert OutputsChoice.from_name(styled).directions == "0=negative>positive,1=positive>negative"
    assert set(load_outputs(styled).pairs["target_style"]) == {"negative", "positive"}


def test_a_kept_copy_gone_or_damaged_is_refused_with_what_to_do(home):
    upload = [("mine.zip", zipped(release()))]
    name = save_outputs(upload)
    entry = home / "cache" / "uploads" / f"outputs-{outputs_key(upload)}"
    (entry / "files" / "mine.zip").write_bytes(b"changed")
    with pytest.raises(DataError, match="damaged"):
        open_outputs(name)
    assert not entry.exists()
    with pytest.raises(DataError, match="upload them again on the Leaderboard page"):
        open_outputs(name)
    with pytest.raises(DataError, match="no longer on this server"):
        open_outputs("outputs:../../etc")


def test_loose_files_with_references_beside_a_zip(home):
    files = release(prefix="", references=False)
    upload = [("mine.zip", zipped(files)), ("reference.0", b"\n".join(t.encode() for t in NEG) + b"\n")]
    kept = open_outputs(save_outputs(upload))
    assert [p.name for p in kept.references] == ["reference.0"]
    assert kept.inventory.problems == [] and len(kept.inventory.reference_files) == 1
    loose = [(n, t.encode()) for n, t in release(prefix="").items()]
    ds = load_outputs(save_outputs(loose))
    assert ds.name == "outputs" and ds.pairs["reference"].notna().all()


def test_a_zip_of_domains_and_the_choices_in_the_name(home):
    files = release(prefix="outputs/yelp/") | release(prefix="outputs/amazon/")
    files["outputs/yelp/sentiment.test.0.human"] = "\n".join(t.replace("cold", "warm") for t in NEG) + "\n"
    name = save_outputs([("release.zip", zipped(files))])
    kept = open_outputs(name)
    assert [d.name for d in kept.domains] == ["amazon", "yelp"] and kept.compared.name == "amazon"
    yelp = OutputsChoice.from_name(name).changed(domain="yelp")
    assert open_outputs(yelp.name).compared.name == "yelp"
    assert {f.system for f in open_outputs(yelp.name).inventory.files} == {"alpha", "beta", "human"}
    as_refs = yelp.changed(humans="reference")
    assert {f.system for f in open_outputs(as_refs.name).inventory.files} == {"alpha", "beta"}
    with pytest.raises(DataError, match="dataset 'imdb' is not among"):
        open_outputs(yelp.changed(domain="imdb").name)


def test_a_folder_that_cannot_be_compared_is_refused_in_one_line(home):
    files = release(references=False)
    del files["mine/sentiment.test.0"], files["mine/sentiment.test.1"]  # bare outputs, no inputs
    name = save_outputs([("mine.zip", zipped(files))])
    kept = open_outputs(name)
    assert kept.inventory.problems and all("no inputs file" in p.message for p in kept.inventory.problems)
    with pytest.raises(DataError, match=r"^mine cannot be compared: sentiment\.test\.0\.alpha: bare outputs") as error:
        load_outputs(name)
    assert "\n" not in str(error.value)


def test_an_unsafe_zip_keeps_nothing(home):
    with pytest.raises(DataError, match="outside"):
        save_outputs([("bad.zip", zipped({"../x.0.alpha": "x"}))])
    assert not list(home.rglob("outputs-*"))


def test_kept_outputs_are_in_the_uploads_area_and_cleared_only_with_it(home):
    from stviz.cache import default_cache

    name = save_outputs([("mine.zip", zipped(release()))])
    cache = default_cache()
    (uploads,) = [a for a in cache.areas() if a.name == "uploads"]
    assert uploads.bytes > 0 and uploads.confirm
    cache.clear()  # every area but uploads
    assert open_outputs(name).inventory.problems == []
    cache.clear(["uploads"])
    with pytest.raises(DataError, match="no longer on this server"):
        open_outputs(name)
