"""The views' full results, kept whole in the disk cache: a view whose inputs have not changed is one cache read.

Why: every other cache is of the work under a view (vectors per text, metric values per pair, classifiers), so a
view asked again still recomputed its statistics (bootstrap intervals, paired tests, projections' layout) in the
server's pool: seconds to a minute, each time its page reran. Here a full run through the pool (a page's, or one
computed before anyone asked, :mod:`stviz.ready`) keeps its ``Result`` under a key of everything it depends on, and
the page reads that before it asks the pool for anything.

The key: the view; the dataset's identity (name, language, stated direction, and the content of its pairs, texts
and lexicon: an upload named like another file is not it); the options (the page's and the warm job's options must
be equal, :mod:`stviz.analyses.opening`); the corpora installed (a companion corpus trains a view's classifier,
Meta-evaluation lists every rated set); the code and the installed packages (an upgrade recomputes, never serves an
old result); and the settings that change numbers (backend, precision, device, LLM judges, WordNet).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import os
from pathlib import Path
from typing import Any

from stviz.cache import default_cache, fingerprint
from stviz.data.corpora.sources import installed_corpora
from stviz.data.schema import Dataset
from stviz.progress import Reporter

KIND = "view-result"
CACHE_VERSION = 1
#: Settings that say where things are kept or how the server runs, not what a result is.
NOT_RESULT_SETTINGS = frozenset({
    "STVIZ_HOME", "STVIZ_CORPORA", "STVIZ_WORKERS", "STVIZ_WORKER_PROCESSES", "STVIZ_WARMUP", "STVIZ_WARM_RESULTS",
    "STVIZ_TEAM", "STVIZ_ALLOW_CLEAR_CACHE", "STVIZ_CONFIRM_SECONDS", "STVIZ_MAX_UPLOAD_MB", "STVIZ_ENGINE",
    "STVIZ_NEUTRALISE_FORMULAS", "STVIZ_LLM_KEY", "STVIZ_LLM_CONCURRENCY", "STVIZ_LLM_TIMEOUT"})
#: Keyword arguments of ``run`` a kept result may have been computed with: ``trained``, the style classifier the
#: Tradeoffs and Token-attributions pages train first, is the one ``run`` trains itself for those options and data.
DERIVED_ARGUMENTS = frozenset({"trained"})
_IDENTITY = "_kept_identity"  # the attribute a dataset keeps its content's fingerprint under


def job_key(view: str, dataset_name: str, options, language: str | None = None) -> str:
    """The server pool's key of a view's full run: a page and a warm job asking for the same run share one job (the
    dataset's chosen language in it: a view of one language at a time on each language of a set is another run)."""
    return f"{view}:{dataset_name}{f'@{language}' if language else ''}:{options!r}"


def keepable(kwargs: dict) -> bool:
    """Whether a run with these extra arguments is kept (another set's uploads for Meta-evaluation are not)."""
    return set(kwargs) <= DERIVED_ARGUMENTS


def result_key(view: str, dataset: Dataset, options) -> dict:
    """Everything a view's full result depends on (see the module's docstring)."""
    return {"view": view, "dataset": dataset_identity(dataset), "options": repr(options),
            "corpora": installed_corpora(), "code": code_version(), "settings": result_settings()}


def kept_result(view: str, dataset: Dataset, options) -> tuple[bool, Any]:
    """``(True, result)`` when this view's full result is kept for this dataset and these options, else
    ``(False, None)``: one cache read, nothing computed."""
    return default_cache().peek(KIND, result_key(view, dataset, options), version=CACHE_VERSION)


def is_kept(view: str, dataset: Dataset, options) -> bool:
    """Whether the full result is kept (the file is there; it is checked when read)."""
    return default_cache().has(KIND, result_key(view, dataset, options), version=CACHE_VERSION)


def keep_run(view: str, dataset: Dataset, options, progress: Reporter | None = None, **kwargs):
    """The view's ``run(dataset, options, progress, **kwargs)``, read from the cache when kept, else computed and kept
    (a module-level function: the pool pickles it for its worker processes)."""
    analysis = importlib.import_module(view)
    if not (keepable(kwargs) and worth_keeping(view, dataset, options)):
        return analysis.run(dataset, options, progress, **kwargs)
    return default_cache().memo(KIND, result_key(view, dataset, options),
                                lambda: analysis.run(dataset, options, progress, **kwargs), version=CACHE_VERSION)


def worth_keeping(view: str, dataset: Dataset, options) -> bool:
    """Whether a full run is kept: unless it differs from its view's background run only in what is shown of the
    computed work (Failure cases' filters and opened pair, which are applied on the warm cache in seconds and would
    fill the disk with one table per click), except for the options the page opens with."""
    from stviz.analyses.opening import opening_options
    from stviz.analyses.preview import job_options

    return job_options(view.rpartition(".")[2], options) == options or opening_options(view, dataset) == options


def dataset_identity(dataset: Dataset) -> dict:
    """The dataset as a result depends on it: its name, language, stated direction and human-score directions, and
    a fingerprint of its pairs, texts and lexicon (computed once per dataset object)."""
    content = dataset.__dict__.get(_IDENTITY)
    if content is None:
        content = fingerprint([dataset.pairs, dataset.texts, dict(dataset.lexicon or {})])
        dataset.__dict__[_IDENTITY] = content
    return {"name": dataset.name, "language": dataset.language, "direction": dataset.direction,
            "human_direction": dict(dataset.human_direction), "content": content}




@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A fingerprint of stviz's own files and of every installed package's version, once per process: a result kept
    by other code is never served."""
    digest = hashlib.blake2b(digest_size=20)
    package = Path(__file__).resolve().parents[1]
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    # A set: a package found on two sys.path entries (the checkout's own egg-info beside the installed stviz, when the
    # command runs from the checkout) is one package, so every process of one install agrees on the fingerprint.
    versions = sorted({f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()})
    digest.update("\n".join(versions).encode())
    return digest.hexdigest()


def result_settings() -> dict[str, Any]:
    """The settings of this process that change a view's numbers: every ``STVIZ_*`` variable but those of
    :data:`NOT_RESULT_SETTINGS`, the device the models run on, and whether METEOR has WordNet."""
    from stviz.embedders import select_device
    from stviz.metrics.wordnet import wordnet_status

    chosen = {name: value for name, value in os.environ.items()
              if name.startswith("STVIZ_") and name not in NOT_RESULT_SETTINGS}
    return {**chosen, "device": select_device(), "wordnet": wordnet_status().available}


__all__ = ["CACHE_VERSION", "DERIVED_ARGUMENTS", "KIND", "NOT_RESULT_SETTINGS", "code_version", "dataset_identity",
           "is_kept", "job_key", "keep_run", "keepable", "kept_result", "result_key",
           "result_settings", "worth_keeping"]
