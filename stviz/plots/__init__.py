"""Plotly figure builders: tidy DataFrame in, figure out (one module per view).

Names in figures (styles, systems, column and file names) come from users' files. Plotly reads a
subset of HTML in labels, so every name goes through :func:`plot_label` (escaped, and cut in the
middle when long: a 2,000-character system name would squeeze a plot into a corner) and, where
the whole name matters, :func:`hover_label` (escaped, whole, wrapped) in the hover text.
"""

from __future__ import annotations

import html
import textwrap

#: Longest name shown whole in a legend, on an axis or in a title; longer ones are cut in the middle.
LABEL_CHARS = 40


def plot_label(name: object, limit: int = LABEL_CHARS) -> str:
    """A user-supplied name as a plotly label: shown literally (HTML-escaped), cut in the middle past ``limit``."""
    text = " ".join(str(name).split())  # newlines and tabs would break legends
    if len(text) > limit:
        head = (limit - 1) // 2
        text = text[:head] + "…" + text[len(text) - (limit - 1 - head):]
    return html.escape(text, quote=False)


def hover_label(name: object, width: int = 60, limit: int = 2000) -> str:
    """A user-supplied name whole (up to ``limit`` characters), escaped and wrapped for a hover box."""
    text = " ".join(str(name).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "<br>".join(html.escape(line, quote=False) for line in textwrap.wrap(text, width, break_long_words=True)) or ""


def template_literal(text: str) -> str:
    """Text safe inside a plotly hovertemplate: '%{' would start a template variable."""
    return text.replace("%{", "%\u200b{")


def plot_labels(names, limit: int = LABEL_CHARS) -> list[str]:
    """:func:`plot_label` of each name, made distinct: two long names cut alike would merge on a plotly axis."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        label, k = plot_label(name, limit), 2
        while label in seen:
            label, k = f"{plot_label(name, limit - 4)} ({k})", k + 1
        seen.add(label)
        out.append(label)
    return out
