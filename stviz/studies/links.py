"""The links of a study: the owner's and each rater's, on the dashboard's Rating study page."""

from __future__ import annotations

#: The page raters and owners open (pages/9_Rating_study.py, at this URL path).
PAGE = "Rating_study"
DEFAULT_BASE_URL = "http://localhost:8501"
#: A study's ratings as a dataset name: ``study:ID``.
PREFIX = "study:"


def is_study(name: str) -> bool:
    """Whether a dataset name refers to a rating study's ratings (``study:ID``)."""
    return name.startswith(PREFIX)


def owner_link(base_url: str, token: str) -> str:
    """The link that opens a study's owner view."""
    return f"{base_url.rstrip('/')}/{PAGE}?own={token}"


def rater_link(base_url: str, token: str) -> str:
    """The link a rater opens (no account: the unguessable token is the key)."""
    return f"{base_url.rstrip('/')}/{PAGE}?rate={token}"


def base_of(page_url: str) -> str:
    """The dashboard's address from the Rating study page's URL (``http://host/prefix/Rating_study?...`` ->
    ``http://host/prefix``)."""
    url = page_url.split("?", 1)[0].rstrip("/")
    return url.removesuffix("/" + PAGE)


__all__ = ["DEFAULT_BASE_URL", "PAGE", "PREFIX", "is_study", "base_of", "owner_link", "rater_link"]
