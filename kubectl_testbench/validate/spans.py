"""Exact source spans of every node of one document: YAML from libyaml's event stream, JSON from its tokens.

The loader keeps a start position per key and value, enough for ``file:line:col``; a fix needs to know
where a node ends too, and in which style it was written. This reads the same text again (the C parser, in
a fraction of the validation time) only for documents that have a fix to offer. JSON input is read as
kubectl reads it (load/jsonread.py), not as YAML, so its spans come from the same JSON tokens: a JSON
string is a double-quoted scalar, numbers and ``true``/``false``/``null`` are plain ones, every object and
array is a flow collection.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml import events as ev

from kubectl_testbench.load.libyaml import read_with
from kubectl_testbench.load.lines import EDITOR_BREAK
from kubectl_testbench.load.positions import PathSegment
from kubectl_testbench.load.scalars import resolve_plain


class Node:
    """A node with its span: ``start`` includes its anchor and tag, ``end`` is just past its last character."""

    __slots__ = ("anchor", "end", "entries", "flow", "items", "kind", "start", "style", "tag", "value")

    def __init__(self, kind: str, start: int, anchor: str | None = None, tag: str | None = None) -> None:
        self.kind = kind
        """``scalar``, ``map``, ``seq`` or ``alias``."""
        self.start = start
        self.end = start
        self.anchor = anchor
        self.tag = tag
        self.style = ""
        """For scalars: ``""`` plain, ``'``, ``"``, ``|`` or ``>``."""
        self.value = ""
        self.flow = False
        self.entries: list[tuple[Node, Node]] = []
        self.items: list[Node] = []

    @property
    def plain(self) -> bool:
        return self.kind == "scalar" and not self.style and self.tag is None

    def children(self) -> list[Node]:
        return [n for pair in self.entries for n in pair] + self.items


def span_tree(text: str) -> Node | None:
    """The first document of ``text`` as a tree of spans; None when it does not parse."""
    try:
        return read_with(text, _build)
    except yaml.YAMLError:
        return None


def _build(loader: Any) -> Node | None:
    stack: list[tuple[Node, list[Node]]] = []
    root: Node | None = None
    while True:
        event = loader.get_event()
        if event is None or isinstance(event, (ev.DocumentEndEvent, ev.StreamEndEvent)):
            return root
        if isinstance(event, (ev.StreamStartEvent, ev.DocumentStartEvent)):
            continue
        if isinstance(event, (ev.MappingEndEvent, ev.SequenceEndEvent)):
            node, _ = stack.pop()
            if node.flow:
                node.end = _index(event.end_mark)
            else:
                last = node.entries[-1][1] if node.entries else (node.items[-1] if node.items else None)
                node.end = last.end if last is not None else node.start
            if stack:
                _attach(stack[-1], node)
            else:
                root = node
            continue
        if isinstance(event, ev.AliasEvent):
            node = Node("alias", _index(event.start_mark), event.anchor)
            node.end = _index(event.end_mark)
        elif isinstance(event, ev.ScalarEvent):
            node = Node("scalar", _index(event.start_mark), event.anchor, event.tag)
            node.end = _index(event.end_mark)
            node.style = event.style or ""
            node.value = event.value
        else:
            kind = "map" if isinstance(event, ev.MappingStartEvent) else "seq"
            node = Node(kind, _index(event.start_mark), event.anchor, event.tag)
            node.flow = bool(event.flow_style)
            stack.append((node, []))
            continue
        if stack:
            _attach(stack[-1], node)
        else:
            root = node
            # a scalar document: nothing else to read


_JSON_TOKEN = re.compile(r'[ \t\n\r]*(?:([{}\[\]:,])|("(?:[^"\\]++|\\.)*+")|([-+.0-9eE]+|true|false|null))')
"""Possessive repeats in strings: no backtracking state per character (load/jsonread.py says why)."""


def json_span_tree(text: str, start: int = 0) -> Node | None:
    """The JSON value starting at ``start`` as a tree of spans (offsets into ``text``); None when it is not
    one complete JSON value. Used only on values the JSON reader has already accepted."""
    from kubectl_testbench.load.jsonread import string_value

    stack: list[tuple[Node, list[Node]]] = []
    pos = start
    while True:
        match = _JSON_TOKEN.match(text, pos)
        if match is None:
            return None
        begin, pos = match.start(match.lastindex or 0), match.end()
        punct, string, word = match.groups()
        if punct in ("{", "["):
            node = Node("map" if punct == "{" else "seq", begin)
            node.flow = True
            stack.append((node, []))
            continue
        if punct in (":", ","):
            continue
        if punct is not None:  # "}" or "]"
            if not stack:
                return None
            node, pending = stack.pop()
            if pending or (punct == "}") != (node.kind == "map"):
                return None
            node.end = pos
        else:
            node = Node("scalar", begin)
            node.end = pos
            if string is not None:
                node.style, node.value = '"', string_value(string)
            else:
                node.value = word
        if not stack:
            return node
        _attach(stack[-1], node)


def _index(mark: Any) -> int:
    return int(mark.index) if mark is not None else 0


def _attach(frame: tuple[Node, list[Node]], node: Node) -> None:
    parent, pending = frame
    if parent.kind == "seq":
        parent.items.append(node)
    elif pending:
        parent.entries.append((pending.pop(), node))
    else:
        pending.append(node)


def key_name(key: Node) -> str | None:
    """A mapping key as the loader names it in paths (plain ``yes`` is the key "true", as in Kubernetes)."""
    if key.kind != "scalar":
        return None
    if not key.plain:
        return key.value
    value, _ = resolve_plain(key.value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value) if isinstance(value, int) else repr(value)
    return None


def find(root: Node | None, path: tuple[PathSegment, ...]) -> tuple[Node | None, Node | None, Node] | None:
    """``(parent, key, node)`` at ``path``; None when the path leaves the written text (aliases, merge keys,
    duplicate keys) or does not exist."""
    node = root
    parent: Node | None = None
    key: Node | None = None
    if node is None:
        return None
    for seg in path:
        if node.kind == "map" and isinstance(seg, str):
            matches = [(k, v) for k, v in node.entries if key_name(k) == seg]
            if len(matches) != 1:
                return None
            parent, (key, node) = node, matches[0]
        elif node.kind == "seq" and isinstance(seg, int) and 0 <= seg < len(node.items):
            parent, key, node = node, None, node.items[seg]
        else:
            return None
    return parent, key, node


def has_anchor(node: Node) -> bool:
    """Whether ``node`` or anything inside it defines an anchor (aliases elsewhere may depend on it)."""
    return (node.anchor is not None and node.kind != "alias") or any(has_anchor(c) for c in node.children())


def line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def line_end(text: str, offset: int) -> tuple[int, int]:
    """``(end of the line's content, end including its line break)`` for the line holding ``offset``."""
    match = re.compile(EDITOR_BREAK).search(text, offset)
    if match is None:
        return len(text), len(text)
    return match.start(), match.end()


def line_break(text: str, offset: int = 0) -> str:
    """The line break the text uses near ``offset`` (CRLF files stay CRLF)."""
    breaks = re.compile(EDITOR_BREAK)
    match = breaks.search(text, offset) or breaks.search(text)
    return match.group() if match else "\n"
