"""What a column of a user's file means: the one vocabulary read by intake, orientation, sanity checks and pages.

A column of a pair file is one of:

* a **text role**: source, output, reference, system, setting, source or target style, or the pairs' **language**;
* a **human rating** of an aspect (content, style, fluency, overall; Mir et al. 2019, Briakou et al. 2021), or one
  rater's rating of it;
* a **measure**: an automatic score computed before (BLEU, a toxicity classifier's probability, an LLM judge), with
  the axis its name says, or none (then it is compared with every human aspect), and for style the pole it measures
  (``p_formal``: higher = more formal) or "toward each pair's target" (``style_acc``);
* a **key**: an id, a saved row number, an index into a test set (``SID``, ``idx``, ``source_index``): never a
  measure, never a rating;
* unclear: shown as such, and declarable.

Every decision has its evidence (:class:`Meaning`): the name, the values ("the product of 'fluency', 'content'"), or
the user's declaration (``--columns``, ``--aspects``, ``--axes``, ``--poles``). :mod:`stviz.data.intake.mapping` applies
it to a file, :mod:`stviz.measures.style.poles` turns the poles it names, :mod:`stviz.meta.sanity` checks the namesakes
it finds, and the pages show it.

>>> guess_aspect("human:fluency_mean"), guess_aspect("formality_human"), guess_aspect("J")
('fluency', 'style', 'overall')
>>> measure_axis("gpt2_ppl"), measure_axis("CLS_NEW_GEN"), style_pole("p_formal"), style_pole("style_acc")
('fluency', None, ('pole', 'formal'), ('target', ''))
>>> is_key_name("source_index"), is_key_name("idx"), is_key_name("index_score")
(True, True, False)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.data.schema import DataError, short_name


def words(name: object) -> list[str]:
    """A column name's lower-case words ('human_fluency2' -> human, fluency, 2; 'CLS_NEW_GEN' -> cls, new, gen)."""
    return [w for w in re.split(r"[^a-z0-9]+|(?<=[a-z])(?=[0-9])", short_name(str(name)).lower()) if w]


def norm(name: object) -> str:
    """A name with case and punctuation gone ('Source Text' -> 'sourcetext'): how role names are compared."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


# -- text roles ---------------------------------------------------------------------------------------------------
#: Column names people use for each one-column role, compared by :func:`norm`.
SYNONYMS = {
    "source": ("source", "src", "input", "original", "text1", "textfirst", "inputtextfirst", "sentence1", "sourcetext",
               "inputtext", "toxicsentence", "toxiccomment"),
    "output": ("output", "transferred", "prediction", "pred", "hypothesis", "hyp", "generated", "text2", "textsecond",
               "inputtextsecond", "sentence2", "outputtext", "rewrite", "transfer", "methodoutput", "systemoutput",
               "modeloutput", "neutralsentence"),
    "system": ("system", "model", "method", "systemname", "participant", "participantname", "team", "modelname"),
    "setting": ("setting", "config", "configuration", "param", "parameter", "hyperparameter"),
    "source_style": ("sourcestyle", "srcstyle", "fromstyle", "style", "label", "inputstyle", "stylefrom", "stylesrc",
                     "stylesource", "sourcelabel", "srclabel", "fromlabel", "inputlabel", "originalstyle",
                     "sourceattribute", "srcattribute", "sourceattr", "srcattr", "fromattribute"),
    "target_style": ("targetstyle", "tgtstyle", "tostyle", "outputstyle", "styleto", "styletgt", "styletarget",
                     "targetlabel", "tgtlabel", "tolabel", "outputlabel", "desiredstyle", "goalstyle",
                     "targetattribute", "tgtattribute", "targetattr", "tgtattr", "toattribute", "target", "tgt"),
    "language": ("language", "lang", "locale", "lg", "languagecode", "langcode", "languageid", "langid"),
}
#: Reference column names, optionally numbered ("ref2", "reference_3") or qualified ("neutral_sentence_reference").
REFERENCE_NAMES = re.compile(r"^(reference|references|ref|refs|gold|goldreference|referenceoutput|target|human_?rewrite"
                             r"|[a-z]+reference|[a-z]+references)(\d*)$")


#: Names of a target style that also name a text (``target``: a reference; ``tgt``: an output): the cells decide.
STYLE_OR_TEXT = {"target", "tgt"}


def style_evidence(role: str, name: object, cells: pd.Series) -> str | None:
    """Whether a column named like a source or target style (``role``) holds the pairs' styles: None when its cells
    are sentences under a name that also names a text (a ``target`` of references), else the evidence to say ('' for
    the role's own name)."""
    key = role_norm(name)
    if key in STYLE_OR_TEXT and not is_labels(cells):
        return None
    if key == norm(role):
        return ""
    labels = list(dict.fromkeys(str(c).strip() for c in cells.dropna() if str(c).strip()))
    return f"its name says so and its cells name styles ({', '.join(labels[:3])})"


#: Most distinct values, and most words in one, of a column of labels (style names, ratings written in words).
LABELS, LABEL_WORDS = 20, 4


def is_labels(cells: pd.Series) -> bool:
    """Whether a column's cells are labels ('formal', 'negative', 0 / 1, 'strongly agree'), not sentences: a few
    distinct values of a few words each, none ending as a sentence does."""
    values = {str(c).strip() for c in cells.dropna() if str(c).strip()}
    return (0 < len(values) <= LABELS and all(len(v.split()) <= LABEL_WORDS and len(v) <= 40
                                              and not v.endswith((".", "!", "?")) for v in values))


def rating_words(name: object, cells: pd.Series) -> list[str]:
    """The words of a column named like a human rating that holds its ratings as a few words and no number ('high',
    'medium', 'low'), or []; :func:`stviz.data.intake.cells.word_scale` reads them, when they are on a scale it
    knows."""
    from stviz.data.intake.cells import scale_words

    return scale_words(cells) if is_human_name(str(name)) and is_labels(cells) else []


def is_language_column(cells: pd.Series) -> bool:
    """Whether a column named like a language holds the pairs' languages (codes or names): more than half of its filled
    cells name one. The others' pairs are detected, said with their lines (``stviz.data.intake.build``)."""
    from stviz.languages.cards import parse_language

    filled = [str(v).strip() for v in cells.dropna() if str(v).strip()]
    known = {cell: parse_language(cell) is not None for cell in set(filled)}
    return 2 * sum(known[cell] for cell in filled) > len(filled)


def role_norm(name: object) -> str:
    """The name a role is looked up by: a nested JSON field flattened to 'pair.source' plays its last part's role."""
    return norm(str(name).rsplit(".", 1)[-1])


def names_a_role(name: object) -> bool:
    """Whether a name is one of a text role's names (a source, a reference, a language, ...)."""
    return any(role_norm(name) in names for names in SYNONYMS.values()) or bool(REFERENCE_NAMES.match(role_norm(name)))


# -- human ratings ------------------------------------------------------------------------------------------------
ASPECTS = ("content", "style", "fluency", "overall")
#: A human column that is not meta-evaluated (e.g. a rating of the *input*, which no output measure explains).
NO_ASPECT = "none"
#: Words that make a numeric column a human judgement ("human_fluency", "avg_score", "rating", "MOS").
HUMAN_WORDS = {"human", "humans", "rating", "ratings", "rated", "judgment", "judgement", "judgments", "judgements",
               "annotation", "annotations", "annotator", "likert", "mos", "crowd", "vote", "votes", "manual"}
#: A name made only of these words is a human score too ("score", "avg_score", "mean score", "overall").
SCORE_WORDS = {"score", "scores", "avg", "average", "mean", "median", "overall", "final", "total", "gold", "human"}
#: Stems of per-annotator columns ("label_1", "rater2", "annotator_3", "score_a1").
RATER_WORDS = ("rater", "annotator", "judge", "worker", "coder", "assessor", "label", "rating", "score", "vote",
               "annotation", "human", "crowd", "turker", "participant", "evaluator")
#: Words that name a rated aspect by themselves: a numeric column called only ``fluency`` or ``style_2`` is a
#: human rating (or one rater's), unless :func:`pole_named_measures` finds it is a measure beside the rating.
ASPECT_WORDS = {"content", "meaning", "semantic", "semantics", "adequacy", "preservation", "style", "formality",
                "sentiment", "toxicity", "politeness", "strength", "fluency", "naturalness", "grammaticality",
                "grammar", "readability", "overall", "combined", "quality", "intensity", "transfer", "joint"}
#: Words that negate the aspect word after them ('non-toxicity' rates the absence of toxicity: still a rating).
NEGATIONS = {"non", "not", "no"}
#: Name patterns -> aspect, tried in order on the lower-case name; unmatched columns are read as content (the
#: field's most common rating, and what SGDD-TST's ``average`` and ``vote_*`` columns are). ``J`` is the joint score
#: of the detoxification studies (RUSSE 2022: style x content x fluency).
ASPECT_PATTERNS = (
    (r"input|source", NO_ASPECT), (r"gramm|fluen|natural|perplex|readab", "fluency"),
    (r"style|attribute|intensity|formal|sentiment|polarity|toxic|polite|strength|transfer_?acc", "style"),
    (r"success|overall|quality|total|joint|combined|^j$", "overall"),
    (r"content|meaning|similar|preserv|average|vote|adequa|semantic", "content"),
)


def names_an_aspect(name_words: Sequence[str]) -> bool:
    """Whether a name's words name a rated aspect and nothing else ('fluency', 'style_score', 'non-toxicity')."""
    allowed = ASPECT_WORDS | SCORE_WORDS | HUMAN_WORDS | set(RATER_WORDS) | NEGATIONS
    return bool(set(name_words) & ASPECT_WORDS) and set(name_words) <= allowed


def is_human_name(name: str) -> bool:
    """Whether a column's name says it holds human judgements ('human_fluency', 'avg_score', 'rating')."""
    name_words = words(name)
    if not name_words or is_metric_name(name):
        return False
    return (bool(HUMAN_WORDS & set(name_words)) or names_an_aspect(name_words)
            or (set(name_words) <= SCORE_WORDS and bool({"score", "scores"} & set(name_words) or len(name_words) == 1)))


def guess_aspect(column: str) -> str:
    """The aspect a human column rates, guessed from its name (content when nothing matches)."""
    name = short_name(column).lower()
    for pattern, aspect in ASPECT_PATTERNS:
        if re.search(pattern, name):
            return aspect
    return "content"


def parse_aspects(entries: Sequence[str]) -> dict[str, str]:
    """``COLUMN=ASPECT`` entries (``--aspects``) -> {column short name: aspect}; DataError on a bad one."""
    return _parse_declarations(entries, ASPECTS + (NO_ASPECT,), "aspect", "ASPECT")


# -- measures -----------------------------------------------------------------------------------------------------
#: Words of automatic metrics: "bleu_score" or "bert_score" are metrics, never human scores.
METRIC_WORDS = ("bleu", "chrf", "meteor", "rouge", "bertscore", "bert", "bleurt", "comet", "xcomet", "ter", "wmd",
                "cosine", "cossim", "sim", "similarity", "ppl", "perplexity", "accuracy", "acc", "prob", "logprob",
                "ner", "gleu", "sari", "mover", "bartscore", "metric", "auto", "automatic", "classifier", "cls", "clf",
                "llm", "gpt", "xlmr", "labse", "sbert")
#: The axes a measure may be declared to measure (``--axes COLUMN=AXIS``); 'any' undoes a name's axis.
AXES = ("content", "style", "fluency", "overall")
ANY_AXIS = "any"
#: Name words of a measure -> the axis it serves. A name with none of them says no axis: the measure is then compared
#: with every human aspect of its file (the authors' own toxicity classifier ``CLS_NEW_GEN`` is a style measure its
#: name does not announce).
MEASURE_AXIS_WORDS = (
    ({"ppl", "perplexity", "fluency", "gpt2", "lm", "grammar", "grammaticality", "cola", "naturalness", "slor",
      "pll", "nll", "acceptability"}, "fluency"),
    ({"style", "formality", "sentiment", "toxicity", "toxic", "polarity", "acc", "accuracy", "sti", "strength",
      "transfer", "emd", "intensity", "formal", "informal", "pos", "neg", "positive", "negative", "politeness",
      "polite"}, "style"),
    ({"j", "joint", "gm", "hm", "g2", "h2", "overall", "combined"}, "overall"),
    ({"bleu", "chrf", "meteor", "rouge", "rouge1", "rouge2", "rougel", "bertscore", "bleurt", "comet", "wmd",
      "cosine", "cossim", "sim", "similarity", "content", "meaning", "semantic", "labse", "ter", "jaccard", "ne"},
     "content"),
)
#: Name words of one pole of a style -> the pole (the style that high values mean).
POLE_WORDS = {
    "formality": "formal", "formal": "formal", "informality": "informal", "informal": "informal",
    "sentiment": "positive", "positive": "positive", "positivity": "positive", "polarity": "positive", "pos": "positive",
    "negative": "negative", "negativity": "negative", "neg": "negative",
    "toxicity": "toxic", "toxic": "toxic", "tox": "toxic", "offensive": "offensive",
    "politeness": "polite", "polite": "polite", "impolite": "impolite", "rudeness": "rude", "rude": "rude",
    "humor": "humorous", "humour": "humorous", "humorous": "humorous", "romantic": "romantic",
}
#: Name words that say a column already measures toward each pair's target style (a pairwise or relative judgment
#: compares the output with its input: "is it less toxic?", as the detoxification studies' LLM judges ask).
TARGET_WORDS = {"acc", "accuracy", "sti", "intensity", "emd", "target", "tgt", "transfer", "success", "ptarget",
                "pairwise", "relative"}


def is_metric_name(name: str) -> bool:
    """Whether a column's name is that of an automatic metric ('bleu_score', 'bertscore_f1', 'llm_content')."""
    key, name_words = norm(name), set(words(name))
    return any(w in name_words for w in METRIC_WORDS) or any(key.startswith(m) for m in ("bleu", "chrf", "bertscore",
                                                                                       "bleurt", "meteor", "rouge"))


def measure_axis(column: str) -> str | None:
    """The axis a precomputed measure's name says ('style_acc' -> style, 'gpt2_ppl' -> fluency, 'chrf' -> content),
    or None when the name says none ('CLS_NEW_GEN', 'XCOMET-XL': compared with every aspect)."""
    found = set(words(column))
    for vocabulary, axis in MEASURE_AXIS_WORDS:
        if found & vocabulary:
            return axis
    return "style" if style_pole(column) is not None else None


def style_pole(column: str) -> tuple[str, str] | None:
    """What a style column's name says it measures: ('target', '') toward each pair's target, ('pole', POLE) one
    pole of a style, or None (the name says neither)."""
    name_words = words(column)
    if set(name_words) & TARGET_WORDS:
        return "target", ""
    # 'non-toxicity': higher = less toxic, a pole of its own that no pair's style is named after.
    poles = {("non-" if k and name_words[k - 1] in NEGATIONS else "") + POLE_WORDS[w]
             for k, w in enumerate(name_words) if w in POLE_WORDS}
    return ("pole", poles.pop()) if len(poles) == 1 else None


def parse_axes(entries: Sequence[str]) -> dict[str, str]:
    """``COLUMN=AXIS`` entries (``--axes``) -> {column short name: axis}; 'any' compares it with every aspect."""
    return _parse_declarations(entries, AXES + (ANY_AXIS,), "axis", "AXIS")


#: Column-name patterns (lower case, letters, digits and '+' only), searched anywhere in the name -> the stviz
#: metric of the same name. 'charF' and 'chr_f' are chrF as people write it.
NAMESAKES = (
    (r"(sacre)?bleu", "bleu"), (r"cha?rf(\+\+|pp)", "chrf++"), (r"cha?rf", "chrf"), (r"meteor", "meteor"),
    (r"rouge1", "rouge1"), (r"rouge2", "rouge2"), (r"rouge3", "rouge3"), (r"rougel", "rougeL"),
    (r"bertscore", "bertscore"), (r"(w2v|word2vec|fasttext|glove)", "cosine:glove-mean"),
    (r"(minilm|sbert|sentencebert|cosine|cossim)", "cosine:minilm"),
)
#: Name words that say a column compares the output with its references rather than its source.
REFERENCE_SIDE = re.compile(r"(^|[^a-z])(ref|refs|reference|references|gold|tgt|target)([^a-z]|$)")


#: Other measures whose names hold a namesake's: BLEURT is not BLEU, iBLEU (BLEU minus BLEU to the source) is not BLEU,
#: chrF+ (word unigrams) is neither chrF nor chrF++. A column so named has no namesake: nothing to hold it to.
NEAR_NAMESAKES = re.compile(r"bleurt|(^|[^a-z])ibleu|cha?r[_-]?f\+(?!\+)")


def namesake(column: str) -> str | None:
    """The stviz metric a precomputed column is named after, wherever the name says it (``src_chrF`` -> chrf); None
    for a measure whose name only holds one (``bleurt`` is not BLEU)."""
    if NEAR_NAMESAKES.search(short_name(column).lower()):
        return None
    key = re.sub(r"[^a-z0-9+]", "", short_name(column).lower())
    for pattern, metric in NAMESAKES:
        if re.search(pattern, key):
            return metric
    return None


def reference_side(column: str) -> bool:
    """Whether a column's name says it compares outputs with references ('ref_bleu', 'BLEU-ref', 'gold_chrf')."""
    return bool(REFERENCE_SIDE.search(short_name(column).lower()))


#: Name words that say a column compares the output with its source (its input): 'src_chrF', 'self-BLEU'.
SOURCE_SIDE = re.compile(r"(^|[^a-z])(src|source|input|inp|self|orig|original)([^a-z]|$)")


def source_side(column: str) -> bool:
    """Whether a column's name says it compares outputs with their sources ('src_chrF', 'self-BLEU', 'BLEU-input')."""
    return bool(SOURCE_SIDE.search(short_name(column).lower()))


# -- keys ---------------------------------------------------------------------------------------------------------
#: Names of identifier columns: numbers or codes, but never a metric, a score or a text ('id', 'pair_id', 'idx',
#: 'source_index', PT16's 'SID': sentence ids written without a separator).
KEY_NAMES = re.compile(r"^(id|idx|ids|uid|sid|pid|qid|item|no|nr|num|number|row|rowid|rownumber|key|uuid|guid|index|"
                       r"(\w*[_ .-])?(id|idx|index|key|no|nr|uuid)|(sent|sentence|pair|doc|text|seg|segment|example|"
                       r"sample|item|row|source|input|src)(id|idx|index|no|nr))$", re.I)
#: Names pandas and spreadsheets give a saved row index ('Unnamed: 0'), and the reader's name for an empty one.
INDEX_NAMES = re.compile(r"^(unnamed: ?\d+(\.\d+)?|index|level_0|column \d+|)$", re.I)
#: Strings made of a name and a number ('anton_alexandrovich_0_ru', 'pair-17', 'S123'): ids, not texts.
ID_STRING = re.compile(r"^[A-Za-z][\w.-]*?[_-]?\d+([_-][A-Za-z]{1,8})?$")


def is_key_name(name: object) -> bool:
    """Whether a column's name says it is an identifier ('id', 'idx', 'source_index', 'pair_id', 'SID')."""
    return bool(KEY_NAMES.match(str(name).strip())) and not is_human_name(str(name)) and not is_metric_name(str(name))


#: Rows a column must have before its values alone make it a key (in a three-row file, 1, 2, 3 may well be scores).
KEY_BY_VALUES = 20


def is_row_numbers(values: np.ndarray) -> bool:
    """Whether numbers count the rows (:func:`counting_evidence` finds why)."""
    return bool(counting_evidence(values))


def counting_evidence(values: np.ndarray) -> str:
    """Why whole numbers in :data:`KEY_BY_VALUES` rows or more are a key, or '': distinct and increasing from 0 or 1
    (row numbers), or consecutive in file order from any start (a counter: ``seq`` = 1001, 1002, ...)."""
    if (len(values) < KEY_BY_VALUES or not np.isfinite(values).all()
            or not (values == np.round(values)).all()):
        return ""
    steps = np.diff(values)
    if values[0] in (0, 1) and (steps > 0).all():
        return "its values count the rows (distinct whole numbers in row order)"
    if (steps == 1).all() or (steps == -1).all():
        return f"its values count by one in file order, {values[0]:g} to {values[-1]:g}: a counter, not a measure"
    return ""


def is_id_strings(series: pd.Series) -> bool:
    """Whether a text column holds ids ('name_17' strings, no spaces, nearly all distinct), not sentences."""
    cells = [str(v).strip() for v in series if isinstance(v, str) and str(v).strip()]
    return (len(cells) >= KEY_BY_VALUES and all(ID_STRING.match(c) for c in cells)
            and len(set(cells)) >= 0.9 * len(cells))


# -- human ratings among numeric columns, by their values ------------------------------------------------------------
def pole_named_measures(names: Sequence[str], humans: Sequence[str]) -> dict[str, str]:
    """Columns named only by one pole of a style (``toxicity``, ``formality_score``) that stand beside another human
    rating of style: measures of that pole, not ratings (a classifier's P(toxic) beside the raters' ``style``).
    -> {column: evidence}. Alone, such a column is the style rating (RUSSE's ``non-toxicity``)."""
    style_ratings = [h for h in humans if guess_aspect(h) == "style" and style_pole(h) is None]
    out = {}
    for name in names:
        pole = style_pole(name)
        if pole is not None and pole[0] == "pole" and not HUMAN_WORDS & set(words(name)) and style_ratings:
            out[name] = (f"it names one pole ({pole[1]}) and stands beside the human style rating "
                         f"'{short_name(style_ratings[0])}'")
    return out


def human_aggregate(values: np.ndarray, humans: dict[str, np.ndarray]) -> str:
    """Whether a numeric column is the product or mean of two or more human ratings (RUSSE's ``J`` = style x content x
    fluency): its evidence, or ''."""
    if len(humans) < 2 or not np.isfinite(values).any():
        return ""
    matrix = np.column_stack(list(humans.values()))
    ok = np.isfinite(values) & np.isfinite(matrix).all(axis=1)
    if ok.sum() < 3:
        return ""
    for how, combined in (("product", matrix[ok].prod(axis=1)), ("mean", matrix[ok].mean(axis=1))):
        if np.allclose(values[ok], combined, atol=1e-6):
            return f"its values are the {how} of the ratings {', '.join(repr(short_name(h)) for h in humans)}"
    return ""


# -- declarations -------------------------------------------------------------------------------------------------
def _parse_declarations(entries: Sequence[str], allowed: Sequence[str], what: str, metavar: str) -> dict[str, str]:
    """``COLUMN=VALUE`` entries (commas allowed inside one entry) -> {column short name: value}."""
    out = {}
    for entry in (part.strip() for item in entries for part in str(item).split(",")):
        if not entry:
            continue
        column, _, value = entry.partition("=")
        column, value = short_name(column.strip()), value.strip().lower()
        if not column or value not in allowed:
            raise DataError(f"{what} '{entry}' is not COLUMN={metavar} with {metavar} one of {', '.join(allowed)}")
        out[column] = value
    return out


# -- what the intake decided, with its evidence ------------------------------------------------------------------
KINDS = ("text", "human", "rater", "measure", "key", "language", "unclear")


@dataclass(frozen=True)
class Meaning:
    """What one column of a file is taken to be, and why: kind (:data:`KINDS`), role or aspect or axis, evidence."""

    column: str
    kind: str
    what: str = ""  # the text role, the rating's aspect, the measure's axis ('' = none said)
    evidence: str = "name"

    def describe(self) -> str:
        """'toxicity: a measure of style (its name names one pole ...)' for the mapping notes and the page."""
        kinds = {"text": "text", "human": "human rating", "rater": "one rater's rating", "measure": "measure",
                 "key": "key (never a measure or a rating)", "language": "the pairs' language",
                 "unclear": "unclear (not used)"}
        kind = kinds[self.kind]
        if self.kind == "measure":
            kind += f" of {self.what}" if self.what else " whose name says no axis (compared with every aspect)"
        elif self.kind in ("human", "rater") and self.what:
            kind += f" of {self.what}"
        elif self.kind == "text" and self.what:
            kind = self.what.replace("_", " ")
        return f"'{self.column}': {kind} ({self.evidence})"


__all__ = ["ANY_AXIS", "ASPECTS", "ASPECT_PATTERNS", "ASPECT_WORDS", "AXES", "HUMAN_WORDS", "INDEX_NAMES",
           "KEY_BY_VALUES", "KEY_NAMES", "KINDS", "LABELS", "LABEL_WORDS", "MEASURE_AXIS_WORDS", "METRIC_WORDS",
           "Meaning", "NAMESAKES", "NEAR_NAMESAKES", "NEGATIONS", "NO_ASPECT", "POLE_WORDS", "RATER_WORDS",
           "REFERENCE_NAMES", "REFERENCE_SIDE", "SCORE_WORDS", "STYLE_OR_TEXT", "SYNONYMS", "TARGET_WORDS",
           "counting_evidence", "guess_aspect", "human_aggregate", "is_human_name", "is_id_strings", "is_key_name",
           "is_labels", "is_language_column", "is_metric_name", "is_row_numbers", "measure_axis", "names_a_role",
           "names_an_aspect", "namesake", "norm", "parse_aspects", "parse_axes", "pole_named_measures",
           "rating_words", "reference_side", "role_norm", "source_side", "style_evidence", "style_pole", "words"]
