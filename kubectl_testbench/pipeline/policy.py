"""What happens across files, once for every command: the ``--strict`` policy and the clash policy.

A finding stops a command when it is an error, or a warning under ``--strict`` (:func:`fails`, the rule the
engine also applies to each Experiment). An Experiment defined twice (the same namespace and name in two
places) is an error wherever it is found, and the copies no longer count as valid.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kubectl_testbench.rules.input import INPUT_TEMPLATE
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity
from kubectl_testbench.validate.duplicates import Clashes, Identity, find_clashes, place
from kubectl_testbench.validate.engine import FileResult, fails

__all__ = ["Tally", "fails"]


@dataclass(slots=True)
class Tally:
    """The results of many files added up: counts, Experiments by identity, and (when judged) the findings that
    stop the command and those that are only shown."""

    strict: bool = False
    counts: Counts = field(default_factory=Counts)
    identities: list[Identity] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    """Errors (and, with ``strict``, warnings): any of them means nothing may be written."""
    warnings: list[Diagnostic] = field(default_factory=list)
    """Shown on stderr, not stopping (a skipped template is worth a notice too)."""

    def add(self, result: FileResult) -> None:
        """Count one file's result and remember its Experiments for the clash check."""
        self.counts.add(result.counts)
        self.identities.extend(result.identities)

    def judge(self, diagnostics: Iterable[Diagnostic]) -> None:
        """Sort findings into :attr:`problems` and :attr:`warnings` by the ``--strict`` policy."""
        for d in diagnostics:
            if fails(d, self.strict):
                self.problems.append(d)
            elif d.severity is Severity.WARNING or d.rule == INPUT_TEMPLATE.id:  # a skipped template is worth a notice
                self.warnings.append(d)

    def clashes(self, namespace: str | None = None, where: Callable[[Identity], str] = place) -> Clashes:
        """Experiments defined more than once (``namespace``: where those without one go; None: unknown, they
        clash only among themselves): each copy is an error, and the copies count as invalid. ``where`` names
        the first definition in each message."""
        found = find_clashes(self.identities, namespace, where)
        self.problems.extend(found.diagnostics)
        self.counts.errors += len(found.diagnostics)
        self.counts.valid -= found.invalidated
        self.counts.invalid += found.invalidated
        return found

    @property
    def ok(self) -> bool:
        return not self.problems and not self.counts.unreadable and not self.counts.malformed
