"""Two objects meant for one place: what that means, decided once for ``render``, Argo CD's plugin and KRM.

Where objects meet is each front-end's own. ``render`` writes one file per object, so two objects meet at a
file name; Argo CD's plugin and the KRM function emit one stream, so objects meet at their identity (API
group, kind, namespace, name). What a meeting means is decided here, by :func:`meeting`:

- both generated from Experiments: two Experiments generate one object, and one of them must be renamed
  (unless both are copies of one Experiment: the clash check reports those once, :func:`reported_as_clash`);
- otherwise one of them was given in the input (a committed rendered copy, or any other manifest): the same
  content is one object, different content a stale copy or a name clash.

What a front-end does about the same content given twice is its own, too: ``render`` and Argo CD's plugin
keep one copy; the KRM function refuses it, because kpt writes the function's output back into the package,
where dropping an input item deletes its file. Every meeting that stops a command is reported as
``render/duplicate`` at the place of the object that came later (:func:`duplicate`).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable
from enum import Enum

from kubectl_testbench.rules.render import RENDER_DUPLICATE
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity


class Meeting(Enum):
    GENERATED_TWICE = "generated twice"
    """Two Experiments generate the object."""
    SAME = "the same object"
    """An object given in the input equals the one met there."""
    DIFFERENT = "different objects"
    """An object given in the input differs from the one met there."""


def meeting(first_generated: bool, later_generated: bool, first: object, later: object) -> Meeting:
    """What two objects meeting at one place are: ``first`` and ``later`` are their contents (parsed data, or
    text where the data is not at hand), compared only when one of them was given in the input."""
    if first_generated and later_generated:
        return Meeting.GENERATED_TWICE
    return Meeting.SAME if first == later else Meeting.DIFFERENT


def reported_as_clash(origin: Hashable, other: Hashable, clashing: Collection[Hashable]) -> bool:
    """Both objects come from copies of one Experiment (``clashing``: the places of Experiments defined more
    than once), which collide on every object they generate: the clash check has said so, once."""
    return origin in clashing and other in clashing


def duplicate(origin: str, message: str, hint: str) -> Diagnostic:
    """A meeting that stops the command, at ``origin`` (``file:line``, as every front-end writes the place of
    an object) of the object that came later."""
    file, _, line = origin.rpartition(":")
    return Diagnostic(RENDER_DUPLICATE.id, Severity.ERROR, message, file, int(line), 1, hint=hint)
