"""Comments as a round-trip YAML reader sees them, to prove an edit kept every one (ruamel.yaml, lazily)."""

from __future__ import annotations

import io
from typing import Any


def comments(text: str) -> list[str] | None:
    """Every comment of ``text`` in order, as ruamel.yaml's round-trip scanner attaches them to tokens
    (``#`` and the text after it, stripped); None when the scanner cannot read the text."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    found: list[str] = []
    try:
        for token in YAML(typ="rt").scan(io.StringIO(text)):
            _collect(getattr(token, "_comment", None), found)
    except (YAMLError, ValueError):
        return None
    return found


def _collect(node: Any, found: list[str]) -> None:
    if node is None:
        return
    if isinstance(node, list):
        for item in node:
            _collect(item, found)
        return
    value = getattr(node, "value", None)
    if isinstance(value, str):
        found.extend(line.strip() for line in value.splitlines() if line.strip().startswith("#"))


def lost_comments(before: str, after: str) -> list[str]:
    """Comments of ``before`` that ``after`` lost (a comment may now sit inside a longer one: commented-out
    lines keep their own comment)."""
    old, new = comments(before), comments(after)
    if old is None or new is None:
        return ["(the text could not be read to compare comments)"]
    remaining = list(new)
    lost = []
    for comment in old:
        match = next((i for i, c in enumerate(remaining) if comment in c), None)
        if match is None:
            lost.append(comment)
        else:
            del remaining[match]
    return lost
