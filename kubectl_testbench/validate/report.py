"""Reporters: one small function per output format, from diagnostics to text.

text streams as files finish; json, sarif and junit are whole documents written at the end; github
writes workflow commands GitHub turns into annotations (within GitHub's per-step limits) and, given a
stream, a Markdown step summary with every finding.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO
from urllib.parse import quote

from kubectl_testbench import __version__
from kubectl_testbench.safe_text import display_path, escape_controls
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Fix, Severity
from kubectl_testbench.validate.rules import RuleInfo
from kubectl_testbench.words import plural

FORMATS = ("text", "json", "github", "sarif", "junit")
INFORMATION_URI = "https://github.com/agentic-layer/kubectl-testbench"
GITHUB_MAX_PER_SEVERITY = 10
"""GitHub keeps at most 10 error, 10 warning and 10 notice annotations per step (and 50 per job)."""
GITHUB_MAX_PER_JOB = 50
GITHUB_TITLE_MAX = 255
GITHUB_MESSAGE_MAX = 4000
GITHUB_SUMMARY_MAX = 1024 * 1024
"""``$GITHUB_STEP_SUMMARY`` takes at most 1 MiB per step."""
SARIF_FINGERPRINT = "kubectlTestbenchFinding/v1"
SARIF_SRCROOT = "%SRCROOT%"


class Reporter:
    """Collects results file by file and writes the chosen format.

    ``root`` is the directory paths are made relative to in github/sarif/junit output (the repository
    root in CI; default: the working directory); ``summary`` receives github's Markdown step summary;
    ``strict`` makes warnings fail JUnit cases as they fail the run.
    """

    def __init__(self, fmt: str, out: IO[str] | None = None, err: IO[str] | None = None, color: bool | None = None,
                 root: str | None = None, summary: IO[str] | None = None, strict: bool = False):
        self.fmt = fmt
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.diagnostics: list[Diagnostic] = []
        self.checked: list[tuple[str, str, int]] = []
        self.color = _use_color(self.out) if color is None else color
        self.root = root
        self.summary = summary
        self.strict = strict

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
            self.out.write(github_report(self.diagnostics, self.root))
            self.out.write(counts.summary() + "\n")
            if self.summary is not None:
                self.summary.write(step_summary(self.diagnostics, counts, self.root))
        elif self.fmt == "sarif":
            self.out.write(sarif_report(self.diagnostics, self.root))
            self.err.write(counts.summary() + "\n")
        elif self.fmt == "junit":
            self.out.write(junit_report(self.diagnostics, self.checked, self.strict, self.root))
            self.err.write(counts.summary() + "\n")
        self.out.flush()


def _use_color(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(os.environ.get("FORCE_COLOR")) or (hasattr(stream, "isatty") and stream.isatty())


_COLORS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}


def text_line(d: Diagnostic, color: bool = False) -> str:
    """``file:line:col: error[rule] field.path: message`` and, indented below, the hint.

    Every part that can hold user text goes through :func:`escape_controls`, so a finding is always
    exactly these one or two lines, whatever the input contained.
    """
    sev = d.severity.value
    if color:
        sev = f"{_COLORS[d.severity]}{sev}\033[0m"
    where = f"{escape_controls(d.path)}: " if d.path else ""
    location = display_path(d.file) + (f":{d.line}:{d.col}" if d.line else "")
    line = f"{location}: {sev}[{d.rule}] {where}{escape_controls(d.message)}\n"
    if d.hint:
        line += f"  hint: {escape_controls(d.hint)}\n"
    return line


def one_line_message(d: Diagnostic) -> str:
    """``field.path: message (hint: …)`` on one line, user text escaped: for report formats with one text field."""
    text = (f"{d.path}: " if d.path else "") + d.message + (f" (hint: {d.hint})" if d.hint else "")
    return escape_controls(text)


def as_dict(d: Diagnostic) -> dict[str, object]:
    out: dict[str, object] = {"rule": d.rule, "severity": d.severity.value, "message": d.message, "file": d.file,
                              "line": d.line, "column": d.col, "path": d.path, "hint": d.hint, "object": d.object}
    if d.fix is not None and d.fix.edits:
        out["fix"] = fix_dict(d.fix)
    return out


def json_report(diagnostics: list[Diagnostic], counts: Counts) -> str:
    summary = {"files": counts.files, "experiments": counts.experiments, "valid": counts.valid,
               "invalid": counts.invalid, "errors": counts.errors, "warnings": counts.warnings,
               "skipped": counts.skipped, "unreadable": counts.unreadable}
    return json.dumps({"diagnostics": [as_dict(d) for d in diagnostics], "summary": summary}, indent=2) + "\n"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


_GH_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
_GH_NOUN = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def github_annotation(d: Diagnostic, root: str | None = None) -> str:
    """One workflow command; ``file`` is relative to the repository so GitHub can attach it to the diff."""
    props = []
    if d.file and d.file != "-":
        props.append(f"file={_gh_prop(escape_controls(_relative(d.file, root)))}")
        if d.line:
            props += [f"line={d.line}", f"col={max(d.col, 1)}"]
    props.append(f"title={_gh_prop(d.rule[:GITHUB_TITLE_MAX])}")
    message = f"{escape_controls(d.path)}: {escape_controls(d.message)}" if d.path else escape_controls(d.message)
    if d.hint:
        message += f"\nhint: {escape_controls(d.hint)}"  # our own line break, encoded as %0A below
    if len(message) > GITHUB_MESSAGE_MAX:
        message = message[: GITHUB_MESSAGE_MAX - 1] + "…"
    return f"::{_GH_COMMAND[d.severity]} {','.join(props)}::{_gh_data(message)}"


def github_report(diagnostics: list[Diagnostic], root: str | None = None) -> str:
    """Annotations within GitHub's per-step limits, then every finding as a plain log line.

    GitHub keeps at most 10 annotations of each type (error, warning, notice) per step and 50 per
    job. When a type has more, the first nine are annotated and the tenth slot says how many were
    left out, so the count itself is never the annotation GitHub drops. Errors come first.
    """
    lines: list[str] = []
    ordered = sorted(diagnostics, key=lambda d: (_SEVERITY_RANK[d.severity], d.sort_key()))
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        found = [d for d in ordered if d.severity is severity]
        shown = found if len(found) <= GITHUB_MAX_PER_SEVERITY else found[: GITHUB_MAX_PER_SEVERITY - 1]
        lines.extend(github_annotation(d, root) for d in shown)
        rest = len(found) - len(shown)
        if rest:
            # the tenth slot stands for itself and at least one more: always two or more, so "errors"
            lines.append(f"::{_GH_COMMAND[severity]} title=kubectl-testbench::{rest} more {_GH_NOUN[severity]}s "
                         "not annotated "
                         f"(GitHub keeps {GITHUB_MAX_PER_SEVERITY} {_GH_NOUN[severity]} annotations per step); "
                         "all findings are in the log below and in the job summary")
    for d in diagnostics:  # the full list stays readable in the log
        lines.append(text_line(d).rstrip("\n"))
    return "\n".join(lines) + ("\n" if lines else "")


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def _md(text: str) -> str:
    from xml.sax.saxutils import escape

    return str(escape(escape_controls(text))).replace("|", "\\|")


def step_summary(diagnostics: list[Diagnostic], counts: Counts, root: str | None = None) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: the totals and every finding, within GitHub's 1 MiB per step."""
    head = f"### kubectl-testbench validate\n\n{_md(counts.summary())}\n"
    if not diagnostics:
        return head
    out = [head, "\n| severity | rule | location | field | message |\n|---|---|---|---|---|\n"]
    size = sum(len(part.encode()) for part in out)
    for i, d in enumerate(sorted(diagnostics, key=lambda d: (_SEVERITY_RANK[d.severity], d.sort_key()))):
        where = _relative(d.file, root) + (f":{d.line}:{d.col}" if d.line else "") if d.file != "-" else "stdin"
        message = d.message + (f" (hint: {d.hint})" if d.hint else "")
        row = f"| {d.severity.value} | `{d.rule}` | {_md(where)} | {_md(d.path)} | {_md(message)} |\n"
        if size + len(row.encode()) > GITHUB_SUMMARY_MAX - 200:
            out.append(f"\n{plural(len(diagnostics) - i, 'more finding')} left out (a step summary holds 1 MiB); "
                       "see the log.\n")
            break
        out.append(row)
        size += len(row.encode())
    return "".join(out)


def _relative(path: str, root: str | None = None) -> str:
    """``path`` relative to ``root`` (default: the working directory) with ``/``; unchanged when outside it."""
    if path == "-":
        return "stdin"
    try:
        rel = os.path.relpath(path, root) if root else os.path.relpath(path)
    except ValueError:
        rel = path
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):  # outside (``..x.yaml`` is a name inside)
        rel = path
    return rel.replace(os.sep, "/")


def _artifact(path: str, root: str | None) -> dict[str, str]:
    """A SARIF artifactLocation: a percent-encoded URI relative to ``%SRCROOT%`` (absolute when outside it)."""
    rel = _relative(path, root)
    if path == "-" or not os.path.isabs(rel):
        return {"uri": quote(rel, safe="/"), "uriBaseId": SARIF_SRCROOT}
    return {"uri": Path(rel).as_uri()}


def _root_uri(root: str | None) -> str:
    """``%SRCROOT%`` as SARIF wants it in ``originalUriBaseIds``: an absolute ``file:`` URI ending in ``/``."""
    uri = Path(os.path.abspath(root or os.curdir)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _fingerprint(d: Diagnostic, uri: str) -> str:
    """Identity of a finding that survives edits elsewhere in the file: no line or column in it."""
    key = "\0".join((d.rule, uri, d.object, d.path))
    import hashlib  # OpenSSL's loading is a start-up cost; only SARIF needs it

    return hashlib.sha256(key.encode()).hexdigest()[:32]


class _SourceLines:
    """The lines of each reported file, read once, to give regions an end (SARIF ``endColumn``)."""

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {}

    def line(self, path: str, number: int) -> str | None:
        if path not in self._files:
            try:
                with open(path, encoding="utf-8-sig", errors="replace") as handle:
                    self._files[path] = handle.read().splitlines()
            except (OSError, ValueError):
                self._files[path] = None
        lines = self._files[path]
        return lines[number - 1] if lines is not None and 0 < number <= len(lines) else None


def _region(d: Diagnostic, lines: _SourceLines) -> dict[str, int]:
    """Where on the line the finding is: from its column to the end of the line's content.

    Findings without a position (a whole file, or a file that is missing) get line 1, as GitHub's own
    upload action assumes for them, so that every result can be placed and fingerprinted.
    """
    start_line, start_col = max(d.line, 1), max(d.col, 1)
    text = lines.line(d.file, start_line) if d.file != "-" else None
    end_col = start_col if text is None else max(len(text.rstrip()) + 1, start_col)
    return {"startLine": start_line, "startColumn": start_col, "endLine": start_line, "endColumn": end_col}


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_result(d: Diagnostic, root: str | None, lines: _SourceLines, fingerprint: str,
                 rule_index: int | None) -> dict[str, object]:
    """One SARIF ``result``: the place to add more per-finding data (fixes, related locations)."""
    artifact = _artifact(d.file, root)
    location: dict[str, object] = {"physicalLocation": {"artifactLocation": artifact, "region": _region(d, lines)}}
    if d.path:
        location["logicalLocations"] = [{"fullyQualifiedName": escape_controls(d.path), "kind": "member"}]
    result: dict[str, object] = {
        "ruleId": d.rule,
        "level": _SARIF_LEVEL[d.severity],
        "message": {"text": one_line_message(d)},
        "locations": [location],
        "partialFingerprints": {SARIF_FINGERPRINT: fingerprint},
    }
    if rule_index is not None:
        result["ruleIndex"] = rule_index
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [sarif_fix(d.fix, artifact)]
    return result


def sarif_report(diagnostics: list[Diagnostic], root: str | None = None) -> str:
    """SARIF 2.1.0 as GitHub code scanning takes it: stable rule ids, relative URIs with their base, regions.

    GitHub keys alerts on ``partialFingerprints.primaryLocationLineHash``, which its upload action computes
    from the source line at ``region.startLine`` when absent (so every result has a region). Our own
    ``kubectlTestbenchFinding/v1`` key (rule, file, object, field path; no line) is for other SARIF
    consumers (baselines, SARIF Multitool) and is not what GitHub matches on.
    """
    from kubectl_testbench.validate.rules import RULES

    rule_ids = sorted(RULES)
    index = {rid: i for i, rid in enumerate(rule_ids)}
    rules = [_sarif_rule(RULES[rid], _SARIF_LEVEL[RULES[rid].severity]) for rid in rule_ids]
    lines = _SourceLines()
    results = []
    seen: dict[str, int] = {}
    for d in diagnostics:
        fingerprint = _fingerprint(d, _artifact(d.file, root)["uri"])
        seen[fingerprint] = seen.get(fingerprint, 0) + 1
        if seen[fingerprint] > 1:
            fingerprint += f":{seen[fingerprint]}"
        results.append(sarif_result(d, root, lines, fingerprint, index.get(d.rule)))
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kubectl-testbench", "version": __version__,
                                "semanticVersion": __version__, "informationUri": INFORMATION_URI, "rules": rules}},
            "originalUriBaseIds": {SARIF_SRCROOT: {"uri": _root_uri(root),
                                                   "description": {"text": "The repository root (GITHUB_WORKSPACE "
                                                                           "or the working directory)."}}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _sarif_rule(rule: RuleInfo, level: str) -> dict[str, object]:
    category = rule.id.split("/", 1)[0]
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in re.split(r"[/-]", rule.id)),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": f"{rule.summary} List every rule with: kubectl testbench validate --list-rules",
                 "markdown": f"**{rule.id}** ({rule.severity.value}): {rule.summary}\n\n"
                             "List every rule with `kubectl testbench validate --list-rules`."},
        "helpUri": f"{INFORMATION_URI}/blob/main/docs/rules.md#{rule.id.replace('/', '')}",
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["kubernetes", "testbench", category]},
    }


def junit_report(diagnostics: list[Diagnostic], checked: list[tuple[str, str, int]], strict: bool = False,
                 root: str | None = None) -> str:
    """One test suite per file and one test case per Experiment, as GitLab, Jenkins and GitHub reporters read it.

    A case fails on errors (and on warnings with ``strict``); an unreadable file is an ``<error>``, not
    a failure, since it was never checked. Warnings that do not fail go to ``<system-out>``. Each case
    carries ``file`` and ``line`` attributes for viewers that link findings to source.
    """
    from xml.sax.saxutils import escape, quoteattr

    from kubectl_testbench.validate.engine import FATAL_RULES

    by_object: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        by_object.setdefault((d.file, d.object), []).append(d)
    lines_of = {(f, name): line for f, name, line in checked}
    entries: list[tuple[str, str]] = []
    for key in [(f, name) for f, name, _ in checked] + list(by_object):
        if key not in entries:
            entries.append(key)
    files: dict[str, list[str]] = {}
    totals: dict[str, list[int]] = {}
    for file, name in entries:
        rel = escape_controls(_relative(file, root))
        found = [d for d in by_object.get((file, name), []) if d.severity is not Severity.INFO]
        failing = [d for d in found if d.severity is Severity.ERROR or strict]
        fatal = [d for d in failing if d.rule in FATAL_RULES]
        log = escape("\n".join(text_line(d).rstrip("\n") for d in found))
        if fatal:
            body = (f"<error message={quoteattr(escape_controls(fatal[0].message))} type={quoteattr(fatal[0].rule)}>"
                    f"{log}</error>")
        elif failing:
            body = (f"<failure message={quoteattr(escape_controls(failing[0].message))} "
                    f"type={quoteattr(failing[0].rule)}>"
                    f"{log}</failure>")
        elif found:
            body = f"<system-out>{log}</system-out>"
        else:
            body = ""
        line = lines_of.get((file, name)) or next((d.line for d in found if d.line), 0)
        attrs = (f"classname={quoteattr(rel)} name={quoteattr(escape_controls(name) or rel)} file={quoteattr(rel)}"
                 + (f' line="{line}"' if line else "") + ' time="0"')
        files.setdefault(rel, []).append(f"    <testcase {attrs}>{body}</testcase>" if body
                                         else f"    <testcase {attrs}/>")
        tally = totals.setdefault(rel, [0, 0, 0])
        tally[0] += 1
        tally[1] += bool(failing and not fatal)
        tally[2] += bool(fatal)
    suites = []
    for rel, cases in files.items():
        tests, failures, errors = totals[rel]
        suites.append(f"  <testsuite name={quoteattr(rel)} tests=\"{tests}\" failures=\"{failures}\" "
                      f"errors=\"{errors}\" skipped=\"0\" time=\"0\" file={quoteattr(rel)}>\n"
                      + "\n".join(cases) + "\n  </testsuite>\n")
    tests = sum(t[0] for t in totals.values())
    failures = sum(t[1] for t in totals.values())
    errors = sum(t[2] for t in totals.values())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<testsuites name="kubectl-testbench validate" tests="{tests}" failures="{failures}" '
            f'errors="{errors}" skipped="0" time="0">\n' + "".join(suites) + "</testsuites>\n")


# --- fixes -------------------------------------------------------------------------------------------------


def fix_dict(fix: Fix) -> dict[str, object]:
    """A fix in ``-o json``: what it does, and its replacements by character and byte offset and by line."""
    from kubectl_testbench.load.positions import field_path

    edits = [{"start": e.start, "end": e.end, "byteOffset": e.byte_start, "byteLength": e.byte_end - e.byte_start,
              "startLine": e.start_line, "startColumn": e.start_col, "endLine": e.end_line, "endColumn": e.end_col,
              "text": e.text} for e in fix.edits]
    return {"kind": fix.kind.value, "path": field_path(fix.path), "value": fix.value, "title": fix.title,
            "edits": edits}


def sarif_fix(fix: Fix, artifact: dict[str, str]) -> dict[str, object]:
    """A SARIF ``fix``: one artifactChange whose replacements carry the deleted region by line/column and, when
    the bytes are known, by byte offset (both describe the same range, as SARIF 3.30 allows)."""
    replacements = []
    for e in fix.edits:
        region: dict[str, int] = {"startLine": e.start_line, "startColumn": e.start_col, "endLine": e.end_line,
                                  "endColumn": e.end_col}
        if e.byte_start >= 0:
            region.update(byteOffset=e.byte_start, byteLength=e.byte_end - e.byte_start)
        replacements.append({"deletedRegion": region, "insertedContent": {"text": e.text}})
    return {"description": {"text": escape_controls(fix.title or fix.kind.value)},
            "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}]}
