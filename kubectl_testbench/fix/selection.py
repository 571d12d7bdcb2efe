"""``--select``/``--ignore``: which rules' fixes to apply, by rule id or group, as ruff selects rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kubectl_testbench.rules import RULES, did_you_mean


class SelectorError(ValueError):
    """A selector that names no rule and no group of rules."""


def _matches(selector: str, rule: str) -> bool:
    if selector == "ALL":
        return True
    return rule == selector or rule.partition("/")[0] == selector.removesuffix("/")


def _check(selectors: Iterable[str]) -> tuple[str, ...]:
    out = []
    for raw in selectors:
        for selector in (s.strip() for s in raw.split(",")):
            if not selector:
                continue
            if not any(_matches(selector, rule) for rule in RULES):
                raise SelectorError(f'"{selector}" is not a rule id or group{did_you_mean(selector)}: '
                                    "kubectl testbench validate --list-rules lists them")
            out.append(selector)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Selection:
    """Rules whose fixes apply: those matching a ``select`` entry (all when empty) and no ``ignore`` entry."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    @classmethod
    def parse(cls, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> Selection:
        """Selectors are rule ids (``schema/enum``), groups (``yaml`` or ``yaml/``) or ``ALL``; comma lists work."""
        return cls(_check(select), _check(ignore))

    def __call__(self, rule: str) -> bool:
        if self.select and not any(_matches(s, rule) for s in self.select):
            return False
        return not any(_matches(s, rule) for s in self.ignore)
