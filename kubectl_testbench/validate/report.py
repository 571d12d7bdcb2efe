"""Reporters: one small function per output format, from diagnostics to text.

text streams as files finish; json, sarif and junit are whole documents written at the end; github
writes workflow commands GitHub turns into annotations (within GitHub's per-step limits).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import IO

from kubectl_testbench import __version__
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity

FORMATS = ("text", "json", "github", "sarif", "junit")
INFORMATION_URI = "https://github.com/agentic-layer/kubectl-testbench"
GITHUB_MAX_PER_SEVERITY = 10
"""GitHub shows at most 10 error and 10 warning annotations per step; we say how many more there were."""


class Reporter:
    """Collects results file by file and writes the chosen format."""

    def __init__(self, fmt: str, out: IO[str] | None = None, err: IO[str] | None = None, color: bool | None = None):
        self.fmt = fmt
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.diagnostics: list[Diagnostic] = []
        self.checked: list[tuple[str, str, int]] = []
        self.color = _use_color(self.out) if color is None else color

    def add(self, diagnostics: list[Diagnostic], checked: Iterable[tuple[str, int]] = (), file: str = "") -> None:
        if self.fmt == "text":
            for d in diagnostics:
                self.out.write(text_line(d, self.color))
            self.out.flush()
        else:
            self.diagnostics.extend(diagnostics)
        self.checked.extend((file, name, line) for name, line in checked)

    def close(self, counts: Counts) -> None:
        if self.fmt == "text":
            self.out.write(counts.summary() + "\n")
        elif self.fmt == "json":
            self.out.write(json_report(self.diagnostics, counts))
            self.err.write(counts.summary() + "\n")
        elif self.fmt == "github":
            self.out.write(github_report(self.diagnostics))
            self.out.write(counts.summary() + "\n")
        elif self.fmt == "sarif":
            self.out.write(sarif_report(self.diagnostics))
            self.err.write(counts.summary() + "\n")
        elif self.fmt == "junit":
            self.out.write(junit_report(self.diagnostics, self.checked))
            self.err.write(counts.summary() + "\n")
        self.out.flush()


def _use_color(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(os.environ.get("FORCE_COLOR")) or (hasattr(stream, "isatty") and stream.isatty())


_COLORS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}


def text_line(d: Diagnostic, color: bool = False) -> str:
    """``file:line:col: error[rule] field.path: message`` and, indented below, the hint."""
    sev = d.severity.value
    if color:
        sev = f"{_COLORS[d.severity]}{sev}\033[0m"
    where = f"{d.path}: " if d.path else ""
    line = f"{d.location}: {sev}[{d.rule}] {where}{d.message}\n"
    if d.hint:
        line += f"  hint: {d.hint}\n"
    return line


def as_dict(d: Diagnostic) -> dict[str, object]:
    return {"rule": d.rule, "severity": d.severity.value, "message": d.message, "file": d.file, "line": d.line,
            "column": d.col, "path": d.path, "hint": d.hint, "object": d.object}


def json_report(diagnostics: list[Diagnostic], counts: Counts) -> str:
    summary = {"files": counts.files, "experiments": counts.experiments, "valid": counts.valid,
               "invalid": counts.invalid, "errors": counts.errors, "warnings": counts.warnings,
               "skipped": counts.skipped, "unreadable": counts.unreadable}
    return json.dumps({"diagnostics": [as_dict(d) for d in diagnostics], "summary": summary}, indent=2) + "\n"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def github_report(diagnostics: list[Diagnostic]) -> str:
    lines: list[str] = []
    shown = {Severity.ERROR: 0, Severity.WARNING: 0, Severity.INFO: 0}
    hidden = {Severity.ERROR: 0, Severity.WARNING: 0, Severity.INFO: 0}
    command = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    for d in diagnostics:
        if shown[d.severity] >= GITHUB_MAX_PER_SEVERITY:
            hidden[d.severity] += 1
            continue
        shown[d.severity] += 1
        props = [f"file={_gh_prop(_relative(d.file))}"]
        if d.line:
            props += [f"line={d.line}", f"col={d.col}"]
        props.append(f"title={_gh_prop(d.rule)}")
        message = f"{d.path}: {d.message}" if d.path else d.message
        if d.hint:
            message += f"\nhint: {d.hint}"
        lines.append(f"::{command[d.severity]} {','.join(props)}::{_gh_data(message)}")
    for sev, count in hidden.items():
        if count:
            lines.append(f"::notice title=kubectl-testbench::{count} more {sev.value} finding"
                         f"{'s' if count != 1 else ''} not annotated (GitHub shows {GITHUB_MAX_PER_SEVERITY} "
                         "per type); see the log or use -o sarif")
    for d in diagnostics:  # the full list stays readable in the log
        lines.append(text_line(d).rstrip("\n"))
    return "\n".join(lines) + ("\n" if lines else "")


def _relative(path: str) -> str:
    if path == "-":
        return "stdin"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = path
    if rel.startswith(".."):
        rel = path
    return rel.replace(os.sep, "/")


def sarif_report(diagnostics: list[Diagnostic]) -> str:
    from kubectl_testbench.validate.rules import RULES

    rule_ids = sorted(RULES)
    index = {rid: i for i, rid in enumerate(rule_ids)}
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    rules = [{
        "id": rid,
        "name": rid.replace("/", "-"),
        "shortDescription": {"text": RULES[rid].summary},
        "defaultConfiguration": {"level": level[RULES[rid].severity]},
        "helpUri": f"{INFORMATION_URI}/blob/main/docs/rules.md#{rid.replace('/', '')}",
    } for rid in rule_ids]
    results = []
    for d in diagnostics:
        location: dict[str, object] = {"artifactLocation": {"uri": _relative(d.file), "uriBaseId": "%SRCROOT%"}}
        if d.line:
            location["region"] = {"startLine": d.line, "startColumn": max(d.col, 1)}
        result: dict[str, object] = {
            "ruleId": d.rule,
            "level": level[d.severity],
            "message": {"text": (f"{d.path}: " if d.path else "") + d.message
                        + (f" (hint: {d.hint})" if d.hint else "")},
            "locations": [{"physicalLocation": location,
                           **({"logicalLocations": [{"fullyQualifiedName": d.path, "kind": "member"}]}
                              if d.path else {})}],
        }
        if d.rule in index:
            result["ruleIndex"] = index[d.rule]
        results.append(result)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kubectl-testbench", "version": __version__,
                                "informationUri": INFORMATION_URI, "rules": rules}},
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2) + "\n"


def junit_report(diagnostics: list[Diagnostic], checked: list[tuple[str, str, int]]) -> str:
    """One test case per Experiment (and per unreadable file), failures carrying every error."""
    from xml.sax.saxutils import escape, quoteattr

    by_object: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        by_object.setdefault((d.file, d.object), []).append(d)
    cases: list[str] = []
    failures = 0
    seen: set[tuple[str, str]] = set()
    entries = [(f, name) for f, name, _ in checked]
    entries += [k for k in by_object if k not in set(entries)]
    for file, name in entries:
        if (file, name) in seen:
            continue
        seen.add((file, name))
        found = [d for d in by_object.get((file, name), []) if d.severity is not Severity.INFO]
        errors = [d for d in found if d.severity is Severity.ERROR]
        body = ""
        if errors:
            failures += 1
            text = "\n".join(text_line(d).rstrip("\n") for d in found)
            body = (f"<failure message={quoteattr(errors[0].message)} type={quoteattr(errors[0].rule)}>"
                    f"{escape(text)}</failure>")
        elif found:
            body = f"<system-out>{escape(chr(10).join(text_line(d).rstrip(chr(10)) for d in found))}</system-out>"
        label = name or _relative(file)
        cases.append(f'    <testcase classname={quoteattr(_relative(file))} name={quoteattr(label)} time="0">'
                     f"{body}</testcase>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="kubectl-testbench" tests="{len(cases)}" failures="{failures}" errors="0">\n'
        f'  <testsuite name="kubectl-testbench validate" tests="{len(cases)}" failures="{failures}" errors="0" '
        'skipped="0" time="0">\n' + "\n".join(cases) + ("\n" if cases else "")
        + "  </testsuite>\n</testsuites>\n"
    )
