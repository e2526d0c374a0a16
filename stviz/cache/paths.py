"""Where stviz's files are: the dashboard's (a checkout, or the copy a wheel carries) and what it writes at run time
(``$STVIZ_HOME``: the cache, corpora, NLTK data)."""

from __future__ import annotations

import os
from pathlib import Path

#: The ``stviz`` package's folder (this file is ``stviz/cache/paths.py``).
PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: Project root (the folder holding the ``stviz`` package): a checkout, or site-packages when installed.
PROJECT_ROOT = PACKAGE_DIR.parent


def is_checkout() -> bool:
    """Whether stviz runs from its source folder (app.py beside the package), not from an installed wheel."""
    return (PROJECT_ROOT / "app.py").is_file()


def app_root() -> Path:
    """The dashboard's folder (app.py, pages, demo data): the checkout, or the copy a wheel carries (setup.py)."""
    return PROJECT_ROOT if is_checkout() else PACKAGE_DIR / "_app"


def stviz_home() -> Path:
    """Folder for everything stviz writes at run time (cache, corpora): ``$STVIZ_HOME``, else ``.stviz``
    in the checkout, or ``~/.stviz`` for an installed stviz (never inside site-packages)."""
    default = PROJECT_ROOT / ".stviz" if is_checkout() else Path.home() / ".stviz"
    return Path(os.environ.get("STVIZ_HOME", default)).expanduser()
