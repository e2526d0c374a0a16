"""Text on the page: user text shown literally in Markdown, notes, errors and "not applicable" boxes."""

from __future__ import annotations

import re

import streamlit as st


def not_applicable(reason: str) -> None:
    """Why a view does not apply here, and what would (an info box, never an error)."""
    st.info(f"**Not applicable here.** {literal(reason)}", icon="ℹ️")


def as_sentence(note: str) -> str:
    """A note as a sentence: capitalised, with a full stop unless it already ends with one (or ? or !)."""
    note = note.strip()
    if not note:
        return note
    return note[0].upper() + note[1:] + ("" if note.endswith((".", "?", "!")) else ".")


def note_caption(note: str) -> None:
    """One note as a caption with its info mark, shown literally."""
    st.caption(f"ℹ️ {literal(as_sentence(note))}")


def show_notes(notes: list[str]) -> None:
    """The analysis's notes for the user (sampling, fallbacks, what was left out), one caption each; then a damaged
    per-pair store the run set aside, if any (:mod:`ui.store_notes`: said once, here or in the sidebar)."""
    from ui import store_notes

    for note in [*notes, *store_notes.take()]:
        note_caption(note)


def show_error(exc: BaseException) -> None:
    """A user-facing error box (no traceback) for bad input or an unloadable model; names in it shown literally."""
    st.error(literal(exc), icon="⚠️")


# What Streamlit's Markdown gives a meaning anywhere in a line: emphasis, code, links and images,
# HTML, '$' (KaTeX), '~' (strikethrough), '|' (tables), '&' (entities), and ':' before a letter
# (emoji shortcodes such as :smile:, directives such as :red[...]); at the start, block markers.
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>$~|&!]|:(?=[A-Za-z]))")
_MARKDOWN_BLOCK_START = re.compile(r"^(\s*\d*)([#>+\-=.)])")  # "# x", "- x", "1. x" ("1\\. x": the dot is escaped)

# GFM autolink literals: Streamlit's Markdown (remark-gfm) links a bare "http://x", "www.x" or "a@b.org" in the
# parsed text, after backslash escapes are undone, so no escape stops it. An invisible WORD JOINER (U+2060, no
# line break either) between "http"/"www" and what follows, and before "@", leaves no pattern to match.
_AUTOLINK = re.compile(r"(?i)(?<=http)(?=://)|(?<=https)(?=://)|(?<=www)(?=\.)|(?=@)")
WORD_JOINER = "\u2060"


def literal(text: object) -> str:
    """User text (a file, system, style or column name) shown as written inside Streamlit Markdown.

    Characters Markdown, KaTeX or Streamlit's directives would interpret are backslash-escaped and
    line breaks become spaces, so ``**x**``, ``$x^2$``, ``[a](http://b)`` or ``:red[x]`` in a name
    appear literally in ``st.markdown``, ``st.caption``, ``st.info``, ``st.error`` and widget labels; a bare
    URL or e-mail address is not made a link.
    """
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", _AUTOLINK.sub(WORD_JOINER, " ".join(str(text).split())))
    return _MARKDOWN_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)


__all__ = ["literal", "not_applicable", "show_error", "show_notes"]
