"""The server's handlers and methods in this process (tests/lsp/inprocess.py): document bookkeeping, when a
validation publishes and when it does not, failures, the negotiated position encoding, workspace folders,
the client's code action capabilities, fix-all, and the process set-up (memory, logging, serving streams)."""

from __future__ import annotations

import asyncio
import codecs
import gc
import io
import json
import logging
import os
import re
import threading
import weakref
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t

from kubectl_testbench import __version__
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.lsp import check
from kubectl_testbench.lsp import server as server_module
from kubectl_testbench.lsp.actions import FIX_ALL, FIX_ALL_TITLE
from kubectl_testbench.lsp.completion import complete
from kubectl_testbench.lsp.hover import hover_at
from kubectl_testbench.lsp.server import DEFAULT_DEBOUNCE, ExperimentLanguageServer, build
from kubectl_testbench.lsp.text import TextIndex
from tests.conftest import EXAMPLES
from tests.lsp.client import apply_edits, capabilities
from tests.lsp.inprocess import Harness

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
NO_GATEWAY = WEATHER.replace("  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n", "")
BROKEN_METRIC = WEATHER.replace("metricName: ToolCallAccuracy", "metricName: toolcallaccuracy")
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: [unclosed\n"
URI = "file:///w/a.yaml"
NO_GATEWAY_MESSAGE = (
    "spec: no AI gateway for the judge: the evaluate phase would call api.openai.com without an API key, skip "
    "every metric and still end green\nhint: set spec.aiGatewayRef {name, namespace}, or name a default gateway "
    "in testbench-defaults.yaml (spec.aiGateway.name) as the operator finds one in namespace ai-gateway")
SPEC = t.Range(t.Position(10, 0), t.Position(10, 4))  # the `spec` key of NO_GATEWAY


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


@pytest.fixture(autouse=True)
def settled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """settle_memory freezes this test process' collector: counted here instead (its own test runs it)."""
    calls: list[int] = []
    monkeypatch.setattr(server_module, "settle_memory", lambda: calls.append(1))
    return calls


def harness(debounce: float = 0.0, settings: check.Settings = check.DEFAULT_SETTINGS) -> Harness:
    return Harness(build(settings, debounce))


def utf8_client() -> t.ClientCapabilities:
    return capabilities(encodings=["utf-8", "utf-16"])


# --- set-up ------------------------------------------------------------------------------------------------


def test_the_server_is_built_with_its_settings_debounce_and_one_validation_worker() -> None:
    settings = check.Settings(Limits(max_file_bytes=1000))
    server = build(settings, 0.5)
    assert (server.name, server.version) == ("kubectl-testbench", __version__)
    assert server.settings is settings and server.scheduler.window == 0.5
    assert server.documents == {} and server.results == {}
    assert server.worker._max_workers == 1  # the engine is never entered twice at once
    assert server.worker.submit(lambda: threading.current_thread().name).result().startswith(
        "kubectl-testbench-validate")
    assert build().settings is check.DEFAULT_SETTINGS and build().scheduler.window == DEFAULT_DEBOUNCE == 0.15


def test_initialize_negotiates_the_position_encoding_and_announces_the_features() -> None:
    async def go() -> None:
        h = harness()
        assert h.server.encoding == "utf-16"  # before initialize
        result = await h.initialize(utf8_client())
        assert result.capabilities.position_encoding == "utf-8" and h.server.encoding == "utf-8"
        assert result.server_info == t.ServerInfo(name="kubectl-testbench", version=__version__)
        sync = result.capabilities.text_document_sync
        assert isinstance(sync, t.TextDocumentSyncOptions)
        assert (sync.open_close, sync.change, sync.save) == (True, t.TextDocumentSyncKind.Incremental, True)
        assert result.capabilities.completion_provider == t.CompletionOptions(trigger_characters=(":", '"'))
        assert result.capabilities.hover_provider is True
        assert result.capabilities.code_action_provider == t.CodeActionOptions(
            code_action_kinds=(t.CodeActionKind.QuickFix, t.CodeActionKind.SourceFixAll), resolve_provider=True)
        plain = harness()
        assert (await plain.initialize()).capabilities.position_encoding == "utf-16"
        assert plain.server.encoding == "utf-16"

    run(go())


def test_folders_are_the_workspace_folders_on_disk_then_the_root() -> None:
    async def go() -> None:
        h = harness()
        await h.initialize(root_uri="file:///r", folders=["file:///a/b", "vscode-vfs://github/x/y", "file:///c"])
        assert h.server.folders() == ["/a/b", "/c", "/r"]
        bare = harness()
        await bare.initialize(folders=["file:///a"])
        assert bare.server.folders() == ["/a"]

    run(go())


@pytest.mark.parametrize(("caps", "resolves"), [
    (capabilities(resolve=True), True),
    (capabilities(resolve=False), False),
    (t.ClientCapabilities(), False),
    (t.ClientCapabilities(text_document=t.TextDocumentClientCapabilities()), False),
    (t.ClientCapabilities(text_document=t.TextDocumentClientCapabilities(code_action=t.CodeActionClientCapabilities(
        data_support=True))), False),
    (t.ClientCapabilities(text_document=t.TextDocumentClientCapabilities(code_action=t.CodeActionClientCapabilities(
        resolve_support=t.ClientCodeActionResolveOptions(properties=["edit"])))), False),
    (t.ClientCapabilities(text_document=t.TextDocumentClientCapabilities(code_action=t.CodeActionClientCapabilities(
        data_support=False, resolve_support=t.ClientCodeActionResolveOptions(properties=["edit"])))), False),
    (t.ClientCapabilities(text_document=t.TextDocumentClientCapabilities(code_action=t.CodeActionClientCapabilities(
        data_support=True, resolve_support=t.ClientCodeActionResolveOptions(properties=["command"])))), False),
    (t.ClientCapabilities(text_document=t.TextDocumentClientCapabilities(code_action=t.CodeActionClientCapabilities(
        data_support=True, resolve_support=t.ClientCodeActionResolveOptions(properties=["command", "edit"])))),
     True),
])
def test_the_client_resolves_edits_only_with_data_support_and_edit_in_resolve_support(
        caps: t.ClientCapabilities, resolves: bool) -> None:
    async def go() -> None:
        h = harness()
        await h.initialize(caps)
        assert h.server.resolves_edits() is resolves

    run(go())


def test_without_our_handlers_the_protocol_takes_document_notifications_without_error() -> None:
    async def go() -> None:
        h = Harness(ExperimentLanguageServer(debounce=0))
        await h.initialize()
        sent = len(h.wire.sent)
        h.open(URI, NO_GATEWAY)
        h.change(URI, 2, t.TextDocumentContentChangeWholeDocument(text="x"))
        h.close(URI)
        await asyncio.sleep(0)
        assert h.wire.sent[sent:] == [] and h.server.documents == {}

    run(go())


# --- documents ---------------------------------------------------------------------------------------------


def test_open_publishes_the_findings_at_the_documents_version(caplog: pytest.LogCaptureFixture,
                                                               settled: list[int]) -> None:
    caplog.set_level(logging.DEBUG, "kubectl_testbench.lsp")

    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, NO_GATEWAY, version=7)
        found = await h.diagnostics(URI, 7)
        assert [(d.code, d.range, d.message, d.severity, d.source) for d in found] == [
            ("semantic/no-gateway", SPEC, NO_GATEWAY_MESSAGE, t.DiagnosticSeverity.Warning, "kubectl-testbench")]
        doc = h.server.documents[URI]
        assert (doc.uri, doc.text, doc.version, doc.language_id, doc.path) == (URI, NO_GATEWAY, 7, "yaml", "/w/a.yaml")
        result = h.server.results[URI]
        assert result.version == 7 and result.index.text is doc.text
        assert [p.diagnostic for p in result.placed] == found
        h.open("untitled:Untitled-1", NO_GATEWAY, version=2)
        assert [d.code for d in await h.diagnostics("untitled:Untitled-1", 2)] == ["semantic/no-gateway"]
        assert h.server.documents["untitled:Untitled-1"].path is None
        h.open("vscode-vfs://github/x/y/a.yaml", "kind: nothing\n")  # a remote file: no path here either
        assert h.server.documents["vscode-vfs://github/x/y/a.yaml"].path is None
        await h.diagnostics("vscode-vfs://github/x/y/a.yaml", 1)
        assert len(h.published(URI)) == 1

    run(go())
    assert settled == [1]  # after the first validation only
    assert [r.getMessage() for r in caplog.records if r.name == "kubectl_testbench.lsp"] == [
        "file:///w/a.yaml version 7: 1 findings", "untitled:Untitled-1 version 2: 1 findings",
        "vscode-vfs://github/x/y/a.yaml version 1: 0 findings"]


def test_incremental_changes_apply_in_order_in_the_negotiated_units() -> None:
    text = "a: \u00e91\nb: 2\nc: 3\n"

    async def go() -> None:
        h = harness()
        await h.initialize(utf8_client())
        h.open(URI, text)
        assert await h.diagnostics(URI, 1) == []
        # UTF-8: character 5 of line 0 is after the two bytes of é (before "1"); UTF-16 would put it at the end
        h.change(URI, 2, t.TextDocumentContentChangePartial(range=t.Range(t.Position(0, 5), t.Position(1, 3)),
                                                              text="X"),
                 t.TextDocumentContentChangePartial(range=t.Range(t.Position(1, 0), t.Position(1, 1)), text="Z"))
        assert await h.diagnostics(URI, 2) == []
        doc = h.server.documents[URI]
        assert (doc.text, doc.version) == ("a: \u00e9X2\nZ: 3\n", 2)
        h.change(URI, 3, t.TextDocumentContentChangePartial(range=t.Range(t.Position(1, 1), t.Position(0, 3)),
                                                              text=""),
                 t.TextDocumentContentChangeWholeDocument(text="k: v\n"),
                 t.TextDocumentContentChangePartial(range=t.Range(t.Position(0, 4), t.Position(0, 4)), text="w"))
        assert await h.diagnostics(URI, 3) == []
        assert (doc.text, doc.version) == ("k: vw\n", 3)
        h.change(URI, 4, t.TextDocumentContentChangeWholeDocument(text=NO_GATEWAY))
        assert [(d.code, d.range) for d in await h.diagnostics(URI, 4)] == [("semantic/no-gateway", SPEC)]
        assert h.server.results[URI].version == 4

    run(go())


def test_a_change_to_a_document_that_is_not_open_is_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        sent = len(h.wire.sent)
        h.change(URI, 2, t.TextDocumentContentChangeWholeDocument(text=NO_GATEWAY))
        await h.idle(URI)
        assert h.wire.sent[sent:] == [] and h.server.documents == {}

    run(go())
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "kubectl_testbench.lsp"] == [
        ("WARNING", "change of a document that is not open: file:///w/a.yaml")]


def test_close_forgets_the_document_its_findings_and_its_planned_run() -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, NO_GATEWAY)
        await h.diagnostics(URI, 1)
        assert URI in h.server.results
        h.close(URI)
        assert URI not in h.server.documents and URI not in h.server.results
        assert h.published(URI)[-1] == (URI, [], None)
        # closed before its first run: the planned run is dropped, nothing is published after the clearing
        h.open("file:///w/b.yaml", NO_GATEWAY)
        assert h.server.scheduler.pending("file:///w/b.yaml")
        h.close("file:///w/b.yaml")
        assert not h.server.scheduler.pending("file:///w/b.yaml")
        await asyncio.sleep(0.01)
        assert h.published("file:///w/b.yaml") == [
            ("file:///w/b.yaml", [], None)]
        # a document never opened: cleared all the same (the client may hold diagnostics from before a restart)
        h.close("file:///w/never.yaml")
        assert h.published("file:///w/never.yaml") == [
            ("file:///w/never.yaml", [], None)]

    run(go())


def test_saving_revalidates_the_saved_document_or_every_document_for_the_defaults_file() -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, NO_GATEWAY)
        h.open("file:///w/b.yaml", NO_GATEWAY)
        await h.diagnostics(URI, 1)
        await h.diagnostics("file:///w/b.yaml", 1)
        h.save(URI)
        await h.idle(URI, "file:///w/b.yaml")
        assert (len(h.published(URI)), len(h.published("file:///w/b.yaml"))) == (2, 1)
        h.save("file:///w/other.yaml")  # not open: nothing to do
        h.save("file:///w/sub/testbench-defaults.yaml")
        await h.idle(URI, "file:///w/b.yaml")
        assert (len(h.published(URI)), len(h.published("file:///w/b.yaml"))) == (3, 2)
        assert [p[2] for p in h.published(URI)] == [1, 1, 1]

    run(go())


# --- validation --------------------------------------------------------------------------------------------


def test_only_served_documents_that_hold_experiments_are_checked() -> None:
    async def go() -> None:
        h = harness()
        await h.initialize(utf8_client())
        h.open("file:///w/config.yaml", CONFIG_MAP)  # YAML, but no Experiment: its syntax error is not ours
        h.open("file:///w/notes.py", NO_GATEWAY, language="python")  # an Experiment, but not YAML or JSON
        assert await h.diagnostics("file:///w/config.yaml", 1) == []
        assert await h.diagnostics("file:///w/notes.py", 1) == []
        result = h.server.results["file:///w/config.yaml"]
        assert (result.version, result.placed, result.index.text, result.index.encoding) == (1, [], CONFIG_MAP,
                                                                                            "utf-8")
        h.open("file:///w/plain.yaml", NO_GATEWAY, language="plaintext")  # by its file name
        assert [d.code for d in await h.diagnostics("file:///w/plain.yaml", 1)] == ["semantic/no-gateway"]

    run(go())


def test_ranges_are_in_the_negotiated_units() -> None:
    text = WEATHER.replace("name: weather-agent-smoke", "name: w\u00e9ather-agent-smoke")

    async def go() -> None:
        for caps, end in ((utf8_client(), 28), (capabilities(), 27)):
            h = harness()
            await h.initialize(caps)
            h.open(URI, text)
            [found] = await h.diagnostics(URI, 1)
            assert (found.code, found.range) == ("metadata/name", t.Range(t.Position(6, 8), t.Position(6, end)))
            assert h.server.results[URI].index.encoding == h.server.encoding

    run(go())


def test_the_settings_reach_the_engine() -> None:
    async def go() -> None:
        h = harness(settings=check.Settings(Limits(max_file_bytes=100)))
        await h.initialize()
        h.open(URI, NO_GATEWAY)
        h.open("untitled:Untitled-1", NO_GATEWAY)
        [found] = await h.diagnostics(URI, 1)
        assert (found.code, found.message, found.range) == (
            "input/too-large", "larger than the 0 MiB limit (raise with --max-file-size)", t.Range(
                t.Position(0, 0), t.Position(0, 68)))  # the first line
        [found] = await h.diagnostics("untitled:Untitled-1", 1)
        assert found.code == "input/too-large"

    run(go())


def test_the_defaults_file_is_found_up_to_the_workspace_folder_holding_the_document(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    nested = workspace / "team" / "evals"
    nested.mkdir(parents=True)
    (workspace / "testbench-defaults.yaml").write_text(
        (EXAMPLES / "experiments" / "testbench-defaults.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    inside, outside = (nested / "exp.yaml").as_uri(), (tmp_path / "exp.yaml").as_uri()

    async def go() -> None:
        for how in ("folder", "root"):
            h = harness()
            if how == "folder":
                await h.initialize(folders=[(tmp_path / "other").as_uri(), workspace.as_uri()])
            else:
                await h.initialize(root_uri=workspace.as_uri())
            assert h.server.located(h.server.documents.get(inside) or _doc(h, inside)) == (
                str(nested / "exp.yaml"), str(workspace))
            assert await h.diagnostics(inside, 1) == []
            h.open(outside, NO_GATEWAY)
            assert [d.code for d in await h.diagnostics(outside, 1)] == ["semantic/no-gateway"]
            assert h.server.located(h.server.documents[outside]) == (str(tmp_path / "exp.yaml"), None)

    def _doc(h: Harness, uri: str) -> Any:
        h.open(uri, NO_GATEWAY)
        return h.server.documents[uri]

    run(go())


def test_validation_and_fix_all_run_on_the_validation_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real_check, real_fix = check.check_later, server_module.actions.fix_all

    def checking(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real_check(*args, **kwargs)

    def fixing(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real_fix(*args)

    monkeypatch.setattr(check, "check_later", checking)
    monkeypatch.setattr(server_module.actions, "fix_all", fixing)

    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, BROKEN_METRIC)
        await h.diagnostics(URI, 1)
        action = await server_module._resolve_fix_all(h.server, t.CodeAction(
            title=FIX_ALL_TITLE, kind=FIX_ALL, data={"uri": URI, "version": 1}))
        assert action.edit is not None

    run(go())
    assert len(threads) == 2 and all(n.startswith("kubectl-testbench-validate") for n in threads), threads


async def _blocked(h: Harness) -> threading.Event:
    """Hold the validation worker until the returned event is set."""
    gate = threading.Event()
    h.server.worker.submit(gate.wait)
    return gate


@pytest.mark.parametrize("edit", ["version", "text", "close", "nothing"])
def test_a_run_overtaken_by_an_edit_publishes_nothing(edit: str) -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, NO_GATEWAY)
        await h.diagnostics(URI, 1)
        first = h.server.results[URI]
        gate = await _blocked(h)
        task = asyncio.ensure_future(h.server.validate(URI))
        await asyncio.sleep(0)  # the run has read the text and waits for the worker
        doc = h.server.documents[URI]
        if edit == "version":
            doc.version = 2
        elif edit == "text":
            doc.text = "".join(list(NO_GATEWAY))  # the same characters, another text
        elif edit == "close":
            h.server.close(URI)
        gate.set()
        await task
        published = h.published(URI)
        if edit == "nothing":
            assert [p[2] for p in published] == [1, 1] and h.server.results[URI] is not first
        elif edit == "close":
            assert published[1:] == [(URI, [], None)]
            assert URI not in h.server.results
        else:
            assert [p[2] for p in published] == [1] and h.server.results[URI] is first

    run(go())


def test_validating_a_document_that_is_not_open_does_nothing() -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        await h.server.validate(URI)
        assert h.server.results == {} and h.published(URI) == []

    run(go())


def test_current_findings_are_reused_only_for_the_same_version_and_text() -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        assert await h.server.current(URI) is None
        h.open(URI, NO_GATEWAY)
        fresh = await h.server.current(URI)  # asked before the first run published
        assert fresh is not None and fresh.version == 1 and [p.diagnostic.code for p in fresh.placed] == [
            "semantic/no-gateway"]
        await h.diagnostics(URI, 1)
        stored = h.server.results[URI]
        assert await h.server.current(URI) is stored
        doc = h.server.documents[URI]
        doc.text = "".join(list(NO_GATEWAY))
        again = await h.server.current(URI)
        assert again is not None and again is not stored and again.index.text is doc.text
        doc.version = 5
        later = await h.server.current(URI)
        assert later is not None and later.version == 5 and [p.diagnostic.code for p in later.placed] == [
            "semantic/no-gateway"]

    run(go())


def test_a_failing_validation_is_reported_in_one_line_and_the_last_findings_stay(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    real = check.check_later

    def failing(text: str, *args: Any, **kwargs: Any) -> Any:
        if "broken" in text:
            raise RuntimeError("engine broke")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(check, "check_later", failing)

    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, NO_GATEWAY)
        await h.diagnostics(URI, 1)
        h.change(URI, 2, t.TextDocumentContentChangeWholeDocument(text=NO_GATEWAY + "# broken\n"))
        await h.idle(URI)
        assert h.logged() == [t.LogMessageParams(type=t.MessageType.Error, message=(
            "kubectl-testbench: validating file:///w/a.yaml failed: RuntimeError: engine broke (see the server log)"))]
        assert [p[2] for p in h.published(URI)] == [1] and h.server.results[URI].version == 1

    run(go())
    assert "validating file:///w/a.yaml failed" in [r.getMessage() for r in caplog.records]


# --- requests ----------------------------------------------------------------------------------------------


def test_cursor_and_served_only_for_open_documents_that_are_ours() -> None:
    text = WEATHER.replace("name: weather-agent-smoke", "name: w\u00e9ather-agent-smoke")

    async def go() -> None:
        h = harness()
        await h.initialize(utf8_client())
        h.open(URI, text)
        h.open("file:///w/config.yaml", CONFIG_MAP)
        h.open("file:///w/notes.py", NO_GATEWAY, language="python")
        server = h.server
        assert server.served(URI) is server.documents[URI]
        for uri in ("file:///w/config.yaml", "file:///w/notes.py", "file:///w/never.yaml"):
            assert server.served(uri) is None and server.cursor(uri, t.Position(0, 0)) is None
        at = server.cursor(URI, t.Position(6, 11))  # UTF-8: after "w" and the two bytes of é
        assert at is not None
        index, offset, readings = at
        assert index.encoding == "utf-8" and index.text == text and readings is server.documents[URI].readings
        assert text[offset:offset + 6] == "ather-"

    run(go())


def test_hover_and_completion_answer_for_our_documents_only() -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, WEATHER)
        h.open("file:///w/config.yaml", CONFIG_MAP)
        line = WEATHER.splitlines().index("  agentRef:")
        hovered = await h.request(t.TEXT_DOCUMENT_HOVER, t.HoverParams(t.TextDocumentIdentifier(URI),
                                                                        t.Position(line, 4)))
        expected = hover_at(WEATHER, WEATHER.index("agentRef") + 2)
        assert expected is not None and isinstance(hovered, t.Hover)
        assert hovered.contents == t.MarkupContent(kind=t.MarkupKind.Markdown, value=expected.markdown)
        assert hovered.range == t.Range(t.Position(line, 2), t.Position(line, 10))
        assert expected.markdown.startswith("```text\nFIELD: agentRef <Object> -required-\n")
        for uri, position in ((URI, t.Position(line, 11)), ("file:///w/config.yaml", t.Position(1, 2)),
                              ("file:///w/never.yaml", t.Position(0, 0))):
            assert await h.request(t.TEXT_DOCUMENT_HOVER, t.HoverParams(t.TextDocumentIdentifier(uri),
                                                                        position)) is None
        done = await h.request(t.TEXT_DOCUMENT_COMPLETION, t.CompletionParams(t.TextDocumentIdentifier(URI),
                                                                              t.Position(line + 1, 4)))
        assert isinstance(done, t.CompletionList) and done.is_incomplete is False
        assert list(done.items) == complete(TextIndex(WEATHER), WEATHER.index("  name: weather-agent\n") + 4)
        assert [i.label for i in done.items] == ["name"]  # namespace is there already
        assert await h.request(t.TEXT_DOCUMENT_COMPLETION, t.CompletionParams(
            t.TextDocumentIdentifier("file:///w/config.yaml"), t.Position(1, 2))) is None

    run(go())


def _actions_params(uri: str, only: list[str] | None = None) -> t.CodeActionParams:
    return t.CodeActionParams(text_document=t.TextDocumentIdentifier(uri),
                              range=t.Range(t.Position(0, 0), t.Position(200, 0)),
                              context=t.CodeActionContext(diagnostics=[], only=only))


def test_code_actions_offer_the_quick_fix_and_fix_all_resolved_when_the_client_cannot() -> None:
    async def go() -> None:
        for resolves in (True, False):
            h = harness()
            await h.initialize(capabilities(resolve=resolves))
            h.open(URI, BROKEN_METRIC, version=4)
            found = await h.request(t.TEXT_DOCUMENT_CODE_ACTION, _actions_params(URI))
            assert [(a.title, a.kind) for a in found] == [
                ('write "ToolCallAccuracy" (semantic/unknown-metric)', t.CodeActionKind.QuickFix),
                (FIX_ALL_TITLE, FIX_ALL)]
            fix_all = found[1]
            if resolves:
                assert fix_all.edit is None and fix_all.data == {"uri": URI, "version": 4}
                fix_all = await h.request(t.CODE_ACTION_RESOLVE, fix_all)
            [change] = fix_all.edit.document_changes
            assert (change.text_document.uri, change.text_document.version) == (URI, 4)
            assert apply_edits(BROKEN_METRIC, change.edits) == WEATHER
            only = await h.request(t.TEXT_DOCUMENT_CODE_ACTION, _actions_params(URI, ["source"]))
            assert [a.title for a in only] == [FIX_ALL_TITLE]
        h.open("file:///w/config.yaml", CONFIG_MAP)
        assert await h.request(t.TEXT_DOCUMENT_CODE_ACTION, _actions_params("file:///w/config.yaml")) is None
        h.open("file:///w/clean.yaml", WEATHER)
        assert list(await h.request(t.TEXT_DOCUMENT_CODE_ACTION, _actions_params("file:///w/clean.yaml"))) == []

    run(go())


@pytest.mark.parametrize("data", [None, "file:///w/a.yaml", {"version": 1}, {"uri": 5}, {"uri": ["file:///w/a.yaml"]},
                                  {"uri": "file:///w/b.yaml"}])
def test_fix_all_is_left_alone_without_an_open_document_to_fix(data: Any) -> None:
    async def go() -> None:
        h = harness()
        await h.initialize()
        h.open(URI, BROKEN_METRIC)
        action = t.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, data=data)
        assert await server_module._resolve_fix_all(h.server, action) is action and action.edit is None
        resolved = await h.request(t.CODE_ACTION_RESOLVE, action)
        assert resolved.edit is None and resolved.data == data

    run(go())


def test_fix_all_edits_the_current_text_in_the_negotiated_units_for_its_version() -> None:
    """A one-line JSON Experiment with an é before the misspelt metric: UTF-8 positions count it twice. It
    names no gateway: fix reads the defaults file for the path (as validate would) and still fixes the rest."""
    data = yaml.safe_load(BROKEN_METRIC.replace("Weather in New York", "W\u00e9ather in New York"))
    del data["spec"]["aiGatewayRef"]
    text = json.dumps(data, ensure_ascii=False) + "\n"
    at = text.index("toolcallaccuracy")
    assert at == 763 and text.count("\u00e9", 0, at) == 1

    async def go() -> None:
        h = harness()
        await h.initialize(utf8_client())
        h.open("file:///w/a.json", "kind: nothing\n", language="json")
        h.change("file:///w/a.json", 9, t.TextDocumentContentChangeWholeDocument(text=text))
        action = await server_module._resolve_fix_all(h.server, t.CodeAction(
            title=FIX_ALL_TITLE, kind=FIX_ALL, data={"uri": "file:///w/a.json", "version": 1}))
        assert action.edit is not None and action.edit.document_changes is not None
        [change] = action.edit.document_changes
        assert isinstance(change, t.TextDocumentEdit) and change.text_document.version == 9
        # "toolcalla" -> "ToolCallA" (the common prefix and suffix kept), 764 and 773 in UTF-8 bytes
        assert change.edits == [t.TextEdit(range=t.Range(t.Position(0, 764), t.Position(0, 773)),
                                           new_text="ToolCallA")]

    run(go())


# --- the process -------------------------------------------------------------------------------------------


def test_settle_memory_collects_then_freezes_and_collects_the_young_generation_less_often(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real one
    before = gc.get_threshold()

    class Cycle:
        pass

    garbage = Cycle()
    garbage.self = garbage  # type: ignore[attr-defined]
    dead = weakref.ref(garbage)
    del garbage
    try:
        server_module.settle_memory()
        assert dead() is None  # collected, not frozen alive
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (10_000, 20, 20)
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


@pytest.fixture
def fresh_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], logging.Logger]]:
    """Call it in the test: the root logger as a fresh process has it (pytest adds its capture handlers
    after the fixtures), restored after the test."""
    root = logging.getLogger()
    ours: list[logging.Handler] = []

    def fresh() -> logging.Logger:
        monkeypatch.setattr(root, "handlers", ours)
        monkeypatch.setattr(root, "level", logging.WARNING)
        monkeypatch.setattr(logging.getLogger("pygls"), "level", logging.NOTSET)
        return root

    yield fresh
    for handler in ours:
        handler.close()


@pytest.mark.parametrize("verbose", [False, True])
def test_logging_goes_to_stderr_and_the_log_file_and_pygls_only_from_warnings(
        fresh_logging: Callable[[], logging.Logger], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        verbose: bool) -> None:
    log_file = tmp_path / "lsp.log"
    root = fresh_logging()
    server_module._configure_logging(str(log_file), verbose)
    assert root.level == (logging.DEBUG if verbose else logging.INFO)
    assert [type(h) for h in root.handlers] == [logging.StreamHandler, logging.FileHandler]
    file_handler = root.handlers[1]
    assert isinstance(file_handler, logging.FileHandler)
    assert codecs.lookup(file_handler.encoding or "").name == "utf-8"  # UTF-8 whatever the locale ("locale")
    assert logging.getLogger("pygls").level == logging.WARNING
    log = logging.getLogger("kubectl_testbench.lsp")
    log.debug("détail")
    log.info("started")
    logging.getLogger("pygls.protocol").info("chatter")
    for handler in root.handlers:
        handler.flush()
    lines = log_file.read_text(encoding="utf-8").splitlines()
    expected = ([("DEBUG", "kubectl_testbench.lsp: détail")] if verbose else []) + [
        ("INFO", "kubectl_testbench.lsp: started")]
    assert [tuple(line.split(" ", 3)[2:]) for line in lines] == expected
    assert all(line[4] == "-" and line[10] == " " and line[19] == "," for line in lines)  # asctime first
    assert capsys.readouterr().err.splitlines() == lines


def test_logging_without_a_file_goes_to_stderr_only(fresh_logging: Callable[[], logging.Logger]) -> None:
    root = fresh_logging()
    server_module._configure_logging(None, False)
    assert [type(h) for h in root.handlers] == [logging.StreamHandler]
    root.handlers.clear()
    server_module._configure_logging("", False)
    assert [type(h) for h in root.handlers] == [logging.StreamHandler]


def _frame(method: str, params: Any, msg_id: int | None = None) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "method": method, "params": params}
                      | ({"id": msg_id} if msg_id is not None else {})).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _bodies(data: bytes) -> list[dict[str, Any]]:
    """The messages of a framed stream, by their Content-Length."""
    found = []
    while data:
        match = re.match(rb"Content-Length: (\d+)\r\n(?:[^\r\n]+\r\n)*\r\n", data)
        assert match is not None, data[:80]
        end = match.end() + int(match.group(1))
        found.append(json.loads(data[match.end():end]))
        data = data[end:]
    return found


class Output(io.BytesIO):
    """stdout for serve: pygls closes it on exit; what was written stays readable."""

    def close(self) -> None:
        self.closed_by_server = True


@pytest.mark.parametrize(("shutdown", "code"), [(True, 0), (False, 1)])
def test_serve_answers_on_the_streams_given_and_exits_as_lsp_asks(
        fresh_logging: Callable[[], logging.Logger], tmp_path: Path, shutdown: bool, code: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[ExperimentLanguageServer] = []
    real_build: Callable[..., ExperimentLanguageServer] = server_module.build

    gate, started = threading.Event(), threading.Event()
    held: list[Future[bool]] = []

    def hold() -> bool:
        started.set()
        return gate.wait(10)

    def spy(*args: Any) -> ExperimentLanguageServer:
        built.append(real_build(*args))
        held.append(built[-1].worker.submit(hold))  # a validation running when the client says exit
        started.wait()
        held.append(built[-1].worker.submit(bool))  # and one waiting for it
        return built[-1]

    monkeypatch.setattr(server_module, "build", spy)
    messages = _frame("initialize", {"capabilities": {}, "processId": None}, 1) + _frame("initialized", {})
    if shutdown:
        messages += _frame("shutdown", None, 2)
    messages += _frame("exit", None)
    out = Output()
    root = fresh_logging()
    log_file = tmp_path / "lsp.log"
    settings = check.Settings(Limits(max_file_bytes=1000))
    if shutdown:
        assert server_module.serve(settings, 0.5, str(log_file), True, io.BytesIO(messages), out) == code
    else:
        assert server_module.serve(settings, 0.5, str(log_file), stdin=io.BytesIO(messages), stdout=out) == code
    [server] = built
    assert server.settings is settings and server.scheduler.window == 0.5
    # serve returned without waiting for the running validation; the waiting one was dropped
    running, waiting = held
    assert waiting.cancelled() and not running.done()
    gate.set()
    assert running.result() is True
    assert out.closed_by_server
    replies = _bodies(out.getvalue())
    assert replies[0]["id"] == 1 and replies[0]["result"]["serverInfo"] == {"name": "kubectl-testbench",
                                                                            "version": __version__}
    logged = log_file.read_text(encoding="utf-8")
    assert f"INFO kubectl_testbench.lsp: kubectl-testbench {__version__} language server on stdio (pid {os.getpid()})" \
        in logged
    assert root.level == (logging.DEBUG if shutdown else logging.INFO)  # verbose given, or not
