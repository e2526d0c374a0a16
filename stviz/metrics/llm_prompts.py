"""The LLM judges' prompts: the shipped templates (``prompts/*.txt``) or a user's file, with their score scale.

A template's lines starting with ``#`` are comments, not sent; ``# scale: 1-5`` states its scale; ``{source}`` and
``{output}`` are replaced by a pair's texts. Shared by the server judge (:mod:`stviz.metrics.llm`) and the judge run
in this process (:mod:`stviz.metrics.llm_local`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from stviz.data.schema import DataError

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"


@dataclass(frozen=True)
class Template:
    """A prompt as sent (comment lines removed), its score scale, and where it came from."""

    text: str
    scale: tuple[float, float]
    path: str
    custom: bool


def read_template(aspect: str, path: str | None = None) -> Template:
    """The prompt in ``path`` (a user's file), else the aspect's shipped one; DataError for an unusable file."""
    where = Path(path or PROMPTS_DIR / f"{aspect}.txt")
    try:
        raw = where.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read the {aspect} prompt '{where}': {exc.strerror or exc}") from None
    scale = re.search(r"^#\s*scale:\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*$", raw, re.M | re.I)
    low, high = (float(scale.group(1)), float(scale.group(2))) if scale else (1.0, 5.0)
    text = "\n".join(line for line in raw.splitlines() if not line.lstrip().startswith("#")).strip()
    if "{output}" not in text:
        raise DataError(f"the {aspect} prompt '{where}' has no {{output}} placeholder for the text to judge")
    if low >= high:
        raise DataError(f"the {aspect} prompt '{where}' states the scale {low:g}-{high:g}: the low end comes first")
    return Template(text, (low, high), str(where), path is not None)


def fill(template: str, source: str, output: str) -> str:
    """The prompt for one pair (plain replacement: braces elsewhere in a template stay as written)."""
    return template.replace("{source}", source).replace("{output}", output)


__all__ = ["PROMPTS_DIR", "Template", "fill", "read_template"]
