"""WordNet for METEOR, found or built without a network.

METEOR (Banerjee & Lavie, 2005, as implemented in nltk) matches words by exact form, stem and
WordNet synonym. ``nltk.download`` cannot fetch WordNet offline (it returns False, it does not
raise), so :func:`load_wordnet` tries, in order:

1. NLTK's own data (``nltk.data.find("corpora/wordnet")`` on NLTK's search path);
2. a copy already built under ``$STVIZ_HOME/nltk_data``;
3. building that copy from Debian's ``wordnet-base`` and ``wordnet-sense-index`` packages
   (WordNet 3.0 in ``/usr/share/wordnet``): the ``data.*``, ``index.*``, ``*.exc`` and
   ``index.sense`` files are *copied* (nltk 3.10 rejects symbolic links that leave the corpus
   folder) and the ``lexnames`` file nltk needs is written from the ``lexnames(5WN)`` table.

If none works, METEOR runs with a stand-in whose ``synsets()`` is empty: exact + stem matching
only, and every table labels it so (:func:`meteor_label`).

NLTK's reader is not thread-safe (it seeks and reads shared file handles), and Streamlit sessions
are threads: the loaded reader is wrapped so one thread at a time uses it (:class:`_Serialised`).
A stviz home that cannot be written gets its copy built in a temporary folder instead.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from stviz.cache import stviz_home
from stviz.shared import exclusive, load_once

#: Where Debian's wordnet-base / wordnet-sense-index put WordNet 3.0.
DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
_DEBIAN_FILES = ("data.adj", "data.adv", "data.noun", "data.verb", "index.adj", "index.adv",
                 "index.noun", "index.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc", "index.sense")

#: The 45 lexicographer files of WordNet 3.0, in number order (man page lexnames(5WN)).
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event",
    "noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object",
    "noun.person", "noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
    "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition",
    "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
    "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
_POS_NUMBER = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


@dataclass(frozen=True)
class WordNetStatus:
    """Which WordNet METEOR uses: ``source`` is 'nltk', 'stviz-home', 'debian' or 'none'."""

    available: bool
    source: str
    path: str
    message: str


class _NoSynonyms:
    """WordNet stand-in with no synsets: METEOR keeps exact and stem matches only."""

    def synsets(self, *args, **kwargs):  # noqa: D401 - mimics nltk's WordNetCorpusReader
        return []


class _Serialised:
    """A WordNet reader used by one thread at a time: NLTK's seeks and reads shared file handles."""

    def __init__(self, reader):
        self._reader = reader
        self._lock = exclusive(reader)

    def synsets(self, *args, **kwargs):
        """The reader's ``synsets``, under its lock (what METEOR calls)."""
        with self._lock:
            return self._reader.synsets(*args, **kwargs)

    def __getattr__(self, name):
        attr = getattr(self._reader, name)
        if not callable(attr):
            return attr

        def locked(*args, **kwargs):
            with self._lock:
                return attr(*args, **kwargs)

        return locked


def nltk_data_dir() -> Path:
    """The NLTK data folder stviz builds WordNet into: ``$STVIZ_HOME/nltk_data``."""
    return stviz_home() / "nltk_data"


def lexnames_text() -> str:
    """The ``lexnames`` file nltk's WordNet reader needs (``NN<TAB>name<TAB>pos-number`` lines)."""
    return "".join(f"{i:02d}\t{name}\t{_POS_NUMBER[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def build_from_debian(target: Path | None = None, source: Path = DEBIAN_WORDNET_DIR) -> Path:
    """Copy Debian's WordNet 3.0 files into an NLTK corpus folder; returns that ``.../corpora/wordnet``."""
    missing = [f for f in _DEBIAN_FILES if not (source / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{source} lacks {', '.join(missing)} (apt-get install wordnet-base wordnet-sense-index)")
    corpus = (target or nltk_data_dir()) / "corpora" / "wordnet"
    # Build in a folder of its own and rename, so a concurrent reader (another process, or another
    # session's thread) never sees half a corpus, and two builders never share a folder.
    corpus.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=corpus.parent, prefix=".wordnet-"))
    for name in _DEBIAN_FILES:
        shutil.copyfile(source / name, tmp / name)  # copies, never links (see module docstring)
    (tmp / "lexnames").write_text(lexnames_text(), encoding="ascii")
    try:
        tmp.rename(corpus)
    except OSError:  # a folder is there: another builder's whole copy (kept), or a stale incomplete one (replaced)
        if not _complete_corpus(corpus):
            # Only a copy left incomplete by an older stviz or a killed build: a builder's copy appears whole, by
            # one rename, so a complete one (another process's, maybe being read right now) is never moved.
            stale = Path(tempfile.mkdtemp(dir=corpus.parent, prefix=".wordnet-stale-"))
            with contextlib.suppress(OSError):
                corpus.rename(stale / "wordnet")
                tmp.rename(corpus)
            shutil.rmtree(stale, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return corpus


def _build_in_temporary_folder() -> Path:
    """Build the copy outside a stviz home that cannot be written; removed when the process ends."""
    folder = Path(tempfile.mkdtemp(prefix="stviz-nltk-"))
    atexit.register(shutil.rmtree, folder, True)
    return build_from_debian(folder)


def _reader(corpus_dir: Path):
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    # nltk 3.10 only opens corpora under a folder on its search path ("Security Violation"
    # otherwise), so the data root goes on nltk.data.path - and on NLTK_DATA for child processes.
    root = str(corpus_dir.parents[1])
    if root not in nltk.data.path:
        nltk.data.path.append(root)
    if root not in os.environ.get("NLTK_DATA", "").split(os.pathsep):
        os.environ["NLTK_DATA"] = os.pathsep.join(p for p in (os.environ.get("NLTK_DATA"), root) if p)
    class EnglishWordNet(WordNetCorpusReader):
        """nltk's reader without its map of WordNet 3.0 offsets onto the loaded version (``map30``).

        That map feeds only the multilingual (OMW) tables, which stviz never opens, and nltk builds it on every
        load because it compares the version ("3.0") with the string "wordnet": two passes over index.sense,
        more than half of the reader's load time (5-6 s of 10 on 2 cores).
        """

        def map_wn(self, version="wordnet"):
            return None

    with warnings.catch_warnings():  # "multilingual functions are not available": none needed here
        warnings.simplefilter("ignore", UserWarning)
        reader = EnglishWordNet(str(corpus_dir), None)
    reader.synsets("dog")  # fails loudly now rather than inside METEOR
    return reader


def _find_nltk_wordnet() -> Path | None:
    import nltk

    for name in ("corpora/wordnet", "corpora/wordnet.zip/wordnet/"):
        try:
            return Path(str(nltk.data.find(name)))
        except LookupError:
            continue
    return None


_REQUIRED = ("lexnames",) + _DEBIAN_FILES


def _complete_corpus(folder: Path | None) -> bool:
    return folder is not None and folder.is_dir() and all((folder / f).is_file() for f in _REQUIRED)


@load_once(maxsize=1)
def locate_wordnet() -> WordNetStatus:
    """Find (or build from Debian's files) a WordNet corpus folder, without loading it (cheap)."""
    attempts = []
    found = _find_nltk_wordnet()
    if found is not None and (_complete_corpus(found) or not found.is_dir()):  # a folder, or NLTK's zip
        return WordNetStatus(True, "nltk", str(found), "NLTK's WordNet data")
    home_copy = nltk_data_dir() / "corpora" / "wordnet"
    if _complete_corpus(home_copy):
        return WordNetStatus(True, "stviz-home", str(home_copy), "WordNet 3.0 built earlier from Debian's files")
    if DEBIAN_WORDNET_DIR.is_dir():
        try:
            # Never delete the home's copy here: in a fresh home several processes (a server's pool workers warming
            # up, its planner) build at once, and one that saw no whole copy a moment ago could delete the copy
            # another has just renamed into place and is loading: that process would load no WordNet (METEOR
            # without synonyms, its results kept under another key). build_from_debian replaces only an
            # incomplete copy.
            built = build_from_debian()
            return WordNetStatus(True, "debian", str(built), f"WordNet 3.0 built from {DEBIAN_WORDNET_DIR}")
        except OSError:
            try:  # a read-only or full stviz home: build where the system keeps temporary files
                built = _build_in_temporary_folder()
                return WordNetStatus(True, "debian", str(built), f"WordNet 3.0 built from {DEBIAN_WORDNET_DIR} "
                                     "in a temporary folder (the stviz home cannot be written)")
            except Exception as exc:  # noqa: BLE001 - reported in the message below
                attempts.append(f"Debian files: {exc}")
        except Exception as exc:  # noqa: BLE001 - reported in the message below
            attempts.append(f"Debian files: {exc}")
    return _unavailable("; ".join(attempts) or "no NLTK WordNet data and no /usr/share/wordnet")


def _unavailable(reason: str) -> WordNetStatus:
    return WordNetStatus(False, "none", "", (
        "WordNet not found (" + reason + "): METEOR uses exact + stem matching only. Install it with "
        "'apt-get install wordnet-base wordnet-sense-index' or put NLTK's wordnet corpus on NLTK_DATA."))


@load_once(maxsize=1)
def load_wordnet():
    """(WordNet reader or an exact+stem stand-in, :class:`WordNetStatus`), found or built once; safe across threads."""
    status = locate_wordnet()
    if not status.available:
        return _NoSynonyms(), status
    try:
        if status.source == "nltk" and not Path(status.path).is_dir():
            from nltk.corpus import wordnet  # NLTK's lazy loader reads its own zip

            wordnet.synsets("dog")
            return _Serialised(wordnet), status
        return _Serialised(_reader(Path(status.path))), status
    except Exception as exc:  # noqa: BLE001 - a corpus that does not load means no synonyms
        return _NoSynonyms(), _unavailable(f"{status.path} did not load: {exc}")


def wordnet_status() -> WordNetStatus:
    """Which WordNet METEOR will use here (the loaded one if METEOR already ran, else the located one)."""
    if load_wordnet.cache_info().currsize:
        return load_wordnet()[1]
    return locate_wordnet()


def meteor_label() -> str:
    """The METEOR label for tables: says whether synonyms come from WordNet or are missing."""
    return "METEOR (WordNet 3.0)" if wordnet_status().available else "METEOR (exact+stem only, no WordNet)"
