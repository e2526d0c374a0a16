"""Meta-evaluation statistics: how well automatic measures agree with human judgments.

* :mod:`stviz.meta.sentence` - sentence-level correlations with bootstrap intervals, Williams' test, the
  named-entity table and rank disagreement (re-exported here: ``from stviz.meta import correlation_table``);
* :mod:`stviz.meta.system` - system-level correlation and pairwise accuracy, best groups, the aggregate over sets;
* :mod:`stviz.meta.sanity` - sanity flags on precomputed metric columns whose names and values disagree.
"""

from stviz.meta.sentence import *  # noqa: F401,F403 - the sentence-level statistics are the package's face
from stviz.meta.sentence import __all__  # noqa: F401
