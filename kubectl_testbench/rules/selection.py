"""Which rules apply, by rule id or group, as ruff selects rules: ``validate --select/--ignore/--extend-select``,
the configuration file's ``select``/``ignore``/``extend-select`` and ``fix --select/--ignore`` (which fixes apply)
are this one mechanism."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from kubectl_testbench.rules import RULES, did_you_mean


class SelectorError(ValueError):
    """A selector that names no rule and no group of rules."""


def matches(selector: str, rule: str) -> bool:
    """``selector`` (a rule id, a group as ``yaml`` or ``yaml/``, or ``ALL``) names ``rule``."""
    if selector == "ALL":
        return True
    return rule == selector or rule.partition("/")[0] == selector.removesuffix("/")


def known(selector: str) -> bool:
    """``selector`` names at least one registered rule."""
    return any(matches(selector, rule) for rule in RULES)


def _check(selectors: Iterable[str]) -> tuple[str, ...]:
    out = []
    for raw in selectors:
        for selector in (s.strip() for s in raw.split(",")):
            if not selector:
                continue
            if not known(selector):
                raise SelectorError(f'"{selector}" is not a rule id or group{did_you_mean(selector)}: '
                                    "kubectl testbench validate --list-rules lists them")
            out.append(selector)
    return tuple(out)


class Selection(NamedTuple):
    """Rules that apply: those matching a ``select`` entry (all when empty) or an ``extend_select`` entry, and no
    ``ignore`` entry. A named tuple: validation's start-up imports it, and a frozen dataclass costs a cold start
    several times more to define."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()

    @classmethod
    def parse(cls, select: Iterable[str] = (), ignore: Iterable[str] = (),
              extend_select: Iterable[str] = ()) -> Selection:
        """Selectors are rule ids (``schema/enum``), groups (``yaml`` or ``yaml/``) or ``ALL``; comma lists work."""
        return cls(_check(select), _check(ignore), _check(extend_select))

    def over(self, base: Selection) -> Selection:
        """This selection given over ``base`` (the command line over the configuration file): a ``select`` here
        replaces the base's, ``ignore`` and ``extend-select`` add to it, as ruff combines them."""
        return Selection(self.select or base.select, (*base.ignore, *self.ignore),
                         (*base.extend_select, *self.extend_select))

    @property
    def everything(self) -> bool:
        """Every rule applies (nothing to filter)."""
        return not self.select and not self.ignore

    def __call__(self, rule: str) -> bool:
        if any(matches(s, rule) for s in self.ignore):
            return False
        return not self.select or any(matches(s, rule) for s in (*self.select, *self.extend_select))


ALL_RULES = Selection()
