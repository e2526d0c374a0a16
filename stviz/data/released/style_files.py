"""Inputs and references named by a style (``test.neg``, ``reference.pos``) attached to their direction.

Style Transformer's release (Dai et al. 2019) names its inputs ``test.neg`` / ``test.pos`` and its
references ``reference.neg`` / ``reference.pos`` beside outputs of numeric directions
(``output.0.SYSTEM``). A file named by a style belongs to the direction whose *source* style that is:

* a named direction (``neg2pos``) or one whose styles ``--directions`` gave says it directly;
* else the inputs are matched to numeric directions by content: a system's outputs rewrite their
  inputs, so outputs and the right inputs share most words line by line, the wrong ones few. The
  match is taken only when it is clear, and said with its overlaps; references follow their inputs.

Anything else is a problem naming ``--directions`` as the fix: a style-named file is never applied to
every direction.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Sequence

from stviz.data.directions import Direction
from stviz.data.released.output_layouts import Found
from stviz.data.released.outputs import SystemFile, read_lines

#: A matched assignment must beat the next best by this much mean word overlap per direction.
MARGIN = 0.15


def direction_of_key(key: str) -> Direction:
    """The Direction a direction key names (``0`` or ``negative>positive``)."""
    return Direction(*key.split(">", 1)) if ">" in key else Direction(key)


def attach_styles(found: Sequence[Found], files: Sequence[SystemFile], styles: dict[str, tuple[str, str]],
                  notes: list[str]) -> list[tuple[str, str]]:
    """Give each style-named inputs or reference file its direction (``Found.direction``); problems as (path, message).

    ``styles`` (direction key -> source, target) is completed for numeric directions matched by content
    when the release names exactly two styles.
    """
    styled = [f for f in found if f.style and f.direction is None]
    if not styled:
        return []
    keys = sorted({f.direction or "" for f in files} - {""})
    by_style = {styles[k][0]: k for k in keys if k in styles}
    open_keys = [k for k in keys if k not in styles]
    inputs = {f.style: f for f in styled if f.role == "inputs" and f.style not in by_style}
    if inputs and open_keys:
        by_style.update(_match_by_content(inputs, open_keys, files, notes))
        named = sorted({f.style for f in styled})
        for style, key in by_style.items():
            if key in open_keys and len(named) == 2:
                styles[key] = (style, next(s for s in named if s != style))
    problems = []
    for item in styled:
        key = by_style.get(item.style)
        if key is None:
            problems.append((str(item.path), _unattached(item, keys)))
        else:
            item.direction = direction_of_key(key)
    return problems


def _unattached(item: Found, keys: Sequence[str]) -> str:
    what = "inputs" if item.role == "inputs" else "references"
    example = ",".join(f"{k}=SOURCE>TARGET" for k in keys[:2]) or "0=negative>positive"
    return (f"{item.path.name} holds the {item.style} {what}, but no direction of the folder "
            f"({', '.join(keys) or 'none'}) is known to start from {item.style}; say which is which with "
            f"--directions {example}")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def word_overlap(outputs: Sequence[str], inputs: Sequence[str]) -> float:
    """Mean word overlap (Jaccard) of aligned lines; -1 when the line counts differ (they cannot be these inputs)."""
    if len(outputs) != len(inputs) or not inputs:
        return -1.0
    scores = []
    for a, b in zip(outputs, inputs):
        wa, wb = _words(a), _words(b)
        scores.append(len(wa & wb) / len(wa | wb) if wa | wb else 1.0)
    return sum(scores) / len(scores)


def _match_by_content(inputs: dict[str, Found], keys: Sequence[str], files: Sequence[SystemFile],
                      notes: list[str]) -> dict[str, str]:
    """{style: direction key} when one assignment of inputs files to directions clearly beats every other."""
    texts = {style: text_lines(item.path) for style, item in inputs.items()}
    sample = {}
    for key in keys:  # one system per direction is enough: its outputs, or the inputs its tab lines carry
        f = sorted((f for f in files if f.direction == key), key=lambda f: (f.human, f.path))[0]
        sample[key] = f.inputs if f.inputs is not None else f.outputs
    score = {(s, k): word_overlap(sample[k], texts[s]) for s in texts for k in keys}
    styles = sorted(texts)
    if len(keys) < len(styles) or len(keys) > 6:
        return {}
    ranked = sorted(((sum(score[s, k] for s, k in zip(styles, perm)), perm)
                     for perm in itertools.permutations(keys, len(styles))), reverse=True)
    best_total, best = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else -1.0
    if min(score[s, k] for s, k in zip(styles, best)) < 0.1 or best_total - second < MARGIN * len(styles):
        return {}
    for s, k in zip(styles, best):
        others = ", ".join(f"{score[t, k]:.2f} with {inputs[t].path.name}" for t in styles if t != s)
        notes.append(f"direction {k} reads {inputs[s].path.name} (the {s} inputs): its outputs share {score[s, k]:.2f} "
                     f"of their words with those lines{f' ({others})' if others else ''}; --directions says otherwise "
                     "if this is wrong")
    return dict(zip(styles, best))


def text_lines(path: Path) -> list[str]:
    """A file's stripped lines, blank lines at its end left out."""
    lines = read_lines(path)[0]
    while lines and not lines[-1].strip():
        lines.pop()
    return [line.strip() for line in lines]


__all__ = ["attach_styles", "direction_of_key", "text_lines", "word_overlap"]
