"""Overall measures: joint scores of style and content per output, compared with overall ratings.

Computed by the meta-evaluation (:func:`stviz.analyses.meta_measures.overall_measures`) from the style classifier's
target-style probability and the content metrics; Krishna et al.'s J with its fluency factor is the Leaderboard's.
"""

from __future__ import annotations

from stviz.measures.cards import HIGHER, MeasureCard, Orientation, register

register(
    MeasureCard("joint_style_similarity", "p(target style) × MiniLM cosine", "overall", Orientation(HIGHER),
                "Krishna et al. 2020's J without its fluency factor, per output"),
    MeasureCard("g2", "G2 per output = √(p(target) × BLEU)", "overall", Orientation(HIGHER), "Xu et al. 2018"),
    MeasureCard("h2", "H2 per output = harmonic(p(target), BLEU)", "overall", Orientation(HIGHER), "Xu et al. 2018"),
    MeasureCard("joint_own_text", "p(target, own-text classifier) × multilingual cosine", "overall", Orientation(HIGHER),
                "J without its fluency factor in any language: the own-text classifier's target probability times "
                "the multilingual encoder's cosine to the input"),
)
