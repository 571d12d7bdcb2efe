"""What ``kubectl testbench fix`` tells the user on stderr: what changed, per rule, and what is left and why."""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from collections.abc import Iterable

from kubectl_testbench.fix.apply import FileFix
from kubectl_testbench.rules import RULES
from kubectl_testbench.rules.selection import Selection
from kubectl_testbench.safe_text import display_path, escape_controls, safe_log_line
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity
from kubectl_testbench.validate.report import text_line
from kubectl_testbench.words import plural


def changed_line(outcome: FileFix, applied: bool) -> str:
    """``fixed a.yaml: 3 fixes (schema/enum, schema/type ×2)``, or ``would fix`` when nothing is written."""
    rules = Counter(d.rule for d in outcome.applied)
    listed = ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in sorted(rules.items()))
    parts = []
    if outcome.applied:
        parts.append(f"{plural(len(outcome.applied), 'fix', 'fixes')} ({listed})")
    if outcome.migrated:
        parts.append(f"{plural(outcome.migrated, 'field')} migrated")
    name = "stdin" if outcome.path == "-" else display_path(outcome.path)
    return f"{'fixed' if applied else 'would fix'} {name}: {', '.join(parts) or 'rewritten'}"


def totals(outcomes: Iterable[FileFix], applied: bool) -> str:
    """One line: how many fixes in how many files, per rule, and how many fields were migrated."""
    changed = [o for o in outcomes if o.changed]
    if not changed:
        return "nothing to fix"
    rules: Counter[str] = Counter(d.rule for o in changed for d in o.applied)
    count = sum(rules.values())
    migrated = sum(o.migrated for o in changed)
    files = plural(len(changed), "file")
    parts = []
    if count:
        parts.append(f"{plural(count, 'fix', 'fixes')} {'applied' if applied else 'available'}: "
                     + ", ".join(f"{rule} {n}" for rule, n in sorted(rules.items())))
    if migrated:
        parts.append(f"{plural(migrated, 'field')} {'migrated' if applied else 'to migrate'}")
    return f"{files} {'changed' if applied else 'to change'}: " + "; ".join(parts)


def why_left(d: Diagnostic, selection: Selection) -> str:
    """Why a finding that is still there was not fixed."""
    if d.fix is not None and d.fix.edits:
        if not selection(d.rule):
            return "its fix is not selected (--select/--ignore)"
        return "its fix was not applied (see the message above)"
    if d.fix is not None and d.fix.blocked:
        return f"no safe fix here: {escape_controls(d.fix.blocked)}"
    rule = RULES.get(d.rule)
    if rule is not None and rule.fix:
        return f"no safe fix in this case ({d.rule} fixes: {rule.fix[0].lower()}{rule.fix[1:]})"
    if d.severity is Severity.INFO:
        return "information only"
    return "no safe fix for this rule: it needs a decision only you can make"


def remaining(outcome: FileFix, selection: Selection) -> str:
    """Every finding left in the file, as validate prints it, each with why it was not fixed."""
    return "".join(text_line(d) + f"  not fixed: {why_left(d, selection)}\n" for d in outcome.result.diagnostics)


_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
"""Lines as the file has them (str.splitlines would also split at form feeds, NEL and U+2028)."""


def unified_diff(outcome: FileFix) -> str:
    """``git diff``-style headers and hunks (a/ and b/ prefixes), a marker for a missing final newline.

    Every line goes through :func:`safe_log_line`, as ``render --check`` diffs do: a diff is read in CI logs,
    where a file line holding ``::error::`` or a control character must not become a command. Ordinary
    lines are unchanged, so the diff applies with ``git apply``."""
    name = "stdin" if outcome.path == "-" else os.path.normpath(outcome.path).lstrip("/")
    before = _LINES.findall(outcome.before or "")
    after = _LINES.findall(outcome.after or "")
    out = []
    for line in difflib.unified_diff(before, after, f"a/{name}", f"b/{name}"):
        content = line.rstrip("\r\n")
        ending = line[len(content):]
        out.append(safe_log_line(content) + ending if ending else
                   safe_log_line(content) + "\n\\ No newline at end of file\n")
    return "".join(out)
