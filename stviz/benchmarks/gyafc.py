"""GYAFC (Rao and Tetreault 2018), formality transfer: listed so that a user learns where it stands, never shipped.

The corpus is free for research only and handed out on request, so neither its test inputs nor the outputs
released on it (DualRL publishes a family-and-relationships subset under ``outputs/GYAFC``) can be fetched by
stviz: nothing here has a SHA-256, and ``data fetch gyafc`` says how to obtain the data instead.
"""

from __future__ import annotations

from stviz.benchmarks.card import Benchmark, PublishedSystem, Reported

OBTAIN = ("GYAFC is free for research only and is given out on request (see github.com/raosudha89/GYAFC-corpus), so "
          "stviz never ships or downloads it (sha256 unknown). Once you have it, compare your outputs with the "
          "released ones as a folder: python -m stviz leaderboard --dataset FOLDER --references REFERENCE FILES "
          "(e.g. DualRL's outputs/GYAFC/ and references/GYAFC/ laid out as released)")

GYAFC = Benchmark(
    name="gyafc",
    title="the GYAFC formality test set (Rao and Tetreault 2018)",
    description="Informal <-> formal rewriting of Yahoo Answers sentences (Entertainment & Music, Family & "
                "Relationships); four human references per input. Data on request only.",
    inputs={}, directions={"0": ("informal", "formal"), "1": ("formal", "informal")}, references=(),
    reference_notes="four human references per test input (Rao and Tetreault 2018)",
    systems=(PublishedSystem("DualRL", "Luo et al. 2019 (IJCAI)", {}, "luofuli/DualRL outputs/GYAFC/ (a family-and-"
                             "relationships subset; obtain GYAFC first)", "research only (GYAFC terms)",
                             (Reported("bleu", 41.9, "Luo et al. 2019, the GYAFC BLEU of DualRL (Papers with Code's "
                                                     "record of the paper's table)"),)),),
    licence="research only, on request (GYAFC terms)",
    obtain=OBTAIN,
    citations=("Rao, Tetreault. Dear Sir or Madam, May I Introduce the GYAFC Dataset. NAACL 2018.",),
)

__all__ = ["GYAFC", "OBTAIN"]
