"""How a count reads in a message: "1 finding", "2 findings" (every output says it the same way)."""

from __future__ import annotations


def plural(n: int, word: str, plural_form: str | None = None) -> str:
    """``n`` and ``word``, unless ``n`` is one: then ``plural_form`` (by default ``word`` with an ``s``, as in
    "2 findings"; irregular words give theirs: ``plural(n, "fix", "fixes")``)."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {plural_form if plural_form is not None else word + 's'}"
