"""The one result model every check produces and every reporter consumes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kubectl_testbench.load.positions import PathSegment
from kubectl_testbench.rules.rule import Severity as Severity  # a finding's severity is its rule's, by default
from kubectl_testbench.words import plural


class FixKind(StrEnum):
    """What a fix does to its node; every kind is an edit of one node, never of its neighbours."""

    QUOTE = "quote"
    """Write a plain scalar as a double-quoted string of the same text (``yes`` -> ``"yes"``)."""
    REPLACE = "replace"
    """Replace a scalar by ``value``, keeping its quoting style where the new value allows it."""
    RENAME_KEY = "rename-key"
    """Rename the mapping key at ``path`` to ``value``."""
    DELETE = "delete"
    """Remove the mapping entry at ``path`` (its key, value and the lines they occupy)."""
    DELETE_EARLIER = "delete-earlier"
    """Remove the earlier of the two entries of the key at ``path`` (the later is what Kubernetes reads)."""
    INSERT = "insert"
    """Add the entry at ``path`` with ``value`` at the end of its mapping."""
    SPLIT_SEPARATOR = "split-separator"
    """Move the content after a ``---`` marker to the next line."""
    REINDENT = "reindent"
    """Replace tab indentation by spaces where the intended level is certain."""


@dataclass(frozen=True, slots=True)
class Edit:
    """One replacement: ``[start, end)`` of the decoded file text becomes ``text`` (an insertion when empty).

    Offsets count characters of the text ``validate_text`` saw; lines and columns are 1-based, columns count
    code points and ``end_line``/``end_col`` point just past the replaced text (SARIF's convention).
    ``byte_start``/``byte_end`` are the same range in the file's bytes, byte-order mark included; -1 when the
    text did not come from a file.
    """

    start: int
    end: int
    text: str
    start_line: int = 0
    start_col: int = 0
    end_line: int = 0
    end_col: int = 0
    byte_start: int = -1
    byte_end: int = -1


@dataclass(frozen=True, slots=True)
class Fix:
    """A safe, machine-applicable repair of one finding: ``kind`` of edit on the node at ``path``.

    The rule that finds the problem creates it with ``kind``, ``path`` (the node's field path in the document)
    and ``value`` (what the node holds afterwards: the new scalar, the new key name, the inserted value). The
    engine resolves it against the source into ``edits``; a fix is offered only when that succeeded.
    """

    kind: FixKind
    path: tuple[PathSegment, ...]
    value: Any = None
    title: str = ""
    """One line for humans: 'write "Allow"'."""
    edits: tuple[Edit, ...] = ()
    blocked: str = ""
    """Why no edit is offered, when the rule considered a fix but it is not safe here ("the value carries an
    anchor that aliases share"). A fix is offered only when it has edits."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A finding with a stable rule id, located at ``file:line:col`` and a Kubernetes field path."""

    rule: str
    severity: Severity
    message: str
    file: str
    line: int = 0
    col: int = 0
    path: str = ""
    hint: str = ""
    object: str = ""
    """``Kind namespace/name`` of the object the finding is about, when known."""
    fix: Fix | None = None
    """A safe repair, when the rule has one for this case and it could be located in the source."""
    follows: tuple[int, int] | None = None
    """Sort right after this position instead of at its own: a note about the findings before it (CEL rules not
    evaluated because of the errors above) is read after them, while still pointing at its own field."""

    @property
    def location(self) -> str:
        """``file:line:col`` (or just ``file`` when the finding has no position)."""
        if self.line:
            return f"{self.file}:{self.line}:{self.col}"
        return self.file

    def sort_key(self) -> tuple[str, int, int, int, str]:
        if self.follows is not None:
            return (self.file, *self.follows, 1, self.rule)
        return (self.file, self.line, self.col, 0, self.rule)


@dataclass(slots=True)
class Counts:
    """What a run saw: the numbers behind the summary line."""

    files: int = 0
    experiments: int = 0
    valid: int = 0
    invalid: int = 0
    skipped: int = 0
    errors: int = 0
    warnings: int = 0
    unreadable: int = 0
    """Files that could not be opened (not found, no permission, not a file): exit 2, as for a usage error."""
    malformed: int = 0
    """Files opened but not readable as Kubernetes YAML or JSON (a syntax error, a wrong encoding, over a reading
    limit): invalid input, exit 1, as kubeconform and kubectl-validate answer for a file they cannot parse."""
    datasets: int = 0
    """Dataset files (experiment.json) checked against the phase package's schema."""

    def add(self, other: Counts) -> None:
        for name in ("files", "experiments", "valid", "invalid", "skipped", "errors", "warnings", "unreadable",
                     "malformed", "datasets"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> str:
        text = (f"{plural(self.files, 'file')}, {plural(self.experiments, 'experiment')}: {self.valid} valid, "
                f"{self.invalid} invalid, {plural(self.warnings, 'warning')}")
        extras = []
        if self.datasets:
            extras.append(f"{plural(self.datasets, 'dataset file')} checked")
        if self.skipped:
            extras.append(f"{plural(self.skipped, 'other document')} skipped")
        if self.malformed:
            extras.append(f"{self.malformed} malformed")
        if self.unreadable:
            extras.append(f"{self.unreadable} unreadable")
        return text + (f" ({', '.join(extras)})" if extras else "")
