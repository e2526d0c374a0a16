"""Slices (stviz.analyses.slices): the spec read and written back, each filter kind on a tiny dataset, an empty
slice and a bad regex said in one clear message, a lasso's ids kept in the cache under their hash."""

from __future__ import annotations

import pandas as pd
import pytest

from stviz.analyses.slices import (EmptySlice, Filter, Slice, decode_slices, encode_slices, keep_ids, make_slice,
                                   parse_slice, resolve_ids)
from stviz.cache import Cache
from stviz.data.schema import DataError, Dataset


@pytest.fixture
def tiny() -> Dataset:
    pairs = pd.DataFrame({
        "source": ["I met Alice in Paris yesterday", "the food was bad", "service was slow and rude today",
                   "great place", "we loved the pasta at Luigi's"],
        "output": ["I met Alice in London", "the food was good", "service was quick and kind today",
                   "terrible place", "we hated the pasta"],
        "system": ["A", "A", "B", "B", "C"],
        "source_style": ["positive", "negative", "negative", "positive", "positive"],
        "target_style": ["negative", "positive", "positive", "negative", "negative"],
        "human:content": [5, 4, 3, 1, 2], "metric:score": [0.9, 0.8, 0.5, 0.1, None],
    }, index=[10, 11, 12, 13, 14])  # pair ids that are not positions: a slice keeps the ids
    return Dataset(name="tiny", title="Tiny", pairs=pairs)


SPECS = ["system=A,B", "target_style!=negative", "style=negative", "length=3..5", "length>=5", "human:content>=3",
         "metric:score=0.2..", "entity=source", "entity!=output", "output~(?i)^the\\b", r"source~a\;b",
         "ids=10,12", "ids=#0123456789ab", "system=A;length<4;output~good"]


@pytest.mark.parametrize("spec", SPECS)
def test_spec_round_trip(spec):
    item = make_slice("s", spec)
    assert make_slice("s", item.spec()) == item
    assert parse_slice(item.text()) == item
    assert item.describe()


def test_url_round_trip_keeps_order_and_odd_names():
    slices = [make_slice("long [inputs] *x*", "length>=20"), make_slice("neg", r"target_style=negative;output~a\;b")]
    text = encode_slices(slices)
    assert decode_slices(text) == (slices, [])
    assert encode_slices(decode_slices(text)[0]) == text  # stable: the same slices give the same URL


def test_a_bad_slice_in_a_link_is_left_out_and_said():
    slices, notes = decode_slices('{"ok":"length>=2","bad":"output~("}')
    assert [s.name for s in slices] == ["ok"]
    assert len(notes) == 1 and "bad" in notes[0] and "not valid" in notes[0]
    assert decode_slices("not json")[0] == [] and decode_slices("not json")[1]


def kept(dataset: Dataset, spec: str) -> list[int]:
    return list(make_slice("s", spec).apply(dataset).pairs.index)


@pytest.mark.parametrize("spec, ids", [
    ("system=A,B", [10, 11, 12, 13]), ("system!=A", [12, 13, 14]),
    ("source_style=negative", [11, 12]), ("target_style=negative", [10, 13, 14]),
    ("style=negative", [10, 11, 12, 13, 14]),
    ("length=4..5", [11]), ("length>=6", [10, 12, 14]), ("length<3", [13]),
    ("human:content>=3", [10, 11, 12]), ("content<3", [13, 14]),  # 'human:' may be left out
    ("metric:score=0.5..0.85", [11, 12]), ("metric:score<0.6", [12, 13]),  # a missing value passes nothing
    ("output~(?i)^the", [11]), ("source~\\b(slow|bad)\\b", [11, 12]),
    ("ids=14,10,99", [10, 14]), ("ids!=10,11", [12, 13, 14]),
    ("system=A;length>=6", [10]),
])
def test_apply_each_filter_kind(tiny, spec, ids):
    assert kept(tiny, spec) == ids


def test_apply_named_entities(tiny):
    """spaCy's NER, as the entity metrics run it: Alice/Paris in pair 10's source, Luigi's in 14's."""
    source, output = kept(tiny, "entity=source"), set(kept(tiny, "entity=output"))
    assert 10 in source and 14 in source and 11 not in source
    assert 10 in output and 14 not in output
    assert set(kept(tiny, "entity=either")) >= set(source)
    assert set(kept(tiny, "entity!=either")).isdisjoint(source)


def test_apply_keeps_texts_and_name(tiny):
    part = make_slice("A only", "system=A").apply(tiny)
    assert part.name == "tiny" and "A only" in part.title
    assert list(part.pairs["source"]) == list(tiny.pairs["source"].iloc[:2])


def test_an_empty_slice_says_so(tiny):
    with pytest.raises(EmptySlice, match=r"slice 'none' \(system is Z\) keeps none of the 5 pairs of Tiny"):
        make_slice("none", "system=Z").apply(tiny)


@pytest.mark.parametrize("spec, message", [
    ("output~(unclosed", "the regular expression /(unclosed/ is not valid"),
    ("length>=many", "'many' is not a number"),
    ("system>A", "system takes = or !="),
    ("length~5", "applies to source and output only"),
    ("entity=title", "entity is one of source, output, either, both"),
    ("no operator here", "is not FIELD OP VALUE"),
    ("", "has no filter"),
])
def test_bad_specs_give_one_clear_message(spec, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace("/", "/")):
        make_slice("s", spec)


def test_fields_the_data_lacks_are_said(tiny):
    with pytest.raises(DataError, match="slice 's': the pairs have no setting"):
        make_slice("s", "setting=x").apply(tiny)
    with pytest.raises(DataError, match="slice 's': unknown metric 'nosuch'"):
        make_slice("s", "nosuch>1").apply(tiny)


def test_a_long_selection_is_kept_in_the_cache(tmp_path):
    cache = Cache(tmp_path)
    few = keep_ids([3, 1, 2], cache)
    assert few == "1,2,3" and resolve_ids(few, cache) == {1, 2, 3}
    many = keep_ids(range(100, 200), cache)
    assert many.startswith("#") and len(many) == 13
    assert resolve_ids(many, cache) == set(range(100, 200))
    with pytest.raises(DataError, match="not in this cache"):
        resolve_ids("#ffffffffffff", cache)


def test_filter_text_escapes_semicolons():
    item = Slice("s", (Filter("output", "~", "a;b"),))
    assert item.spec() == r"output~a\;b" and make_slice("s", item.spec()) == item
