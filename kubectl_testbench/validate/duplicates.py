"""The same Experiment (namespace/name) defined more than once across the inputs.

Each file validates on its own, so a copy in a second file passes every per-file check; applied together,
the later copy silently replaces the earlier one (and render generates the same objects twice). This check
runs once over the whole input and reports every copy at its own ``metadata.name``, with the other place: the
first is as wrong as the later ones, and either may be the one to rename or delete.
A copy in a file ``render --include-experiment`` wrote (its generated header) is a rendered copy, not a
second definition: render and apply compare it with its Experiment instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kubectl_testbench.rules.semantic import SEMANTIC_DUPLICATE_EXPERIMENT
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity
from kubectl_testbench.words import plural


@dataclass(frozen=True, slots=True)
class Identity:
    """Where one Experiment is defined and what it is called."""

    name: str
    namespace: str | None
    """As written in the file; None when the file leaves it to the command (-n, the context)."""
    file: str
    line: int
    col: int
    object_line: int
    """The line the object starts on (render's origin ``file:line`` of what it generated)."""
    valid: bool = True
    rendered_copy: bool = False

    @property
    def origin(self) -> str:
        return f"{self.file}:{self.object_line}"


@dataclass
class Clashes:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    origins: set[str] = field(default_factory=set)
    """``file:line`` of every Experiment involved in a clash (render drops its per-object collisions)."""
    invalidated: int = 0
    """Copies that were valid on their own and are not any more."""
    copies: list[tuple[Identity, Identity]] = field(default_factory=list)
    """Each copy with the other it names (an extra copy the first, the first the second), in the order of
    :attr:`diagnostics` (one each)."""


def place(ident: Identity) -> str:
    """Where an Experiment is defined, as a finding names it: ``file:line:col``."""
    return f"{ident.file}:{ident.line}:{ident.col}"


def find_clashes(identities: Iterable[Identity], namespace: str | None = None,
                 where: Callable[[Identity], str] = place) -> Clashes:
    """Every copy of an Experiment defined more than once, the first definition included (each copy is
    reported at its own ``metadata.name``: the later ones name the first, the first names the next);
    ``namespace`` is the one the command puts Experiments without their own in (None: unknown, e.g. validate:
    those clash only among themselves). ``where`` names the other place in the message (the KRM function names
    an item, not a line)."""
    groups: dict[tuple[str | None, str], list[Identity]] = {}
    ordered = [ident for ident in identities if not ident.rendered_copy]
    for ident in ordered:
        groups.setdefault((ident.namespace or namespace, ident.name), []).append(ident)
    out = Clashes()
    for ident in ordered:
        key = (ident.namespace or namespace, ident.name)
        group = groups[key]
        if len(group) == 1:
            continue
        first = group[0]
        if ident is first:
            other = group[1]
            others = f"{where(other)}" + (f" and {plural(len(group) - 2, 'more place')}" if len(group) > 2 else "")
        else:
            other, others = first, where(first)
        out.origins.add(ident.origin)
        out.copies.append((ident, other))
        out.invalidated += ident.valid
        shown = f"{key[0]}/{key[1]}" if key[0] else f"{key[1]} (no namespace in either file)"
        out.diagnostics.append(Diagnostic(
            SEMANTIC_DUPLICATE_EXPERIMENT.id, Severity.ERROR,
            f"Experiment {shown} is also defined at {others}: applied together, "
            "one silently replaces the other", ident.file, ident.line, ident.col, "metadata.name",
            "give each Experiment its own metadata.name (or namespace), or delete the copy",
            f"Experiment {key[0]}/{key[1]}" if key[0] else f"Experiment {key[1]}"))
    return out
