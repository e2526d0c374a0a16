"""Controlled damages of system outputs: the card of a damage, what it may read, the registry, and a whole set damaged.

A damage breaks one thing on purpose (content, style or fluency) and leaves the rest of the output as it was, so a
measure that scores the damaged output no worse than the intact one has a blind spot there (Ribeiro et al. 2020,
CheckList; Sai et al. 2021, Perturbation CheckLists; He et al. 2023, Blind spots of model-based metrics). Each family
module (:mod:`~stviz.damages.content`, :mod:`~stviz.damages.style`, :mod:`~stviz.damages.fluency`) registers its
cards here; :func:`fitting` says which apply to a set's language and what they need, and :func:`damage_outputs`
damages every output of a set, reproducibly from a seed, cached on disk.
"""

from __future__ import annotations

import random
import threading
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from stviz.cache import Cache, default_cache, fingerprint
from stviz.data.schema import DataError
from stviz.languages import ANY, SPACED, UNKNOWN, is_valid, language_name
from stviz.languages.cards import SEVERAL

#: What a damage breaks, in the order the families are listed.
BREAKS = ("content", "style", "fluency")
#: Part of every cache key of damaged outputs: bump it when any damage's rewriting changes.
CACHE_VERSION = 1


@dataclass(frozen=True)
class DamageContext:
    """What a damage may read besides the text it damages."""

    #: ISO 639-1 code as stviz.languages uses ('en', 'ru', 'zh'; 'und' unknown).
    language: str
    #: Every pair's source (input), in pair order.
    sources: tuple[str, ...]
    #: Every pair's output, in pair order.
    outputs: tuple[str, ...]
    #: Lower-cased words that carry the style (from a style lexicon); empty: none known.
    style_words: frozenset[str] = frozenset()
    #: Per pair, the lower-cased words that mark its *target* style (a lexicon learned from two styles says which
    #: style each word marks); empty: not known, and ``style_words`` (both styles' words) stand for them.
    target_words: tuple[frozenset[str], ...] = ()

    def __post_init__(self):
        # Lists and a lexicon's mixed-case keys are taken as given: the damages index, add and look up these.
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        object.__setattr__(self, "style_words", frozenset(str(w).lower() for w in self.style_words))
        object.__setattr__(self, "target_words", tuple(frozenset(str(w).lower() for w in words)
                                                       for words in self.target_words))
        if self.target_words and len(self.target_words) != len(self.outputs):
            raise ValueError(f"{len(self.target_words)} target-word sets for {len(self.outputs)} outputs")


def _always(context: DamageContext) -> str | None:
    """Usable on every context (a damage that needs nothing besides the texts)."""
    return None


@dataclass(frozen=True)
class Damage:
    """One controlled damage: what it breaks, where it applies, and the function that damages one output."""

    #: Stable id used on the command line ("negation", "typos", ...).
    name: str
    #: Readable and short ("negation flipped").
    label: str
    #: One of BREAKS.
    breaks: str
    #: One sentence a user reads: what is done to the output.
    description: str
    #: stviz.languages.ANY, SPACED, or language codes.
    languages: tuple[str, ...]
    #: Pair index, its random generator, the context -> the damaged output; None when the damage does not apply.
    apply: Callable[[int, random.Random, DamageContext], str | None]
    #: What it needs besides the text, said in notes ("spaCy's English NER", "WordNet").
    needs: str = ""
    #: None when usable on this context, else why not.
    available: Callable[[DamageContext], str | None] = _always


_REGISTRY: dict[str, Damage] = {}


def register(damage: Damage) -> Damage:
    """Add a damage to the registry (each family module registers its cards when imported)."""
    if damage.breaks not in BREAKS:
        raise ValueError(f"damage '{damage.name}' breaks '{damage.breaks}': expected one of {', '.join(BREAKS)}")
    known = _REGISTRY.get(damage.name)
    if known is not None and known.apply is not damage.apply:
        raise ValueError(f"two damages are named '{damage.name}'")
    _REGISTRY[damage.name] = damage
    return damage


def all_damages() -> list[Damage]:
    """Every registered damage: the content family first, then style, then fluency (each in registration order)."""
    return sorted(_REGISTRY.values(), key=lambda d: BREAKS.index(d.breaks))


def damage_names() -> list[str]:
    """The names of every registered damage, in :func:`all_damages` order."""
    return [d.name for d in all_damages()]


def get_damage(name: str) -> Damage:
    """The damage called ``name``; a DataError naming the known ones otherwise."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise DataError(f"unknown damage '{name}': the damages are {', '.join(damage_names())}") from None


def _texts_are(code: str) -> str:
    """How a note names the set's language: 'the texts are Russian (ru)'."""
    if code == UNKNOWN:
        return "the texts' language is unknown (und)"
    if code == SEVERAL:
        return "the texts are in several languages (mul)"
    return f"the texts are {language_name(code)}"


def _language_reason(damage: Damage, code: str) -> str:
    """Why a damage does not fit a language, from what its card declares."""
    if SPACED in damage.languages:
        return f"needs words separated by spaces; {_texts_are(code)}"
    if damage.needs:
        return f"needs {damage.needs}; {_texts_are(code)}"
    # A damage made for listed languages that needs nothing else is limited by its own word lists.
    listed = sorted(c for c in damage.languages if c not in (ANY, SPACED))
    return f"no {damage.name} word list for {language_name(code)}; lists exist for {', '.join(listed)}"


def why_not(damage: Damage, context: DamageContext) -> str | None:
    """None when the damage fits the context's language and is available, else the reason."""
    if not is_valid(damage.languages, context.language):
        return _language_reason(damage, context.language)
    return damage.available(context)


def fitting(names: Sequence[str] | None, context: DamageContext) -> tuple[list[Damage], list[str]]:
    """The chosen damages (None: all) that fit the context's language and are available, and a note per one left
    out ("entity swapped: needs spaCy's English NER; the texts are Russian (ru)")."""
    chosen = all_damages() if names is None else [get_damage(n) for n in dict.fromkeys(names)]
    kept, notes = [], []
    for damage in chosen:
        reason = why_not(damage, context)
        if reason is None:
            kept.append(damage)
        else:
            notes.append(f"{damage.label}: {reason}")
    return kept, notes


def pair_rng(seed: int, damage: Damage, index: int, output: str) -> random.Random:
    """The random generator of one pair's damage: a str seed, hashed the same in every process (not ``hash()``)."""
    return random.Random(f"{seed}:{damage.name}:{index}:{output}")


def _damage_all(damage: Damage, context: DamageContext, seed: int) -> list[str | None]:
    """Every pair's damaged output, computed afresh (no cache)."""
    results: list[str | None] = []
    for i, output in enumerate(context.outputs):
        damaged = damage.apply(i, pair_rng(seed, damage, i, output), context)
        if damaged is not None:
            damaged = unicodedata.normalize("NFC", damaged)  # stviz's texts are NFC: a damage keeps them so
        # An edit that changes nothing but spacing damages nothing: said as None, never scored as a damage.
        unchanged = damaged is None or " ".join(damaged.split()) == " ".join(output.split())
        results.append(None if unchanged else damaged)
    return results


def damage_outputs(damage: Damage, context: DamageContext, seed: int = 0,
                   cache: Cache | None = None) -> list[str | None]:
    """For every pair, the damaged output, or None where the damage does not apply or would change nothing;
    reproducible from ``seed`` and cached on disk. A DataError when the damage does not fit the context."""
    if len(context.sources) != len(context.outputs):
        raise ValueError(f"{len(context.sources)} sources but {len(context.outputs)} outputs: pairs must align")
    reason = why_not(damage, context)
    if reason is not None:
        raise DataError(f"{damage.label}: {reason}")
    params = {"damage": damage.name, "seed": seed, "language": context.language,
              "style_words": sorted(context.style_words),
              "target_words": fingerprint([sorted(words) for words in context.target_words]),
              "texts": fingerprint([list(context.sources), list(context.outputs)])}
    cache = cache or default_cache()
    return cache.memo("damaged-outputs", params, lambda: _damage_all(damage, context, seed), version=CACHE_VERSION)


# --- what a damage computes once per set -------------------------------------------------------------------------

_PREPARED: dict[tuple[int, str], tuple[DamageContext, Any]] = {}
_PREPARED_LOCK = threading.Lock()
_PREPARED_MAX = 16


def prepared(context: DamageContext, what: str, compute: Callable[[DamageContext], Any]) -> Any:
    """A value a damage computes once per set (its NER, its distinct outputs), not once per pair.

    Kept by the context object's identity: hashing a frozen context hashes every text, once per pair. A few recent
    sets are kept, so sessions working on different sets do not evict each other at every call.
    """
    key = (id(context), what)
    with _PREPARED_LOCK:
        found = _PREPARED.get(key)
        if found is not None and found[0] is context:
            return found[1]
    value = compute(context)  # outside the lock: another session's set need not wait for this one's NER
    with _PREPARED_LOCK:
        _PREPARED[key] = (context, value)
        while len(_PREPARED) > _PREPARED_MAX:
            _PREPARED.pop(next(iter(_PREPARED)))
    return value
