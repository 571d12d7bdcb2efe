"""The one result model every check produces and every reporter consumes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """How bad a finding is: errors fail validation, warnings fail only with ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


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

    @property
    def location(self) -> str:
        """``file:line:col`` (or just ``file`` when the finding has no position)."""
        if self.line:
            return f"{self.file}:{self.line}:{self.col}"
        return self.file

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.line, self.col, self.rule)


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

    def add(self, other: Counts) -> None:
        for name in ("files", "experiments", "valid", "invalid", "skipped", "errors", "warnings", "unreadable"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> str:
        files = "file" if self.files == 1 else "files"
        exps = "experiment" if self.experiments == 1 else "experiments"
        warns = "warning" if self.warnings == 1 else "warnings"
        text = (f"{self.files} {files}, {self.experiments} {exps}: {self.valid} valid, "
                f"{self.invalid} invalid, {self.warnings} {warns}")
        extras = []
        if self.skipped:
            extras.append(f"{self.skipped} other document{'' if self.skipped == 1 else 's'} skipped")
        if self.unreadable:
            extras.append(f"{self.unreadable} unreadable")
        return text + (f" ({', '.join(extras)})" if extras else "")
