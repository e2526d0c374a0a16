"""Getting the public corpora onto this machine: download from the authors' repositories, or
import from a local folder laid out like ``../shared/corpora``. Every file is checked against
``manifest.json`` (size and SHA-256 of the published version) before it is put in place.

Corpora are never committed to the project; they live in ``$STVIZ_HOME/corpora/NAME``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stviz.cache import stviz_home
from stviz.data.schema import DataError
from stviz.progress import Progress

MANIFEST: dict[str, dict[str, list]] = json.loads((Path(__file__).with_name("manifest.json")).read_text())



@dataclass(frozen=True)
class Source:
    """Where a corpus is published: a GitHub repository and how local paths map into it."""

    repo: str
    citation: str
    licence: str
    #: The commit the files were hashed at (``HEAD``: the default branch). A pinned commit keeps a later change in
    #: the repository from failing every download's SHA-256 check.
    ref: str = "HEAD"

    def remote_path(self, corpus: str, rel: str) -> str:
        """Path inside the repository of the local file ``rel``."""
        if corpus == "cds":
            return rel if rel == "LICENSE" else f"data_samples/{rel}"
        if corpus == "sgdd-tst":
            return f"metric/{rel}" if rel == "SGDD-TST_with_metrics.csv" else f"dataset/{rel}"
        if corpus == "mir-yelp":
            return f"data/{rel}" if rel.startswith("sentiment.test.") else rel
        if corpus == "li2018":
            # The corpus folder holds the repository's evaluation/ folder's content beside its data/.
            return rel if rel.startswith("data/") else f"evaluation/{rel}"
        if corpus in ("dualrl", "style-transformer", "russe-detox"):
            return rel  # the repository's own paths (outputs/yelp/, data/yelp/test.*, data/input/dev.tsv)
        if corpus == "russe2022-humaneval":
            # The judges' files sit in the repository's plotting folder; its README is kept as README.upstream.md.
            if rel.startswith("llm_judges/"):
                return f"vizualize/models_to_plot/russe2022/{rel.split('/', 1)[1]}"
            return "README.md" if rel == "README.upstream.md" else f"dataset/{rel}"
        if corpus == "informal":
            return rel  # the repository's own paths
        if corpus == "paradetox":
            # The corpus is the repository's paradetox/ folder; its top README (as README.upstream.md) and LICENSE beside.
            return {"README.upstream.md": "README.md", "LICENSE": "LICENSE"}.get(rel, f"paradetox/{rel}")
        if corpus == "pt16":
            # The folder's README is kept as README.upstream.md beside the data (it holds the citations).
            return f"best-practices/Formality/PT16_for_huggingface/{'README.md' if rel == 'README.upstream.md' else rel}"
        return f"data/yelp/{rel}"

    def url(self, corpus: str, rel: str) -> str:
        """Download address of one file, at the pinned commit (else the default branch)."""
        return f"https://raw.githubusercontent.com/{self.repo}/{self.ref}/{self.remote_path(corpus, rel)}"


SOURCES = {
    "cds": Source("martiansideofthemoon/style-transfer-paraphrase",
                  "Krishna, Wieting, Iyyer. Reformulating Unsupervised Style Transfer as Paraphrase Generation. EMNLP 2020.",
                  "MIT"),
    "sgdd-tst": Source("s-nlp/SGDD-TST",
                       "Babakov et al. Studying the role of named entities for content preservation in text style transfer. NLDB 2022.",
                       "research data; see the repository"),
    "mir-yelp": Source("passeul/style-transfer-model-evaluation",
                       "Mir, Felbo, Obradovich, Rahwan. Evaluating Style Transfer for Text. NAACL 2019.",
                       "research data; see the repository"),
    "li2018": Source("lijuncen/Sentiment-and-Style-Transfer",
                     "Li, Jia, He, Liang. Delete, Retrieve, Generate: a Simple Approach to Sentiment and Style "
                     "Transfer. NAACL 2018.",
                     "CC BY-SA 4.0 (dataset, per the repository README)"),
    "dualrl": Source("luofuli/DualRL",
                     "Luo, Li, Zhou, Yang, Chang, Sui, Sun. A Dual Reinforcement Learning Framework for Unsupervised "
                     "Text Style Transfer. IJCAI 2019.",
                     "MIT (repository LICENSE); Yelp dataset terms apply"),
    # No licence file at the pinned commits: fetched on a user's request (data fetch), never shipped with stviz.
    "style-transformer": Source("fastnlp/style-transformer",
                                "Dai, Liang, Qiu, Huang. Style Transformer: Unpaired Text Style Transfer without "
                                "Disentangled Latent Representation. ACL 2019.",
                                "none stated at 5105cb5 (a later commit adds an MIT LICENSE for the code); Yelp and "
                                "IMDb terms apply: fetched on request, never shipped", ref="5105cb5"),
    "russe-detox": Source("s-nlp/russe_detox_2022",
                          "Dementieva, Logacheva, Nikishina, Fenogenova, Dale, Krotova, Semenov, Shavrina, Panchenko. "
                          "RUSSE-2022: Findings of the First Russian Detoxification Shared Task Based on Parallel "
                          "Corpora. Dialogue 2022.",
                          "none stated in the repository: fetched on request, never shipped",
                          ref="a2f79da9f0c11de5c6c0f55a62899db1eff426ff"),
    "russe2022-humaneval": Source("textdetox/eval-of-detox-eval",
                                  "Protasov, Babakov, Dementieva, Panchenko. Evaluating Text Style Transfer: A "
                                  "Nine-Language Benchmark for Text Detoxification. LREC 2026 (arXiv 2507.15557).",
                                  "none stated in the repository: fetched on request, never shipped", ref="7660222"),
    "informal": Source("google-research-datasets/informal",
                       "Krishna, Nathani, Garcia, Samanta, Talukdar. Few-shot Controllable Style Transfer for "
                       "Low-Resource Multilingual Settings. ACL 2022.",
                       "Apache-2.0 (LICENSE)", ref="5f5ee9bda8d933ceb03ef5e1cf1e4e37ac93bc01"),
    "pt16": Source("Elbria/xformal-FoST-meta",
                   "Pavlick, Tetreault. An Empirical Analysis of Formality in Online Communication. TACL 2016; as "
                   "released by Briakou, Agrawal, Tetreault, Carpuat. Evaluating the Evaluation Metrics for Style "
                   "Transfer. EMNLP 2021.",
                   "none stated (no licence file in the repository): fetched on request, never shipped"),
    "paradetox": Source("s-nlp/paradetox",
                        "Logacheva, Dementieva, Ustyantsev, Moskovskiy, Dale, Krotova, Semenov, Panchenko. ParaDetox: "
                        "Detoxification with Parallel Data. ACL 2022.",
                        "CC0 1.0 (LICENSE)", ref="d97b17d"),
    "yelp-sentiment": Source("shentianxiao/language-style-transfer",
                             "Shen, Lei, Barzilay, Jaakkola. Style Transfer from Non-Parallel Text by Cross-Alignment. NeurIPS 2017.",
                             "Apache-2.0 (repository); Yelp dataset terms apply"),
}


def corpora_dir() -> Path:
    """Folder holding imported or downloaded corpora."""
    return stviz_home() / "corpora"


def is_installed(corpus: str) -> bool:
    """Whether every file of ``corpus`` is in place (checked by size, cheaply)."""
    folder = corpora_dir() / corpus
    return all((folder / rel).is_file() and (folder / rel).stat().st_size == size
               for rel, (size, _) in MANIFEST[corpus].items())


#: How long the installed corpora are taken as they were when their folders have not changed (a file deleted deep
#: inside a corpus changes no folder this sees).
INSTALLED_SECONDS = 30.0
_installed: dict[str, Any] = {}


def installed_corpora() -> dict[str, int]:
    """Each corpus installed here with its folder's time of change (an import replaces the folder).

    Every kept result's key holds it (:mod:`stviz.analyses.kept`) and the sidebar lists the datasets by it, so it is
    asked for on each page run and, by the server's warmer, for every built-in view every few seconds: checking each
    corpus file (about 20,000 ``stat`` calls, 9 ms) is done again only when a corpus folder changed (an import, a
    deletion: seen at once) or after :data:`INSTALLED_SECONDS`.
    """
    folders = corpora_dir()
    try:
        with os.scandir(folders) as entries:
            stamp = (str(folders), folders.stat().st_mtime_ns,
                     tuple(sorted((e.name, e.stat().st_mtime_ns) for e in entries if e.name in MANIFEST)))
    except OSError:
        stamp = (str(folders), None, ())
    now = time.monotonic()
    if _installed.get("stamp") != stamp or now - _installed["when"] > INSTALLED_SECONDS:
        times = dict(stamp[2])  # each corpus folder's time, read for the stamp just now
        found = {name: times[name] for name in MANIFEST if name in times and is_installed(name)}
        _installed.update(stamp=stamp, when=now, found=found)
    return dict(_installed["found"])


def _check_name(corpus: str) -> None:
    if corpus not in MANIFEST:
        raise DataError(f"unknown corpus '{corpus}'; known: {', '.join(MANIFEST)}")


def _verify(data: bytes, corpus: str, rel: str) -> None:
    size, digest = MANIFEST[corpus][rel]
    if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
        raise DataError(f"{corpus}/{rel} differs from the published version "
                        f"({len(data)} bytes, expected {size}); not installed")


def _install(corpus: str, files: dict[str, bytes]) -> Path:
    # Write into a temporary folder, then swap it in: a failed fetch leaves no half corpus.
    target = corpora_dir() / corpus
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{corpus}-"))
    try:
        for rel, data in files.items():
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            (staging / rel).write_bytes(data)
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def import_folder(folder: str | os.PathLike, corpora: list[str] | None = None,
                  progress: Progress | None = None) -> dict[str, str]:
    """Copy corpora from a local folder laid out like ``shared/corpora``; returns a status per corpus."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise DataError(f"{root} is not a folder")
    status: dict[str, str] = {}
    for corpus in corpora or list(MANIFEST):
        _check_name(corpus)
        src = root / corpus
        if not src.is_dir():
            status[corpus] = f"not found in {root}"
            continue
        missing = [rel for rel in MANIFEST[corpus] if not (src / rel).is_file()]
        if missing:
            status[corpus] = f"incomplete in {root}: missing {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}"
            continue
        files = {}
        for i, rel in enumerate(MANIFEST[corpus], 1):
            files[rel] = (src / rel).read_bytes()
            _verify(files[rel], corpus, rel)
            if progress:
                progress(i, len(MANIFEST[corpus]))
        _install(corpus, files)
        status[corpus] = f"imported ({len(files)} files)"
    return status


def fetch(corpus: str, progress: Progress | None = None, timeout: float = 10.0) -> Path:
    """Download ``corpus`` from its public repository, verify every file, and install it."""
    import requests

    _check_name(corpus)
    source = SOURCES[corpus]
    files: dict[str, bytes] = {}
    session = requests.Session()
    for i, rel in enumerate(MANIFEST[corpus], 1):
        url = source.url(corpus, rel)
        try:
            response = session.get(url, timeout=timeout)
        except requests.RequestException as exc:
            raise DataError(
                f"could not download {corpus} ({type(exc).__name__}); this machine may be offline. "
                f"Import a local copy instead: python -m stviz data import DIR "
                f"(DIR holding {corpus}/ as in the corpora README)"
            ) from exc
        if response.status_code != 200:
            raise DataError(f"{url} answered HTTP {response.status_code}; nothing was installed. "
                            "Try again later, or import a local copy with: python -m stviz data import DIR")
        files[rel] = response.content
        _verify(files[rel], corpus, rel)
        if progress:
            progress(i, len(MANIFEST[corpus]))
    return _install(corpus, files)
