"""Each engine finding as the LSP diagnostic an editor lists: severity per level, message with and without
its field path and hint, the rule link, and the range on the finding's line and column."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from kubectl_testbench.lsp.publish import place
from kubectl_testbench.lsp.text import TextIndex
from kubectl_testbench.rules.rule import doc_url as rule_url
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity
from tests.lsp.client import covered

TEXT = "kind: Experiment\nspec:\n  name: value\n"


@pytest.mark.parametrize(("severity", "lsp"), [
    (Severity.ERROR, t.DiagnosticSeverity.Error),
    (Severity.WARNING, t.DiagnosticSeverity.Warning),
    (Severity.INFO, t.DiagnosticSeverity.Information),
])
def test_each_severity_and_the_fields_of_a_diagnostic(severity: Severity, lsp: t.DiagnosticSeverity) -> None:
    [placed] = place([Diagnostic("schema/type", severity, "bad value", "f.yaml", 3, 9, "spec.name", "write x")],
                     TextIndex(TEXT))
    diag = placed.diagnostic
    assert diag == t.Diagnostic(range=t.Range(t.Position(2, 8), t.Position(2, 13)), message="spec.name: bad value\n"
                                "hint: write x", severity=lsp, code="schema/type",
                                code_description=t.CodeDescription(href=rule_url("schema/type")),
                                source="kubectl-testbench")
    assert (placed.start, placed.end) == (TEXT.index("value"), TEXT.index("value") + 5)


def test_a_finding_without_path_or_hint_is_its_message_alone() -> None:
    [placed] = place([Diagnostic("kind/missing", Severity.ERROR, "no kind", "f.yaml", 2, 1)], TextIndex(TEXT))
    assert placed.diagnostic.message == "no kind"
    assert covered(TEXT, placed.diagnostic.range) == "spec"


def test_a_line_without_a_column_underlines_that_lines_content() -> None:
    [placed] = place([Diagnostic("kind/missing", Severity.ERROR, "m", "f.yaml", 3, 0)], TextIndex(TEXT))
    assert covered(TEXT, placed.diagnostic.range) == "name: value"


def test_rule_links_drop_the_slash_for_githubs_heading_anchor() -> None:
    assert rule_url("schema/type").endswith("/blob/main/docs/rules.md#schematype")
