"""How a count reads in a message: "1 finding", "2 findings" (every output says it the same way)."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, with an ``s`` unless ``n`` is one."""
    return f"{n} {word}{'' if n == 1 else 's'}"
