"""Human rating studies: a blind rating study of system outputs, shared by link, saved answer by answer.

A researcher with a new system, style or language has no human ratings; stviz collects them. A study samples
outputs from any dataset stviz reads (:mod:`stviz.studies.sampling`), fixes a protocol raters see
(:mod:`stviz.studies.protocol`: absolute ratings per aspect on a 1-5 or 0 / 0.5 / 1 scale, or pairwise
preferences), hands each rater an unguessable link, and writes every answer as it is given
(:mod:`stviz.studies.store`: SQLite in ``STVIZ_HOME`` by default, PostgreSQL by URL). Its answers become
human columns of its dataset (:mod:`stviz.studies.results`), read by every view like any rated file.
"""

from stviz.studies.protocol import ASPECTS, SCALES, Protocol
from stviz.studies.store import StudyStore, open_store

__all__ = ["ASPECTS", "SCALES", "Protocol", "StudyStore", "open_store"]
