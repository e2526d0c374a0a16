"""The order `make test` hands out test files (tests/conftest.py, tools/test_weights.py): whole files, heaviest first."""

from __future__ import annotations

import json
import sys

import conftest

sys.path.insert(0, str(conftest.ROOT / "tools"))
import test_weights  # noqa: E402 - tools/test_weights.py, imported for its function


class Item:
    def __init__(self, nodeid: str, slow: bool = False):
        self.nodeid, self.slow = nodeid, slow

    def get_closest_marker(self, name: str):
        return self.slow if name == "slow" else None


def test_files_go_heaviest_first_whole_and_in_their_own_order(tmp_path, monkeypatch):
    weights = tmp_path / "weights.json"
    weights.write_text(json.dumps({"tests/test_light.py": 2, "tests/test_heavy.py": 300}))
    monkeypatch.setattr(conftest, "WEIGHTS", weights)
    items = [Item("tests/test_light.py::a"), Item("tests/test_heavy.py::b"), Item("tests/test_new.py::c", slow=True),
             Item("tests/test_light.py::d"), Item("tests/test_heavy.py::e"), Item("tests/test_new_fast.py::f")]
    conftest.pytest_collection_modifyitems(None, items)
    # test_new.py is not weighed yet: its one slow test counts 30 s, between the two weighed files.
    assert [i.nodeid for i in items] == ["tests/test_heavy.py::b", "tests/test_heavy.py::e", "tests/test_new.py::c",
                                         "tests/test_light.py::a", "tests/test_light.py::d",
                                         "tests/test_new_fast.py::f"]


def test_a_runs_seconds_replace_a_files_weight_and_gone_files_are_dropped():
    old = {"tests/test_cache.py": 10, "tests/test_gone_long_ago.py": 99}
    assert test_weights.merged(old, {"tests/test_cache.py": 61.6, "tests/test_suite_order.py": 0.4}) == \
        {"tests/test_cache.py": 62, "tests/test_suite_order.py": 0}


def test_the_committed_weights_name_only_test_files_that_exist():
    weights = json.loads(conftest.WEIGHTS.read_text())
    assert weights and all((conftest.ROOT / path).is_file() and path.startswith("tests/test_") for path in weights)
