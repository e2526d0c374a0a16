"""Issue 9's intake suite: every generated file (tests/intake_cases.py) is read exactly or refused with its exact line."""

from __future__ import annotations

import pytest

from intake_cases import all_cases, check

CASES = all_cases()


def test_the_suite_covers_at_least_sixty_files():
    assert len(CASES) >= 60
    assert len({(c.category, c.name) for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.category[:12]}: {c.name}" for c in CASES])
def test_file_is_read_exactly_or_refused_with_one_line(case):
    assert check(case) is None
