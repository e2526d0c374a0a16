"""Li et al. (2018)'s Amazon and image-caption test sets: their inputs, one human reference, and the outputs of
the seven systems Li et al. released (``lijuncen/Sentiment-and-Style-Transfer``, ``evaluation/outputs/DOMAIN``,
``data/DOMAIN``), read from the ``li2018`` corpus. Which file suffix is which system:
:mod:`stviz.data.corpora.li2018`."""

from __future__ import annotations

from stviz.benchmarks.card import Benchmark, PublishedSystem
from stviz.data.corpora.li2018 import DIRECTIONS, DOMAINS, PAPER_ORDER, SYSTEM_NAMES

LI2018 = "Li, Jia, He, Liang. Delete, Retrieve, Generate: a Simple Approach to Sentiment and Style Transfer. NAACL 2018."
LICENCE = "CC BY-SA 4.0 (dataset, per lijuncen/Sentiment-and-Style-Transfer's README)"
#: The paper that introduced each system (Li et al. released all seven outputs).
PAPERS = {"CrossAligned": "Shen et al. 2017 (NeurIPS)", "StyleEmbedding": "Fu et al. 2018 (AAAI)",
          "MultiDecoder": "Fu et al. 2018 (AAAI)"}
SETUP = ("sentence BLEU averaged over inputs against the one human reference, words outside the model's "
         "vocabulary dropped; accuracy from a bidirectional LSTM classifier trained on the full training set")


def li2018_benchmark(domain: str, title: str, description: str) -> Benchmark:
    """The card of one Li et al. 2018 domain other than Yelp (whose card is :mod:`stviz.benchmarks.yelp`)."""
    outputs, data, _ = DOMAINS[domain]
    suffixes = {name: suffix for suffix, name in SYSTEM_NAMES.items() if name != "Human"}
    systems = tuple(
        PublishedSystem(name, PAPERS.get(name, "Li et al. 2018 (NAACL)"),
                        {d: f"li2018/outputs/{outputs}/sentiment.test.{d}.{suffixes[name]}" for d in DIRECTIONS[domain]},
                        f"lijuncen/Sentiment-and-Style-Transfer evaluation/outputs/{outputs}/sentiment.test.*."
                        f"{suffixes[name]}", LICENCE)
        for name in PAPER_ORDER if name in suffixes)
    return Benchmark(
        name=domain, title=title, description=description,
        inputs={d: f"li2018/data/{data}/sentiment.test.{d}" for d in DIRECTIONS[domain]},
        directions=dict(DIRECTIONS[domain]),
        references=({d: f"li2018/data/{data}/reference.{d}" for d in DIRECTIONS[domain]},),
        reference_notes="one human rewrite per input (Li et al. 2018)",
        systems=systems, licence=LICENCE, texts_from=f"li2018-{domain}", reported_setup=SETUP, citations=(LI2018,))


AMAZON = li2018_benchmark("amazon", "the Amazon test set of Li et al. 2018",
                          "Amazon review sentiment transfer: 500 negative and 500 positive sentences, one human "
                          "reference each, Li et al. 2018's seven systems.")
CAPTIONS = li2018_benchmark("captions", "the image-caption test set of Li et al. 2018",
                            "300 factual image captions made romantic and made humorous, one human reference each, "
                            "Li et al. 2018's seven systems.")

__all__ = ["AMAZON", "CAPTIONS", "li2018_benchmark"]
