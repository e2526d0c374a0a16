"""Build hook: an installed stviz carries its dashboard (app.py, pages, ui, Streamlit config, demo data).

Everything else is declared in pyproject.toml. The dashboard's files live at the top of the
checkout (the layout of ../shared/DESIGN.md); a wheel copies them into ``stviz/_app`` so that
``pip install .`` gives a working ``stviz dashboard`` (stviz.cache.app_root finds either).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: What the dashboard needs besides the stviz package, relative to the checkout.
APP_FILES = ("app.py", "ui.py", "ui", "pages", ".streamlit/config.toml", "data/demo")


class BuildWithDashboard(build_py):
    """build_py that also copies the dashboard's files into the built package (not for editable installs)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install runs the checkout's own files
        root, target = Path(__file__).resolve().parent, Path(self.build_lib) / "stviz" / "_app"
        for name in APP_FILES:
            source = root / name
            if source.is_dir():
                shutil.copytree(source, target / name, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            elif source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)


setup(cmdclass={"build_py": BuildWithDashboard})
