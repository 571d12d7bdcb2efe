"""Where a finding points (``file:line:col``) for every kind of path, and Kubernetes' field path notation."""

from __future__ import annotations

import pickle

import pytest

from kubectl_testbench.load.builder import build
from kubectl_testbench.load.positions import MapKey, PosDict, PosList, field_path, locate, plain

DOC = """\
spec:
  name: x
  empty: {}
  none: []
  items:
    - a
    - {b: 1}
  nested:
    deep: 2
"""


@pytest.fixture(scope="module")
def data() -> PosDict:
    result = build(DOC)
    assert isinstance(result.data, PosDict)
    return result.data


@pytest.mark.parametrize(("path", "key", "mark"), [
    ((), False, (1, 1)),  # the document itself
    (("spec",), False, (1, 1)),  # a non-empty mapping: its key
    (("spec", "name"), False, (2, 9)),  # a scalar: its value
    (("spec", "name"), True, (2, 3)),  # asked for the key
    (("spec", "empty"), False, (3, 10)),  # an empty mapping: the {} itself
    (("spec", "empty"), True, (3, 3)),
    (("spec", "none"), False, (4, 9)),  # an empty sequence: the [] itself
    (("spec", "items"), False, (5, 3)),
    (("spec", "items", 0), False, (6, 7)),
    (("spec", "items", 1), False, (7, 7)),
    (("spec", "items", 1, "b"), False, (7, 11)),
    (("spec", "items", 2), False, (5, 3)),  # past the end: the sequence's key
    (("spec", "items", -1), False, (5, 3)),  # no negative indexing
    (("spec", "items", "a"), False, (5, 3)),  # a key into a sequence: absent
    (("spec", "name", "x"), False, (2, 3)),  # into a scalar: absent, at the scalar's key
    (("spec", "nested", "missing", "x"), False, (8, 3)),  # absent: the deepest existing key
    (("spec", 0), False, (1, 1)),  # an index into a mapping: absent
    (("other",), False, (1, 1)),
])
def test_locate_points_where_a_user_looks(data: PosDict, path: tuple[str | int, ...], key: bool,
                                          mark: tuple[int, int]) -> None:
    assert locate(data, path, key=key) == mark


def test_a_key_whose_null_value_was_pruned_points_at_the_key() -> None:
    data = build("spec:\n  gone: null\n").data
    spec = data["spec"]
    del spec["gone"]
    assert locate(data, ("spec", "gone")) == (2, 3)
    assert locate(data, ("spec", "gone", "deeper")) == (2, 3)


def test_nodes_without_marks_fall_back_to_the_nearest_known_place() -> None:
    root = PosDict((4, 1))
    root["spec"] = {"a": 1}
    root.key_marks["spec"] = (5, 1)
    root["name"] = "x"  # no marks at all: the enclosing mapping
    items = PosList((7, 3))
    items.extend(["a", "b"])
    items.item_marks.append((8, 5))  # only the first item has a mark
    root["items"] = items
    root.key_marks["items"] = (6, 1)
    root["only_value"] = [1]
    root.value_marks["only_value"] = (9, 3)  # no key mark: a container points at its value instead
    assert locate(root, ("spec",)) == (5, 1)
    assert locate(root, ("name",)) == (4, 1)
    assert locate(root, ("name",), key=True) == (4, 1)
    assert locate(root, ("items", 0)) == (8, 5)
    assert locate(root, ("items", 1)) == (6, 1)  # an item without a mark: the sequence's key
    assert locate(root, ("only_value",)) == (9, 3)
    assert locate(root, ("only_value", 0)) == (4, 1)
    assert locate({"a": 1}, ("a",)) is None  # plain data has no positions


@pytest.mark.parametrize(("path", "text"), [
    (("spec", "env", 0, "name"), "spec.env[0].name"),
    ((0, "a"), "[0].a"),
    (("metadata", "labels", MapKey("app")), "metadata.labels[app]"),
    (("a.b", "c"), "a.b.c"),  # the first segment is written as it is
    (("spec", "a.b"), "spec[a.b]"),
    (("spec", "a/b"), "spec[a/b]"),
    (("spec", "a b"), "spec[a b]"),
    (("spec", ""), "spec[]"),
    (("spec", "x_y-Z9"), "spec.x_y-Z9"),
    ((), ""),
])
def test_field_path_notation(path: tuple[str | int, ...], text: str) -> None:
    assert field_path(path) == text


def test_plain_copies_drop_the_positions_and_pickle() -> None:
    data = build("a: [1, {b: 2}]\nc: x\n").data
    copy = plain(data)
    assert copy == {"a": [1, {"b": 2}], "c": "x"}
    assert type(copy) is dict and type(copy["a"]) is list and type(copy["a"][1]) is dict
    assert pickle.loads(pickle.dumps(copy)) == copy
