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


def one_near(key: str, known: Iterable[str]) -> str | None:
    """The single known name ``key`` is a slip of: equal ignoring case, or 1–2 edits away; None when not unique."""
    close = [name for name in known
             if name != key and (name.lower() == key.lower() or edit_distance(key, name) <= MAX_KEY_DISTANCE)]
    return close[0] if len(close) == 1 else None
