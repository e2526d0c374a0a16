"""Plotly figure builders: tidy DataFrame in, figure out (one module per view).

Names in figures (styles, systems, column and file names) come from users' files. Plotly reads a
subset of HTML in labels, so every name goes through :func:`plot_label` (escaped, and cut in the
middle when long: a 2,000-character system name would squeeze a plot into a corner) and, where
the whole name matters, :func:`hover_label` (escaped, whole, wrapped) in the hover text.

Every text a builder is given, titles included, is plain text: the builder escapes it, once; callers never do
(escaped twice, ``<`` shows as ``&lt;``). In a hovertemplate, a name also goes through :func:`template_literal`
(or in as customdata): ``%{x}`` in a name would otherwise be replaced by a value.
"""

from __future__ import annotations

import html
import math
import re
import textwrap
from typing import Sequence

import plotly.io as pio

#: Every figure's template, set once as plotly's default rather than passed to each figure: a figure given
#: ``template=`` copies and validates the whole template (about 15 ms a figure, a sixth of a kept view's rerun on
#: the server), while the default is assigned as it is (2 ms). White, as in a paper: exported figures keep it; in the
#: page Streamlit's own theme is drawn over it.
TEMPLATE = "plotly_white"
pio.templates.default = TEMPLATE

#: Longest name shown whole in a legend, on an axis or in a title; longer ones are cut in the middle.
LABEL_CHARS = 40


def plot_text(text: object) -> str:
    """Text plotly shows as written: ``<``, ``>`` and ``&`` escaped (plotly reads tags such as ``<b>`` and ``<a>``).

    Quotes are kept: plotly decodes only a few named entities (``&amp;``, ``&lt;``, ``&gt;``, ...), so an escaped
    quote would show as ``&quot;``. The one escape for every figure builder.
    """
    return html.escape(str(text), quote=False)


def plot_label(name: object, limit: int = LABEL_CHARS, head: int | None = None) -> str:
    """A user-supplied name as a plotly label: shown literally (HTML-escaped), cut past ``limit`` after its first
    ``head`` characters (default: in the middle)."""
    text = " ".join(str(name).split())  # newlines and tabs would break legends
    if len(text) > limit:
        head = (limit - 1) // 2 if head is None else head
        text = text[:head] + "…" + text[len(text) - (limit - 1 - head):]
    return plot_text(text)


def hover_label(name: object, width: int = 60, limit: int = 2000) -> str:
    """A user-supplied name whole (up to ``limit`` characters), escaped and wrapped for a hover box."""
    text = " ".join(str(name).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "<br>".join(plot_text(line) for line in textwrap.wrap(text, width, break_long_words=True)) or ""


def template_literal(text: str) -> str:
    """Text safe inside a plotly hovertemplate: '%{' would start a template variable."""
    return text.replace("%{", "%\u200b{")


#: Where a composed name ('SET [ru] · HUMAN', 'MEASURE: WHAT', 'MEASURE against the source') is split into parts,
#: each cut on its own.
_SEPARATORS = re.compile(r"( · |: | (?=against the ))")
#: A part's trailing language code ('mixed [ru]'), kept whole when the part is cut.
_CODE = re.compile(r"^(.*?)( \[[^\]]{1,16}\])$")
#: Fewest characters a cut part keeps.
_PART_CHARS = 10


def part_label(name: object, limit: int = LABEL_CHARS) -> str:
    """:func:`plot_label` of a composed name cut in the middle of its longest parts (split at ' · ' and ': '), a
    part's language code kept: 'nine-lan…file [ru] · content', 'own-text sty…on vectors: P(target) gain'."""
    parts = _SEPARATORS.split(" ".join(str(name).split()))
    sizes = [len(part) for part in parts]
    while sum(sizes) > limit:
        cuttable = [k for k in range(0, len(parts), 2) if sizes[k] > _PART_CHARS]
        first = [k for k in cuttable if k < len(parts) - 1] or cuttable  # the last part is cut last: 'against the ...'
        if not first:
            break
        i = max(first, key=sizes.__getitem__)
        second = max((sizes[k] for k in first if k != i), default=0)  # the longest parts are cut to one length
        sizes[i] = max(_PART_CHARS, sizes[i] - (sum(sizes) - limit), min(second, sizes[i] - 1))
    return plot_label("".join(_cut_part(part, size) for part, size in zip(parts, sizes)), limit)


def _cut_part(part: str, size: int) -> str:
    """One part cut in its middle to ``size`` characters, its trailing language code kept."""
    if len(part) <= size:
        return part
    code = _CODE.match(part)
    if code and size - len(code[2]) >= 4:
        return _cut_part(code[1], size - len(code[2])) + code[2]
    head = (size - 1) // 2
    return part[:head].rstrip() + "…" + part[len(part) - (size - 1 - head):].lstrip()


def plot_labels(names, limit: int = LABEL_CHARS, parts: bool = False) -> list[str]:
    """:func:`plot_label` (``parts``: :func:`part_label`) of each name, made distinct: two long names cut alike would
    merge on a plotly axis. Names cut alike are cut nearer their start first, so what tells them apart shows
    ('meta-llama…ontent_score' beside 'meta-llama…rwise_score'); only names that still meet get a number."""
    names = list(names)
    labels = [(part_label if parts else plot_label)(name, limit) for name in names]
    for label in {label for label in labels if labels.count(label) > 1}:
        group = [i for i, other in enumerate(labels) if other == label]
        for head in range(min(12, (limit - 1) // 2 - 1), 3, -1):  # the most of their ends that tell them apart
            shifted = [plot_label(names[i], limit, head) for i in group]
            if len(set(shifted)) == len(group):
                for i, text in zip(group, shifted):
                    labels[i] = text
                break
    out: list[str] = []
    seen: set[str] = set()
    for name, label in zip(names, labels):
        k = 2
        while label in seen:
            label, k = f"{plot_label(name, limit - 4)} ({k})", k + 1
        seen.add(label)
        out.append(label)
    return out


#: Where a point's label may sit (plotly ``textposition``), tried in this order: each gives the label's box
#: (left, bottom) relative to the point, in units of the label's width w and height h, with a small gap.
_LABEL_SPOTS = {
    "top right": lambda w, h: (4, 4), "bottom right": lambda w, h: (4, -4 - h),
    "top left": lambda w, h: (-4 - w, 4), "bottom left": lambda w, h: (-4 - w, -4 - h),
    "middle right": lambda w, h: (8, -h / 2), "middle left": lambda w, h: (-8 - w, -h / 2),
    "top center": lambda w, h: (-w / 2, 8), "bottom center": lambda w, h: (-w / 2, -8 - h),
}


def label_positions(xs: Sequence[float], ys: Sequence[float], labels: Sequence[str], *, width: int = 800,
                    height: int = 380, char_px: float = 6.0, line_px: float = 13.0, marker_px: float = 12.0) -> list[str]:
    """A plotly ``textposition`` per point so that labels written beside points overlap each other, the other
    points and the plot's edges as little as can be (greedy, in the order given).

    Plotly places text only where it is told; a fixed "top right" piles the labels of close points onto one
    another. Sizes are estimates in pixels of a ``width`` x ``height`` plot area (10 px text); exact fits are
    not needed, only a better choice than one fixed side.
    """
    points = [(float(x), float(y)) for x, y in zip(xs, ys)]
    finite = [(x, y) for x, y in points if math.isfinite(x) and math.isfinite(y)]
    if not finite:
        return ["top right"] * len(points)
    (x0, x1), (y0, y1) = [(min(v), max(v)) for v in zip(*finite)]
    # Plotly's autorange leaves about 5% of the plot around the outermost points.
    to_px = [(width * (0.05 + 0.9 * (x - x0) / ((x1 - x0) or 1)), height * (0.05 + 0.9 * (y - y0) / ((y1 - y0) or 1)))
             for x, y in points]
    half = marker_px / 2
    markers = [(px - half, py - half, px + half, py + half) for px, py in to_px]
    placed: list[tuple] = []  # the boxes of the labels placed so far
    chosen = []
    for i, ((px, py), label) in enumerate(zip(to_px, labels)):
        if not math.isfinite(px + py):
            chosen.append("top right")
            continue
        w, h = char_px * len(str(label)), line_px
        others = [m for j, m in enumerate(markers) if j != i and math.isfinite(sum(m))] + placed

        def cost(spot: str) -> float:
            dx, dy = _LABEL_SPOTS[spot](w, h)
            box = (px + dx, py + dy, px + dx + w, py + dy + h)
            outside = w * h - _overlap(box, (0, 0, width, height))
            return sum(_overlap(box, other) for other in others) + outside  # text past the axes is drawn, in the margin

        spot = min(_LABEL_SPOTS, key=cost)  # ties keep the earlier spot: "top right" when nothing is in the way
        dx, dy = _LABEL_SPOTS[spot](w, h)
        placed.append((px + dx, py + dy, px + dx + w, py + dy + h))
        chosen.append(spot)
    return chosen


def _overlap(a: tuple, b: tuple) -> float:
    """Area shared by two boxes (left, bottom, right, top)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def label_offsets(xs: Sequence[float], ys: Sequence[float], labels: Sequence[str], *, obstacles: Sequence[tuple] = (),
                  width: int = 700, height: int = 400, char_px: float = 6.5, line_px: float = 14.0,
                  marker_px: float = 12.0) -> list[tuple[float, float]]:
    """Pixel offsets (ax, ay; plotly's annotation arrows, y down) that put each point's label where it covers no
    other label, point or obstacle, moving it further out (on a leader line) when every near spot is taken.

    :func:`label_positions` chooses among the eight spots next to a point; when points crowd (systems with
    nearly equal scores) all eight are taken and labels overlap. ``obstacles`` are boxes (left, bottom, right,
    top) in the same pixels as the points, e.g. error bars.
    """
    points = [(float(x), float(y)) for x, y in zip(xs, ys)]
    finite = [(x, y) for x, y in points if math.isfinite(x) and math.isfinite(y)]
    if not finite:
        return [(20.0, -20.0)] * len(points)
    (x0, x1), (y0, y1) = [(min(v), max(v)) for v in zip(*finite)]
    to_px = [(width * (0.05 + 0.9 * (x - x0) / ((x1 - x0) or 1)), height * (0.05 + 0.9 * (y - y0) / ((y1 - y0) or 1)))
             for x, y in points]
    half = marker_px / 2
    taken = [(px - half, py - half, px + half, py + half) for px, py in to_px if math.isfinite(px + py)]
    taken += list(obstacles)
    spots = [(r * math.cos(a), r * math.sin(a)) for r in (16, 30, 48, 70)
             for a in (math.pi / 4, -math.pi / 4, 3 * math.pi / 4, -3 * math.pi / 4, 0, math.pi, math.pi / 2, -math.pi / 2)]
    out = []
    for (px, py), label in zip(to_px, labels):
        if not math.isfinite(px + py):
            out.append((20.0, -20.0))
            continue
        w, h = char_px * len(str(label)), line_px

        def box(dx: float, dy: float) -> tuple:
            # The label is centred on its spot, pushed sideways by half its width so it starts beside the point.
            cx = px + dx + (w / 2 if dx > 1 else -w / 2 if dx < -1 else 0)
            return (cx - w / 2, py + dy - h / 2, cx + w / 2, py + dy + h / 2)

        def cost(spot: tuple) -> float:
            b = box(*spot)
            outside = w * h - _overlap(b, (0, 0, width, height))
            return sum(_overlap(b, other) for other in taken) + outside + 0.02 * math.hypot(*spot)

        dx, dy = min(spots, key=cost)
        taken.append(box(dx, dy))
        cx = dx + (w / 2 if dx > 1 else -w / 2 if dx < -1 else 0)
        out.append((cx, -dy))  # plotly's ay points down
    return out
