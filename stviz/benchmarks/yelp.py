"""The Yelp sentiment test set of Li et al. (2018): 500 negative and 500 positive review sentences, four human
references, and the released outputs of eleven published systems (Luo et al.'s DualRL collection).

Sources, checked file by file against the shared copies (``tests/test_benchmarks.py``):

* inputs: ``luofuli/DualRL`` ``data/yelp/test.{0,1}``, identical to Li et al.'s
  ``lijuncen/Sentiment-and-Style-Transfer`` ``data/yelp/sentiment.test.{0,1}``;
* references: DualRL's ``references/yelp/reference{0..3}.{0,1}``. ``reference0`` is Li et al.'s human rewrite
  (``data/yelp/reference.*``) tokenised and lower-cased; ``reference1..3`` are the three DualRL collected;
* outputs: DualRL's ``outputs/yelp/SYSTEM/test.{0-1,1-0}.tsf`` (input<TAB>output). Seven of them are Li et al.'s
  own releases (``evaluation/outputs/yelp/sentiment.test.*.SUFFIX``), identical line by line up to case;
* Style Transformer's two systems (Dai et al. 2019, ``fastnlp/style-transformer`` ``outputs/yelp/output.{0,1}.*``,
  bare lines on the same test inputs): :mod:`stviz.benchmarks.style_transformer`.
"""

from __future__ import annotations

from stviz.benchmarks.card import Benchmark, PublishedSystem, Reported, SENTIMENT_DIRECTIONS
from stviz.benchmarks.style_transformer import DAI, NOT_READ, style_transformer_systems

DUALRL = "Luo et al. 2019 (IJCAI), A Dual Reinforcement Learning Framework for Unsupervised Text Style Transfer"
DUALRL_LICENCE = "MIT (luofuli/DualRL LICENSE); Yelp dataset terms apply"
LI2018_COPY = "; the same outputs as lijuncen/Sentiment-and-Style-Transfer evaluation/outputs/yelp/sentiment.test.*.{}"
DUALRL_SETUP = ("BLEU against the four human references, on the released tokenised lower-cased text (the DualRL "
                "README recommends the multi-reference set); accuracy from the authors' TextCNN classifier")

#: stviz name -> (DualRL folder, paper, Li et al.'s file suffix when the outputs are also in Li et al.'s release)
SYSTEMS = {
    "CrossAligned": ("CrossAlignment_Shen", "Shen et al. 2017 (NeurIPS)", "mit"),
    "StyleEmbedding": ("StyleEmbedding_Fu", "Fu et al. 2018 (AAAI)", "fader"),
    "MultiDecoder": ("Multidecoder_Fu", "Fu et al. 2018 (AAAI)", "multi_decoder"),
    "BackTranslation": ("BackTranslation_Pr", "Prabhumoye et al. 2018 (ACL)", ""),
    "TemplateBased": ("TemplateBase_Li", "Li et al. 2018 (NAACL)", "rule_base"),
    "RetrieveOnly": ("RetrieveOnly_Li", "Li et al. 2018 (NAACL)", "retrieval"),
    "DeleteOnly": ("DeleteOnly_Li", "Li et al. 2018 (NAACL)", "label"),
    "DeleteAndRetrieve": ("DeleteRetrieve_Li", "Li et al. 2018 (NAACL)", "orgin"),
    "UnpairedRL": ("UnpairedRL_Xu", "Xu et al. 2018 (ACL)", ""),
    "UnsuperMT": ("UnsuperMT_Zhang", "Zhang et al. 2018 (arXiv:1808.07894)", ""),
    "DualRL": ("DualRL", DUALRL, ""),
}

#: Numbers the papers printed for these outputs on this test set; a system without one was not found in the paper
#: itself (numbers only quoted second-hand, such as a BLEU for DeleteOnly in a repository's issue thread, are left
#: out: their computation cannot be checked).
REPORTED = {
    "DualRL": (Reported("bleu", 55.2, "Luo et al. 2019, the Yelp BLEU of DualRL (Papers with Code's record of the "
                                      "paper's table)", DUALRL_SETUP),),
}


def _system(name: str) -> PublishedSystem:
    folder, paper, suffix = SYSTEMS[name]
    files = {"0": f"dualrl/outputs/yelp/{folder}/test.0-1.tsf", "1": f"dualrl/outputs/yelp/{folder}/test.1-0.tsf"}
    source = f"luofuli/DualRL outputs/yelp/{folder}/" + (LI2018_COPY.format(suffix) if suffix else "")
    return PublishedSystem(name, paper, files, source, DUALRL_LICENCE, REPORTED.get(name, ()))


YELP = Benchmark(
    name="yelp",
    title="the Yelp test set of Li et al. 2018",
    description="Yelp sentiment transfer: 500 negative and 500 positive review sentences (Shen et al. 2017's data, "
                "test split of Li et al. 2018), four human references, thirteen published systems' outputs.",
    inputs={"0": "dualrl/data/yelp/test.0", "1": "dualrl/data/yelp/test.1"},
    directions=SENTIMENT_DIRECTIONS,
    references=tuple({"0": f"dualrl/references/yelp/reference{k}.0", "1": f"dualrl/references/yelp/reference{k}.1"}
                     for k in range(4)),
    reference_notes="reference 1 is Li et al. 2018's human rewrite (as DualRL releases it, tokenised and "
                    "lower-cased); references 2-4 are the three Luo et al. 2019 collected",
    systems=tuple(_system(name) for name in SYSTEMS) + style_transformer_systems("yelp"),
    licence="outputs, references, inputs: MIT (luofuli/DualRL); Li et al.'s copies CC BY-SA 4.0; Style Transformer's "
            "outputs: none stated, fetched on request; Yelp dataset terms",
    style_data="yelp-sentiment",
    reported_setup=DUALRL_SETUP,
    reported_note=f"numbers of the other papers could not be retrieved; {NOT_READ}",
    citations=(DUALRL, "Li, Jia, He, Liang. Delete, Retrieve, Generate. NAACL 2018.", DAI),
)

__all__ = ["YELP"]
