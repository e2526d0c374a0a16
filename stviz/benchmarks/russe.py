"""RUSSE 2022 Russian detoxification (Dementieva et al. 2022): the development set's 800 toxic comments with one to
three neutral rewrites each, and the outputs of the two baselines the organisers released on it.

Read from the ``russe-detox`` corpus (``s-nlp/russe_detox_2022`` at a2f79da): ``data/input/dev.tsv`` (columns
``toxic_comment``, ``neutral_comment1..3``; an empty cell is no reference) and ``data/output/{delete_dev,
t5_base_10000_dev}.txt`` (bare lines aligned with the TSV's rows). The organisers' repository never released the test
set's references; the final test, as released with its human evaluation, is the ``russe-test`` card
(:mod:`stviz.benchmarks.russe_test`). Russian texts are measured with Russian's valid measures only
(:mod:`stviz.languages`): BLEU, self-BLEU, chrF, the cosine and J on Russian's multilingual encoder, and the classifier
and language model learned from the card's own texts, cross-fitted; BERTScore (MiniLM's) is left out, said.
"""

from __future__ import annotations

from stviz.benchmarks.card import Benchmark, PublishedSystem

RUSSE = ("Dementieva, Logacheva, Nikishina, Fenogenova, Dale, Krotova, Semenov, Shavrina, Panchenko. RUSSE-2022: "
         "Findings of the First Russian Detoxification Shared Task Based on Parallel Corpora. Dialogue 2022.")
PAPER = "Dementieva et al. 2022 (RUSSE 2022 baselines)"
LICENCE = "none stated (s-nlp/russe_detox_2022 at a2f79da): fetched on request, never shipped"
DEV = "russe-detox/data/input/dev.tsv"
#: stviz name -> (released file, what it is, per the repository's README)
SYSTEMS = {"Delete": ("delete_dev", "rule-based: removes the words of a vocabulary of rude words"),
           "ruT5-base": ("t5_base_10000_dev", "ruT5-base fine-tuned on the parallel training data")}
SETUP = ("the shared task's setup: STA (a RuBERT toxicity classifier), SIM (LaBSE cosine), FL (a RuBERT corruption "
         "detector), their product J, and chrF (NLTK's corpus_chrf with the three references of an input joined into "
         "one text); stviz computes sacrebleu's chrF against each reference kept apart")
NOT_READ = ("the RUSSE 2022 paper's tables could not be read here, so no reported number is given; the repository's "
            "evaluation notebook (commit 6efda7c) scored an earlier version of t5_base_10000_dev.txt, not the released "
            "one (see docs/benchmarks-zoo.md)")


def _system(name: str) -> PublishedSystem:
    stem, what = SYSTEMS[name]
    return PublishedSystem(name, f"{PAPER}: {what}", {"0": f"russe-detox/data/output/{stem}.txt"},
                           f"s-nlp/russe_detox_2022 data/output/{stem}.txt", LICENCE)


RUSSE_DETOX = Benchmark(
    name="russe-detox",
    title="the RUSSE 2022 Russian detoxification development set",
    description="Russian toxic comments rewritten neutral: 800 comments of the RUSSE 2022 development set, one to "
                "three human rewrites each, the two released baselines (Delete, ruT5-base).",
    inputs={"0": f"{DEV}#toxic_comment"},
    directions={"0": ("toxic", "neutral")},
    references=tuple({"0": f"{DEV}#neutral_comment{k}"} for k in (1, 2, 3)),
    reference_notes="up to three crowd-written neutral rewrites per comment (all 800 have one, 260 a second, 56 a "
                    "third)",
    systems=tuple(_system(name) for name in SYSTEMS),
    licence=LICENCE,
    reported_setup=SETUP,
    reported_note=NOT_READ,
    reported_metrics=("chrf",),
    citations=(RUSSE,),
)

__all__ = ["RUSSE_DETOX", "SYSTEMS"]
