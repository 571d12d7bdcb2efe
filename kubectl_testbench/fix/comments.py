"""Comments as a round-trip YAML reader sees them, to prove an edit kept every one (ruamel.yaml, lazily).

The loader validation uses drops comments; ruamel.yaml's round-trip scanner keeps them, attached to tokens.
Reading the text before and after an edit with it is an independent check that no comment was lost or
swallowed into a value, in any position (head, between entries, after values, inside flow collections).
"""

from __future__ import annotations

import io
from collections.abc import Container
from typing import Any


def comment_lines(text: str) -> list[tuple[int, str]] | None:
    """``(0-based line, comment)`` for every comment of ``text``, in order; None when ruamel.yaml's scanner
    cannot read the text (then there is nothing to compare with)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    found: list[tuple[int, str]] = []
    try:
        for token in YAML(typ="rt").scan(io.StringIO(text)):
            _collect(getattr(token, "_comment", None), found)
    except (YAMLError, ValueError):
        return None
    return sorted(found)


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


def lost_comments(before: str, after: str, removable: Container[int] = ()) -> list[str]:
    """Comments of ``before`` that ``after`` no longer has, except those on ``removable`` lines (0-based lines
    a fix deleted). A comment may reappear inside a longer one: commented-out lines keep their own comment."""
    old = comment_lines(before)
    if old is None:
        return []  # the old text was not readable as YAML (a syntax fix): nothing to compare against
    new = comment_lines(after)
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
