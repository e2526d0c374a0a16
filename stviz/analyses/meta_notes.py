"""What the Meta-evaluation says: its progress over the sets and languages, and its notes by kind (what was not
computed, what was not checked, how it was computed), each said once per set with the languages it concerns
(:mod:`stviz.languages.notes`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

NOT_COMPUTED, NOT_CHECKED, HOW, ORIENTATION = "not computed", "not checked", "how", "orientation"
#: The page's title of each kind (orientation notes are told with how it was computed).
TITLES = {NOT_COMPUTED: "Not computed", NOT_CHECKED: "Not checked", HOW: "How it was computed"}
#: A skipped measure's line that tells how something was computed, not what was left out (a fallback's model, a
#: tokeniser chosen for the language).
_HOW = re.compile(r"^(the n-gram language model|.* tokenises |.*\blearned from\b)")
_ABSENT = re.compile(r"\b(left out|not used|not computed|no|cannot|could not|not wired)\b")


@dataclass(frozen=True)
class Said:
    """One note of one evaluated set: the set as evaluated ('mixed [ar]'), its language part, kind and text."""

    set: str
    code: str
    kind: str
    text: str


def skipped_kind(text: str) -> str:
    """The kind of a skipped measure's line: how it was computed where it says so, else not computed."""
    return HOW if _HOW.match(text) and not _ABSENT.search(text.split(":")[0]) else NOT_COMPUTED


def said_of(name: str, code: str, notes: Iterable[tuple[str, str]]) -> list[Said]:
    """(kind, text) notes of one evaluated set as :class:`Said` entries."""
    return [Said(name, code, kind, text) for kind, text in notes]


def grouped(said: Sequence[Said], kinds: Sequence[str]) -> list[str]:
    """The notes of these kinds, each once per set with the languages that say it ('in SET, 4 languages (...): ...')."""
    from stviz.languages.notes import said_once, split_part

    return said_once((*split_part(s.set, s.code), s.text) for s in said if s.kind in kinds)


def by_title(said: Sequence[Said]) -> dict[str, list[str]]:
    """The page's notes: title -> grouped notes, in the order of :data:`TITLES` (empty kinds left out)."""
    kinds = {NOT_COMPUTED: (NOT_COMPUTED,), NOT_CHECKED: (NOT_CHECKED,), HOW: (HOW, ORIENTATION)}
    out = {TITLES[k]: grouped(said, kinds[k]) for k in TITLES}
    return {title: notes for title, notes in out.items() if notes}


def every_note(said: Sequence[Said]) -> list[str]:
    """Every note grouped, not computed first, then not checked, then how it was computed (the command line's)."""
    return [n for notes in by_title(said).values() for n in notes]


def only_sets(said: Sequence[Said], sets: Sequence[str]) -> list[Said]:
    """The notes of these evaluated sets."""
    keep = set(sets)
    return [s for s in said if s.set in keep]


def notes_by_title(result) -> dict[str, list[str]]:
    """A Meta-evaluation result's notes for the page: title -> notes (see :func:`by_title`)."""
    return by_title(result.said) if result.said else ({TITLES[NOT_COMPUTED]: result.notes} if result.notes else {})


def undirected_names(result) -> list[str]:
    """The sets waiting for a direction, a set's languages said once ('mixed [ar fr]')."""
    from stviz.languages.notes import set_names

    codes = dict(zip(result.table["set"], result.table["language"])) if not result.table.empty else {}
    return set_names(result.undirected, [codes.get(name, "") for name in result.undirected])


def needs_direction(ds, aspects: dict[str, str]) -> str:
    """Why stviz's own style and fluency measures are left out of a set (its pairs have no target style), or ''.

    What needs no direction is shown at once: content, and the file's own measures on every aspect."""
    from stviz.data.schema import short_name

    needing = sorted(short_name(c) for c, a in aspects.items() if a in ("style", "fluency"))
    if not needing or ds.pairs is None or "target_style" in ds.pairs:
        return ""
    return (f"{', '.join(needing)} rate style or fluency: they are compared with the set's own measures, but stviz's "
            "style and fluency measures need each pair's target style and the pairs have no style columns; give "
            "their direction (--direction toxic>neutral, or per system A=informal>formal;B=...; on the page, the "
            "Direction box) to add them")


def parts_reporter(report_to, sets):
    """Progress over the sets evaluated: 'language 3 of 9 (am)' (or 'set 2 of 3') and the whole run's time left."""
    from stviz.progress import PartsReporter

    noun = "language" if all(part_name(ds) != ds.name for ds in sets) else "set"
    return PartsReporter(report_to, [len(ds.pairs if ds.pairs is not None else ds.texts) for ds in sets], noun)


def part_name(ds) -> str:
    """A language part's code ('am' of 'mixed [am]'), else the set's name."""
    from stviz.languages import dataset_language
    from stviz.languages.notes import split_part

    report = dataset_language(ds) if ds.pairs is not None else None
    code = split_part(ds.name, report.language)[1] if report is not None and not report.mixed else ""
    return code or ds.name


__all__ = ["HOW", "NOT_CHECKED", "NOT_COMPUTED", "ORIENTATION", "Said", "TITLES", "by_title", "every_note",
           "grouped", "needs_direction", "notes_by_title", "only_sets", "part_name", "parts_reporter", "said_of", "skipped_kind", "undirected_names"]
