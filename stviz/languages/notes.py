"""Notes said once with the languages they concern: a file of several languages is evaluated one language at a time,
and most of what each language's run says is the same sentence (nine languages gave 135 notes, 15 each)."""

from __future__ import annotations

import re
from typing import Iterable

#: Where a note names its own language, in the form shared by several languages.
_NAME, _CODE = "\x00name\x00", "\x00code\x00"
#: What a shared note says in place of each language's own name ('these are in Arabic (ar)').
ANOTHER = "another language"


def generic(note: str, code: str) -> str:
    """The note with its own language as a placeholder: its name ('Arabic (ar)') and a language line's code."""
    from stviz.languages.cards import language_name

    if not code:
        return note
    note = note.replace(language_name(code), _NAME)
    return re.sub(rf"^language: {re.escape(code)}(?=[ ;(]|$)", f"language: {_CODE}", note)


def said_once(tagged: Iterable[tuple[str, str, str]], counts: dict[str, int] | None = None) -> list[str]:
    """(set, language code, note) triples -> each note once per set with the languages that say it: 'in SET, 4
    languages (ar fr ru zh): ...', 'in SET, all 5 languages (...)', 'in SET [ar]: ...' where one says it; a code ''
    is a set of one language ('in SET: ...'); a set '' drops 'SET, '. ``counts``: a set's number of languages,
    where some said nothing (else those that said something)."""
    groups: dict[tuple[str, str], dict[str, str]] = {}
    languages: dict[str, list[str]] = {}
    for where, code, note in tagged:
        groups.setdefault((where, generic(note, code)), {}).setdefault(code, note)
        languages.setdefault(where, [])
        if code not in languages[where]:
            languages[where].append(code)
    counts = counts or {}
    return [_said(where, text, codes, counts.get(where, len(languages[where])))
            for (where, text), codes in groups.items()]


def _said(where: str, text: str, codes: dict[str, str], every: int) -> str:
    """One grouped note with its prefix (see :func:`said_once`)."""
    from stviz.languages.cards import language_name

    if len(codes) == 1:
        code, note = next(iter(codes.items()))
        if not code:
            return f"in {where}: {note}" if where else note
        return f"in {where} [{code}]: {note}" if where else f"in {language_name(code)}: {note}"
    listed = " ".join(sorted(codes))
    many = f"{'all ' if len(codes) == every else ''}{len(codes)} languages ({listed})"
    note = text.replace(_NAME, ANOTHER).replace(_CODE, listed)
    return f"in {where}, {many}: {note}" if where else f"in {many}: {note}"


def split_part(name: str, code: str) -> tuple[str, str]:
    """A set's name and its language part: ('mixed', 'ar') for 'mixed [ar]' of code 'ar', else (name, '')."""
    suffix = f" [{code}]"
    return (name[: -len(suffix)], code) if code and name.endswith(suffix) else (name, "")


def set_names(names: Iterable[str], codes: Iterable[str]) -> list[str]:
    """Set names, the language parts of one set said once: 'mixed [ar fr ru]' for 'mixed [ar]', 'mixed [fr]', ..."""
    parts: dict[str, list[str]] = {}
    for name, code in zip(names, codes):
        where, part = split_part(name, code)
        parts.setdefault(where, []).append(part)
    return [f"{where} [{' '.join(c for c in found if c)}]" if any(found) else where for where, found in parts.items()]


__all__ = ["ANOTHER", "generic", "said_once", "set_names", "split_part"]
