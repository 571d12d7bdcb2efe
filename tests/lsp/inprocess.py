"""Drive the language server in this process: JSON-RPC messages go through pygls' own message handling
(``handle_message``, as its stdio loop calls it) and everything the server sends is recorded from its writer.

The stdio tests (client.py) show the server works as a process; these reach its handlers and methods, so a
change inside server.py (a mutation run) is seen. Waits are for an event (a message, an idle scheduler), never
for a time: a timeout only turns a hang into a failure.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Sequence
from typing import Any

from lsprotocol import types as t

from kubectl_testbench.lsp.server import ExperimentLanguageServer

TIMEOUT = 60.0


class Wire:
    """pygls' writer interface: every message the server sends, decoded."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data))
        self.arrived.set()

    def close(self) -> None:
        pass


class Harness:
    """One in-process server and what it sent."""

    def __init__(self, server: ExperimentLanguageServer) -> None:
        self.server = server
        self.wire = Wire()
        server.protocol.set_writer(self.wire, include_headers=False)
        self._ids = itertools.count(1)
        self.converter = server.protocol._converter

    def notify(self, method: str, params: Any) -> None:
        self._receive({"jsonrpc": "2.0", "method": method, "params": self.converter.unstructure(params)})

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and return its structured result (raises on an error response)."""
        msg_id = next(self._ids)
        self._receive({"jsonrpc": "2.0", "id": msg_id, "method": method,
                       "params": self.converter.unstructure(params)})
        found = await self._wait(lambda m: m.get("id") == msg_id and "method" not in m)
        if "error" in found:
            raise RuntimeError(found["error"]["message"])
        response = self.server.protocol.get_result_type(method)
        return self.converter.structure(found, response).result

    async def initialize(self, capabilities: t.ClientCapabilities | None = None, root_uri: str | None = None,
                         folders: Sequence[str] = ()) -> t.InitializeResult:
        result: t.InitializeResult = await self.request(t.INITIALIZE, t.InitializeParams(
            capabilities=capabilities or t.ClientCapabilities(), root_uri=root_uri,
            workspace_folders=[t.WorkspaceFolder(uri=f, name=f.rsplit("/", 1)[-1]) for f in folders] or None))
        self.notify(t.INITIALIZED, t.InitializedParams())
        return result

    def open(self, uri: str, text: str, language: str = "yaml", version: int = 1) -> None:
        self.notify(t.TEXT_DOCUMENT_DID_OPEN, t.DidOpenTextDocumentParams(
            t.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))

    def change(self, uri: str, version: int, *changes: t.TextDocumentContentChangeEvent) -> None:
        self.notify(t.TEXT_DOCUMENT_DID_CHANGE, t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=version), list(changes)))

    def close(self, uri: str) -> None:
        self.notify(t.TEXT_DOCUMENT_DID_CLOSE, t.DidCloseTextDocumentParams(t.TextDocumentIdentifier(uri)))

    def save(self, uri: str) -> None:
        self.notify(t.TEXT_DOCUMENT_DID_SAVE, t.DidSaveTextDocumentParams(t.TextDocumentIdentifier(uri)))

    def published(self, uri: str) -> list[tuple[str, list[t.Diagnostic], int | None]]:
        """Every publishDiagnostics sent for ``uri`` so far, in order: (uri, diagnostics, version)."""
        found = [self.converter.structure(m["params"], t.PublishDiagnosticsParams) for m in self.wire.sent
                 if m.get("method") == t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS and m["params"]["uri"] == uri]
        return [(p.uri, list(p.diagnostics), p.version) for p in found]

    def logged(self) -> list[t.LogMessageParams]:
        return [self.converter.structure(m["params"], t.LogMessageParams) for m in self.wire.sent
                if m.get("method") == t.WINDOW_LOG_MESSAGE]

    async def diagnostics(self, uri: str, version: int) -> list[t.Diagnostic]:
        """The diagnostics published for ``uri`` at ``version`` (waiting for them)."""
        found = await self._wait(lambda m: m.get("method") == t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
                                 and m["params"]["uri"] == uri and m["params"].get("version") == version)
        return list(self.converter.structure(found["params"], t.PublishDiagnosticsParams).diagnostics)

    async def idle(self, *uris: str) -> None:
        """Until nothing is planned or running for ``uris``."""
        async def wait() -> None:
            while any(self.server.scheduler.pending(u) for u in uris):
                await asyncio.sleep(0.005)
        await asyncio.wait_for(wait(), TIMEOUT)

    def _receive(self, data: dict[str, Any]) -> None:
        protocol = self.server.protocol
        protocol.handle_message(protocol.structure_message(json.loads(json.dumps(data))))

    async def _wait(self, match: Any) -> dict[str, Any]:
        async def wait() -> dict[str, Any]:
            while True:
                for message in self.wire.sent:
                    if match(message):
                        return message
                    if message.get("method") in (t.WINDOW_SHOW_MESSAGE, t.WINDOW_LOG_MESSAGE) and \
                            message["params"]["type"] == t.MessageType.Error:
                        raise AssertionError(f"the server reported an error: {message['params']['message']}")
                self.wire.arrived.clear()
                await self.wire.arrived.wait()
        return await asyncio.wait_for(wait(), TIMEOUT)
