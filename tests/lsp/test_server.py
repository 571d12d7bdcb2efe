"""What the server serves and how it agrees with validate: other documents are left alone, every document
of a multi-document file is checked, the defaults file is found as validate finds it, JSON files, UTF-8
positions, clients without code action resolve."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from tests.conftest import EXAMPLES, run_cli
from tests.lsp.client import covered, run, session, text_range

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
NO_GATEWAY = WEATHER.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")


def test_documents_that_hold_no_experiment_get_empty_diagnostics() -> None:
    async def go() -> None:
        async with session() as s:
            config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: [unclosed\n"
            s.open("file:///w/config.yaml", config)
            assert await s.diagnostics("file:///w/config.yaml", version=1) == []
            assert await s.complete("file:///w/config.yaml", 3, 0) == []
            s.open("file:///w/notes.py", WEATHER.replace("concurrencyPolicy", "x"), language="python")
            assert await s.diagnostics("file:///w/notes.py", version=1) == []
            assert await s.hover("file:///w/notes.py", 11, 3) is None
            # a document becomes ours when an Experiment is typed into it
            version = s.change("file:///w/config.yaml", [t.TextEdit(range=text_range(config, 0, len(config)),
                                                                    new_text=NO_GATEWAY)])
            found = await s.diagnostics("file:///w/config.yaml", version=version)
            assert [d.code for d in found] == ["semantic/no-gateway"]

    run(go())


def test_every_document_of_a_multi_document_file_is_checked() -> None:
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\n"
            + WEATHER.replace("agentRef:\n    name: weather-agent", "agentRef:\n    nme: weather-agent")
            + "---\n" + WEATHER.replace("defaultThreshold: 0.9", "defaultThreshold: 9"))

    async def go() -> None:
        async with session() as s:
            s.open("file:///w/multi.yaml", text)
            found = await s.diagnostics("file:///w/multi.yaml", version=1)
            assert [(d.code, covered(text, d.range)) for d in found] == [
                ("schema/required", "agentRef"),
                ("schema/unknown-field", "nme"),
                ("cel/not-evaluated", "apiVersion"),  # the server's one note, at the object's root
                ("schema/maximum", "9"),
            ]
            second = text.index("---\n", 10)
            assert text[:second].count("\n") < found[0].range.start.line < text[:text.rindex("---")].count("\n")
            assert found[3].range.start.line > text[:text.rindex("---")].count("\n")

    run(go())


def test_the_defaults_file_is_discovered_as_validate_discovers_it(tmp_path: Path) -> None:
    """semantic/no-gateway disappears under a testbench-defaults.yaml naming a gateway, up to the workspace
    folder, exactly where validate (given the folder) drops it."""
    workspace = tmp_path / "repo"
    nested = workspace / "team" / "evals"
    nested.mkdir(parents=True)
    shutil.copy(EXAMPLES / "experiments" / "testbench-defaults.yaml", workspace / "testbench-defaults.yaml")
    inside = nested / "exp.yaml"
    inside.write_text(NO_GATEWAY, encoding="utf-8")
    outside = tmp_path / "elsewhere" / "exp.yaml"
    outside.parent.mkdir()
    outside.write_text(NO_GATEWAY, encoding="utf-8")
    assert "semantic/no-gateway" not in run_cli("validate", str(workspace)).output
    assert "semantic/no-gateway" in run_cli("validate", str(outside)).output

    async def go() -> None:
        async with session(root=workspace) as s:
            s.open(inside.as_uri(), NO_GATEWAY)
            assert await s.diagnostics(inside.as_uri(), version=1) == []
            s.open(outside.as_uri(), NO_GATEWAY)
            assert [d.code for d in await s.diagnostics(outside.as_uri(), version=1)] == ["semantic/no-gateway"]
            s.open("untitled:Untitled-1", NO_GATEWAY)
            assert [d.code for d in await s.diagnostics("untitled:Untitled-1", version=1)] == ["semantic/no-gateway"]

    run(go())


def test_json_experiments_end_to_end() -> None:
    import yaml

    doc = yaml.safe_load(WEATHER)
    doc["spec"]["trigger"] = {"enabled": True, "concurrencyPolicy": "forbid"}
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"

    async def go() -> None:
        async with session() as s:
            uri = "file:///w/weather.json"
            s.open(uri, text, language="json")
            [finding] = [d for d in await s.diagnostics(uri, version=1) if d.code == "schema/enum"]
            assert covered(text, finding.range) == '"forbid"'
            [fix] = [a for a in await s.code_actions(uri, finding.range, [finding])
                     if a.kind == t.CodeActionKind.QuickFix]
            assert fix.edit is not None
            version = s.apply(uri, fix.edit)
            assert '"concurrencyPolicy": "Forbid"' in s.texts[uri][1]
            assert [d.code for d in await s.diagnostics(uri, version=version)] == []
            line = s.texts[uri][1].splitlines().index('  "spec": {') + 1
            items = await s.complete(uri, line, 5)  # in "agentRef": the fields not written yet, and itself
            assert sorted(i.label for i in items) == ["agentRef", "schedule"]
            assert all(i.text_edit and covered(s.texts[uri][1], i.text_edit.range) == '"agentRef"' for i in items)
            new_texts = {i.label: i.text_edit.new_text for i in items if i.text_edit}
            assert new_texts["schedule"] == '"schedule"'  # the ": " is there already

    run(go())


def test_utf8_positions_when_the_client_prefers_them() -> None:
    text = WEATHER.replace("New York right now?", "München 😀?").replace("concurrencyPolicy", "concurrencyPolicy")
    text = text.replace("metricName: ToolCallAccuracy", "metricName: toolcallaccuracy")

    async def go() -> None:
        async with session(encodings=["utf-8", "utf-16"]) as s:
            assert s.initialize_result is not None
            assert s.initialize_result.capabilities.position_encoding == t.PositionEncodingKind.Utf8
            uri = "file:///w/utf8.yaml"
            s.open(uri, text.replace("- input: What is the weather", "- input: Wetter 😀 ä, what is the weather"))
            [found] = await s.diagnostics(uri, version=1)
            assert found.code == "semantic/unknown-metric"
            line = s.texts[uri][1].splitlines()[found.range.start.line]
            assert found.range.start.character == len(line[:line.index("toolcallaccuracy")].encode())

    run(go())


def test_log_file_and_verbose_log_every_validation(tmp_path: Path) -> None:
    log = tmp_path / "server.log"

    async def go() -> None:
        async with session("--log-file", str(log), "-v") as s:
            s.open("file:///w/logged.yaml", WEATHER)
            assert await s.diagnostics("file:///w/logged.yaml", version=1) == []

    run(go())
    written = log.read_text(encoding="utf-8")
    assert "language server on stdio" in written
    assert "file:///w/logged.yaml version 1: 0 findings" in written


def test_clients_without_resolve_get_the_fix_all_edit_at_once() -> None:
    text = WEATHER.replace("metricName: ToolCallAccuracy", "metricName: toolcallaccuracy")

    async def go() -> None:
        async with session(resolve=False) as s:
            uri = "file:///w/eager.yaml"
            s.open(uri, text)
            await s.diagnostics(uri, version=1)
            [action] = await s.code_actions(uri, text_range(text, 0, 0), only=["source"])
            assert action.kind == t.CodeActionKind.SourceFixAll and action.edit is not None
            version = s.apply(uri, action.edit)
            assert s.texts[uri][1] == WEATHER
            assert await s.diagnostics(uri, version=version) == []
            assert await s.code_actions(uri, text_range(WEATHER, 0, 0), only=["source"]) == []
            # a quick fix is offered only where the request's range touches the finding
            assert await s.code_actions(uri, text_range(WEATHER, 0, 5)) == []

    run(go())
