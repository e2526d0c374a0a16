"""Datasets by name: the embedded demo, and the public corpora once fetched or imported.

The package by job: ``intake/`` reads a user's file (bytes -> cells -> roles -> a dataset), ``corpora/`` gets and
reads the built-in public corpora, ``released/`` reads system outputs as papers release them (folders, zips,
repositories); what they share sits here: the dataset (``schema``), what a column means (``meanings``), the one text
decoder (``decoding``), transfer directions (``directions``) and style examples (``labels``).

``load_dataset(name)`` returns a :class:`~stviz.data.schema.Dataset`; ``available_datasets()``
says which names can be loaded here and how to get the others.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from stviz.cache import app_root
from stviz.data.corpora import informal as _informal
from stviz.data.corpora import li2018 as _li2018
from stviz.data.corpora import loaders as _corpora
from stviz.data.corpora import russe2022 as _russe2022
from stviz.data.corpora.sources import MANIFEST, SOURCES, corpora_dir, installed_corpora, is_installed
from stviz.data.schema import DataError, Dataset

DEMO_DIR = app_root() / "data" / "demo"


@dataclass(frozen=True)
class DatasetInfo:
    """A loadable dataset: its name, a one-line description, and whether it is here."""

    name: str
    title: str
    available: bool
    how_to_get: str


def _load_demo_styles() -> Dataset:
    return _corpora.load_style_folder(
        DEMO_DIR / "styles", "demo-styles", "Demo: five styles (illustrative)",
        "Sentences written for stviz to show every view on first run. Illustrative only: "
        "not a research corpus.", illustrative=True,
    )


def _load_demo_pairs() -> Dataset:
    from stviz.data.intake.build import apply_mapping
    from stviz.data.intake.mapping import detect_mapping
    from stviz.data.intake.readers import read_pairs_file

    path = DEMO_DIR / "pairs.csv"
    frame, notes = read_pairs_file(path.name, path.read_bytes())
    ds = apply_mapping(frame, detect_mapping(frame), name="demo-pairs",
                       title="Demo: style-transfer pairs with human scores (illustrative)")
    ds.description = ("Pairs and scores written for stviz to show every view on first run. "
                      "Illustrative only: the systems and the scores are made up.")
    ds.illustrative = True
    ds.notes = notes + ds.notes
    return ds


def _load_demo() -> Dataset:
    styles, pairs = _load_demo_styles(), _load_demo_pairs()
    return Dataset(
        name="demo", title="Demo: five styles and 72 transfer pairs (illustrative)",
        description="Written for stviz so every view works on first run, offline: five styles x 24 "
                    "sentences, and informal-to-formal pairs from three imaginary systems with made-up "
                    "human scores. Illustrative only: not research data.",
        texts=styles.texts, pairs=pairs.pairs, illustrative=True, notes=pairs.notes,
    )


_CORPUS_LOADERS: dict[str, Callable[[Path], Dataset]] = {
    "cds": _corpora.load_cds,
    "sgdd-tst": _corpora.load_sgdd,
    "mir-yelp": _corpora.load_mir_yelp,
    "yelp-sentiment": _corpora.load_yelp_sentiment,
    "paradetox": _corpora.load_paradetox,
    _russe2022.CORPUS: _russe2022.load_russe2022_humaneval,
    _informal.CORPUS: _informal.load_informal,
    **{f"li2018-{domain}": functools.partial(_li2018.load_li2018, domain=domain) for domain in _li2018.DOMAINS},
    **{f"pt16-{split}": functools.partial(_corpora.load_pt16, split=split) for split in _corpora.PT16_SPLITS},
}
#: Datasets read from a corpus folder of another name (Li et al.'s three domains share one corpus; so do PT16's splits).
CORPUS_OF = {**{f"li2018-{domain}": _li2018.CORPUS for domain in _li2018.DOMAINS},
             **{f"pt16-{split}": "pt16" for split in _corpora.PT16_SPLITS}}
_DEMO_LOADERS: dict[str, Callable[[], Dataset]] = {
    "demo": _load_demo,
    "demo-styles": _load_demo_styles,
    "demo-pairs": _load_demo_pairs,
}
TITLES = {
    "demo": "Demo: five styles and 72 transfer pairs (illustrative)",
    "demo-styles": "Demo: five styles (illustrative)",
    "demo-pairs": "Demo: style-transfer pairs with human scores (illustrative)",
    "cds": "Corpus of Diverse Styles (11 styles x 1,000 sentences)",
    "sgdd-tst": "SGDD-TST (10,287 formality pairs, human similarity, Babakov et al.)",
    "mir-yelp": "Mir et al. Yelp outputs (3 systems, 12 settings x 244 pairs, human scores)",
    "yelp-sentiment": "Yelp sentiment sentences (negative / positive)",
    "paradetox": _corpora.PARADETOX_TITLE,
    _russe2022.CORPUS: _russe2022.TITLE,
    _informal.CORPUS: _informal.TITLE,
    **{f"li2018-{domain}": title for domain, title in _li2018.TITLES.items()},
    **{f"pt16-{split}": f"PT16 formality ratings, {split} split ({n:,} sentences as released, Pavlick & Tetreault)"
       for split, n in _corpora.PT16_SPLITS.items()},
}
DATASET_NAMES = tuple(TITLES)
# The two halves of "demo", loadable by name (tests, CLI) but not listed: "demo" holds both.
_PARTS = {"demo-styles", "demo-pairs"}


def available_datasets() -> list[DatasetInfo]:
    """Every known dataset, whether it is installed here, and the command that gets it."""
    infos, installed = [], installed_corpora()  # asked on every page run: each file's check only when folders change
    for name, title in TITLES.items():
        if name in _PARTS:
            continue
        if name in _DEMO_LOADERS:
            infos.append(DatasetInfo(name, title, True, "embedded"))
        else:
            corpus = corpus_of(name)
            how = f"python -m stviz data fetch {corpus}   (or: python -m stviz data import DIR)"
            infos.append(DatasetInfo(name, title, corpus in installed, how))
    return infos


def load_dataset(name: str) -> Dataset:
    """Load a dataset by name (demo, an installed corpus, ``study:ID``); DataError says how to get a missing one."""
    if name in _DEMO_LOADERS:
        return _cached_load(name, None)
    if name.startswith("study:"):  # a rating study's answers, read fresh: raters may be answering right now
        from stviz.studies.results import load_study

        return load_study(name)
    if name not in _CORPUS_LOADERS:
        raise DataError(f"unknown dataset '{name}'; known: {', '.join(DATASET_NAMES)}")
    corpus = corpus_of(name)
    folder = corpora_dir() / corpus
    if not is_installed(corpus):
        raise DataError(
            f"the corpus '{corpus}' is not installed in {corpora_dir()}. Get it with "
            f"'python -m stviz data fetch {corpus}' (needs internet) or "
            f"'python -m stviz data import DIR' (a folder holding {corpus}/)"
        )
    # Keyed by the folder's modification time so a re-import is picked up.
    return _cached_load(name, folder.stat().st_mtime_ns)


def corpus_of(name: str) -> str:
    """The corpus folder a dataset is read from (its own name unless it shares a corpus)."""
    return CORPUS_OF.get(name, name)


# Room for every built-in dataset (14, with the demo's two halves 16): the server's warmer plans them all, and a page
# evicting one would read and fingerprint it again on its next open.
@functools.lru_cache(maxsize=20)
def _cached_load(name: str, stamp: int | None) -> Dataset:
    if name in _DEMO_LOADERS:
        return _DEMO_LOADERS[name]()
    return _CORPUS_LOADERS[name](corpora_dir() / corpus_of(name))


__all__ = ["Dataset", "DataError", "DatasetInfo", "available_datasets", "load_dataset",
           "DATASET_NAMES", "MANIFEST", "SOURCES"]
