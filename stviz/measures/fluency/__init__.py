"""The fluency family: how natural an output reads.

* perplexity under a language model of the target style (:mod:`stviz.measures.fluency.language_models`: the
  offline Kneser-Ney n-gram model, a causal LM ``hf:MODEL`` or a masked LM's pseudo-perplexity ``mlm:MODEL``),
  computed per output by :mod:`stviz.measures.fluency.perplexity` from the human-written texts
  :mod:`stviz.measures.fluency.own_texts` finds (a companion corpus, else the file's own inputs and references,
  cross-fitted);
* adversarial naturalness (:mod:`stviz.measures.fluency.naturalness`, Mir et al. 2019).
"""

from __future__ import annotations

from stviz.measures.cards import HIGHER, LOWER, MeasureCard, Orientation, register

register(
    MeasureCard("perplexity", "−perplexity (n-gram LM)", "fluency", Orientation(LOWER),
                "perplexity of the output under a language model of its target style (negated before correlations)"),
    MeasureCard("naturalness", "naturalness (adversarial)", "fluency", Orientation(HIGHER),
                "probability an adversarial classifier gives the output of being human-written (Mir et al. 2019)"),
)
