"""RUSSE 2022 Russian detoxification, the final test (Dementieva et al. 2022): 875 toxic comments, one neutral rewrite
each, and five systems' outputs on them as the organisers had them judged by people (Protasov et al., LREC 2026).

Read from the ``russe2022-humaneval`` corpus (``textdetox/eval-of-detox-eval`` at 7660222, loaded by
:mod:`stviz.data.corpora.russe2022`): ``test_all_metrics_russe2022.csv`` holds one quoted row per (comment, system)
(4,375 = 875 x 5): ``original`` (the input), ``method_output`` (the output), ``participant_name`` (the system, named as
released), ``neutral_sentence_reference`` (the input's one human rewrite, repeated on its five rows; checked to agree)
and the crowd's judgments of the output (``fluency``, ``non-toxicity``, ``content``: 0/1 aggregated over annotators;
``J``, their product). The card's inputs are the distinct ``original`` texts in order of first appearance; the
judgments stay on the pairs, so the board shows them per system beside the recomputed measures, and the per-system
mean of ``J`` is the number put beside stviz's J as the one published (computed from the release, never copied).
"""

from __future__ import annotations

from stviz.benchmarks.card import Benchmark, PublishedSystem, ReleasedScore
from stviz.benchmarks.russe import RUSSE

PROTASOV = ("Protasov, Babakov, Dementieva, Panchenko. Evaluating Text Style Transfer: A Nine-Language Benchmark for "
            "Text Detoxification. LREC 2026 (arXiv 2507.15557).")
LICENCE = "none stated (textdetox/eval-of-detox-eval at 7660222): fetched on request, never shipped"
RELEASE = "russe2022-humaneval/test_all_metrics_russe2022.csv"
#: The five systems, as the release names them (participant_name).
SYSTEMS = ("anton_alexandrovich", "barracudas", "ekaterina_totmina", "orzhan", "ruprompts")
SETUP = ("reported j: people's J as released with the test (test_all_metrics_russe2022.csv, column J): crowd "
         "judgments of each output's fluency, non-toxicity and content, each aggregated to 0/1, J their product per "
         "output, averaged over the system's 875 outputs (in %), computed from the release when the board is built; "
         "recomputed j is stviz's automatic proxy (per output: its style classifier trained on the card's own texts x "
         "content cosine to the input x n-gram fluency), not the same quantity, and empty where the board does not "
         "compute it (not asked for, or a part not valid for Russian here: the board's notes say which)")
HUMAN_J = ReleasedScore("j", "J", "Protasov et al.'s release of the RUSSE 2022 human evaluation (J, mean per system)",
                        "people's J, not an automatic one", scale=100.0)


def _system(name: str) -> PublishedSystem:
    return PublishedSystem(
        name, "RUSSE 2022 submission (Dementieva et al. 2022)",
        {"0": f"{RELEASE}#method_output"},
        f"textdetox/eval-of-detox-eval dataset/test_all_metrics_russe2022.csv (participant_name {name})", LICENCE)


RUSSE_TEST = Benchmark(
    name="russe-test",
    title="the RUSSE 2022 Russian detoxification final test",
    description="Russian toxic comments rewritten neutral: the 875 comments of the RUSSE 2022 final test, one human "
                "rewrite each, and five submissions' outputs with people's judgments of each (fluency, "
                "non-toxicity, content, J), as released by Protasov et al.",
    inputs={"0": f"{RELEASE}#original"},
    directions={"0": ("toxic", "neutral")},
    references=({"0": f"{RELEASE}#neutral_sentence_reference"},),
    reference_notes="one crowd-written neutral rewrite per comment (the release repeats it on the comment's five rows, "
                    "checked to agree)",
    systems=tuple(_system(name) for name in SYSTEMS),
    licence=LICENCE,
    reported_setup=SETUP,
    reported_metrics=("j",),
    reported_from=(HUMAN_J,),
    pairs_from="russe2022-humaneval",
    citations=(RUSSE, PROTASOV),
)

__all__ = ["RUSSE_TEST", "SYSTEMS"]
