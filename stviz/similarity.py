"""Style-to-style similarity of sentence embeddings: is an embedder style-invariant?

Fitzpatrick, Park and Obst ("Measuring Content Preservation in Textual Style Transfer") embed
every sentence of a style corpus and define the A->B similarity of styles A and B as: for each
sentence in A its mean cosine similarity to every sentence in B, then the mean of those means
(their Tables 1-3). Each style's most similar style (Tables 4-6) and the number of styles most
similar to themselves, against the 1/k expected of a style-invariant embedder (Table 7), say how
much style the embedding carries.

The matrix is computed exactly without the n^2 pair loop. With unit vectors u_i, every sentence of
A has the same number |B| of partners, so the mean of the per-sentence means is the mean over all
pairs, which is (sum_A u) . (sum_B u) / (|A| |B|): the dot product of the styles' mean unit
vectors. The matrix is therefore symmetric. On the diagonal without self-pairs the n terms
u_i . u_i are taken out exactly: (|sum u|^2 - sum |u_i|^2) / (n (n - 1)).

Beyond the paper: bootstrap intervals per cell, a label-permutation test for the self-similarity
count, and "style leakage" (cross-validated style classification accuracy and silhouette) to rank
embedders from most to least style-invariant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from stviz import engine
from stviz.cache import Cache, MixedDimensionsError, default_cache
from stviz.data.schema import DataError
from stviz.progress import Progress, Reporter, reporter


#: Table 7 of Fitzpatrick et al.: styles (of 11) most similar to themselves, per embedder.
PAPER_SELF_COUNTS = {
    "GloVe-300 (sum)": 3,
    "FastText-300 (sum)": 2,
    "distilroberta-base": 6,
}
PAPER_STYLES = 11
#: Bump when a cached computation below changes, so results of the old code are never served.
CACHE_VERSION = 2


# -- grouping -------------------------------------------------------------------------------------
@dataclass
class StyleGroups:
    """Unit vectors (float64) sorted by style, with each style's slice."""

    styles: list[str]
    units: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray
    order: np.ndarray  # row i of ``units`` is row order[i] of the input

    @property
    def labels(self) -> np.ndarray:
        """Style index of each row of ``units``."""
        return np.repeat(np.arange(len(self.styles)), self.sizes)


def group_by_style(vectors: np.ndarray, styles: Sequence[str], min_size: int = 2) -> StyleGroups:
    """Unit-normalise ``vectors`` and sort them by style (styles in sorted order)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2 or len(vectors) != len(styles):
        raise DataError(f"need one vector per style label: got {vectors.shape} vectors and {len(styles)} labels")
    names, codes, sizes = style_codes(styles, min_size)
    order = np.argsort(codes, kind="stable")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    # A sentence with no known word (zero vector) keeps cosine 0 with everything, as in unit_normalise.
    units = (vectors / np.where(norms == 0, 1, norms))[order]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return StyleGroups([str(n) for n in names], units, starts, sizes, order)


def style_codes(styles: Sequence[str], min_size: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted style names, each sentence's style index, sentences per style); DataError unless every style has enough."""
    labels = np.asarray([str(s) for s in styles])
    names, codes, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    if len(names) < 2:
        raise DataError(f"style similarity needs at least 2 styles; found {len(names)}")
    small = [f"{n} ({c})" for n, c in zip(names, sizes) if c < min_size]
    if small:
        raise DataError(f"every style needs at least {min_size} sentences; too few in: {', '.join(small)}")
    return names, codes, sizes


def sample_per_style(texts: pd.DataFrame, per_style: int | None, seed: int = 0) -> pd.DataFrame:
    """At most ``per_style`` random sentences of each style (all when None), in the original order.

    For large corpora (Yelp sentiment: 190,000 sentences); callers say on screen that they sampled.
    """
    if per_style is None or texts["style"].value_counts().max() <= per_style:
        return texts
    picked = texts.groupby("style", group_keys=False).sample(frac=1.0, random_state=seed).groupby("style").head(per_style)
    return texts.loc[picked.index.sort_values()]


# -- the matrix -----------------------------------------------------------------------------------
def _matrix_from_sums(sums: np.ndarray, sumsq: np.ndarray, sizes: np.ndarray, include_self: bool) -> np.ndarray:
    """Mean pairwise cosine from per-style sums of unit vectors (Fitzpatrick et al., Tables 1-3)."""
    n = sizes.astype(np.float64)
    matrix = (sums @ sums.T) / np.outer(n, n)
    if not include_self:
        # Remove the n self-pairs u_i . u_i (1 for a unit vector, 0 for a zero vector) exactly.
        diag = (np.einsum("ij,ij->i", sums, sums) - sumsq) / (n * (n - 1))
        matrix[np.diag_indices_from(matrix)] = diag
    return matrix


def _group_sums(groups: StyleGroups, units: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    units = groups.units if units is None else units
    sums = np.add.reduceat(units, groups.starts, axis=0)
    sumsq = np.add.reduceat(np.einsum("ij,ij->i", units, units), groups.starts)
    return sums, sumsq


def similarity_matrix(vectors: np.ndarray, styles: Sequence[str], include_self: bool = False) -> pd.DataFrame:
    """Style x style mean cosine similarity, exact, in O(n d) (Fitzpatrick et al., Tables 1-3)."""
    groups = group_by_style(vectors, styles)
    sums, sumsq = _group_sums(groups)
    return _frame(_matrix_from_sums(sums, sumsq, groups.sizes, include_self), groups.styles)


def style_matrix(texts: Sequence[str], styles: Sequence[str], embedder, include_self: bool = False,
                 cache: Cache | None = None, progress: Progress | None = None) -> pd.DataFrame:
    """The style x style matrix of ``texts`` straight from per-style sums, never holding all their vectors.

    The same numbers as :func:`similarity_matrix` of the embedded texts, for corpora too large to
    embed into one array: the sums are built a chunk at a time, and on the Ray engine (see
    :mod:`stviz.engine`) per block on the workers, so only k x d numbers per block travel back.
    """
    from stviz.embedders import EmbedderError, as_encoder, parse_embedder

    embedder = parse_embedder(embedder) if isinstance(embedder, str) else embedder
    if len(texts) != len(styles):
        raise DataError(f"{len(texts)} texts but {len(styles)} style labels")
    names, codes, sizes = style_codes(styles)
    try:
        sums = engine.style_sums(as_encoder(embedder), texts, codes, len(names), cache or default_cache(), progress)
    except MixedDimensionsError as exc:  # the same message embed() gives
        raise EmbedderError(str(exc)) from exc
    return _frame(_matrix_from_sums(sums.sums, sums.sumsq, sizes, include_self), [str(n) for n in names])


def brute_force_similarity_matrix(vectors: np.ndarray, styles: Sequence[str], include_self: bool = False,
                                  block: int = 2048) -> pd.DataFrame:
    """The paper's procedure literally: per-sentence mean cosine to every sentence of B, then the mean.

    Reference for tests and the benchmark only (O(n^2 d)); the cosine matrix is formed in blocks of
    ``block`` rows so 11,000 sentences never need more than block x n floats at once.
    """
    groups = group_by_style(vectors, styles)
    k, units, labels = len(groups.styles), groups.units, groups.labels
    per_sentence = np.zeros((len(units), k))  # per_sentence[i, b] = mean cosine of i to style b
    for start in range(0, len(units), block):
        cos = units[start : start + block] @ units.T
        rows = np.arange(start, min(start + block, len(units)))
        if not include_self:
            cos[rows - start, rows] = np.nan
        for b in range(k):
            cols = slice(groups.starts[b], groups.starts[b] + groups.sizes[b])
            per_sentence[rows, b] = np.nanmean(cos[:, cols], axis=1)
    matrix = np.stack([per_sentence[labels == a].mean(axis=0) for a in range(k)])
    return _frame(matrix, groups.styles)


def _frame(matrix: np.ndarray, styles: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame(matrix, index=pd.Index(styles, name="style"), columns=pd.Index(styles, name="compared with"))
    return frame


# -- most similar, self-similarity ------------------------------------------------------------------
def row_maxima(matrix: pd.DataFrame, decimals: int | None = 3) -> np.ndarray:
    """Boolean mask of each row's maximum; ties at ``decimals`` places (as printed in the paper) all count."""
    values = matrix.to_numpy()
    shown = np.round(values, decimals) if decimals is not None else values
    return shown == shown.max(axis=1, keepdims=True)


def most_similar(matrix: pd.DataFrame, decimals: int | None = 3) -> pd.DataFrame:
    """Each style's most similar style(s), ties listed (Fitzpatrick et al., Tables 4-6)."""
    mask = row_maxima(matrix, decimals)
    rows = []
    for i, style in enumerate(matrix.index):
        best = [str(c) for c, hit in zip(matrix.columns, mask[i]) if hit]
        rows.append({
            "style": style,
            "most similar": ", ".join(best),
            "similarity": float(matrix.iloc[i][best[0]]),
            "self is most similar": style in best,
            "tie": len(best) > 1,
        })
    return pd.DataFrame(rows)


def self_similarity_count(matrix: pd.DataFrame, decimals: int | None = 3) -> int:
    """Number of styles that are (among) their own most similar style (Fitzpatrick et al., Table 7)."""
    return int(np.diag(row_maxima(matrix, decimals)).sum())


def _count_from_matrix(matrix: np.ndarray, decimals: int | None) -> int:
    shown = np.round(matrix, decimals) if decimals is not None else matrix
    return int((np.diag(shown) == shown.max(axis=1)).sum())


# -- uncertainty ------------------------------------------------------------------------------------
@dataclass
class PermutationTest:
    """Self-similarity count against label-shuffled counts (the null of a style-invariant embedder)."""

    observed: int
    null_counts: np.ndarray
    p_value: float


def permutation_test(vectors: np.ndarray, styles: Sequence[str], include_self: bool = False,
                     decimals: int | None = 3, n_permutations: int = 999, seed: int = 0,
                     progress: Progress | None = None) -> PermutationTest:
    """One-sided p-value P(count >= observed) with style labels shuffled over sentences.

    Shuffling keeps the style sizes and the rounding/tie rule, so the null also accounts for ties
    that near-equal cells produce at 3 decimals. p = (1 + #{null >= observed}) / (1 + permutations).
    """
    from scipy import sparse

    groups = group_by_style(vectors, styles)
    observed = _count_from_matrix(_matrix_from_sums(*_group_sums(groups), groups.sizes, include_self), decimals)
    rng = np.random.default_rng(seed)
    labels, rows = groups.labels, np.arange(len(groups.units))
    sqnorms = np.einsum("ij,ij->i", groups.units, groups.units)
    ones = np.ones(len(rows))
    null = np.empty(n_permutations, dtype=np.int64)
    for i in range(n_permutations):
        # Shuffled labels as a sparse k x n one-hot matrix: style sums in one product, no copy of the vectors.
        onehot = sparse.csr_matrix((ones, (rng.permutation(labels), rows)), shape=(len(groups.styles), len(rows)))
        matrix = _matrix_from_sums(onehot @ groups.units, onehot @ sqnorms, groups.sizes, include_self)
        null[i] = _count_from_matrix(matrix, decimals)
        if progress and ((i + 1) % 50 == 0 or i + 1 == n_permutations):
            progress(i + 1, n_permutations)
    p_value = (1 + int((null >= observed).sum())) / (1 + n_permutations)
    return PermutationTest(observed, null, float(p_value))


@dataclass
class BootstrapIntervals:
    """Percentile intervals per cell and for the self-similarity count."""

    low: pd.DataFrame
    high: pd.DataFrame
    count_low: int
    count_high: int
    level: float
    n_bootstrap: int


def bootstrap_intervals(vectors: np.ndarray, styles: Sequence[str], include_self: bool = False,
                        decimals: int | None = 3, n_bootstrap: int = 200, level: float = 0.95,
                        seed: int = 0, progress: Progress | None = None) -> BootstrapIntervals:
    """Percentile bootstrap intervals, resampling sentences with replacement within each style."""
    groups = group_by_style(vectors, styles)
    rng = np.random.default_rng(seed)
    k = len(groups.styles)
    sqnorms = np.einsum("ij,ij->i", groups.units, groups.units)
    draws = np.empty((n_bootstrap, k, k))
    counts = np.empty(n_bootstrap, dtype=np.int64)
    for b in range(n_bootstrap):
        sums = np.empty((k, groups.units.shape[1]))
        sumsq = np.empty(k)
        for s in range(k):
            lo, n = groups.starts[s], groups.sizes[s]
            # Multinomial weights = how often each sentence is drawn: one matrix-vector product.
            weights = rng.multinomial(n, np.full(n, 1.0 / n)).astype(np.float64)
            sums[s] = weights @ groups.units[lo : lo + n]
            sumsq[s] = weights @ sqnorms[lo : lo + n]
        draws[b] = _matrix_from_sums(sums, sumsq, groups.sizes, include_self)
        counts[b] = _count_from_matrix(draws[b], decimals)
        if progress and ((b + 1) % 20 == 0 or b + 1 == n_bootstrap):
            progress(b + 1, n_bootstrap)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0)
    c_low, c_high = np.percentile(counts, [tail, 100 - tail])
    return BootstrapIntervals(_frame(low, groups.styles), _frame(high, groups.styles),
                              int(np.floor(c_low)), int(np.ceil(c_high)), level, n_bootstrap)


# -- style leakage ------------------------------------------------------------------------------------
@dataclass
class StyleLeakage:
    """How well style can be read off the embedding (higher = less style-invariant)."""

    accuracy: float
    accuracy_std: float
    majority_rate: float
    silhouette: float
    folds: int
    n_sentences: int
    silhouette_sample: int | None = None  # sentences the silhouette was computed on, if sampled

    @property
    def leakage(self) -> float:
        """Accuracy above the majority rate, scaled so 0 = chance and 1 = perfect style prediction."""
        return (self.accuracy - self.majority_rate) / (1 - self.majority_rate) if self.majority_rate < 1 else 0.0


def style_leakage(vectors: np.ndarray, styles: Sequence[str], folds: int = 5, seed: int = 0,
                  silhouette_sample: int | None = 4000, progress: Progress | None = None) -> StyleLeakage:
    """Cross-validated logistic-regression style accuracy and cosine silhouette of the style clusters.

    The silhouette is O(n^2): above ``silhouette_sample`` sentences it is computed on a random
    sample of that size (recorded in the result); None means all sentences.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import silhouette_score
    from sklearn.model_selection import StratifiedKFold

    groups = group_by_style(vectors, styles)
    labels = groups.labels
    folds = int(min(folds, groups.sizes.min()))
    if folds < 2:
        raise DataError("style leakage needs at least 2 sentences per style")
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    # Plain logistic regression on the unit vectors: style read off the same geometry cosine uses.
    scores = []
    for k, (train, test) in enumerate(cv.split(groups.units, labels)):
        model = LogisticRegression(max_iter=1000).fit(groups.units[train], labels[train])
        scores.append(model.score(groups.units[test], labels[test]))
        if progress:
            progress(k + 1, folds + 1)
    scores = np.asarray(scores)
    sample = silhouette_sample if silhouette_sample is not None and silhouette_sample < len(labels) else None
    # Cosine silhouette: the geometry the content-preservation cosine sees.
    sil = silhouette_score(groups.units, labels, metric="cosine", sample_size=sample, random_state=seed)
    if progress:
        progress(folds + 1, folds + 1)
    return StyleLeakage(float(scores.mean()), float(scores.std()), float(groups.sizes.max() / groups.sizes.sum()),
                        float(sil), folds, int(len(labels)), sample)


# -- one embedder, everything -------------------------------------------------------------------------
@dataclass
class SimilarityReport:
    """Everything the page and the CLI show for one embedder on one labelled corpus."""

    embedder: str
    matrix: pd.DataFrame
    include_self: bool
    decimals: int | None
    most_similar: pd.DataFrame
    self_count: int
    permutation: PermutationTest
    intervals: BootstrapIntervals | None
    sizes: dict[str, int]
    zero_vectors: int
    leakage: StyleLeakage | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def n_styles(self) -> int:
        """Number of styles k."""
        return len(self.matrix)

    @property
    def self_share(self) -> float:
        """Share of styles most similar to themselves."""
        return self.self_count / self.n_styles

    @property
    def chance(self) -> float:
        """Expected share if the embedder ignored style: 1/k."""
        return 1 / self.n_styles

    @property
    def diagonal_gap(self) -> float:
        """Mean over styles of (self-similarity - mean similarity to the other styles)."""
        m = self.matrix.to_numpy()
        k = len(m)
        off = (m.sum(axis=1) - np.diag(m)) / (k - 1)
        return float(np.mean(np.diag(m) - off))


def similarity_report(texts: Sequence[str], styles: Sequence[str], embedder: str, *, include_self: bool = False,
                      decimals: int | None = 3, n_permutations: int = 999, n_bootstrap: int = 200,
                      leakage: bool = True, seed: int = 0, cache: Cache | None = None,
                      progress: Reporter | None = None) -> SimilarityReport:
    """Embed ``texts`` (cached) and compute the matrix, most-similar table, tests and leakage (cached).

    Each step that does work reports itself as a named stage to ``progress``.
    """
    from stviz.embedders import embed, parse_embedder

    cache = cache or default_cache()
    texts = [str(t) for t in texts]
    styles = [str(s) for s in styles]
    if len(texts) != len(styles):
        raise DataError(f"{len(texts)} texts but {len(styles)} style labels")
    stages = reporter(progress)
    label = parse_embedder(embedder).label
    vectors = embed(texts, embedder, cache=cache, progress=stages.later(f"{label}: embedding {len(texts):,} sentences"))
    params = {"vectors": vectors, "styles": styles, "include_self": include_self, "decimals": decimals,
              "n_permutations": n_permutations, "n_bootstrap": n_bootstrap, "seed": seed}
    tests = (f"{label}: permutation test ({n_permutations:,} label shuffles)"
             + (f" and bootstrap ({n_bootstrap:,} resamples)" if n_bootstrap else ""))
    report: SimilarityReport = cache.memo(
        "style-similarity", params,
        lambda: _compute_report(vectors, styles, embedder, include_self, decimals, n_permutations,
                                n_bootstrap, seed, stages.stage(tests)), version=CACHE_VERSION)
    if leakage:
        report.leakage = cache.memo("style-leakage", {"vectors": vectors, "styles": styles, "seed": seed},
                                    lambda: style_leakage(vectors, styles, seed=seed,
                                                          progress=stages.stage(f"{label}: style leakage (5-fold CV)")),
                                    version=CACHE_VERSION)
    return report


def _compute_report(vectors, styles, embedder, include_self, decimals, n_permutations, n_bootstrap, seed,
                    progress) -> SimilarityReport:
    matrix = similarity_matrix(vectors, styles, include_self)
    total = n_permutations + n_bootstrap
    perm = permutation_test(vectors, styles, include_self, decimals, n_permutations, seed,
                            progress=(lambda d, t: progress(d, total)) if progress else None)
    intervals = None
    if n_bootstrap:
        intervals = bootstrap_intervals(vectors, styles, include_self, decimals, n_bootstrap, seed=seed,
                                        progress=(lambda d, t: progress(n_permutations + d, total)) if progress else None)
    zero = int((np.linalg.norm(vectors, axis=1) == 0).sum())
    notes = []
    if zero:
        notes.append(f"{zero} sentences have a zero vector (no word in the vocabulary); their cosine is taken as 0.")
    sizes = pd.Series(styles).value_counts().sort_index()
    return SimilarityReport(embedder, matrix, include_self, decimals, most_similar(matrix, decimals),
                            self_similarity_count(matrix, decimals), perm, intervals,
                            {str(k): int(v) for k, v in sizes.items()}, zero, notes=notes)


# -- comparing embedders ------------------------------------------------------------------------------
def invariance_ranking(reports: Sequence[SimilarityReport]) -> pd.DataFrame:
    """Embedders from most to least style-invariant (lowest style leakage first).

    Leakage = cross-validated style accuracy above the majority rate, scaled to [0, 1] (1 = style
    fully recoverable); ties broken by the cosine silhouette of the style clusters. A lower value
    means content-preservation cosines are less confounded by style - not that the embedder
    captures content well (a random embedder is perfectly style-invariant).
    """
    rows = []
    for r in reports:
        row = {"embedder": r.embedder, "self-similar styles": f"{r.self_count}/{r.n_styles}",
               "self-similar %": 100 * r.self_share, "chance %": 100 * r.chance,
               "permutation p": r.permutation.p_value, "diagonal gap": r.diagonal_gap}
        if r.leakage is not None:
            row.update({"style accuracy (CV)": r.leakage.accuracy, "majority rate": r.leakage.majority_rate,
                        "leakage": r.leakage.leakage, "silhouette": r.leakage.silhouette})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    keys = ["leakage", "silhouette"] if "leakage" in frame else ["self-similar %", "diagonal gap"]
    frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
    frame.insert(0, "rank", np.arange(1, len(frame) + 1))
    return frame


# -- tables in the paper's layout ----------------------------------------------------------------------
def matrix_table(matrix: pd.DataFrame, decimals: int = 3, mark: str = "**") -> pd.DataFrame:
    """The matrix as strings to ``decimals`` places with each row maximum wrapped in ``mark`` (bold)."""
    mask = row_maxima(matrix, decimals)
    text = matrix.map(lambda v: f"{v:.{decimals}f}")
    return text.where(~mask, mark + text + mark)


def matrix_latex(matrix: pd.DataFrame, decimals: int = 3, caption: str | None = None) -> str:
    """LaTeX tabular of the matrix with row maxima in bold, as in Fitzpatrick et al., Tables 1-3."""
    mask = row_maxima(matrix, decimals)
    cols = [_latex_escape(str(c)) for c in matrix.columns]
    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             r"\begin{tabular}{l" + "r" * len(cols) + "}", r"\hline",
             " & ".join([""] + cols) + r" \\", r"\hline"]
    for i, style in enumerate(matrix.index):
        cells = [(r"\textbf{%.*f}" if mask[i, j] else "%.*f") % (decimals, v) for j, v in enumerate(matrix.iloc[i])]
        lines.append(" & ".join([_latex_escape(str(style))] + cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    if caption:
        lines.append(r"\caption{" + _latex_escape(caption) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _latex_escape(text: str) -> str:
    return re.sub(r"[\\&%$#_{}~^]", lambda m: _LATEX_SPECIAL[m.group()], text)


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
