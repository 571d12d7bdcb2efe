"""Keep user text literal inside TestWorkflow specs, where ``{{ … }}`` is a Testkube expression."""

from __future__ import annotations

from typing import Any

_OPEN = "{{"
_LITERAL_OPEN = '{{"{{"}}'
"""An expression whose value is the two characters ``{{``: Testkube prints them and evaluates nothing."""


def literal(text: str) -> str:
    """``text`` such that Testkube reproduces it exactly instead of evaluating ``{{ … }}`` in it."""
    return text.replace(_OPEN, _LITERAL_OPEN) if _OPEN in text else text


def unescape(text: str) -> str:
    """What Testkube shows for a string written by :func:`literal` (for tests and ``diff`` output)."""
    return text.replace(_LITERAL_OPEN, _OPEN)


def literal_env(env: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Env entries with literal values escaped; ``valueFrom`` entries carry no text and stay as they are."""
    out = []
    for item in env:
        if isinstance(item.get("value"), str) and _OPEN in item["value"]:
            item = {**item, "value": literal(item["value"])}
        out.append(item)
    return out
