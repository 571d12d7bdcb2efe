"""Keep user text literal inside TestWorkflow specs, where ``{{ … }}`` is a Testkube expression."""

from __future__ import annotations

from typing import Any

_OPEN = "{{"
_LITERAL_OPEN = '{{"{{"}}'
"""An expression whose value is the two characters ``{{``: Testkube prints them and evaluates nothing."""


def literal(text: str) -> str:
    """``text`` such that Testkube reproduces it exactly instead of evaluating ``{{ … }}`` in it."""
    return text.replace(_OPEN, _LITERAL_OPEN) if _OPEN in text else text


def literal_env(env: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Env entries with every string escaped: the name, the value and each field of ``valueFrom`` (Testkube
    evaluates expressions in all of them, so ``name: "A{{ env.B }}"`` or a Secret named ``{{ config.s }}``
    would otherwise be evaluated)."""
    return [literal_strings(item) for item in env]


def literal_strings(value: Any) -> Any:
    """``value`` with :func:`literal` applied to every string in it, at any depth (keys stay as they are: they
    are field names of the schema)."""
    if isinstance(value, str):
        return literal(value)
    if isinstance(value, dict):
        return {key: literal_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [literal_strings(item) for item in value]
    return value
