"""Read JSON input as kubectl does, keeping the position of every node.

kubectl reads a stream whose first non-blank character is ``{`` as a sequence of JSON values (Go's
encoding/json, k8s.io/apimachinery's NewYAMLOrJSONDecoder), not as YAML: surrogate-pair escapes
(``"\\ud83d\\ude00"``, what Python's ``json.dumps`` writes for emoji) are fine there while libyaml refuses
them, and several objects may follow each other with or without newlines. Duplicate fields are kept (the
last wins) and reported, as the API server's strict decoding reports them.

Reading is two-speed, because most files have nothing to report and positions cost a node-by-node reading in
Python: ``read_fast`` decodes with the C JSON decoder and gives plain values without positions; the validator
uses it first and re-reads with ``read_stream`` (positions for every node) only when there is something to
report. In ``read_stream`` one compiled regular expression finds the tokens; values are built with an explicit
stack (no recursion, so hostile nesting stops at the depth limit), strings without escapes are sliced, others go
through the C JSON decoder, and positions come from the line index (load/lines.py: lines end at LF).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.load.builder import Remark
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.lines import JSON_BREAK, LineIndex
from kubectl_testbench.load.positions import Mark, PathSegment, PosDict, PosList
from kubectl_testbench.rules.yaml import (
    YAML_DUPLICATE_KEY,
    YAML_NON_FINITE,
    YAML_SYNTAX,
    YAML_TOO_DEEP,
    YAML_TOO_MANY_NODES,
)

# Strings use possessive repeats (``++``, ``*+``): the regex engine then keeps no backtracking state per
# character, so a 15 MiB string costs its own size, not ~170 bytes a character.
_TOKEN = re.compile(r'[ \t\n\r]*(?:([{}\[\]:,])|("(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+")|'
                    r"(-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)|(true|false|null))")
_SPACE = re.compile(r"[ \t\n\r]*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}


@dataclass(slots=True)
class JsonDocument:
    """One value of the stream: its data, its first line (0-based), duplicate-field remarks, or an error."""

    data: Any = None
    start_line: int = 0
    start: int = 0
    """The offset of the value's first character in the text."""
    remarks: list[Remark] = field(default_factory=list)
    error: Remark | None = None


class _Stop(Exception):
    def __init__(self, rule: str, message: str, pos: int) -> None:
        super().__init__(message)
        self.rule, self.message, self.pos = rule, message, pos


def read_stream(text: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[JsonDocument]:
    """The values of a JSON stream in order; after a syntax error nothing more can be read."""
    mark: Callable[[int], Mark] = LineIndex(text, JSON_BREAK).position

    pos = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    spent = 0  # nodes of the earlier values: --max-nodes bounds the file, however many values it holds
    count = 0
    while pos < len(text):
        doc = JsonDocument(start_line=mark(pos)[0] - 1, start=pos)
        count += 1
        if count > limits.max_documents:
            doc.error = Remark(YAML_TOO_MANY_NODES.id, f"more than {limits.max_documents} documents in one file; the "
                               f"rest is not read (each document counts as {limits.nodes_per_document} nodes: raise "
                               "with --max-nodes)", mark(pos), ())
            yield doc
            return
        try:
            doc.data, pos, nodes = _value(text, pos, mark, doc.remarks, limits, spent)
            spent += nodes
        except _Stop as stop:
            doc.error = Remark(stop.rule, stop.message, mark(stop.pos), ())
            yield doc
            return
        yield doc
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]


class _Slow(Exception):
    """Something only the positional reader handles (or reports) exactly."""


_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|"
                                    r"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F]")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _Slow  # duplicate field
    return value


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Slow  # out of range
    return value


def _constant(text: str) -> Any:
    raise _Slow  # NaN, Infinity: not JSON


def _integer(text: str) -> int:
    if len(text) > _MAX_INT_TEXT:
        raise _Slow  # read as Go reads it (a float64, or an error) by the positional reader
    return int(text)


_MAX_INT_TEXT = 20
"""The longest integer text read as an integer (``-9223372036854775808``, ``18446744073709551615`` fit); a longer
one is a float64 for Kubernetes, and out of range past about 309 digits. Both readers use this bound."""

_FAST = json.JSONDecoder(object_pairs_hook=_pairs, parse_float=_finite, parse_constant=_constant,
                         parse_int=_integer)


def read_fast(text: str, limits: Limits = DEFAULT_LIMITS) -> list[tuple[Any, int]] | None:
    """The stream's values and their first lines (0-based), decoded in C without positions; None when
    the positional reader is needed: a syntax error, a duplicate field, a surrogate escape (Go replaces
    unpaired ones), a number out of range, or more nodes than the limit."""
    if text.count(",") + text.count(":") > limits.max_nodes:
        return None
    if "\\u" in text and _LONE_SURROGATE_ESCAPE.search(text):
        return None
    out: list[tuple[Any, int]] = []
    pos = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    line = text.count("\n", 0, pos)
    total = 0  # nodes of every value so far: the limit is per file, as in the positional reader
    try:
        while pos < len(text):
            value, end = _FAST.raw_decode(text, pos)
            nodes = _nodes_within_depth(value, limits)
            if nodes is None:
                return None
            total += nodes
            if total > limits.max_nodes or len(out) >= limits.max_documents:
                return None
            out.append((value, line))
            next_pos = _SPACE.match(text, end).end()  # type: ignore[union-attr]
            line += text.count("\n", pos, next_pos)
            pos = next_pos
    except (_Slow, ValueError, RecursionError):
        return None
    return out


def _nodes_within_depth(value: Any, limits: Limits) -> int | None:
    """The decoded value's node count, or None when it is nested deeper than the limit (the positional
    reader then reports it where it is)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    nodes = 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if type(item) is dict:
            if depth > limits.max_depth:
                return None
            stack.extend((v, depth + 1) for v in item.values() if type(v) in (dict, list))
            nodes += len(item)
        elif type(item) is list:
            if depth > limits.max_depth:
                return None
            stack.extend((v, depth + 1) for v in item if type(v) in (dict, list))
            nodes += len(item)
    return nodes


def string_value(token: str) -> str:
    """A JSON string token's value as Go decodes it."""
    if "\\" not in token:
        return token[1:-1]
    value: str = json.loads(token)
    # Go's decoder turns an unpaired surrogate escape into U+FFFD; Python would keep a lone surrogate
    return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value


def _value(text: str, pos: int, mark: Any, remarks: list[Remark], limits: Limits,
           spent: int = 0) -> tuple[Any, int, int]:
    """Parse one JSON value starting at ``pos``; returns it, the position after it and its node count.
    ``spent``: nodes of the stream's earlier values (they count against the same limit)."""
    token_re = _TOKEN.match
    stack: list[Any] = []  # open containers
    keys: list[Any] = []  # per open container: the pending key (objects) or None (arrays)
    segs: list[PathSegment] = []
    nodes = spent
    root: Any = None
    have_root = False
    expect_value = True
    while True:
        m = token_re(text, pos)
        if m is None:
            raise _Stop(YAML_SYNTAX.id, _unexpected(text, pos), _SPACE.match(text, pos).end())  # type: ignore[union-attr]
        start = m.start(m.lastindex or 0)
        pos = m.end()
        punct = m.group(1)
        nodes += 1
        if nodes > limits.max_nodes:
            where = "one file" if spent else "one document"
            raise _Stop(YAML_TOO_MANY_NODES.id, f"more than {limits.max_nodes} nodes in {where} "
                        "(raise with --max-nodes)", start)
        top = stack[-1] if stack else None
        in_object = type(top) is PosDict
        if punct is None or punct in "{[":
            if not expect_value:
                raise _Stop(YAML_SYNTAX.id, "invalid character after a value: expected ',' or a closing bracket",
                            start)
            if in_object and keys[-1] is _KEY_WANTED:
                if m.group(2) is None:
                    raise _Stop(YAML_SYNTAX.id, "expected a string as object key", start)
                key = string_value(m.group(2))
                keys[-1] = (key, mark(start))
                m2 = _COLON.match(text, pos)
                if m2 is None:
                    raise _Stop(YAML_SYNTAX.id, "expected ':' after an object key", _SPACE.match(text, pos).end())  # type: ignore[union-attr]
                pos = m2.end()
                continue
            if punct is not None:  # '{' or '['
                if len(stack) >= limits.max_depth:
                    raise _Stop(YAML_TOO_DEEP.id, f"nesting deeper than {limits.max_depth} levels "
                                "(raise with --max-depth)", start)
                if stack:
                    segs.append(_segment(stack[-1], keys[-1]))
                container: Any = PosDict(mark(start)) if punct == "{" else PosList(mark(start))
                stack.append(container)
                keys.append(_KEY_WANTED if punct == "{" else None)
                expect_value = True
                m3 = _CLOSE.match(text, pos)
                if m3 is not None and m3.group(1) == ("}" if punct == "{" else "]"):
                    pos = m3.end()
                    value: Any = stack.pop()
                    keys.pop()
                    if segs and stack:
                        segs.pop()
                    value_mark = value.mark
                else:
                    continue
            elif m.group(2) is not None:
                value, value_mark = string_value(m.group(2)), mark(start)
            elif m.group(3) is not None:
                number = m.group(3)
                if m.group(4) is None and m.group(5) is None and len(number) <= _MAX_INT_TEXT:
                    value = int(number)
                else:
                    value = float(number)
                    if math.isinf(value):
                        shown = number if len(number) <= 40 else f"{number[:20]}… ({len(number)} characters)"
                        raise _Stop(YAML_NON_FINITE.id, f"{shown} is out of range for a 64-bit float; Kubernetes "
                                    "cannot decode it", start)
                value_mark = mark(start)
            else:
                value, value_mark = _LITERALS[m.group(6)], mark(start)
        elif punct in "}]":
            if not stack or (punct == "}") != (type(top) is PosDict):
                raise _Stop(YAML_SYNTAX.id, f"invalid character '{punct}'", start)
            if expect_value:  # "[1,]" or '{"a":1,}'
                raise _Stop(YAML_SYNTAX.id, f"invalid character '{punct}' looking for beginning of value", start)
            value = stack.pop()
            keys.pop()
            if segs and stack:
                segs.pop()
            value_mark = value.mark
        elif punct == ",":
            if expect_value or not stack:
                raise _Stop(YAML_SYNTAX.id, "invalid character ',' looking for beginning of value", start)
            expect_value = True
            if type(top) is PosDict:
                keys[-1] = _KEY_WANTED
            continue
        else:  # ':' out of place
            raise _Stop(YAML_SYNTAX.id, "invalid character ':'", start)

        # a complete value: attach it to the open container, or it is the root
        if not stack:
            root, have_root = value, True
            break
        top = stack[-1]
        if type(top) is PosDict:
            key, key_mark = keys[-1]
            if key in top:
                remarks.append(Remark(YAML_DUPLICATE_KEY.id, f'duplicate field "{key}": strict decoding rejects it '
                                      "(the later value wins)", key_mark, (*segs, key)))
            top[key] = value
            top.key_marks[key] = key_mark
            top.value_marks[key] = value_mark
            keys[-1] = None
        else:
            top.append(value)
            top.item_marks.append(value_mark)
        expect_value = False
    assert have_root
    return root, pos, nodes - spent


class _KeyWanted:
    __slots__ = ()


_KEY_WANTED: Any = _KeyWanted()
_COLON = re.compile(r"[ \t\n\r]*:")
_CLOSE = re.compile(r"[ \t\n\r]*([}\]])")


def _segment(container: Any, key: Any) -> PathSegment:
    if type(container) is PosDict:
        return str(key[0])
    return len(container)


def _unexpected(text: str, pos: int) -> str:
    rest = text[_SPACE.match(text, pos).end():]  # type: ignore[union-attr]
    if not rest:
        return "unexpected end of JSON input"
    char = rest[0]
    if char == '"':
        return "invalid string: a control character or an invalid escape"
    return f"invalid character {char!r} looking for beginning of value"
