"""Comments of a YAML text, read two ways, to prove an edit kept every one.

The loader validation uses drops comments. For migrations, which move blocks of lines, ruamel.yaml's
round-trip scanner reads them (attached to its tokens), independently of everything else ``fix`` uses. For
byte-range fixes, which change one node in place, libyaml's C scanner is enough and 100 times faster: a
comment is whatever starts with ``#`` in the gaps between its tokens. Either way, reading the text before
and after an edit shows whether a comment was lost or swallowed into a value, in any position (head, between
entries, after values, inside flow collections).
"""

from __future__ import annotations

import io
from collections.abc import Container
from typing import Any

from kubectl_testbench.load.lines import LineIndex


def comment_lines(text: str, round_trip: bool = False) -> list[tuple[int, str]] | None:
    """``(0-based line, comment)`` for every comment of ``text``, in order; None when the scanner cannot read
    the text (then there is nothing to compare with). ``round_trip`` reads with ruamel.yaml."""
    if not round_trip:
        return _libyaml_comments(text)
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    found: list[tuple[int, str]] = []
    try:
        for token in YAML(typ="rt").scan(io.StringIO(text)):
            _collect(getattr(token, "_comment", None), found)
    except (YAMLError, ValueError):
        return None
    return sorted(found)


def _libyaml_comments(text: str) -> list[tuple[int, str]] | None:
    import re

    import yaml

    from kubectl_testbench.load.libyaml import read_with

    found: list[tuple[int, str]] = []
    position = 0
    gaps: list[tuple[int, int]] = []
    try:
        for start, end in read_with(text, _token_spans):
            gaps.append((position, start))  # empty (or reversed: nothing to slice) between adjacent tokens
            position = max(position, end)
    except yaml.YAMLError:
        return None
    gaps.append((position, len(text)))
    lines = LineIndex(text)
    for start, end in gaps:
        for match in re.finditer(r"#[^\r\n]*", text[start:end]):
            found.append((lines.position(start + match.start())[0] - 1, match.group().strip()))
    return found


def _token_spans(loader: Any) -> list[tuple[int, int]]:
    """Where each token of the stream starts and ends (character offsets), in order."""
    spans: list[tuple[int, int]] = []
    while loader.check_token():
        token = loader.get_token()
        spans.append((token.start_mark.index, token.end_mark.index))
    return spans


def _collect(node: Any, found: list[tuple[int, str]]) -> None:
    if node is None:
        return
    if isinstance(node, list):
        for item in node:
            _collect(item, found)
        return
    value = getattr(node, "value", None)
    mark = getattr(node, "start_mark", None)
    if isinstance(value, str) and mark is not None:
        for i, line in enumerate(value.split("\n")):
            if line.strip().startswith("#"):
                found.append((int(mark.line) + i, line.strip()))


def lost_comments(before: str, after: str, removable: Container[int] = (), round_trip: bool = False) -> list[str]:
    """Comments of ``before`` that ``after`` no longer has, except those on ``removable`` lines (0-based lines
    a fix deleted). A comment may reappear inside a longer one: commented-out lines keep their own comment."""
    old = comment_lines(before, round_trip)
    if old is None:
        return []  # the old text was not readable as YAML (a syntax fix): nothing to compare against
    new = comment_lines(after, round_trip)
    if new is None:
        return [old[0][1] if old else "(the edited text cannot be read back)"]
    remaining = [c for _, c in new]
    lost = []
    for line, comment in old:
        match = next((i for i, c in enumerate(remaining) if comment in c), None)
        if match is not None:
            del remaining[match]
        elif line not in removable:
            lost.append(comment)
    return lost
