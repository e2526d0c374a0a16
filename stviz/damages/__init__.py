"""Controlled damages of system outputs, to find the blind spots of automatic measures.

Each output of a set is damaged on purpose, one thing at a time (its content, its style or its fluency), and a
measure that does not score the damaged output worse than the intact one misses that damage (Ribeiro et al. 2020,
CheckList; Sai et al. 2021, Perturbation CheckLists; He et al. 2023, Blind spots of model-based metrics).

- ``cards``: :class:`Damage` and :class:`DamageContext`, the registry, :func:`fitting` (which damages fit a set's
  language) and :func:`damage_outputs` (a whole set damaged, reproducibly, cached);
- ``content``, ``style``, ``fluency``: one module per family, each registering its cards (imported here, so any
  import of ``stviz.damages`` sees every damage); ``negation`` holds the per-language negation rules;
- ``words``: word lists per language and the text surgery the damages share.
"""

from stviz.damages.cards import (BREAKS, Damage, DamageContext, all_damages, damage_names, damage_outputs,  # noqa: F401
                                 fitting, get_damage, register)
from stviz.damages import content, fluency, style  # noqa: F401,E402 - registers every damage

__all__ = ["BREAKS", "Damage", "DamageContext", "all_damages", "damage_names", "damage_outputs", "fitting",
           "get_damage", "register"]
