"""The documents of a YAML or JSON stream, read once the way ``validate`` (and kubectl) reads them.

Argo CD's ``generate`` decides from this reading which documents it compiles and which it passes through,
``discover`` which files it claims, the KRM function what its stdin and config hold. They used to read with
PyYAML's ``load_all``, which disagreed with ``validate``: a JSON stream (``{…}{…}``, what ``kubectl get -o
json`` of single objects concatenates to) became its first object, so Argo CD pruned every other one; and
PyYAML's C composer recurses once per nesting level (a segfault at 100,000 levels on PyYAML 6.0.3).

So the rules are the validator's own, built from the same pieces: a text whose first non-blank character is
``{`` is a stream of JSON values (kubectl's ``NewYAMLOrJSONDecoder``; :mod:`kubectl_testbench.load.jsonread`),
anything else is YAML split on ``---`` lines (:mod:`kubectl_testbench.load.split`) and built document by
document (:mod:`kubectl_testbench.load.builder`). Both readers enforce the depth, node and alias limits of
:mod:`kubectl_testbench.load.limits` without recursing, and report a document they cannot read as a
:class:`Problem` with its place instead of raising. A JSON array is one YAML document holding a list (it does
not start with ``{``), which kubectl refuses as not an object, and so does ``validate``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.positions import Mark
from kubectl_testbench.rules import LIMIT_RULES
from kubectl_testbench.rules.yaml import YAML_DOCUMENT_SEPARATOR, YAML_TOO_DEEP
from kubectl_testbench.sniff import looks_like_json


@dataclass(frozen=True, slots=True)
class Document:
    """One non-empty document: plain data (dicts, lists, scalars), where it starts, and its own text."""

    data: Any
    start_line: int
    """0-based line of the document's first line in the stream."""
    text: str | None
    """The document as written (YAML); None for a JSON value, which has no text of its own in the stream."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A document that cannot be read: its rule (``yaml/syntax``, ``yaml/too-deep``…), message and place."""

    rule: str
    message: str
    mark: Mark
    """1-based line and column in the stream."""

    def located(self, path: str) -> str:
        """``path:line:col: message``, the one-line form errors take everywhere."""
        return f"{path}:{self.mark[0]}:{self.mark[1]}: {self.message}"

    @property
    def over_limit(self) -> bool:
        return self.rule in LIMIT_RULES


def read_documents(text: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[Document | Problem]:
    """Every document of ``text`` in order, or the problem that keeps one from being read.

    A YAML document that cannot be read does not hide the others (kubectl splits the stream first); in a
    JSON stream nothing after a syntax error can be found, so the problem is the last item.
    """
    if looks_like_json(text):
        yield from _json_stream(text, limits)
    else:
        yield from _yaml_stream(text, limits)


RECURSION_PER_LEVEL = 8
"""Python frames per nesting level that handling a document costs downstream: load.positions.plain takes two,
copy.deepcopy two, ruamel.yaml (pure Python, the KRM function's writer) about four in its composer and
representer. Python's default limit of 1,000 frames ended ruamel at 247 levels, below the 256 --max-depth
lets through."""
RECURSION_CEILING = 20_000
"""The most frames :func:`room_for` allows (measured: 19,000 levels of json.dumps and copy.deepcopy stay within
the main thread's 8 MiB C stack). Deeper input than that allows (--max-depth raised past ~2,400) ends in a
RecursionError, which :func:`read_documents` and the commands report as a problem, never a traceback."""


@contextmanager
def room_for(limits: Limits) -> Iterator[None]:
    """Python's recursion limit raised for the nesting depth ``limits`` lets through, restored afterwards."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, min(RECURSION_CEILING, 1000 + RECURSION_PER_LEVEL * limits.max_depth)))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def _plain(data: Any, limits: Limits, start_line: int) -> Any:
    """``data`` as plain dicts and lists, or a :class:`Problem` when it is nested deeper than Python can copy."""
    from kubectl_testbench.load.positions import plain

    try:
        with room_for(limits):
            return plain(data)
    except RecursionError:
        return Problem(YAML_TOO_DEEP.id, f"nested too deeply to be processed (--max-depth {limits.max_depth} let it "
                       "through): lower --max-depth to have it refused where it nests", (start_line + 1, 1))


def _yaml_stream(text: str, limits: Limits) -> Iterator[Document | Problem]:
    from kubectl_testbench.load.stream import yaml_documents

    for _, chunk, built in yaml_documents(text, limits):
        if built is None:
            yield Problem(YAML_DOCUMENT_SEPARATOR.id, "invalid document separator: only a comment may follow '---' "
                          "on its line", (chunk.start_line + 1, 4))
            continue
        if built.error is not None:
            yield Problem(built.error.rule, built.error.message, built.error.mark)
        elif not built.empty:
            data = _plain(built.data, limits, chunk.start_line)
            yield data if isinstance(data, Problem) else Document(data, chunk.start_line, chunk.text)


def _json_stream(text: str, limits: Limits) -> Iterator[Document | Problem]:
    """The C decoder first (plain values, no positions); the positional reader only when it cannot decide."""
    from kubectl_testbench.load.jsonread import read_fast, read_stream

    fast = read_fast(text, limits)
    if fast is not None:
        yield from (Document(value, line, None) for value, line in fast if value is not None)
        return
    for doc in read_stream(text, limits):
        if doc.error is not None:
            yield Problem(doc.error.rule, doc.error.message, doc.error.mark)
            return
        if doc.data is not None:
            data = _plain(doc.data, limits, doc.start_line)
            yield data if isinstance(data, Problem) else Document(data, doc.start_line, None)
