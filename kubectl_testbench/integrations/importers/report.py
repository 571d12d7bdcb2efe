"""The fidelity report of an import: one line (or JSON entry) per source case, the one writer of each format.

Every case is ``carried``, ``carried with changes`` (its warnings say what changed) or ``dropped`` (they say
why); warnings about no single case (suite settings, a config file) are listed per file. Text from the input
(case names, messages quoting values) goes through :mod:`kubectl_testbench.safe_text`.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from kubectl_testbench.integrations.importers.common import CARRIED, CHANGED, DROPPED, CaseReport, ImportResult
from kubectl_testbench.safe_text import display_path, escape_controls, json_log_safe
from kubectl_testbench.words import plural

STATUSES = (CARRIED, CHANGED, DROPPED)


def counts(result: ImportResult) -> dict[str, int]:
    """How many cases are carried, carried with changes and dropped (every status present, in this order)."""
    found = Counter(case.status for case in result.cases)
    return {status: found.get(status, 0) for status in STATUSES}


def summary(result: ImportResult) -> str:
    """``3 cases carried, 1 carried with changes, 0 dropped``."""
    numbers = counts(result)
    return (f"{plural(numbers[CARRIED], 'case')} carried, {numbers[CHANGED]} carried with changes, "
            f"{numbers[DROPPED]} dropped")


def _case_line(case: CaseReport) -> str:
    where = f"{display_path(case.file)}:{case.line}" if case.line else display_path(case.file)
    head = f"{where}: {escape_controls(case.name)}: {case.status}"
    if case.status == CARRIED:
        return f"{head} ({plural(case.steps, 'step')})"
    first = escape_controls(case.warnings[0].message)
    more = f" (+{len(case.warnings) - 1} more, above)" if len(case.warnings) > 1 else ""
    steps = f" ({plural(case.steps, 'step')})" if case.steps else ""
    return f"{head}{steps}: {first}{more}"


def text_lines(result: ImportResult) -> list[str]:
    """The report as lines for stderr: one per case, then one per file with warnings about no single case."""
    lines = [_case_line(case) for case in result.cases]
    per_file = Counter(w.file for w in result.general)
    for file, count in per_file.items():
        lines.append(f"{display_path(file)}: {plural(count, 'warning')} about no single case (above): they "
                     "concern every case read with it")
    return lines


def _warning(w: Any) -> dict[str, Any]:
    return {"file": w.file, "line": w.line, "column": w.col, "field": w.field, "message": w.message}


def json_document(result: ImportResult, *, outcome: str, findings: list[str]) -> str:
    """The report as one JSON document (for CI): every case with its status, steps and warnings, the general
    warnings, the validator's findings and the outcome (``written``, ``invalid``, ``strict``)."""
    document = {
        "outcome": outcome,
        "sources": list(result.sources),
        "detected": [{"file": f, "format": fmt, "reason": why} for f, fmt, why in result.detected],
        "counts": counts(result),
        "cases": [{"file": c.file, "line": c.line, "name": c.name, "status": c.status, "steps": c.steps,
                   "warnings": [_warning(w) for w in c.warnings]} for c in result.cases],
        "general": [_warning(w) for w in result.general],
        "findings": findings,
    }
    return json_log_safe(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"
