"""Token attributions from a style classifier, and style masking by attribution or by lexicon.

Attributions are Integrated Gradients (Sundararajan et al. 2017) through captum's
``LayerIntegratedGradients`` on the word-embedding layer of the MiniLM + logistic head classifier
(:class:`stviz.measures.style.classifiers.transformer.TransformerStyleClassifier`), for the probability of the
predicted or a chosen style. The baseline is ``[CLS] [PAD] ... [PAD] [SEP]`` of the same length. Word pieces
are merged into words by summing their attributions, which the Cloudera Fast Forward Labs post
("Automated metrics for evaluating text style transfer", 2022) names as the fix for masking
"striking" but not "##ly".

Masking follows the same post: words are ranked by their share of the absolute attribution mass,
and those making up the top ``threshold`` of the mass are masked - removed, or replaced with a
placeholder. Two choices the post made implicitly are options here:

* ``at_least_one`` (the post's behaviour): when the top word alone exceeds the threshold, mask it
  anyway;
* ``standout``: mask nothing when no word stands out - when the top word's share is below
  ``standout / n_words`` (``standout=1.5``: less than 1.5 times an even spread). Normalised
  shares always sum to 1, so without this a sentence with no style words still loses a word.

Memory: per-token gradients are never kept. Each text's word scores (a few floats) are cached on
disk keyed by classifier, text, style and steps; attributions are computed for the rows a user
opens, or in batches on request (:func:`attribute_texts`). Re-masking at another threshold or
strategy reuses the cached scores, so a slider only re-masks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from stviz.cache import Cache, default_cache
from stviz.data.schema import DataError
from stviz.progress import Progress

STRATEGIES = ("remove", "placeholder")
#: The Cloudera post replaced masked tokens with [PAD]; any string can be chosen.
DEFAULT_PLACEHOLDER = "[PAD]"
N_STEPS = 50
#: 3: WordAttribution moved from stviz.attribute (issue 41), so entries pickled before name a module that is gone.
CACHE_VERSION = 3


@dataclass(frozen=True)
class WordAttribution:
    """Integrated-gradients attribution per word of one text, toward one style."""

    text: str
    words: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    scores: np.ndarray
    style: str
    probability: float
    delta: float

    @property
    def shares(self) -> np.ndarray:
        """Absolute attributions normalised to sum to 1 (the mass that masking ranks)."""
        mass = np.abs(self.scores)
        total = mass.sum()
        return mass / total if total > 0 else np.zeros_like(mass)

    def frame(self) -> pd.DataFrame:
        """One row per word: word, attribution, share of the mass."""
        return pd.DataFrame({"word": list(self.words), "attribution": self.scores, "share": self.shares})


# -- attribution ----------------------------------------------------------------------------------
def _require_transformer(trained) -> None:
    if getattr(trained, "kind", None) != "transformer":
        raise DataError("token attributions need the transformer classifier (MiniLM + head); "
                        "train one with kind 'transformer', or mask by lexicon instead")


def attribute_texts(texts: Sequence[str], trained, style: str | None = None, *, n_steps: int = N_STEPS,
                    batch_size: int = 8, cache: Cache | None = None,
                    progress: Progress | None = None) -> list[WordAttribution]:
    """Word attributions for each text toward ``style`` (None: each text's predicted style), cached per text."""
    _require_transformer(trained)
    if style is not None and style not in trained.classes:
        raise DataError(f"unknown style '{style}'; the classifier knows {', '.join(trained.classes)}")
    cache = cache or default_cache()
    texts = [str(t) for t in texts]
    keys = {t: _key(trained, t, style, n_steps) for t in dict.fromkeys(texts)}
    todo = [t for t, k in keys.items() if not cache.has("word-attributions", k, version=CACHE_VERSION)]
    done = len(keys) - len(todo)
    # Similar lengths in one batch pad little; IG cost grows with the padded length.
    todo.sort(key=len)
    results: dict[str, WordAttribution] = {}
    for start in range(0, len(todo), batch_size):
        chunk = todo[start:start + batch_size]
        for text, result in zip(chunk, _integrated_gradients(chunk, trained, style, n_steps)):
            results[text] = cache.memo("word-attributions", keys[text], lambda r=result: r, version=CACHE_VERSION)
        if progress:
            progress(done + start + len(chunk), len(keys))
    for text, key in keys.items():
        if text not in results:
            results[text] = cache.memo("word-attributions", key,
                                       lambda t=text: _integrated_gradients([t], trained, style, n_steps)[0],
                                       version=CACHE_VERSION)
    if progress and not todo:
        progress(len(keys), len(keys))
    return [results[t] for t in texts]


def attribute_text(text: str, trained, style: str | None = None, *, n_steps: int = N_STEPS,
                   cache: Cache | None = None) -> WordAttribution:
    """Word attributions of one text (what the page computes for an opened row)."""
    return attribute_texts([text], trained, style, n_steps=n_steps, cache=cache)[0]


def _key(trained, text: str, style: str | None, n_steps: int) -> dict:
    return {"classifier": trained.id, "text": text, "style": style, "n_steps": n_steps}


def _integrated_gradients(texts: list[str], trained, style: str | None, n_steps: int) -> list[WordAttribution]:
    import torch
    from captum.attr import LayerIntegratedGradients

    from stviz.measures.style.classifiers.transformer import minilm_tokenizer
    from stviz.shared import exclusive

    model = trained.estimator.torch_model()
    device = next(model.parameters()).device
    tokenizer = minilm_tokenizer()
    enc = tokenizer(texts, padding=True, truncation=True, max_length=trained.estimator.max_length,
                    return_tensors="pt", return_offsets_mapping=True)
    ids, mask = enc["input_ids"].to(device), enc["attention_mask"].to(device)
    special = torch.tensor([[tokenizer.convert_ids_to_tokens(int(i)) in tokenizer.all_special_tokens for i in row]
                            for row in enc["input_ids"]], device=device)
    baseline = torch.where(special, ids, torch.full_like(ids, tokenizer.pad_token_id))

    def forward(input_ids, attention_mask):
        return torch.softmax(model(input_ids, attention_mask), dim=-1)

    with torch.no_grad():
        probs = forward(ids, mask).cpu().numpy()
    targets = probs.argmax(1) if style is None else np.full(len(texts), trained.classes.index(style))
    lig = LayerIntegratedGradients(forward, model.encoder.embeddings.word_embeddings)
    # captum hooks the shared model's embedding layer while it runs: one session's attribution at a time.
    with exclusive(model):
        attributions, delta = lig.attribute(ids, baselines=baseline, additional_forward_args=(mask,),
                                            target=torch.tensor(targets, device=device), n_steps=n_steps,
                                            internal_batch_size=max(len(texts) * n_steps // 2, 1),
                                            return_convergence_delta=True)
    token_scores = attributions.sum(-1).detach().cpu().numpy()
    out = []
    for row, text in enumerate(texts):
        words, spans, scores = _merge_word_pieces(text, enc.word_ids(row), enc["offset_mapping"][row].tolist(),
                                                  token_scores[row])
        out.append(WordAttribution(text, words, spans, scores, trained.classes[int(targets[row])],
                                   float(probs[row, targets[row]]), float(delta[row])))
    return out


def _merge_word_pieces(text: str, word_ids: list[int | None], offsets: list[list[int]],
                       token_scores: np.ndarray) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...], np.ndarray]:
    """Sum word-piece attributions into the tokenizer's words, keeping each word's span in ``text``."""
    spans: dict[int, list[int]] = {}
    sums: dict[int, float] = {}
    for word, (start, end), score in zip(word_ids, offsets, token_scores):
        if word is None:  # [CLS], [SEP], padding
            continue
        if word in spans:
            spans[word][1] = max(spans[word][1], end)
        else:
            spans[word] = [start, end]
        sums[word] = sums.get(word, 0.0) + float(score)
    order = sorted(spans)
    span_list = tuple((spans[w][0], spans[w][1]) for w in order)
    return tuple(text[a:b] for a, b in span_list), span_list, np.array([sums[w] for w in order], dtype=float)


# -- masking --------------------------------------------------------------------------------------
def select_style_words(shares: np.ndarray, threshold: float, *, at_least_one: bool = True,
                       standout: float | None = None) -> np.ndarray:
    """Boolean mask of the words making up the top ``threshold`` of attribution mass (Cloudera 2022)."""
    shares = np.asarray(shares, dtype=float)
    if not 0 <= threshold <= 1:
        raise DataError(f"threshold must be a share between 0 and 1, got {threshold}")
    chosen = np.zeros(len(shares), dtype=bool)
    if len(shares) == 0 or shares.sum() <= 0 or threshold == 0:
        return chosen
    if standout is not None and shares.max() < standout / len(shares):
        return chosen  # no word stands out from an even spread: nothing is style here
    order = np.argsort(-shares, kind="stable")
    cumulative = np.cumsum(shares[order])
    chosen[order[cumulative <= threshold + 1e-12]] = True
    if not chosen.any() and at_least_one:
        chosen[order[0]] = True  # the post's rule: the top word alone exceeds the threshold
    return chosen


def apply_word_mask(text: str, spans: Sequence[tuple[int, int]], chosen: np.ndarray, strategy: str = "remove",
                    placeholder: str = DEFAULT_PLACEHOLDER) -> str:
    """``text`` with the chosen words removed or replaced by ``placeholder``; the rest kept verbatim."""
    if strategy not in STRATEGIES:
        raise DataError(f"unknown masking strategy '{strategy}'; choose one of {', '.join(STRATEGIES)}")
    pieces, last = [], 0
    for (start, end), masked in zip(spans, chosen):
        if not masked:
            continue
        pieces.append(text[last:start])
        pieces.append(placeholder if strategy == "placeholder" else "")
        last = end
    pieces.append(text[last:])
    return re.sub(r"\s{2,}", " ", "".join(pieces)).strip()


def mask_by_attribution(attribution: WordAttribution, threshold: float = 0.3, strategy: str = "remove", *,
                        placeholder: str = DEFAULT_PLACEHOLDER, at_least_one: bool = True,
                        standout: float | None = None) -> tuple[str, np.ndarray]:
    """(masked text, boolean mask over words) for one attributed text."""
    chosen = select_style_words(attribution.shares, threshold, at_least_one=at_least_one, standout=standout)
    return apply_word_mask(attribution.text, attribution.spans, chosen, strategy, placeholder), chosen


def mask_by_lexicon(texts: Sequence[str], lexicon, strategy: str = "remove",
                    placeholder: str = DEFAULT_PLACEHOLDER) -> list[str]:
    """Texts with the lexicon's style words removed or replaced (Mir et al.'s lexicon masking)."""
    from stviz.metrics.modify import mask_style_words, remove_style_words

    if strategy == "remove":
        return remove_style_words(texts, lexicon)
    if strategy == "placeholder":
        return mask_style_words(texts, lexicon, placeholder)
    raise DataError(f"unknown masking strategy '{strategy}'; choose one of {', '.join(STRATEGIES)}")


def content_preservation(sources: Sequence[str], outputs: Sequence[str], metric: str = "cosine:minilm",
                         cache: Cache | None = None) -> np.ndarray:
    """Content-preservation score of aligned texts (default: MiniLM embedding cosine, as the post)."""
    from stviz.metrics import compute_metric

    return compute_metric(metric, list(sources), list(outputs), cache=cache)


def masking_sweep(pairs: pd.DataFrame, trained, thresholds: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5),
                  strategies: Sequence[str] = STRATEGIES, *, metric: str = "cosine:minilm",
                  placeholder: str = DEFAULT_PLACEHOLDER, at_least_one: bool = True, standout: float | None = None,
                  cache: Cache | None = None, progress: Progress | None = None) -> pd.DataFrame:
    """The Cloudera sweep: content preservation per pair for every threshold x strategy, plus no masking.

    Long format: one row per (pair, setting) with columns pair, setting, threshold, strategy, score.
    """
    sources, outputs = pairs["source"].astype(str).tolist(), pairs["output"].astype(str).tolist()
    texts = list(dict.fromkeys(sources + outputs))
    attributions = dict(zip(texts, attribute_texts(texts, trained, cache=cache, progress=progress)))
    frames = [_sweep_frame(pairs, "no masking", np.nan, "none", content_preservation(sources, outputs, metric, cache))]
    for strategy in strategies:
        for threshold in thresholds:
            masked = {t: mask_by_attribution(a, threshold, strategy, placeholder=placeholder,
                                             at_least_one=at_least_one, standout=standout)[0]
                      for t, a in attributions.items()}
            scores = content_preservation([masked[s] for s in sources], [masked[o] for o in outputs], metric, cache)
            frames.append(_sweep_frame(pairs, f"{strategy} {threshold:.0%}", threshold, strategy, scores))
    return pd.concat(frames, ignore_index=True)


def _sweep_frame(pairs: pd.DataFrame, setting: str, threshold: float, strategy: str, scores: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame({"pair": np.arange(len(pairs)), "setting": setting, "threshold": threshold,
                          "strategy": strategy, "score": scores})
    # 'setting' names the masking setting here; a system's own setting becomes 'system_setting'.
    if "system" in pairs:
        frame["system"] = pairs["system"].to_numpy()
    if "setting" in pairs:
        frame["system_setting"] = pairs["setting"].to_numpy()
    return frame


def sweep_correlations(sweep: pd.DataFrame, human: Sequence[float]) -> pd.DataFrame:
    """Pearson and Spearman r of each sweep setting with a human score (what the post could not measure)."""
    from scipy.stats import pearsonr, spearmanr

    human = np.asarray(human, dtype=float)
    rows = []
    for setting, group in sweep.groupby("setting", sort=False):
        scores = group.sort_values("pair")["score"].to_numpy()
        ok = ~np.isnan(human) & ~np.isnan(scores)
        if ok.sum() < 3 or np.std(scores[ok]) == 0:
            continue
        rows.append({"setting": setting, "n": int(ok.sum()),
                     "pearson_r": float(pearsonr(scores[ok], human[ok])[0]),
                     "spearman_r": float(spearmanr(scores[ok], human[ok])[0])})
    return pd.DataFrame(rows).set_index("setting") if rows else pd.DataFrame(columns=["n", "pearson_r", "spearman_r"])
