"""What the rules share when they decide that a finding has a safe fix.

A rule attaches a :class:`~kubectl_testbench.validate.diagnostics.Fix` only when exactly one repair is
plausible: a key one or two keystrokes from exactly one known field, an enum value that matches exactly one
allowed value ignoring case, a number written as a string. These helpers make those decisions the same way
for every rule that uses them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kubectl_testbench.load.positions import Path
from kubectl_testbench.validate.diagnostics import Fix, FixKind

NUMBER_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
"""A number as JSON writes it: what a quoted threshold may hold to be unquoted safely."""

MAX_KEY_DISTANCE = 2

EARLIER_SHAPE_FIELDS: frozenset[Path] = frozenset({
    ("spec", "llmAsAJudgeModel"), ("spec", "defaultThreshold"), ("spec", "scenarios"), ("spec", "otlpEndpoint"),
    ("spec", "trigger", "event"),
})
"""Fields of the earlier upstream Experiment shapes, which ``kubectl testbench fix --migrate`` moves."""
MIGRATE_HINT = "written for an earlier Experiment schema: kubectl testbench fix --migrate upgrades it"


def edit_distance(a: str, b: str, limit: int = MAX_KEY_DISTANCE) -> int:
    """Optimal-string-alignment distance (insert, delete, substitute, swap neighbours); ``limit + 1`` when larger."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return min(previous[-1], limit + 1)


def near(key: str, known: Iterable[str]) -> list[str]:
    """Known names ``key`` could be a slip of: equal ignoring case, or 1–2 edits away."""
    return [name for name in known
            if name != key and (name.lower() == key.lower() or edit_distance(key, name) <= MAX_KEY_DISTANCE)]


def rename_fix(path: Path, key: str, known: Iterable[str], present: Iterable[str]) -> Fix:
    """Rename ``key`` to the one known field it is a slip of, when that field is not set; else say why not."""
    close = near(key, known)
    at = (*path, key)
    if not close:
        return Fix(FixKind.RENAME_KEY, at, None, blocked="no known field is within two edits of it")
    if len(close) > 1:
        return Fix(FixKind.RENAME_KEY, at, None, blocked=f"several known fields are close: {', '.join(close)}")
    if close[0] in set(present):
        return Fix(FixKind.RENAME_KEY, at, None, blocked=f'"{close[0]}" is set already: keep one of the two')
    return Fix(FixKind.RENAME_KEY, at, close[0], f'rename "{key}" to "{close[0]}"')
