"""The parts of a document that are valid on their own, so that one `validate` run reports every finding.

The API server stops at schema errors; a linter should not make the user fix one field to learn about the next.
After the schema pass, the semantic checks and the CEL rules run over what the errors leave intact:

- a field with a wrong value (an unknown field, an enum, a bound, a pattern, a format, a length) stays as it is
  -- the object around it is still well-formed -- and only findings at or under that field are dropped;
- a structural error (a wrong type, a missing required field, a list or map of the wrong size) inside a list item
  (a scenario, a step, a metric, an env entry) blanks that whole item: its siblings are checked, it is not;
- a structural error elsewhere leaves its field out and also silences findings on the objects around it, whose
  checks would rest on the broken structure (``spec.dataset`` that is a string says nothing about datasets).

A check that concludes something is *missing* (no step has metrics) cannot tell a blanked item from an absent one:
:meth:`ValidParts.blanked_under` lets the caller drop such conclusions where a structural error blanked a part.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.load.positions import Path, value_at
from kubectl_testbench.rules.metadata import METADATA_TYPE
from kubectl_testbench.rules.schema import (
    SCHEMA_ENUM,
    SCHEMA_FORMAT,
    SCHEMA_MAX_LENGTH,
    SCHEMA_MAXIMUM,
    SCHEMA_MIN_LENGTH,
    SCHEMA_MINIMUM,
    SCHEMA_MULTIPLE_OF,
    SCHEMA_PATTERN,
    SCHEMA_UNKNOWN_FIELD,
)

VALUE_RULES = frozenset({SCHEMA_UNKNOWN_FIELD.id, SCHEMA_ENUM.id, SCHEMA_MINIMUM.id, SCHEMA_MAXIMUM.id,
                         SCHEMA_MULTIPLE_OF.id, SCHEMA_PATTERN.id, SCHEMA_FORMAT.id, SCHEMA_MIN_LENGTH.id,
                         SCHEMA_MAX_LENGTH.id})
"""Errors about one field's value: the object holding the field is still well-formed without it."""


def _about_a_value(rule: str) -> bool:
    """Value errors, and the ObjectMeta checks (a bad name, label or annotation) but for metadata that is not an
    object at all."""
    return rule in VALUE_RULES or (rule.startswith("metadata/") and rule != METADATA_TYPE.id)


@dataclass
class ValidParts:
    """The document without its structurally invalid parts, and which finding paths the errors silence."""

    document: dict[str, Any]
    left_out: list[Path] = field(default_factory=list)
    """Findings at or under these paths are dropped."""
    broken: list[Path] = field(default_factory=list)
    """Findings at these paths' ancestors are dropped too (structural errors outside any list item)."""
    blanked: list[Path] = field(default_factory=list)
    """What structural errors took out of ``document``."""

    def silences(self, path: Path) -> bool:
        return any(path[: len(p)] == p for p in self.left_out) or any(p[: len(path)] == path for p in self.broken)

    def blanked_under(self, scope: Path) -> bool:
        """Did a structural error take out a part of the subtree at ``scope``?"""
        return any(p[: len(scope)] == scope for p in self.blanked)


def _item(path: Path) -> Path | None:
    """The nearest list item holding ``path`` (or ``path`` itself when it is one)."""
    for end in range(len(path), 0, -1):
        if isinstance(path[end - 1], int):
            return path[:end]
    return None


def _leave_out(doc: dict[str, Any], path: Path) -> None:
    if not path:
        return
    parent = value_at(doc, path[:-1])
    last = path[-1]
    if isinstance(parent, dict) and isinstance(last, str):
        parent.pop(last, None)
    elif isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
        parent[last] = None  # blanked, not removed: the indices of its siblings stay what the findings say


def valid_parts(doc: dict[str, Any], errors: list[tuple[str, Path]]) -> ValidParts:
    """``doc`` (not changed) without the parts the schema ``errors`` (rule id, path) make invalid."""
    structural = [(rule, path) for rule, path in errors if path and not _about_a_value(rule)]
    parts = ValidParts(copy.deepcopy(doc) if structural else doc)
    for rule, path in errors:
        if not path:
            parts.left_out.append(())  # an error about the whole object: nothing in it can be trusted
        elif _about_a_value(rule):
            parts.left_out.append(path)
        else:
            item = _item(path)
            where = item if item is not None else path
            if item is None:
                parts.broken.append(path)
            _leave_out(parts.document, where)
            parts.left_out.append(where)
            parts.blanked.append(where)
    return parts
