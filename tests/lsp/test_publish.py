"""Findings become LSP diagnostics with validate's rule ids, messages and severities, on the token the
engine's position names, whatever the reader counted as a line."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from kubectl_testbench.lsp.check import check
from kubectl_testbench.lsp.publish import place
from kubectl_testbench.lsp.text import UTF8, UTF16, TextIndex
from kubectl_testbench.rules import RULES
from kubectl_testbench.rules.rule import doc_url as rule_url
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity
from kubectl_testbench.validate.engine import validate_text
from kubectl_testbench.validate.report import sarif_report
from tests.conftest import ROOT
from tests.lsp.client import covered

HEAD = "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\nmetadata:\n  name: demo\n"


def _placed(text: str, encoding: str = UTF16) -> dict[str, t.Diagnostic]:
    return {p.finding.rule: p.diagnostic for p in place(check(text, "/nowhere/demo.yaml", None),
                                                         TextIndex(text, encoding))}


def test_a_finding_after_a_u2028_lands_on_the_line_the_editor_shows() -> None:
    """libyaml counts U+2028 as a line break (the engine says line 8), the editor does not (line 7)."""
    text = (HEAD + '  annotations: {note: "x\u2028y"}\nspec:\n  trigger: {enabled: true, concurrencyPolicy: allow}\n'
            "  agentRef: {name: a}\n  aiGatewayRef: {name: g}\n  dataset: {url: 'https://h/d.json'}\n")
    engine = {d.rule: d for d in validate_text(text, "demo.yaml").diagnostics}
    assert engine["schema/enum"].line == 8
    enum = _placed(text)["schema/enum"]
    assert enum.range.start.line == 6 and covered(text, enum.range) == "allow"


def test_ranges_in_json_cover_the_quoted_value_and_keys() -> None:
    doc = {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
           "metadata": {"name": "demo", "annotations": {"n": "ä\u2028😀"}},
           "spec": {"agentRef": {"name": "a"}, "aiGatewayRef": {"name": "g"}, "dataset": {"url": "https://h/d.json"},
                    "trigger": {"concurrencyPolicy": "allow"}, "schedul": {}}}
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    placed = _placed(text)
    assert covered(text, placed["schema/enum"].range) == '"allow"'
    assert covered(text, placed["schema/unknown-field"].range) == '"schedul"'


def test_utf8_positions_when_the_client_chose_utf8() -> None:
    text = HEAD + 'spec:\n  agentRef: {name: "😀x"}\n'
    diag = _placed(text, UTF8)["semantic/dns-label"]
    line = text.splitlines()[5]
    assert diag.range.start.character == len(line[:line.index('"😀x"')].encode())
    assert diag.range.end.character == len(line.encode()) - 1


def test_message_hint_severity_and_code_are_validates() -> None:
    text = HEAD + "spec:\n  agentRef: {name: a}\n  dataset: {url: 'https://h/d.json'}\n"
    [finding] = validate_text(text, "demo.yaml").diagnostics
    diag = _placed(text)[finding.rule]
    assert (diag.code, diag.severity, diag.source) == ("semantic/no-gateway", t.DiagnosticSeverity.Warning,
                                                       "kubectl-testbench")
    assert diag.message == f"{finding.path}: {finding.message}\nhint: {finding.hint}"
    assert covered(text, diag.range) == "spec"  # the key of the mapping it is about (line 5, column 1)


def test_findings_without_a_column_or_line_underline_the_line_or_the_file_start() -> None:
    text = "  # head\n---\nkind: Experiment\n"
    index = TextIndex(text)
    findings = [Diagnostic("kind/missing", Severity.ERROR, "m", "f", 1, 0),
                Diagnostic("input/empty", Severity.ERROR, "m", "f")]
    first, second = place(findings, index)
    assert covered(text, first.diagnostic.range) == "# head"
    assert covered(text, second.diagnostic.range) == "# head"


def test_control_characters_in_messages_are_escaped() -> None:
    """A field name with an ESC and a U+2028 stays one line of visible text in the editor's problem list."""
    text = HEAD + 'spec:\n  "x\\u2028\\x1by": 1\n'
    [unknown] = [p.diagnostic for p in place(check(text, "demo.yaml", None), TextIndex(text))
                 if p.finding.rule == "schema/unknown-field"]
    assert unknown.message.split("\n")[0] == 'spec[x\\u2028\\x1by]: unknown field "spec[x\\u2028\\x1by]"'
    assert unknown.message.count("\n") == 1  # the hint's line


def _github_anchor(heading: str) -> str:
    """GitHub's heading slug: lower-cased, punctuation other than '-' and '_' dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_rule_links_are_the_sarif_help_uris_and_point_at_the_rules_doc_headings() -> None:
    sarif = json.loads(sarif_report([]))
    help_uris = {r["id"]: r["helpUri"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    headings = re.findall(r"^### (.+)$", (ROOT / "docs" / "rules.md").read_text(encoding="utf-8"), re.MULTILINE)
    anchors = {_github_anchor(h) for h in headings}
    for rule_id in RULES:
        assert rule_url(rule_id) == help_uris[rule_id]
        assert rule_url(rule_id).rsplit("#", 1)[1] in anchors, rule_id


@pytest.mark.parametrize(("line", "at", "token"), [
    ('  name: "a \\" b" # c', '"a', '"a \\" b"'),
    ("  name: 'it''s' # c", "'it", "'it''s'"),
    ("  agentRef: {name: a, namespace: {x: [1, 2]}} # c", "{name", "{name: a, namespace: {x: [1, 2]}}"),
    ("  trigger: {enabled: true, concurrencyPolicy: allow}", "allow", "allow"),
    ("  cron: 0 * * * # nightly", "0 *", "0 * * *"),
    ("  url: https://h/x.json", "https", "https://h/x.json"),
    ("  key: value", "key", "key"),
    ("  broken: {name: a", "{name", "{name: a"),
])
def test_the_underlined_token(line: str, at: str, token: str) -> None:
    from kubectl_testbench.load.lines import LineIndex
    from kubectl_testbench.lsp.ranges import token_span

    text = f"a: 1\n{line}\nb: 2\n"
    start, end = token_span(text, LineIndex(text), text.index(at))
    assert text[start:end] == token
