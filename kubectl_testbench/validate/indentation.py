"""Tab indentation, which YAML forbids, re-indented with spaces where the intended level is certain.

Certain means: the tab-indented lines follow a line that opens a block (``reference:`` with nothing after the
colon), so they can only be its children, and the next line below them returns to that block's level or
further out -- or to the level of the first tabbed line (its sibling), or the last of them is a key whose own
children follow, indented with spaces deeper than the key will be (a tab before ``agentRef:`` over
``    name: x``). The lines then take the block's child indentation (the file's indentation step further in),
keeping their levels relative to each other (one tab, one step). Anything else (tabs mixed with spaces on one
line, a tab block after a line with a value, block scalars) is left for the user, and a result that libyaml cannot
read is no fix.
"""

from __future__ import annotations

import re

import yaml

from kubectl_testbench.load.libyaml import consume_events, read_with
from kubectl_testbench.load.lines import SPLITLINES_BREAK, LineIndex, indent_width

# Lines keep their line break (``\r\n`` too): ``.`` and ``$`` already stop at the ``\n``, ``\r?`` takes the ``\r``.
_OPENER = re.compile(r"^(?P<indent> *)(?:- +)*(?P<key>[^\s#][^#]*?):[ \t]*(?:#.*)?\r?$")
_BLOCK_SCALAR = re.compile(r"[|>][0-9+-]*[ \t]*(?:#.*)?\r?$")


def _indentation(line: str) -> str:
    """The spaces and tabs that start ``line`` (here a tab stands where YAML wants spaces)."""
    return line[:indent_width(line, tabs=True)]


def _tabbed(line: str) -> bool:
    return bool(line.strip()) and set(_indentation(line)) == {"\t"}


def tab_indentation_edits(text: str) -> list[tuple[int, int, str]] | None:
    """Edits replacing every tab-indented block of ``text`` with spaces, or None when one is not certain."""
    index = LineIndex(text, SPLITLINES_BREAK)
    lines = index.with_breaks()
    step = _step(lines)
    edits: list[tuple[int, int, str]] = []
    i = 0
    while i < len(lines):
        if not _tabbed(lines[i]):  # a line with spaces and tabs is left as it is (the result must still parse)
            i += 1
            continue
        first = i
        while i < len(lines) and (_tabbed(lines[i]) or not lines[i].strip()):
            i += 1
        block = [j for j in range(first, i) if lines[j].strip()]
        base = _child_column(lines, first, step)
        if base is None or any(_BLOCK_SCALAR.search(lines[j]) for j in block):
            return None
        below = next((line for line in lines[i:] if line.strip()), None)
        least = min(indent_width(lines[j], tabs=True) for j in block)
        if below is not None and ("\t" in _indentation(below) or indent_width(below, tabs=True) > base - step):
            # the lines after the tabs are still inside the block: the level is certain only where they are
            # siblings of the first tabbed line, or the children of a key the tabs indent (``\tagentRef:`` over
            # ``    name: x``), deeper than it will be
            last = block[-1]
            column = base + (indent_width(lines[last], tabs=True) - least) * step
            opener = _OPENER.match(lines[last].lstrip("\t")) is not None
            width = indent_width(below, tabs=True)
            if "\t" in _indentation(below) or not (width == base or (opener and width > column)):
                return None
        for j in block:
            tabs = indent_width(lines[j], tabs=True)
            edits.append((index.start(j), index.start(j) + tabs, " " * (base + (tabs - least) * step)))
    if not edits or not _parses(text, edits):
        return None
    return edits


def _step(lines: list[str]) -> int:
    """The file's indentation step: the smallest indentation used with spaces (2 when nothing tells)."""
    widths = [indent_width(line, tabs=True) for line in lines if line.strip() and set(_indentation(line)) == {" "}]
    return min(widths) if widths else 2


def _child_column(lines: list[str], first: int, step: int) -> int | None:
    """Column of the children of the block opened by the last meaningful line above ``first``."""
    for line in reversed(lines[:first]):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _OPENER.match(line)  # its indentation is spaces only
        return None if match is None else match.start("key") + step
    return None


def _parses(text: str, edits: list[tuple[int, int, str]]) -> bool:
    from kubectl_testbench.validate.fix_placement import apply_edits

    try:
        read_with(apply_edits(text, edits), consume_events)
    except yaml.YAMLError:
        return False
    return True
