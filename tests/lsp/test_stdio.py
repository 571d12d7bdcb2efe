"""The language server end to end over real stdio JSON-RPC, driven by pygls' own client.

One session: initialize, open an Experiment with known errors (emoji and umlauts before the broken nodes,
so UTF-16 columns differ from code points), receive exactly those diagnostics with exact ranges, fix one by
an edit and see it disappear, hover, complete an enum, request and apply a quick fix and the fix-all source
action, shut down (exit code 0).
"""

from __future__ import annotations

import subprocess
import sys

from lsprotocol import types as t

from tests.conftest import ROOT
from tests.lsp.client import covered, position, run, session, text_range

URI = (ROOT / "tests" / "lsp" / "wetter.yaml").as_uri()
DOCS = "https://github.com/agentic-layer/kubectl-testbench/blob/main/docs/rules.md#"
TEXT = """\
apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata:
  name: wetter-bericht
spec:
  agentRef: {name: wetter-agent}
  aiGatewayRef: {name: gateway}
  schedule: {cron: "0 * * *", timezone: Europe/Berlin}
  trigger: {enabled: true, concurrencyPolicy: allow}
  dataset:
    inline:
      scenarios:
      - name: Grüße 😀
        steps:
        - {input: "Maß 😀🌧", reference: {toolCalls: [{name: w, args: {}}]}, metrics: [{metricName: toolcallaccuracy}]}
      llmAsAJudgeModel: gpt-4o-mini
"""


def _at(text: str, needle: str) -> t.Range:
    start = text.index(needle)
    return text_range(text, start, start + len(needle))


def test_diagnostics_edits_hover_completion_and_fixes_over_stdio() -> None:
    run(_session())


async def _session() -> None:
    async with session() as s:
        assert s.initialize_result is not None
        caps = s.initialize_result.capabilities
        assert caps.position_encoding == t.PositionEncodingKind.Utf16
        assert caps.hover_provider and caps.completion_provider and caps.code_action_provider
        assert list(caps.completion_provider.trigger_characters or ()) == [":", '"']  # after "key:", and JSON keys

        s.open(URI, TEXT)
        found = await s.diagnostics(URI, version=1)
        by_rule = {d.code: d for d in found}
        assert sorted(by_rule) == ["cel/not-evaluated", "schema/enum", "schema/pattern", "semantic/unknown-metric"]
        assert len(found) == 4
        # exact ranges, in UTF-16 units: the metric name sits after two emoji (two units each) and an umlaut
        assert by_rule["schema/pattern"].range == _at(TEXT, '"0 * * *"')
        assert by_rule["schema/enum"].range == _at(TEXT, "allow")
        metric = by_rule["semantic/unknown-metric"].range
        assert metric == _at(TEXT, "toolcallaccuracy")
        line = TEXT.splitlines()[14]
        assert metric.start.character == line.index("toolcallaccuracy") + 2  # two astral emoji before it
        assert by_rule["cel/not-evaluated"].range == _at(TEXT, "apiVersion")  # the server's note, at the root
        # same messages, hints, severities and rule links as validate
        enum = by_rule["schema/enum"]
        assert enum.severity == t.DiagnosticSeverity.Error and enum.source == "kubectl-testbench"
        assert enum.message.startswith('spec.trigger.concurrencyPolicy: Unsupported value: "allow"')
        assert '\nhint: did you mean "Allow"?' in enum.message
        assert enum.code_description is not None and enum.code_description.href == DOCS + "schemaenum"
        assert by_rule["cel/not-evaluated"].severity == t.DiagnosticSeverity.Information

        # an edit that fixes one finding: it disappears, the others stay where they are
        version = s.replace(URI, '"0 * * *"', '"0 * * * *"')
        after = await s.diagnostics(URI, version=version)
        assert sorted(d.code for d in after) == ["cel/not-evaluated", "schema/enum", "semantic/unknown-metric"]
        assert {d.code: d.range for d in after}["schema/enum"] == _at(s.texts[URI][1], "allow")

        # hover: explain's field documentation, and on a metricName value the metric's reference data
        text = s.texts[URI][1]
        pos = position(text, text.index("concurrencyPolicy") + 3)
        hover = await s.hover(URI, pos.line, pos.character)
        assert hover is not None and isinstance(hover.contents, t.MarkupContent)
        assert "FIELD: concurrencyPolicy <string>" in hover.contents.value
        assert "ENUM: Allow, Forbid, Replace" in hover.contents.value
        assert hover.range == _at(text, "concurrencyPolicy")

        # completion of an enum value, replacing the value under the cursor
        pos = position(text, text.index("allow") + 2)
        items = await s.complete(URI, pos.line, pos.character)
        assert [i.label for i in items] == ["Allow", "Forbid", "Replace"]
        edit = items[0].text_edit
        assert isinstance(edit, t.TextEdit) and edit.range == _at(text, "allow") and edit.new_text == "Allow"

        # a quick fix: request it for the metric's diagnostic, apply it, the finding is gone
        metric_diag = next(d for d in after if d.code == "semantic/unknown-metric")
        actions = await s.code_actions(URI, metric_diag.range, [metric_diag])
        quick = [a for a in actions if a.kind == t.CodeActionKind.QuickFix]
        assert [a.title for a in quick] == ['write "ToolCallAccuracy" (semantic/unknown-metric)']
        assert list(quick[0].diagnostics or ()) == [metric_diag] and quick[0].is_preferred
        assert quick[0].edit is not None
        version = s.apply(URI, quick[0].edit)
        text = s.texts[URI][1]
        assert '{metricName: ToolCallAccuracy}]}' in text and 'input: "Maß 😀🌧"' in text
        after = await s.diagnostics(URI, version=version)
        assert sorted(d.code for d in after) == ["cel/not-evaluated", "schema/enum"]

        # fix all in file: a source action resolved on demand, the same text `kubectl testbench fix` writes
        fix_all = await s.code_actions(URI, text_range(text, 0, 0), only=[t.CodeActionKind.SourceFixAll])
        assert [(a.kind, a.edit) for a in fix_all] == [(t.CodeActionKind.SourceFixAll, None)]
        resolved = await s.resolve(fix_all[0])
        assert resolved.edit is not None
        expected = subprocess.run([sys.executable, "-m", "kubectl_testbench", "fix", "-"], input=text.encode(),
                                  capture_output=True, cwd=ROOT, check=False).stdout.decode()
        version = s.apply(URI, resolved.edit)
        assert s.texts[URI][1] == expected
        assert "concurrencyPolicy: Allow}" in expected
        assert await s.diagnostics(URI, version=version) == []

        # the text the server holds is the client's: a hover on the fixed value reads it back
        text = s.texts[URI][1]
        pos = position(text, text.index("ToolCallAccuracy") + 1)
        hover = await s.hover(URI, pos.line, pos.character)
        assert hover is not None and isinstance(hover.contents, t.MarkupContent)
        assert covered(text, hover.range) == "ToolCallAccuracy" if hover.range else False
        assert "needs: `reference.toolCalls`" in hover.contents.value
