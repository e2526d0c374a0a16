"""Progress in a notebook: an analysis's stages drawn as ``tqdm.auto`` bars (widgets where Jupyter has ipywidgets),
else as one output line per stage updated in place through IPython's display, never the command line's carriage
returns and terminal escapes; outside a notebook (a script), tqdm's own bar on stderr."""

from __future__ import annotations

import sys
import time

from stviz.progress import Progress, Reporter, Timer, describe

#: The shortest time between two redraws of a stage's line (a fast loop reports thousands of times).
REDRAW_SECONDS = 0.2


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython's kernel app), not a terminal or a script."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    ip = get() if get else None
    return ip is not None and "IPKernelApp" in getattr(ip, "config", {})


def has_widgets() -> bool:
    """Whether ipywidgets can draw tqdm's notebook bars here."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


class DisplayLine:
    """One stage as a text line of the cell's output, redrawn in place (IPython's display handle)."""

    def __init__(self, label: str):
        from IPython.display import display

        self.label, self.timer, self.last = label, Timer(), 0.0
        self.handle = display(_Text(f"{label} · starting"), display_id=True)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < REDRAW_SECONDS:
            return
        self.last = now
        frac = min(done / total, 1.0) if total else 1.0
        self.handle.update(_Text(f"[{'#' * int(frac * 20):<20}] {describe(self.label, done, total, self.timer)}"))

    def close(self) -> None:
        """Nothing to close: the line stays as last drawn."""


class _Text:
    """Plain text for IPython's display (its repr is the line; no HTML, so a label is never markup)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


class NotebookReporter(Reporter):
    """One progress bar (or line) per stage that does work, closed when the next starts or the run finishes."""

    def __init__(self, show: bool = True):
        self.show = show
        self.bar = None

    def stage(self, label: str) -> Progress:
        """Close the previous stage's bar and open one for ``label``; returns its ``fn(done, total)``."""
        self.finish()
        if not self.show:
            return super().stage(label)
        if in_notebook() and not has_widgets():
            self.bar = DisplayLine(label)
            return self.bar
        from tqdm.auto import tqdm

        bar = tqdm(desc=label, total=None, leave=True, dynamic_ncols=True)
        self.bar = bar

        def report(done: int, total: int) -> None:
            if total and bar.total != total:
                bar.total = total
            bar.n = min(done, total) if total else done
            bar.refresh()

        return report

    def finish(self) -> None:
        """Close the open bar, if any."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


__all__ = ["DisplayLine", "NotebookReporter", "has_widgets", "in_notebook"]
