"""What every analysis shares: options declared once, turned into CLI flags and URL parameters.

An analysis module (one per view) holds:

* ``Options``: a frozen dataclass deriving from :class:`AnalysisOptions`. Its fields, declared with
  :func:`option`, are the *single* source of defaults, choices and help texts: the page reads the
  defaults for its widgets, :func:`add_arguments` makes the CLI flags, :func:`to_query` /
  :func:`from_query` put the options into a shareable URL.
* ``applies_to(dataset) -> str | None``: None when the analysis can run on the dataset, else the
  reason it cannot (one paragraph a page shows and the CLI prints).
* ``run(dataset, options, progress=None) -> Result``: the computation, reporting named stages to a
  :class:`~stviz.progress.Reporter`; ``Result`` is a dataclass with everything the page draws and
  the CLI prints, including ``notes`` (sampling, dropped rows, fallbacks) for the user.

Supported option types: ``bool``, ``int``, ``float``, ``str``, ``T | None`` of those, and
``tuple[str, ...]`` (comma-separated on the command line and in URLs).
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from stviz.data.schema import DataError


class NotApplicable(DataError):
    """The analysis does not apply to this dataset; the message says why and what would."""


def option(default: Any, help: str, *, choices: Sequence[Any] | None = None, flag: str | None = None,
           cli: bool = True, url: bool = True, low: float | None = None) -> Any:
    """A field of an analysis's Options: its default, help text, allowed values and CLI flag name.

    ``flag`` overrides the CLI name (default ``--field-name``); ``cli=False`` / ``url=False`` keep
    an option out of the command line / the URL (e.g. an in-memory object); ``low`` is the smallest
    allowed number.
    """
    meta = {"help": help, "choices": tuple(choices) if choices is not None else None, "flag": flag,
            "cli": cli, "url": url, "low": low}
    if isinstance(default, (list, dict, set)):
        raise TypeError("option defaults must be immutable (use a tuple)")
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class AnalysisOptions:
    """Base of every analysis's Options: validates choices and bounds when created."""

    def __post_init__(self) -> None:
        for f, kind in _fields(type(self)):
            value = getattr(self, f.name)
            _check_value(f, kind, value)

    def changed(self, **values: Any) -> "AnalysisOptions":
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **values)


# -- field introspection ------------------------------------------------------------------------------
def _fields(cls: type) -> list[tuple[dataclasses.Field, tuple[type, bool]]]:
    """(field, (base type, optional)) for every option of an Options class."""
    hints = typing.get_type_hints(cls)
    return [(f, _base_type(hints[f.name])) for f in dataclasses.fields(cls)]


def _base_type(hint: Any) -> tuple[type, bool]:
    """(int, True) for ``int | None``; (tuple, False) for ``tuple[str, ...]``."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        inner = [a for a in args if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"unsupported option type {hint}")
        return _base_type(inner[0])[0], True
    if origin is tuple:
        return tuple, False
    if hint in (bool, int, float, str):
        return hint, False
    raise TypeError(f"unsupported option type {hint}")


def _check_value(f: dataclasses.Field, kind: tuple[type, bool], value: Any) -> None:
    problem = _problem(f, kind, value)
    if problem:
        raise DataError(f"option '{f.name.replace('_', ' ')}': {problem}")


def _problem(f: dataclasses.Field, kind: tuple[type, bool], value: Any) -> str | None:
    """What is wrong with ``value`` for this option (None when nothing is)."""
    base, optional = kind
    if value is None:
        return None if optional else "needs a value"
    choices = f.metadata.get("choices")
    items = value if base is tuple else (value,)
    if choices is not None:
        bad = [v for v in items if v not in choices]
        if bad:
            return f"{', '.join(map(str, bad))} is not one of {', '.join(map(str, choices))}"
    low = f.metadata.get("low")
    if low is not None and base in (int, float) and value < low:
        return f"must be at least {low:g}, got {value}"
    return None


def parse_value(kind: tuple[type, bool], text: str) -> Any:
    """One option value from its text form (CLI flag or URL parameter); DataError when it cannot be read."""
    base, optional = kind
    text = text.strip()
    if optional and text.lower() in ("", "none", "auto"):
        return None
    try:
        if base is bool:
            lowered = text.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if base is int:
            return int(text)
        if base is float:
            return float(text)
        if base is tuple:
            return tuple(p.strip() for p in text.split(",") if p.strip())
        return text
    except ValueError:
        expected = "a number" if base in (int, float) else f"a {base.__name__}"
        if base is int and text.replace(".", "", 1).lstrip("-").isdigit():
            expected = "a whole number"
        raise DataError(f"expected {expected}, got '{text}'") from None


def format_value(value: Any) -> str:
    """An option value in its text form (the inverse of :func:`parse_value`)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


# -- the command line ---------------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser, options_cls: type, skip: Sequence[str] = ()) -> None:
    """Add one CLI flag per option of ``options_cls`` (defaults and help from the Options class)."""
    for f, kind in _fields(options_cls):
        if f.name in skip or not f.metadata.get("cli", True):
            continue
        base, optional = kind
        flag = f.metadata.get("flag") or "--" + f.name.replace("_", "-")
        help_text = f.metadata.get("help", "")
        default_text = format_value(f.default)
        if base is bool and not optional:
            parser.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=f.default,
                                help=help_text)
            continue
        choices = f.metadata.get("choices")
        extra = f" (one of {', '.join(map(str, choices))})" if choices and base is tuple else ""
        parser.add_argument(flag, dest=f.name, default=f.default, type=_arg_type(f, kind),
                            choices=choices if choices and base is not tuple else None,
                            metavar=None if choices and base is not tuple else f.name.upper(),
                            help=with_default(f"{help_text}{extra}", default_text).replace("%", "%%"))


def with_default(help_text: str, default_text: str) -> str:
    """A flag's help with its default said once: not when the help already says it, nor when it is empty."""
    if "(default" in help_text or not default_text.strip():
        return help_text
    return f"{help_text} (default: {default_text})"


def _arg_type(f: dataclasses.Field, kind: tuple[type, bool]):
    # Checked by argparse, so a bad value stops the command with its usage line before any work.
    def parse(text: str):
        try:
            value = parse_value(kind, text)
        except DataError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        problem = _problem(f, kind, value)  # argparse names the flag itself
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = kind[0].__name__
    return parse


def from_args(options_cls: type, args: argparse.Namespace, **overrides: Any) -> Any:
    """Options from parsed CLI arguments (options the parser does not know keep their defaults)."""
    values = {f.name: getattr(args, f.name) for f, _ in _fields(options_cls) if hasattr(args, f.name)}
    values.update(overrides)
    return options_cls(**values)


# -- URLs ---------------------------------------------------------------------------------------------
def to_query(options: AnalysisOptions, prefix: str = "") -> dict[str, str]:
    """The options that differ from their defaults, as URL query parameters (text values)."""
    out = {}
    for f, _ in _fields(type(options)):
        value = getattr(options, f.name)
        if f.metadata.get("url", True) and value != f.default:
            out[prefix + f.name] = format_value(value)
    return out


def from_query(options_cls: type, params: Mapping[str, str], prefix: str = "") -> tuple[Any, list[str]]:
    """Options from URL parameters, and a note for each parameter that could not be used.

    A shared link must never break a page: an unreadable or out-of-range value falls back to the
    default, and the note says so.
    """
    values: dict[str, Any] = {}
    notes = []
    for f, kind in _fields(options_cls):
        key = prefix + f.name
        if key not in params or not f.metadata.get("url", True):
            continue
        try:
            value = parse_value(kind, str(params[key]))
            _check_value(f, kind, value)
        except DataError as exc:
            notes.append(f"the link's {f.name.replace('_', ' ')} was ignored: {exc}")
            continue
        values[f.name] = value
    return options_cls(**values), notes


__all__ = ["AnalysisOptions", "NotApplicable", "add_arguments", "format_value", "from_args", "from_query",
           "option", "parse_value", "to_query"]
