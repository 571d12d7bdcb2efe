"""Next to yaml-language-server (npm), the real one, on the same buffer: what docs/editors.md says about running
both. With our JSON Schema associated it repeats our schema findings and nothing else; without it, it has no
findings for an Experiment while ours reports all of them."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

from tests.conftest import EXAMPLES, ROOT
from tests.lsp.client import capabilities, run, session
from tests.npm_tools import npm_prefix

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
BROKEN = (WEATHER.replace("defaultThreshold: 0.9", "defaultThreshold: 9")
          .replace("    name: weather-agent\n", "    nme: weather-agent\n"))
URI = (EXAMPLES / "experiments" / "unsaved-broken.yaml").as_uri()  # the modeline's relative schema path resolves


def _yaml_language_server() -> list[str]:
    package = npm_prefix("yaml-language-server") / "node_modules" / "yaml-language-server"
    script = package / "bin" / "yaml-language-server"
    return ["node", str(script), "--stdio"]


async def _theirs(command: list[str], text: str) -> list[t.Diagnostic]:
    client = LanguageClient("kubectl-testbench-tests", "1")
    published: list[t.PublishDiagnosticsParams] = []

    @client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: t.PublishDiagnosticsParams) -> None:
        published.append(params)

    @client.feature(t.WORKSPACE_CONFIGURATION)
    def on_configuration(params: t.ConfigurationParams) -> list[object]:
        return [None for _ in params.items]

    await client.start_io(*command)
    try:
        await asyncio.wait_for(client.initialize_async(t.InitializeParams(
            capabilities=capabilities(), root_uri=ROOT.as_uri())), 60)
        client.initialized(t.InitializedParams())
        client.workspace_did_change_configuration(t.DidChangeConfigurationParams(
            settings={"yaml": {"validate": True, "schemaStore": {"enable": False}}}))
        client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(URI, "yaml", 1, text)))
        for _ in range(600):
            if any(p.uri == URI for p in published):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # it may publish twice (syntax, then schema)
        await asyncio.wait_for(client.shutdown_async(None), 60)
        client.exit(None)
        await asyncio.wait_for(client.stop(), 60)
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
    return list([p for p in published if p.uri == URI][-1].diagnostics)


async def _ours(text: str) -> list[t.Diagnostic]:
    async with session() as s:
        s.open(URI, text)
        return await s.diagnostics(URI, version=1)


def test_with_our_schema_associated_it_repeats_the_schema_findings_only() -> None:
    command = _yaml_language_server()
    assert BROKEN.startswith("# yaml-language-server: $schema=../../schemas/experiment.schema.json\n")
    theirs = run(_theirs(command, BROKEN))
    ours = run(_ours(BROKEN))
    assert [(d.code, d.range.start.line) for d in ours] == [("schema/required", 11), ("schema/unknown-field", 12),
                                                           ("schema/maximum", 23), ("cel/not-evaluated", 3)]
    assert sorted(d.range.start.line for d in theirs) == [11, 12, 23]  # the same schema findings, again
    assert all(str(d.source).startswith("yaml-schema") for d in theirs)
    assert {d.source for d in ours} == {"kubectl-testbench"}


def test_without_the_association_only_ours_reports_on_an_experiment() -> None:
    command = _yaml_language_server()
    text = BROKEN.split("\n", 1)[1].replace("metricName: ToolCallAccuracy", "metricName: toolcallaccuracy")
    assert run(_theirs(command, text)) == []
    fixed = text.replace("defaultThreshold: 9", "defaultThreshold: 0.9").replace("nme:", "name:")
    # what no JSON Schema can say comes in the same pass as the schema's findings (issue 33)
    assert [d.code for d in run(_ours(text))] == ["schema/required", "schema/unknown-field", "schema/maximum",
                                                  "semantic/unknown-metric", "cel/not-evaluated"]
    assert run(_theirs(command, fixed)) == []
    assert [d.code for d in run(_ours(fixed))] == ["semantic/unknown-metric"]
