"""Containers that remember where each of their entries came from in the source file.

A plain ``dict``/``list`` subclass keeps everything downstream (schema checks, CEL, pydantic, JSON)
unchanged while every diagnostic can still point to ``file:line:col``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Mark = tuple[int, int]
"""1-based (line, column)."""

class MapKey(str):
    """A path segment that is a key of a map (labels, annotations), written ``[key]`` in field paths."""

    __slots__ = ()


PathSegment = str | int
Path = tuple[PathSegment, ...]


class PosDict(dict[str, Any]):
    """A mapping with the source position of each key and each value."""

    __slots__ = ("key_marks", "mark", "value_marks")

    def __init__(self, mark: Mark) -> None:
        super().__init__()
        self.mark = mark
        self.key_marks: dict[str, Mark] = {}
        self.value_marks: dict[str, Mark] = {}


class PosList(list[Any]):
    """A sequence with the source position of each item."""

    __slots__ = ("item_marks", "mark")

    def __init__(self, mark: Mark) -> None:
        super().__init__()
        self.mark = mark
        self.item_marks: list[Mark] = []


def locate(root: Any, path: Sequence[PathSegment], key: bool = False) -> Mark | None:
    """Position of the node at ``path``: where a user would look for it.

    Scalars point at their value; mappings and sequences, and anything when ``key`` is set, at their key
    (``dataset:`` rather than the first line inside it). A path into something absent (a missing
    required field) points at the key of its deepest existing ancestor, where the field has to be added.
    """
    node = root
    mark: Mark | None = getattr(root, "mark", None)
    last = len(path) - 1
    for i, seg in enumerate(path):
        if isinstance(node, PosDict) and isinstance(seg, str) and seg in node:
            kmark = node.key_marks.get(seg)
            vmark = node.value_marks.get(seg)
            node = node[seg]
            if i == last:
                if key or (isinstance(node, (dict, list)) and node):
                    return kmark or vmark or mark
                return vmark or kmark or mark
            mark = kmark or mark
        elif isinstance(node, PosList) and isinstance(seg, int) and 0 <= seg < len(node):
            if seg < len(node.item_marks):
                mark = node.item_marks[seg]
            node = node[seg]
        elif isinstance(node, PosDict) and seg in node.key_marks:
            return node.key_marks[seg]  # a key whose null value was pruned: point at the key itself
        else:
            return mark
    return mark


def value_at(doc: Any, path: Sequence[PathSegment]) -> Any:
    """The value at ``path`` in a read document, or None where the path leaves it (the one walker of plain paths:
    hints look at the value an error is about, valid_parts at the parent of what it leaves out)."""
    node = doc
    for seg in path:
        in_list = isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node)
        if not (in_list or (isinstance(node, dict) and seg in node)):
            return None
        node = node[seg]
    return node


def field_path(path: Sequence[PathSegment]) -> str:
    """Kubernetes field path notation: ``spec.env[0].name``."""
    out: list[str] = []
    for seg in path:
        if isinstance(seg, (int, MapKey)):
            out.append(f"[{seg}]")
        elif out:
            out.append("." + seg if _simple(seg) else f"[{seg}]")
        else:
            out.append(seg)
    return "".join(out)


def _simple(seg: str) -> bool:
    return bool(seg) and all(c.isalnum() or c in "_-" for c in seg)


def plain(value: Any) -> Any:
    """A copy made of plain dicts and lists (for pickling across processes or dumping)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
