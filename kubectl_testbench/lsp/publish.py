"""Engine findings as LSP diagnostics: the same rule id (``code``), message, hint and severity, placed on the
token the finding's position points at, with a link to the rule in docs/rules.md (the SARIF helpUri)."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types as lsp

from kubectl_testbench.lsp.ranges import token_span
from kubectl_testbench.lsp.text import TextIndex, engine_lines
from kubectl_testbench.rules.rule import doc_url
from kubectl_testbench.safe_text import escape_controls
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity

SOURCE = "kubectl-testbench"
SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning,
            Severity.INFO: lsp.DiagnosticSeverity.Information}


@dataclass(frozen=True, slots=True)
class Placed:
    """A finding with the character offsets it underlines and the LSP diagnostic sent for it."""

    finding: Diagnostic
    start: int
    end: int
    diagnostic: lsp.Diagnostic


def place(findings: list[Diagnostic], index: TextIndex) -> list[Placed]:
    """Every finding of one text, in the client's position units."""
    text = index.text
    counted = engine_lines(text) if any(d.line for d in findings) else None
    out = []
    for d in findings:
        if d.line and counted is not None:
            offset = counted.offset_of(d.line - 1, d.col - 1 if d.col else 0)
            start, end = token_span(text, index.lines, offset, whole_line=not d.col)
        else:
            start, end = token_span(text, index.lines, 0, whole_line=True)
        out.append(Placed(d, start, end, to_lsp(d, index, start, end)))
    return out


def to_lsp(d: Diagnostic, index: TextIndex, start: int, end: int) -> lsp.Diagnostic:
    a, b = index.position(start), index.position(end)
    message = (f"{d.path}: " if d.path else "") + d.message
    text = escape_controls(message) + (f"\nhint: {escape_controls(d.hint)}" if d.hint else "")
    return lsp.Diagnostic(
        range=lsp.Range(lsp.Position(a.line, a.character), lsp.Position(b.line, b.character)),
        message=text,
        severity=SEVERITY[d.severity],
        code=d.rule,
        code_description=lsp.CodeDescription(href=doc_url(d.rule)),
        source=SOURCE,
    )
