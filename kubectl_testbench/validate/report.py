"""Reporters: one small function per output format, from diagnostics to text.

text and json stream as files finish; sarif encodes each result as it arrives and writes the document at
the end, keeping at most the results GitHub code scanning accepts (errors first); junit is a whole document
written at the end; github writes workflow commands GitHub turns into annotations (within GitHub's per-step
limits) and, given a stream, a Markdown step summary with every finding. Every format may end up in a CI
log: user text never forms a workflow command there (``kubectl_testbench/safe_text.py``).
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
from kubectl_testbench.rules.rule import Rule
from kubectl_testbench.safe_text import (
    display_path,
    escape_controls,
    escape_unprintable,
    json_log_safe,
    markdown_text,
)
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Fix, Severity
from kubectl_testbench.words import plural

FORMATS = ("text", "json", "github", "sarif", "junit")
INFORMATION_URI = "https://github.com/agentic-layer/kubectl-testbench"
GITHUB_MAX_PER_SEVERITY = 10
"""GitHub keeps at most 10 error, 10 warning and 10 notice annotations per step (and 50 per job)."""
GITHUB_TITLE_MAX = 255
GITHUB_MESSAGE_MAX = 4000
GITHUB_SUMMARY_MAX = 1024 * 1024
"""``$GITHUB_STEP_SUMMARY`` takes at most 1 MiB per step."""
SARIF_FINGERPRINT = "kubectlTestbenchFinding/v1"
SARIF_SRCROOT = "%SRCROOT%"
SARIF_MAX_RESULTS = 25_000
"""GitHub code scanning rejects a SARIF run with more results than this (and shows the 5,000 most severe)."""


class Reporter:
    """Collects results file by file and writes the chosen format.

    ``root`` is the directory paths are made relative to in github/sarif/junit output (the repository
    root in CI; default: the working directory); ``summary`` receives github's Markdown step summary;
    ``strict`` makes warnings fail JUnit cases as they fail the run.
    """

    def __init__(self, fmt: str, out: IO[str] | None = None, err: IO[str] | None = None, color: bool | None = None,
                 root: str | None = None, summary: IO[str] | None = None, strict: bool = False, quiet: bool = False):
        self.fmt = fmt
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.diagnostics: list[Diagnostic] = []
        self.checked: list[tuple[str, str, int]] = []
        self.color = _use_color(self.out) if color is None else color
        self.root = root
        self.summary = summary
        self.strict = strict
        self.quiet = quiet
        """No summary line (``validate -q``): the findings only."""
        self._json = JsonStream(self.out) if fmt == "json" else None
        self._sarif = SarifResults(root) if fmt == "sarif" else None

    def add(self, diagnostics: list[Diagnostic], checked: Iterable[tuple[str, int]] = (), file: str = "") -> None:
        if self.fmt == "text":
            for d in diagnostics:
                self.out.write(text_line(d, self.color))
            self.out.flush()
        elif self._json is not None:
            self._json.add(diagnostics)
        elif self._sarif is not None:
            for d in diagnostics:
                self._sarif.add(d)
        else:
            self.diagnostics.extend(diagnostics)
        self.checked.extend((file, name, line) for name, line in checked)

    def close(self, counts: Counts) -> None:
        line = "" if self.quiet else counts.summary() + "\n"
        if self.fmt == "text":
            self.out.write(line)
        elif self._json is not None:
            self._json.close(counts)
            self.err.write(line)
        elif self.fmt == "github":
            self.out.write(github_report(self.diagnostics, self.root))
            self.out.write(line)
            if self.summary is not None:
                self.summary.write(step_summary(self.diagnostics, counts, self.root))
        elif self._sarif is not None:
            self._sarif.write(self.out)
            self.err.write(line)
            if self._sarif.left_out:
                self.err.write(f"warning: {self._sarif.left_out_message()}\n")
        elif self.fmt == "junit":
            self.out.write(junit_report(self.diagnostics, self.checked, self.strict, self.root))
            self.err.write(line)
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


def _joined(d: Diagnostic) -> str:
    return (f"{d.path}: " if d.path else "") + d.message + (f" (hint: {d.hint})" if d.hint else "")


def one_line_message(d: Diagnostic) -> str:
    """``field.path: message (hint: …)`` on one line, user text escaped: for report formats with one text field."""
    return escape_controls(_joined(d))


def as_dict(d: Diagnostic) -> dict[str, object]:
    out: dict[str, object] = {"rule": d.rule, "severity": d.severity.value, "message": d.message, "file": d.file,
                              "line": d.line, "column": d.col, "path": d.path, "hint": d.hint, "object": d.object}
    if d.fix is not None and d.fix.edits:
        out["fix"] = fix_dict(d.fix)
    return out


class JsonStream:
    """``-o json`` written as findings arrive: the bytes ``json.dumps(report, indent=2)`` gives, in constant memory.

    Each diagnostic is encoded on its own and indented into place (JSON strings hold no raw newline, so
    indenting every line is exact); ``##[`` in a value is written ``##\\u005b`` (:func:`json_log_safe`).
    """

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.count = 0

    def add(self, diagnostics: Iterable[Diagnostic]) -> None:
        for d in diagnostics:
            text = json.dumps(as_dict(d), indent=2).replace("\n", "\n    ")
            self.out.write(("{\n  \"diagnostics\": [\n    " if not self.count else ",\n    ") + json_log_safe(text))
            self.count += 1

    def close(self, counts: Counts) -> None:
        summary = {"files": counts.files, "experiments": counts.experiments, "valid": counts.valid,
                   "invalid": counts.invalid, "errors": counts.errors, "warnings": counts.warnings,
                   "skipped": counts.skipped, "unreadable": counts.unreadable, "malformed": counts.malformed}
        self.out.write("\n  ],\n" if self.count else "{\n  \"diagnostics\": [],\n")
        self.out.write('  "summary": ' + json.dumps(summary, indent=2).replace("\n", "\n  ") + "\n}\n")


def json_report(diagnostics: list[Diagnostic], counts: Counts) -> str:
    """The whole ``-o json`` document as one string (what :class:`JsonStream` writes)."""
    import io

    out = io.StringIO()
    stream = JsonStream(out)
    stream.add(diagnostics)
    stream.close(counts)
    return out.getvalue()


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


def step_summary(diagnostics: list[Diagnostic], counts: Counts, root: str | None = None) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: the totals and every finding, within GitHub's 1 MiB per step."""
    head = f"### kubectl-testbench validate\n\n{markdown_text(counts.summary())}\n"
    if not diagnostics:
        return head
    out = [head, "\n| severity | rule | location | field | message |\n|---|---|---|---|---|\n"]
    size = sum(len(part.encode()) for part in out)
    for i, d in enumerate(sorted(diagnostics, key=lambda d: (_SEVERITY_RANK[d.severity], d.sort_key()))):
        where = _relative(d.file, root) + (f":{d.line}:{d.col}" if d.line else "") if d.file != "-" else "stdin"
        message = d.message + (f" (hint: {d.hint})" if d.hint else "")
        row = (f"| {d.severity.value} | `{d.rule}` | {markdown_text(where)} | {markdown_text(d.path)} "
               f"| {markdown_text(message)} |\n")
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
    """A SARIF artifactLocation: a percent-encoded URI relative to ``%SRCROOT%`` (absolute when outside it).

    The URI is made of the name's bytes (``os.fsencode``), so a file name that is not UTF-8 (decoded with
    surrogateescape) is its raw bytes percent-encoded, as ``file:`` URIs of such names are.
    """
    rel = _relative(path, root)
    if path == "-" or not os.path.isabs(rel):
        return {"uri": quote(os.fsencode(rel), safe="/"), "uriBaseId": SARIF_SRCROOT}
    return {"uri": Path(rel).as_uri()}


def _root_uri(root: str | None) -> str:
    """``%SRCROOT%`` as SARIF wants it in ``originalUriBaseIds``: an absolute ``file:`` URI ending in ``/``."""
    uri = Path(os.path.abspath(root or os.curdir)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _fingerprint(d: Diagnostic, uri: str) -> str:
    """Identity of a finding that survives edits elsewhere in the file: no line or column in it."""
    key = "\0".join((d.rule, uri, d.object, d.path))
    import hashlib  # OpenSSL's loading is a start-up cost; only SARIF needs it

    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class _SourceLines:
    """The lines of the file being reported, read once, to give regions an end (SARIF ``endColumn``).

    Findings arrive file by file, so only the last few files are kept: memory stays that of one input file
    however many files a run reports on.
    """

    KEEP = 4

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {}

    def line(self, path: str, number: int) -> str | None:
        lines = self._files.pop(path, None) if path in self._files else self._read(path)
        self._files[path] = lines  # most recent last
        if len(self._files) > self.KEEP:
            del self._files[next(iter(self._files))]
        return lines[number - 1] if lines is not None and 0 < number <= len(lines) else None

    @staticmethod
    def _read(path: str) -> list[str] | None:
        try:
            with open(path, encoding="utf-8-sig", errors="replace") as handle:
                return handle.read().splitlines()
        except (OSError, ValueError):
            return None


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


def sarif_result(d: Diagnostic, artifact: dict[str, str], lines: _SourceLines, fingerprint: str,
                 rule_index: int | None) -> dict[str, object]:
    """One SARIF ``result``: the place to add more per-finding data (fixes, related locations).

    Text keeps ``##[`` as data (the document goes through :func:`json_log_safe`); what JSON or a log line
    cannot carry is escaped (:func:`escape_unprintable`).
    """
    location: dict[str, object] = {"physicalLocation": {"artifactLocation": artifact, "region": _region(d, lines)}}
    if d.path:
        location["logicalLocations"] = [{"fullyQualifiedName": escape_unprintable(d.path), "kind": "member"}]
    result: dict[str, object] = {
        "ruleId": d.rule,
        "level": _SARIF_LEVEL[d.severity],
        "message": {"text": escape_unprintable(_joined(d))},
        "locations": [location],
        "partialFingerprints": {SARIF_FINGERPRINT: fingerprint},
    }
    if rule_index is not None:
        result["ruleIndex"] = rule_index
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [sarif_fix(d.fix, artifact)]
    return result


_SURROGATE = re.compile("[\ud800-\udfff]")


def _sarif_json(value: object) -> str:
    """Compact JSON for one part of the SARIF document: non-ASCII text as is, unless it holds a lone surrogate
    (a value from a JSON escape) that UTF-8 cannot carry; then ``\\u`` escapes. ``##[`` never stays raw."""
    text = json.dumps(value, ensure_ascii=False)
    if _SURROGATE.search(text):
        text = json.dumps(value)
    return json_log_safe(text)


class SarifResults:
    """SARIF results encoded as findings arrive, bounded to what GitHub code scanning accepts.

    Each result is encoded once, compactly (one line of the document per result: the rule metadata is in
    ``rules[]`` and results point at it by ``ruleIndex``). At most :data:`SARIF_MAX_RESULTS` are kept per
    severity, so memory is bounded whatever the input; :meth:`write` keeps errors first, then warnings,
    then notes, in the order they were found, and says in a tool notification how many were left out.
    """

    def __init__(self, root: str | None, limit: int | None = None) -> None:
        from kubectl_testbench.rules import RULES

        self.root = root
        self.limit = SARIF_MAX_RESULTS if limit is None else limit
        self._index = {rid: i for i, rid in enumerate(sorted(RULES))}
        self._artifacts: dict[str, dict[str, str]] = {}
        self._lines = _SourceLines()
        self._seen: dict[str, int] = {}
        self._kept: dict[Severity, list[tuple[int, str]]] = {s: [] for s in _SEVERITY_RANK}
        self.total = 0

    def add(self, d: Diagnostic) -> None:
        artifact = self._artifacts.get(d.file)
        if artifact is None:
            artifact = self._artifacts.setdefault(d.file, _artifact(d.file, self.root))
        fingerprint = _fingerprint(d, artifact["uri"])
        repeats = self._seen[fingerprint] = self._seen.get(fingerprint, 0) + 1
        if repeats > 1:
            fingerprint += f":{repeats}"
        self.total += 1
        kept = self._kept[d.severity]
        if len(kept) < self.limit:
            result = sarif_result(d, artifact, self._lines, fingerprint, self._index.get(d.rule))
            kept.append((self.total, _sarif_json(result)))

    def chosen(self) -> list[str]:
        """The encoded results the report holds: the most severe first up to the limit, in the order found."""
        picked: list[tuple[int, str]] = []
        for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
            picked += self._kept[severity][: self.limit - len(picked)]
        return [text for _, text in sorted(picked)]

    @property
    def left_out(self) -> int:
        return max(self.total - self.limit, 0)

    def left_out_message(self) -> str:
        return (f"the SARIF report holds {self.limit} of {self.total} findings, errors first (GitHub code "
                f"scanning rejects a run with more than {SARIF_MAX_RESULTS}); every finding is in -o text or -o json")

    def write(self, out: IO[str]) -> None:
        """The document, indented by two around the results, one result per line."""
        from kubectl_testbench.rules import RULES

        rules = [_sarif_rule(RULES[rid], _SARIF_LEVEL[RULES[rid].severity]) for rid in self._index]
        run: dict[str, object] = {
            "tool": {"driver": {"name": "kubectl-testbench", "version": __version__,
                                "semanticVersion": __version__, "informationUri": INFORMATION_URI, "rules": rules}},
        }
        if self.left_out:
            run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "warning", "message": {"text": self.left_out_message()}}]}]
        run["originalUriBaseIds"] = {SARIF_SRCROOT: {"uri": _root_uri(self.root),
                                                     "description": {"text": "The repository root (GITHUB_WORKSPACE "
                                                                             "or the working directory)."}}}
        run["columnKind"] = "unicodeCodePoints"
        run["results"] = []
        doc = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
        head = json.dumps(doc, indent=2, ensure_ascii=False)
        if _SURROGATE.search(head):  # the root directory's name is not UTF-8
            head = json.dumps(doc, indent=2)
        before, marker, after = json_log_safe(head).rpartition('"results": []')
        results = self.chosen()
        out.write(before + marker[:-1])
        if results:
            out.write("\n        " + ",\n        ".join(results) + "\n      ")
        out.write("]" + after + "\n")


def sarif_report(diagnostics: list[Diagnostic], root: str | None = None) -> str:
    """SARIF 2.1.0 as GitHub code scanning takes it: stable rule ids, relative URIs with their base, regions.

    GitHub keys alerts on ``partialFingerprints.primaryLocationLineHash``, which its upload action computes
    from the source line at ``region.startLine`` when absent (so every result has a region). Our own
    ``kubectlTestbenchFinding/v1`` key (rule, file, object, field path; no line) is for other SARIF
    consumers (baselines, SARIF Multitool) and is not what GitHub matches on.
    """
    import io

    results = SarifResults(root)
    for d in diagnostics:
        results.add(d)
    out = io.StringIO()
    results.write(out)
    return out.getvalue()


def _sarif_rule(rule: Rule, level: str) -> dict[str, object]:
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in re.split(r"[/-]", rule.id)),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": f"{rule.summary} List every rule with: kubectl testbench validate --list-rules",
                 "markdown": f"**{rule.id}** ({rule.severity.value}): {rule.summary}\n\n"
                             "List every rule with `kubectl testbench validate --list-rules`."},
        "helpUri": rule.doc_url,
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["kubernetes", "testbench", rule.group]},
    }


def junit_report(diagnostics: list[Diagnostic], checked: list[tuple[str, str, int]], strict: bool = False,
                 root: str | None = None) -> str:
    """One test suite per file and one test case per Experiment, as GitLab, Jenkins and GitHub reporters read it.

    A case fails on errors (and on warnings with ``strict``); an unreadable file is an ``<error>``, not
    a failure, since it was never checked. Warnings that do not fail go to ``<system-out>``. Each case
    carries ``file`` and ``line`` attributes for viewers that link findings to source: attribute values keep
    ``##[`` as data (written ``##&#91;`` by :func:`xml_log_safe`), element text is the log lines of ``-o text``.
    """
    from kubectl_testbench import junit
    from kubectl_testbench.validate.engine import FATAL_RULES

    by_object: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        by_object.setdefault((d.file, d.object), []).append(d)
    lines_of = {(f, name): line for f, name, line in checked}
    entries = list(dict.fromkeys([(f, name) for f, name, _ in checked] + list(by_object)))
    files: dict[str, list[junit.Case]] = {}
    totals: dict[str, list[int]] = {}
    for file, name in entries:
        rel = _relative(file, root)
        found = [d for d in by_object.get((file, name), []) if d.severity is not Severity.INFO]
        failing = [d for d in found if d.severity is Severity.ERROR or strict]
        fatal = [d for d in failing if d.rule in FATAL_RULES]
        log = "\n".join(text_line(d).rstrip("\n") for d in found)
        outcome = None
        if fatal:
            outcome = junit.Outcome("error", [("message", fatal[0].message), ("type", fatal[0].rule)], log)
        elif failing:
            outcome = junit.Outcome("failure", [("message", failing[0].message), ("type", failing[0].rule)], log)
        elif found:
            outcome = junit.Outcome("system-out", text=log)
        line = lines_of.get((file, name)) or next((d.line for d in found if d.line), 0)
        attributes = [("classname", rel), ("name", name or rel), ("file", rel), *([("line", line)] if line else []),
                      ("time", 0)]
        files.setdefault(rel, []).append(junit.Case(attributes, outcome))
        tally = totals.setdefault(rel, [0, 0, 0])
        tally[0] += 1
        tally[1] += bool(failing and not fatal)
        tally[2] += bool(fatal)
    suites = []
    for rel, cases in files.items():
        tests, failures, errors = totals[rel]
        suites.append(junit.Suite([("name", rel), ("tests", tests), ("failures", failures), ("errors", errors),
                                   ("skipped", 0), ("time", 0), ("file", rel)], cases))
    tests = sum(t[0] for t in totals.values())
    failures = sum(t[1] for t in totals.values())
    errors = sum(t[2] for t in totals.values())
    return junit.document([("name", "kubectl-testbench validate"), ("tests", tests), ("failures", failures),
                           ("errors", errors), ("skipped", 0), ("time", 0)], suites)


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
    return {"description": {"text": escape_unprintable(fix.title or fix.kind.value)},
            "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}]}
