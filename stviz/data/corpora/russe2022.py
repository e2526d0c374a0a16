"""RUSSE 2022's final test as judged by people (Protasov, Babakov, Dementieva, Panchenko, LREC 2026), read as released.

The corpus folder (``textdetox/eval-of-detox-eval``) holds ``test_all_metrics_russe2022.csv``: 4,375 outputs of five
detoxification systems on 875 toxic Russian comments, with the crowd's judgments (``fluency``, ``non-toxicity``,
``content``: 0/1 aggregated over workers, and ``J``, their product) and the authors' automatic scores (chrF against the
reference, COMET and three XCOMETs, two cosine similarities, and two toxicity classifiers' non-toxic probability of
the input, the output and the reference). ``llm_judges/*.csv`` hold two LLM judges' scores of the same 4,375 rows in
the same order, with ``idx`` and ``id`` keys; the authors' notebook (``vizualize/plot_russe2022.ipynb``) joins them row
by row, and so does this reader, after checking that every row's texts are the same.

The judges' ``content_score``, ``toxic_pairwise_score`` (is the output less toxic than the input?) and
``fluency_score`` are the columns the paper correlates with people; ``toxic_fluency`` and ``neutral_fluency`` (the
judge's fluency of the input and of the output, from which ``fluency_score`` is derived) are left out, said.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from stviz.data.schema import HUMAN_PREFIX, METRIC_PREFIX, DataError, Dataset

CORPUS = "russe2022-humaneval"
MAIN = "test_all_metrics_russe2022.csv"
#: The two judges' files, as the notebook names their columns (``model_{stem}_{column}``, here ``{stem}_{column}``).
JUDGES = ("gpt-4.1-mini_few_shot", "meta-llama_Llama-3.3-70B-Instruct-Turbo")
JUDGE_COLUMNS = ("content_score", "toxic_pairwise_score", "fluency_score")
HUMAN = ("fluency", "non-toxicity", "content", "J")
TEXTS = {"original": "source", "method_output": "output", "participant_name": "system",
         "neutral_sentence_reference": "reference"}
TITLE = "RUSSE 2022 final test judged by people (5 systems x 875 Russian toxic comments, authors' metrics, 2 LLM judges)"


def load_russe2022_humaneval(folder: Path) -> Dataset:
    """The 4,375 judged outputs: texts, the four human judgments, the authors' scores and the judges' columns."""
    raw = pd.read_csv(folder / MAIN, keep_default_na=False, na_values=[""])
    pairs = pd.DataFrame({role: raw[column].astype(str) for column, role in TEXTS.items()})
    pairs["source_style"], pairs["target_style"] = "toxic", "neutral"
    for column in HUMAN:
        pairs[HUMAN_PREFIX + column] = raw[column].astype(float)
    measures = [c for c in raw.columns if c not in TEXTS and c not in HUMAN]
    for column in measures:
        pairs[METRIC_PREFIX + column] = raw[column].astype(float)
    notes = [f"{len(pairs):,} outputs of {pairs['system'].nunique()} systems on {pairs['source'].nunique():,} toxic "
             "comments, every row kept as released (two systems' identical outputs are two judged outputs)",
             f"{len(measures)} automatic scores of the authors: {', '.join(measures)}"]
    for stem in JUDGES:
        notes.append(_join_judge(pairs, raw, folder / "llm_judges" / f"{stem}.csv", stem))
    return Dataset(name=CORPUS, title=TITLE, pairs=pairs, notes=notes, description=(
        "Protasov, Babakov, Dementieva, Panchenko (LREC 2026): the human evaluation of RUSSE 2022's detoxification "
        "systems (Dementieva et al., Dialogue 2022), with the measures and LLM judges the paper compares with it. "
        "Human judgments are 0/1 per aspect (fluency, non-toxicity, content) and J, their product."))


def _join_judge(pairs: pd.DataFrame, raw: pd.DataFrame, path: Path, stem: str) -> str:
    """Add one judge's columns (row by row, after checking the texts), and say what was added."""
    judge = pd.read_csv(path, keep_default_na=False, na_values=[""])
    same = (len(judge) == len(raw)
            and (judge["toxic_sentence"].astype(str).to_numpy() == raw["original"].astype(str).to_numpy()).all()
            and (judge["neutral_sentence"].astype(str).to_numpy() == raw["method_output"].astype(str).to_numpy()).all())
    if not same:
        raise DataError(f"{path.name} does not list the outputs of {MAIN} row by row (its texts differ): the corpus "
                        f"folder is not as released; import it again")
    for column in JUDGE_COLUMNS:
        pairs[f"{METRIC_PREFIX}{stem}_{column}"] = judge[column].astype(float).to_numpy()
    missing = {c: int(np.isnan(judge[c].astype(float)).sum()) for c in JUDGE_COLUMNS}
    said = ", ".join(f"{c} {n:,}" for c, n in missing.items() if n)
    return (f"LLM judge {stem}: {', '.join(JUDGE_COLUMNS)} joined row by row (texts checked; idx, id are keys"
            f"{'; empty replies: ' + said if said else ''}); its toxic_fluency and neutral_fluency, from which "
            "fluency_score is derived, are left out")


__all__ = ["CORPUS", "JUDGES", "JUDGE_COLUMNS", "TITLE", "load_russe2022_humaneval"]
