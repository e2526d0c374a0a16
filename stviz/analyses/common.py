"""Rules several views share: which pairs, human scores, style sentences and lexicon a view works on.

Each function either returns what the view needs or raises :class:`NotApplicable` with the
paragraph a page shows and the CLI prints; pages and commands never re-implement these checks.
"""

from __future__ import annotations

import pandas as pd

from stviz.analyses.base import NotApplicable
from stviz.data.schema import HUMAN_PREFIX, DataError, Dataset, short_name

#: What to try instead, said wherever a view does not apply.
PAIR_DATASETS = "the demo, SGDD-TST, Mir et al. Yelp outputs, Li et al. 2018, or your own pair file"
STYLE_DATASETS = ("the demo, the Corpus of Diverse Styles, Yelp sentiment, Mir et al.'s Yelp outputs, or pairs "
                  "with a source-style column")


def pairs_reason(dataset: Dataset, why: str) -> str | None:
    """None when the dataset has (source, output) pairs, else why a view that needs them does not apply."""
    if dataset.pairs is not None:
        return None
    return (f"{dataset.title or dataset.name} has style-labelled sentences but no (source, output) pairs, {why}. "
            f"Choose a pair dataset ({PAIR_DATASETS}); style-labelled sentences are explored on Style similarity "
            "and Embedding map.")


def require_pairs(dataset: Dataset, why: str) -> pd.DataFrame:
    """The dataset's pairs, or NotApplicable saying why the view needs them."""
    reason = pairs_reason(dataset, why)
    if reason:
        raise NotApplicable(reason)
    return dataset.pairs


def human_columns(dataset: Dataset) -> list[str]:
    """The numeric human-score columns of the pairs, the main one first (as the loader or upload ordered them)."""
    if dataset.pairs is None:
        return []
    return [c for c in dataset.human_columns if pd.api.types.is_numeric_dtype(dataset.pairs[c])]


def require_human_scores(dataset: Dataset) -> None:
    """Refuse pairs without a human score before any metric is scored (a correlation needs one)."""
    if dataset.pairs is not None and not human_columns(dataset):
        raise DataError(f"dataset '{dataset.name}' has no human-score columns to correlate with (map one with "
                        "--human COLUMN or --columns human=COLUMN; 'metrics' scores pairs without one)")


def humans_reason(dataset: Dataset, what: str) -> str | None:
    """None when the pairs have a numeric human score, else why ``what`` needs one."""
    if human_columns(dataset):
        return None
    return (f"{dataset.title or dataset.name} has pairs but no numeric human score, so {what}. Upload the file "
            "again with a human-score column (e.g. human_content, 1-5), or choose SGDD-TST, Mir et al. Yelp outputs "
            "or Li et al. 2018.")


def choose_human(dataset: Dataset, name: str | None) -> str:
    """The human column a view correlates with: ``name`` (prefix optional), else the dataset's main one."""
    columns = human_columns(dataset)
    if not columns:
        raise NotApplicable(humans_reason(dataset, "there is nothing to compare the metrics with"))
    if name is None:
        return columns[0]
    full = name if name.startswith(HUMAN_PREFIX) else HUMAN_PREFIX + name
    if full not in columns:
        raise NotApplicable(f"no numeric human-score column '{short_name(full)}'; choose one of "
                            f"{', '.join(short_name(c) for c in columns)}")
    return full


def direction_note(dataset: Dataset, human: str) -> str | None:
    """A note when a human column is read reversed (lower = better), so every view reads higher = better."""
    if dataset.human_higher_is_better(human):
        return None
    return (f"'{short_name(human)}' is a score where lower means more content kept: it is negated throughout, so "
            "every correlation and rank reads higher = agrees more with people.")


def style_sentences(dataset: Dataset) -> tuple[pd.DataFrame, list[str]]:
    """The style-labelled sentences a style view compares, and notes; NotApplicable with fewer than two styles.

    Styles with a single sentence have no within-style pair: they are left out (and said so)
    rather than failing the whole view.
    """
    if not dataset.has_styles:
        raise NotApplicable(f"{dataset.title or dataset.name} has no style labels, so there are no styles to "
                            f"compare. Choose {STYLE_DATASETS}.")
    texts = dataset.style_texts()
    notes = []
    from_pairs = dataset.texts is None
    if from_pairs:
        notes.append("the style-labelled sentences are the distinct source sentences of the pairs, labelled with "
                     "their source style (system outputs are not style examples: whether they carry the target "
                     "style is what is being evaluated)")
    sizes = texts["style"].astype(str).value_counts()
    if (sizes < 2).any() and (sizes >= 2).sum() >= 2:
        tiny = sizes[sizes < 2]
        notes.append("left out, fewer than 2 sentences: " + ", ".join(f"{k} ({v})" for k, v in tiny.items()))
        texts = texts[texts["style"].astype(str).isin(sizes[sizes >= 2].index)]
    styles = texts["style"].astype(str).unique()
    if len(styles) < 2:
        origin = (f"its {len(texts):,} distinct source sentences" if from_pairs else f"its {len(texts):,} sentences")
        raise NotApplicable(f"{dataset.title or dataset.name} has a single style ('{styles[0] if len(styles) else '?'}' "
                            f"for {origin}), and this view compares two or more styles. Choose {STYLE_DATASETS}.")
    return texts.reset_index(drop=True), notes


def style_lexicon(dataset: Dataset, spec: str | None, needed_by: str, instead: str = "") -> tuple[dict, str]:
    """The style lexicon a view uses and the note naming it; DataError saying how to get one when there is none.

    ``needed_by`` names what needs the words (e.g. "'masking'"), ``instead`` what the user could choose
    rather than a lexicon. Every view and command resolves lexicons here, so their messages agree.
    """
    from stviz.measures.style.lexicon import LexiconSpec

    parsed = LexiconSpec.parse(spec)
    lexicon = parsed.resolve(dataset)
    if not lexicon:
        raise DataError(f"{dataset.name} ships no style lexicon, and {needed_by} needs one: learn one with "
                        "--lexicon learn[:DATASET][:K] (e.g. learn:yelp-sentiment) or give a JSON file"
                        + (f", or {instead}" if instead else ""))
    return lexicon, parsed.describe(dataset, lexicon)


def oov_notes(specs, texts, limit: int = 5000) -> list[str]:
    """One note per word-vector embedder: the share of tokens with no vector (skipped when pooling).

    Measured on at most ``limit`` evenly spaced texts (every style represented), said in the note.
    """
    from stviz.embedders import EmbedderError, WordVectorEmbedder, parse_embedder

    texts = [str(t) for t in texts]
    step = max(1, len(texts) // limit)
    sample = texts[::step][:limit]
    notes = []
    for spec in specs:
        try:
            embedder = parse_embedder(spec)
            if not isinstance(embedder, WordVectorEmbedder):
                continue
            rate = embedder.oov_rate(sample)
        except EmbedderError:
            continue  # the embedding step itself reports why the vectors cannot load
        scope = f"{len(sample):,} texts" + (f" sampled from {len(texts):,}" if len(sample) < len(texts) else "")
        notes.append(f"{embedder.label}: {rate:.1%} of tokens have no vector (out of vocabulary, on {scope}); "
                     "they are skipped when pooling")
    return notes


def train_and_save_classifier(dataset: Dataset, kind: str, folder, max_texts: int | None = None, progress=None):
    """Train a style classifier (``lr`` or ``transformer``) on the dataset's labelled texts and save it to
    ``folder``: (the trained classifier, the folder). ``max_texts`` defaults to the kind's own sample size."""
    from stviz.measures.style.classifiers import DEFAULT_MAX_TEXTS, save_classifier, train_on_dataset

    trained = train_on_dataset(dataset, kind, max_texts=max_texts or DEFAULT_MAX_TEXTS[kind], progress=progress)
    return trained, save_classifier(trained, folder)


def train_and_save_scorer(dataset: Dataset, name: str, kind: str = "ridge-tfidf", rating: str | None = None,
                          pole: str | None = None, folder=None):
    """Learn a style scorer from the dataset's rated sentences and save it under ``name`` (or in ``folder``), for
    ``--style-scorer NAME`` anywhere: (the scorer, its folder, a note when it replaced a scorer saved there before,
    else ''). Its held-out error on these sentences is in it."""
    from stviz.measures.style.saved import load_scorer, save_scorer, scorer_folder, train_scorer

    scorer = train_scorer(dataset, name, kind, rating=rating, pole=pole or None)
    before = scorer_folder(str(folder) if folder else name)
    replaced = ""
    if before is not None:  # said, never silent: the old one is gone
        old = load_scorer(str(before))
        replaced = (f"replaced the scorer saved as '{name}' before ({old.kind} on {old.trained_on} "
                    f"'{old.rating}', {old.n_train:,} sentences)")
    return scorer, save_scorer(scorer, folder), replaced


def style_scorer_names() -> list[str]:
    """The style scorers a user can name: the saved ones and the public formality regressor."""
    from stviz.measures.style.formality import PT16_SCORER
    from stviz.measures.style.saved import saved_scorers

    return list(dict.fromkeys(saved_scorers() + [PT16_SCORER]))


__all__ = ["PAIR_DATASETS", "STYLE_DATASETS", "choose_human", "direction_note", "human_columns", "humans_reason",
           "oov_notes", "pairs_reason", "require_pairs", "style_lexicon", "style_scorer_names", "style_sentences",
           "train_and_save_classifier", "train_and_save_scorer"]
