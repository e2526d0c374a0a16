"""Where a folder of released outputs keeps each system, direction, inputs file and reference.

Layouts the field releases (directions are parsed by :mod:`stviz.data.directions` wherever they are):

* flat: ``STEM.DIRECTION.SYSTEM`` side by side (Li et al. 2018: ``sentiment.test.0.mit``), the inputs
  as ``STEM.DIRECTION`` (``sentiment.test.0``), references as ``reference*``;
* one folder per system holding ``STEM.DIRECTION[.EXT]`` files (Mir et al. 2019 ``ARAE/sentiment.test.0.tsf``;
  DualRL's ``CrossAligned/test.0.tsf`` beside ``test.0-1.tsf``) or ``DIRECTION.txt`` (``SYSTEM/formal2informal.txt``);
* one folder per direction holding ``SYSTEM.txt`` files (``formal2informal/SYSTEM.txt``);
* ``SYSTEM.tsv`` files of ``input<TAB>output[<TAB>target style]`` lines;
* a folder whose sub-folders are themselves such folders: one per domain or dataset (:func:`find_domains`).

Human rewrites released as a system (``Human0/``, ``human/``, ``ref*``, Li et al.'s ``.human``) are
marked ``human``; :func:`stviz.data.released.inventory.survey` keeps them as systems or makes them references.
Inputs and references named by a style (``test.neg``, ``reference.formal``: Style Transformer's release)
carry that style; :mod:`stviz.data.released.style_files` attaches them to their direction. Files that are not
outputs (READMEs, scripts, configs, logs, a results summary such as ``bleu_scores.txt``) are listed with
why (:func:`not_outputs`), never read as a system. :func:`past_wrappers` steps into a folder that only
wraps another, for folders and zips alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from stviz.data.directions import Direction, looks_like_direction, parse_direction, style_word

#: File-name parts that are extensions, not system names (``sentiment.test.0.tsf``, ``test.0.transfer``).
EXTENSIONS = {"txt", "tsv", "tsf", "out", "hyp", "pred", "text", "transfer", "transferred"}
#: Extensions of transferred outputs: such a file is never an inputs file.
OUTPUT_EXTENSIONS = {"tsf", "out", "hyp", "pred", "transfer", "transferred"}
#: Extensions of an autoencoder's reconstructions of its inputs (Shen et al. 2017's ``sentiment.test.0.rec`` beside
#: the ``.tsf`` transfers): not a transfer, never a system.
RECONSTRUCTIONS = {".rec", ".recon", ".reconstruction", ".reconstructed"}
#: Folder names that say nothing of the system whose outputs they hold (Shen et al. write theirs to ``tmp/``): the
#: system is named after the folder above (the repository).
GENERIC_FOLDERS = {"tmp", "temp", "outputs", "output", "predictions", "preds", "generated", "generations", "results"}
#: System names that mean "these are the inputs" rather than a system's outputs.
INPUT_NAMES = {"input", "inputs", "src", "source", "sources", "orig", "original", "test"}
#: Files that are never outputs (a release's README, scripts, vocabularies, pictures).
IGNORED_SUFFIXES = {".md", ".py", ".sh", ".json", ".yaml", ".yml", ".pdf", ".png", ".jpg", ".jpeg", ".zip",
                    ".gz", ".tar", ".ipynb", ".pkl", ".log", ".cfg", ".ini", ".toml", ".csv", ".html"}
IGNORED_NAMES = {"readme", "license", "vocab", "makefile", "notes"}
#: Words naming a repository's own files (licence, requirements, build and citation files): never outputs.
REPOSITORY_WORDS = {"readme", "license", "licence", "copying", "requirements", "setup", "makefile", "dockerfile",
                    "changelog", "contributing", "citation", "notice", "authors", "manifest"}
#: Words naming a data split other than the test set ('train.neg', 'sentiment.dev.0'): training data, never inputs.
SPLIT_WORDS = {"train", "training", "dev", "valid", "validation", "val"}
#: Words naming a vocabulary or word list ('vocab.txt', 'yelp_vocab.txt', 'stopwords.txt').
VOCABULARY_WORDS = {"vocab", "vocabulary", "vocabs", "dict", "dictionary", "stopwords", "wordlist", "embeddings"}
#: Words naming a results summary or a log rather than outputs ('bleu_scores.txt', 'eval_results.tsv', 'train.log').
SUMMARY_WORDS = {"score", "scores", "result", "results", "eval", "evaluation", "metric", "metrics", "log", "logs",
                 "bleu", "summary", "stats", "statistics", "perplexity", "ppl", "accuracy", "leaderboard", "config"}
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$")
#: Names of human rewrites released beside the systems.
HUMAN_NAME = re.compile(r"^(human|humans|human[_-]?\d+|gold|refs?|references?|ref[_-]?\w+|references?[_-]?\d+)$",
                        re.IGNORECASE)


@dataclass
class Found:
    """One file and what its place and name say: role (outputs, inputs, reference), system, direction."""

    path: Path
    role: str
    system: str | None = None
    direction: Direction | None = None
    human: bool = False
    style: str | None = None  # inputs or references named by a style (test.neg): their direction is found later
    every: bool = False  # a reference the user gave for every direction (--references all=FILE)


def is_reference_file(filename: str) -> bool:
    """Whether a file holds human references (``reference.0``, ``reference0.1``, ``refs.1.txt``), not outputs."""
    return filename.lower().startswith(("reference", "ref."))


def is_human(system: str) -> bool:
    """Whether a system name is a release's human rewrites (``Human0``, ``human``, ``ref_yelp``)."""
    return bool(HUMAN_NAME.match(system))


def direction_in_name(filename: str, known_styles: Sequence[str] = ()) -> tuple[Direction | None, list[str],
                                                                                list[str], str]:
    """(direction, parts before it, parts after it, extension) of a dot-separated file name.

    The direction is the last dot-part that names one (``0``, ``0-1``, ``neg2pos``), as Li et al.'s
    ``sentiment.test.0.SYSTEM`` names put the system after it.
    """
    parts = filename.split(".")
    ext = parts.pop().lower() if len(parts) > 1 and parts[-1].lower() in EXTENSIONS else ""
    for i in range(len(parts) - 1, -1, -1):
        direction = parse_direction(parts[i], known_styles)
        if direction is not None:
            return direction, parts[:i], parts[i + 1:], ext
    return None, parts, [], ext


def style_in_name(filename: str) -> str | None:
    """The style a file is named by (``test.neg`` -> negative, ``reference.formal.txt`` -> formal), or None."""
    parts = filename.split(".")
    if len(parts) > 1 and parts[-1].lower() in EXTENSIONS:
        parts.pop()
    return style_word(parts[-1]) if len(parts) > 1 else None


def not_outputs(path: Path) -> str | None:
    """Why a file of a folder of outputs is not outputs (README, script, config, log, results summary, training data,
    vocabulary, binary), or None."""
    suffix, stem = path.suffix.lower(), path.stem.lower()
    if suffix in RECONSTRUCTIONS:
        return "a reconstruction of the input (an autoencoder's .rec, as Shen et al. 2017 release), not a transfer"
    if suffix == ".zip":
        return "a zip inside the folder: unzip it and give its folder instead"
    if suffix in IGNORED_SUFFIXES:
        return f"not outputs ({suffix} file)"
    if stem in IGNORED_NAMES:
        return "not outputs (README, licence, notes)"
    words = set(re.split(r"[^a-z]+", path.name.lower()))
    direction, before, _, _ = direction_in_name(path.name)
    # A system's name comes after the direction (output.0.dev_model): only the words before it name the file's kind.
    stem_words = words if direction is None else {w for p in before for w in re.split(r"[^a-z]+", p.lower())}
    if stem_words & REPOSITORY_WORDS:
        return "not outputs (the repository's README, licence, requirements or build file)"
    if stem_words & SPLIT_WORDS:
        return f"training data ({', '.join(sorted(stem_words & SPLIT_WORDS))} split): never a system or the inputs"
    if direction is None and not is_reference_file(path.name) and words & VOCABULARY_WORDS:
        return "a vocabulary or word list, not outputs"
    if direction is None and not is_reference_file(path.name) and words & SUMMARY_WORDS:
        return "a results summary or log (by its name)"
    if _binary(path):
        return "a binary file (a model, an index or an archive), not text"
    if _numbers_per_line(path):
        return "a results summary (each line ends in a number)"
    return None


def _binary(path: Path) -> bool:
    # NUL bytes: no text file of outputs holds them, every model file does; UTF-16 text (which the decoder reads,
    # with or without a byte-order mark) has them too, and decodes to printable text.
    with open(path, "rb") as handle:
        head = handle.read(8192)
    if b"\0" not in head:
        return False
    for encoding in ("utf-16-le", "utf-16-be"):
        try:
            text = head[:len(head) // 2 * 2].decode(encoding)
        except UnicodeDecodeError:
            continue
        if sum(c.isprintable() or c.isspace() for c in text) >= 0.95 * max(len(text), 1):
            return False
    return True


def _numbers_per_line(path: Path) -> bool:
    # 'SysA<TAB>23.4' lines: scores of systems, never a system's outputs (no text style transfer writes numbers).
    with open(path, "rb") as handle:
        head = handle.read(8192).decode("utf-8", "replace").splitlines()[:50]
    lines = [line.replace(":", " ").replace(",", " ").split() for line in head if line.strip()]
    return bool(lines) and all(1 <= len(f) <= 6 and _NUMBER.match(f[-1]) for f in lines)


def visible_files(folder: Path) -> list[Path]:
    """The files of a folder a user put there (names starting with '.' or '_' are left out: dotfiles, shadows)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


def _data_files(folder: Path) -> list[Path]:
    return [p for p in visible_files(folder) if not_outputs(p) is None]


def ignored_files(folder: Path) -> list[tuple[Path, str]]:
    """Files of a folder (and its sub-folders) that are not outputs, with why: listed in the inventory, never read."""
    folder = Path(folder)
    found = []
    for sub in [folder] + [s for s in sub_folders(folder)] if folder.is_dir() else []:
        found += [(p, why) for p in visible_files(sub) if (why := not_outputs(p)) is not None]
    return found


def past_wrappers(folder: Path) -> Path:
    """The folder a user means: past folders holding one folder and nothing else (``yelp_outputs/`` around all).

    A wrapper named as a direction (``neg2pos/``) is not stepped into: its name is the direction.
    """
    folder = Path(folder)
    while True:
        entries = [p for p in folder.iterdir() if not p.name.startswith((".", "_"))]
        if len(entries) != 1 or not entries[0].is_dir() or parse_direction(entries[0].name) is not None:
            return folder
        folder = entries[0]


def sub_folders(folder: Path) -> list[Path]:
    """The sub-folders of a folder a user put there (not hidden ones)."""
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def _tabbed(path: Path) -> bool:
    # The first lines decide: an inputs file never has input<TAB>output lines.
    with open(path, "rb") as handle:
        head = handle.read(8192).split(b"\n")[:20]
    return sum(b"\t" in line for line in head) >= max(1, len(head) // 2)


# -- one file, by its place ------------------------------------------------------------------------------
def classify_flat(path: Path, folder_name: str, known_styles: Sequence[str] = ()) -> Found:
    """A file lying directly in the surveyed folder (flat layout, or a single system's folder)."""
    if is_reference_file(path.name):
        direction = direction_in_name(path.name, known_styles)[0]
        return Found(path, "reference", direction=direction, style=None if direction else style_in_name(path.name))
    direction, before, after, ext = direction_in_name(path.name, known_styles)
    if direction is None and style_in_name(path.name) and not _tabbed(path):
        return Found(path, "inputs", style=style_in_name(path.name))  # test.neg: the negative inputs
    if direction is None:
        # SYSTEM.tsv / SYSTEM.txt: a system of its own, input<TAB>output lines with no direction.
        stem = ".".join(before)
        return Found(path, "outputs", stem, None, is_human(stem))
    system = ".".join(after)
    if system and system.lower() not in INPUT_NAMES:
        return Found(path, "outputs", system, direction, is_human(system))
    if not system and (ext in OUTPUT_EXTENSIONS or _tabbed(path)):
        # test.0-1.tsf in a folder of its own: one system's outputs, named after the folder.
        return Found(path, "outputs", folder_name, direction, is_human(folder_name))
    return Found(path, "inputs", direction=direction)


def classify_in_system_folder(path: Path, system: str, known_styles: Sequence[str],
                              alone: bool) -> tuple[Found | None, str | None]:
    """A file of ``SYSTEM/``: its direction from its name (``test.0.tsf``, ``formal2informal.txt``), or why not."""
    if is_reference_file(path.name):
        return Found(path, "reference", direction=direction_in_name(path.name, known_styles)[0]), None
    direction, _, after, _ = direction_in_name(path.name, known_styles)
    if direction is not None and after and after[-1].lower() in INPUT_NAMES - {"test"}:
        return Found(path, "inputs", direction=direction), None
    if direction is None and not alone:
        return None, (f"no direction in the file name '{path.name}' (unknown direction name); name files by "
                      "direction: 0, 1, 0-1, 1-0, neg2pos, formal2informal, f2i, ...")
    return Found(path, "outputs", system, direction, is_human(system)), None


def classify_in_direction_folder(path: Path, direction: Direction) -> Found:
    """A file of ``DIRECTION/``: ``SYSTEM.txt``, the inputs (``input.txt``, ``test.txt``) or a reference."""
    stem = path.name.split(".")[0]
    if is_reference_file(path.name):
        return Found(path, "reference", direction=direction)
    if stem.lower() in INPUT_NAMES:
        return Found(path, "inputs", direction=direction)
    return Found(path, "outputs", stem, direction, is_human(stem))


# -- a folder ---------------------------------------------------------------------------------------------
def find_files(folder: Path, known_styles: Sequence[str] = ()) -> tuple[list[Found], list[tuple[str, str, None]]]:
    """Every data file of ``folder`` in any layout above, and problems as (path, message, line)."""
    folder = Path(folder)
    if not folder.is_dir():
        return [], [(str(folder), f"{folder.name} is not a folder", None)]
    found = [classify_flat(p, folder_system(folder), known_styles) for p in _data_files(folder)]
    problems: list[tuple[str, str, None]] = []
    subs = sub_folders(folder)
    directions = {sub: parse_direction(sub.name, known_styles) for sub in subs}
    by_direction = any(directions.values())
    for sub in subs:
        files = _data_files(sub)
        if directions[sub] is not None:
            found += [classify_in_direction_folder(p, directions[sub]) for p in files]
        elif by_direction and looks_like_direction(sub.name):
            problems.append((str(sub), f"unknown direction name '{sub.name}' (its styles are not known); name "
                                       "folders 0, 1, 0-1, neg2pos, formal2informal, ... or give --directions", None))
        elif all(is_reference_file(p.name) for p in files):
            found += [Found(p, "reference", direction=direction_in_name(p.name, known_styles)[0]) for p in files]
        elif len(_systems_named(files, known_styles)) > 1:
            # output.0.ours_cond beside output.0.ours_multi: the file names give the systems, not the folder.
            found += [classify_flat(p, sub.name, known_styles) for p in files]
        else:
            for path in files:
                item, problem = classify_in_system_folder(path, sub.name, known_styles, alone=len(files) == 1)
                if problem:
                    problems.append((str(path), problem, None))
                else:
                    found.append(item)
    return found, problems


def folder_system(folder: Path) -> str:
    """The system a folder's unnamed outputs belong to: the folder's name, or for a folder whose name says nothing
    (``tmp/``, ``outputs/``) the name of the one above it (a repository: ``language-style-transfer``)."""
    if folder.name.lower() not in GENERIC_FOLDERS:
        return folder.name
    parent = folder.resolve().parent.name
    return re.sub(r"-(master|main)$", "", parent) or folder.name


def _systems_named(files: Sequence[Path], known_styles: Sequence[str]) -> set[str]:
    """The systems that file names give after their direction (``output.0.ours_cond`` -> ours_cond)."""
    names = set()
    for path in files:
        direction, _, after, _ = direction_in_name(path.name, known_styles)
        if direction is not None and after and ".".join(after).lower() not in INPUT_NAMES:
            names.add(".".join(after))
    return names


def find_domains(folder: Path) -> list[Path]:
    """Sub-folders that are output folders themselves (one per domain or dataset), or [] when there are none."""
    folder = Path(folder)
    if not folder.is_dir() or _data_files(folder):
        return []
    subs = [s for s in sub_folders(folder) if parse_direction(s.name) is None]
    domains = [s for s in subs if _is_output_folder(s)]
    return domains if domains and len(domains) == len(subs) else []


def _is_output_folder(folder: Path) -> bool:
    # Sub-folders with files (systems or directions), or files naming two systems or inputs beside a system.
    if any(_data_files(s) for s in sub_folders(folder)):
        return True
    flat = [classify_flat(p, folder.name) for p in _data_files(folder)]
    systems = {f.system for f in flat if f.role == "outputs" and f.direction is not None and f.system != folder.name}
    return len(systems) >= 2 or (bool(systems) and any(f.role == "inputs" for f in flat))


__all__ = ["EXTENSIONS", "Found", "INPUT_NAMES", "classify_flat", "direction_in_name", "find_domains", "find_files",
           "is_human", "is_reference_file"]
