"""``stviz.study``: a blind human rating study created from a dataset, its links, and its ratings read back as a
DataFrame, in the same database as the Rating study page and ``python -m stviz study``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import pandas as pd

from stviz.api.running import dataset_of, said_as_data_error


@dataclass
class StudyHandle:
    """A study in its database: its id and title, links for its owner and raters, and its ratings."""

    id: str
    title: str
    db: str | None = None
    base_url: str = ""

    def _store(self):
        from stviz.studies import open_store

        return open_store(self.db)

    def owner_link(self) -> str:
        """The owner's link (progress, agreement, export) on the dashboard at ``base_url``."""
        from stviz.studies.links import owner_link

        return owner_link(self.base_url, self._store().study(self.id).owner_token)

    def rater_links(self) -> dict[str, str]:
        """Each rater's name and link."""
        from stviz.studies.links import rater_link

        return {rater.name: rater_link(self.base_url, rater.token) for rater in self._store().raters(self.id)}

    def add_rater(self, name: str = "") -> str:
        """Add a rater; returns their link."""
        from stviz.studies.links import rater_link

        store = self._store()
        return rater_link(self.base_url, store.add_rater(store.study(self.id), name).token)

    def ratings(self) -> pd.DataFrame:
        """The answers so far as ``study export`` writes them: one row per rated output, one column per rater."""
        from stviz.studies.results import study_frame

        store = self._store()
        study = store.study(self.id)
        return study_frame(study, store.raters(study.id), store.answers(study.id))

    def dataset(self):
        """The study as a dataset (``study:ID``, the raters' mean per aspect a human column), for every function."""
        from stviz.data import load_dataset

        return load_dataset(f"study:{self.id}")

    def close(self) -> None:
        """Stop collecting answers (those given stay)."""
        self._store().close_study(self.id)


@said_as_data_error
def study(data=None, *, id: str | None = None, systems: Sequence[str] | None = None, inputs: int = 20,
          kind: str = "absolute", aspects: Sequence[str] | None = None, scale: str = "1-5", raters: int = 3,
          repeats: int = 2, seed: int = 0, title: str = "", db: str | None = None, base_url: str | None = None,
          **reading: Any) -> StudyHandle:
    """Create a rating study from a dataset (anything :func:`stviz.open` takes), or with ``id=`` reopen one."""
    from stviz.studies import open_store
    from stviz.studies.links import DEFAULT_BASE_URL
    from stviz.studies.sampling import create_study

    base_url = base_url or DEFAULT_BASE_URL
    store = open_store(db)  # first: a database it cannot use is said before the dataset is read
    if id is not None:
        found = store.study(id)
        return StudyHandle(found.id, found.title, db, base_url)
    created, _, _ = create_study(store, dataset_of(data, **reading), systems=systems, inputs=inputs, kind=kind,
                                 aspects=tuple(aspects) if aspects else None, scale=scale, repeats=repeats,
                                 seed=seed, title=title, raters=raters)
    return StudyHandle(created.id, created.title, db, base_url)


__all__ = ["StudyHandle", "study"]
