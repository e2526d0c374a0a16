"""Per-pair judgments of an LLM judge (score and reply), kept in the cache folder as they arrive.

Why per pair, and why a table of its own: LLM calls are slow and may be paid for, so an interrupted run must
resume with the pairs still missing (a cache of the whole array would lose everything), and the reply of a
score that could not be parsed must be kept for people to read. SQLite gives atomic writes shared by the
dashboard's sessions, the command line and local Ray workers. A connection is opened per read or write, so
clearing the cache (the ``judgments`` area) never leaves a session writing into a deleted file.

What is stored: the judge's id (model, aspect and prompt template, hashed), a hash of the pair's two texts,
the score (NaN when unparsed) and the reply, with a checksum (stviz.cache.pair_values.PairStore). Never the server's URL, never a key.
"""

from __future__ import annotations

import json
import math
from typing import Iterable

from stviz.cache.pair_values import PairStore, pair_key  # one key per pair for every per-pair store

FILE_NAME = "judgments.sqlite"


class JudgmentStore(PairStore):
    """Score and reply per (judge, pair) in ``<cache>/judgments.sqlite``, checksummed; picklable (it holds a path)."""

    file_name = FILE_NAME
    table = "judgments_checked"  # the first table of this file had no checksums: not read
    what = "LLM judgments"

    def encode(self, value: tuple[float, str]) -> bytes:
        """(score, reply) as JSON (an unparsed score is stored as null)."""
        score, reply = value
        return json.dumps([None if math.isnan(score) else float(score), reply]).encode("utf-8")

    def decode(self, blob: bytes) -> tuple[float, str]:
        """(score, reply) with NaN for an unparsed score."""
        score, reply = json.loads(blob.decode("utf-8"))
        return (math.nan if score is None else float(score), reply or "")

    def put(self, judge: str, rows: Iterable[tuple[bytes, float, str]]) -> None:
        """Store (key, score, reply) rows; a folder that cannot be written only costs the resume."""
        self.put_entries(judge, ((key, (score, reply)) for key, score, reply in rows))


__all__ = ["FILE_NAME", "JudgmentStore", "pair_key"]
