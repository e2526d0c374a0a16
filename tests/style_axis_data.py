"""Generated files for the style-axis tests (issue 41): formality transfer in both directions with measures of one
pole (P(formal), a formality score), a one-direction file, and rated sentences as released (``id,label,sentence``).

Written for these tests from the demo's parallel informal / formal sentences; the numbers are made up.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stviz.cache import app_root

STYLES = app_root() / "data" / "demo" / "styles"


def parallel() -> tuple[list[str], list[str]]:
    """The demo's 24 informal sentences and their 24 formal rewrites, line by line."""
    read = lambda name: [line.strip() for line in (STYLES / name).read_text(encoding="utf-8").splitlines()]  # noqa
    return read("informal.txt"), read("formal.txt")


def two_direction_frame(seed: int = 0) -> pd.DataFrame:
    """72 pairs of 3 systems on 24 inputs (12 informal->formal, 12 formal->informal): two raters per aspect, and the
    authors' measures of formality: ``p_formal`` (a classifier's P(formal), 0-1) and ``formality_reg`` (a regressor's score, -3..3)."""
    informal, formal = parallel()
    rng = np.random.default_rng(seed)
    rows = []
    for system in ("rewriter", "copier", "halfway"):
        for i in range(24):
            to_formal = i < 12
            source, target = (informal[i], formal[i]) if to_formal else (formal[i], informal[i])
            rewrote = system == "rewriter" or (system == "halfway" and i % 2 == 0)
            output = target if rewrote else source
            formality = float(np.clip((0.85 if output in formal else 0.15) + rng.normal(0, 0.08), 0, 1))
            reached = formality if to_formal else 1 - formality  # how far the target style was reached
            rows.append({
                "system": system, "source_style": "informal" if to_formal else "formal",
                "target_style": "formal" if to_formal else "informal", "source": source, "output": output,
                "reference": target,
                **{f"style_{k}": float(np.clip(np.round(1 + 4 * reached + rng.normal(0, 0.6)), 1, 5)) for k in (1, 2)},
                **{f"content_{k}": float(np.clip(5 - rewrote + rng.normal(0, 0.5), 1, 5)).__round__() for k in (1, 2)},
                **{f"fluency_{k}": float(rng.integers(3, 6)) for k in (1, 2)},
                "p_formal": round(float(np.clip(formality + rng.normal(0, 0.1), 0, 1)), 4),
                "formality_reg": round(6 * formality - 3 + float(rng.normal(0, 0.4)), 4),
            })
    return pd.DataFrame(rows)


def two_direction_file(tmp_path, name: str = "both.csv", **renames: str) -> str:
    """:func:`two_direction_frame` written as CSV (columns renamed with ``renames``, e.g. p_formal='col_a')."""
    path = tmp_path / name
    two_direction_frame().rename(columns=renames).to_csv(path, index=False)
    return str(path)


def one_direction_file(tmp_path) -> str:
    """The informal->formal half with content, style and fluency raters, no references and no style columns: no
    formal human text, so no style classifier can be trained from it."""
    frame = two_direction_frame()
    frame = frame[frame["target_style"] == "formal"].drop(columns=["reference", "source_style", "target_style",
                                                                   "p_formal", "formality_reg"])
    path = tmp_path / "informal_to_formal.csv"
    frame.to_csv(path, index=False)
    return str(path)


def rated_sentences_file(tmp_path, name: str = "rated.csv", seed: int = 0, ids: str = "id") -> str:
    """Rated sentences as released: ``id,label,sentence`` with the demo's informal (low) and formal (high) sentences,
    a 'None' row (a missing sentence and rating) and row ids counted from 0."""
    informal, formal = parallel()
    rng = np.random.default_rng(seed)
    texts = informal + formal
    labels = [round(float(v), 2) for v in np.r_[rng.normal(-1.5, 0.6, 24), rng.normal(1.5, 0.6, 24)]]
    frame = pd.DataFrame({ids: range(len(texts)), "label": labels, "sentence": texts})
    frame = pd.concat([frame, pd.DataFrame({ids: [len(texts)], "label": ["None"], "sentence": ["None"]})])
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


#: Words a "delete" detoxification baseline removes (the kind RUSSE 2022's Delete baseline uses: rude words out).
RUDE_WORDS = r"\b(?:fuck\w*|shit\w*|stupid\w*|idiot\w*|damn\w*|ass|asshole\w*|bitch\w*|crap\w*|dumb\w*|suck\w*)\b\s*"


def detox_pairs(paradetox_tsv, comments: int = 120, seed: int = 68) -> pd.DataFrame:
    """English detoxification without references: a seeded sample of ParaDetox's toxic comments as inputs, and three
    systems' outputs on each: ``crowd`` (the first crowd-written neutral rewrite, ``neutral1``), ``copy`` (the input
    unchanged) and ``delete`` (the input without a few rude words). No style columns: the direction is stated."""
    import re

    raw = pd.read_csv(paradetox_tsv, sep="\t", dtype=str, keep_default_na=False, na_values=[""])
    sample = raw.sample(comments, random_state=seed)
    rude = re.compile(RUDE_WORDS, re.IGNORECASE)
    outputs = {"crowd": sample["neutral1"].tolist(), "copy": sample["toxic"].tolist(),
               "delete": [rude.sub("", text).strip() or text for text in sample["toxic"]]}
    return pd.concat([pd.DataFrame({"source": sample["toxic"].tolist(), "output": texts, "system": system})
                      for system, texts in outputs.items()], ignore_index=True)
