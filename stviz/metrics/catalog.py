"""Every metric module, imported once so that its cards are registered (the registry imports none).

A new metric family is one module that registers its cards (see docs/architecture.md, "Adding a
metric") plus one import line here. The order of the lines is the order of the metric menus.
"""

from stviz.metrics import content  # noqa: F401 - n-gram, word vectors, BERTScore; the cosine:SPEC family
from stviz.metrics import entities  # noqa: F401 - the NE score and the NAME+ne merge
from stviz.metrics import precomputed  # noqa: F401 - a dataset's own metric:COLUMN columns
from stviz.metrics import llm  # noqa: F401 - LLM judges: the llm:MODEL[:ASPECT] family
from stviz.metrics import learned  # noqa: F401 - comet:MODEL and bleurt:MODEL (local checkpoints only)
from stviz.metrics import reference  # noqa: F401 - ref:METRIC, any text metric against the pair's references
