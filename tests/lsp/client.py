"""Drive ``python -m kubectl_testbench lsp`` over real stdio with pygls' own client.

Edits the server returns are applied here with an independent reading of LSP positions (UTF-16 code units
counted by encoding each line, lines split at CRLF/CR/LF), not with the server's own conversion code.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

from tests.conftest import ROOT

TIMEOUT = 60.0
SERVER = (sys.executable, "-m", "kubectl_testbench", "lsp")


def capabilities(resolve: bool = True, encodings: Sequence[str] | None = None) -> t.ClientCapabilities:
    """What a current editor announces: code action literals, versioned document edits, resolvable edits."""
    action = t.CodeActionClientCapabilities(
        code_action_literal_support=t.ClientCodeActionLiteralOptions(
            code_action_kind=t.ClientCodeActionKindOptions(value_set=[k.value for k in t.CodeActionKind])),
        data_support=resolve,
        resolve_support=t.ClientCodeActionResolveOptions(properties=["edit"]) if resolve else None)
    general = t.GeneralClientCapabilities(position_encodings=list(encodings)) if encodings else None
    return t.ClientCapabilities(
        text_document=t.TextDocumentClientCapabilities(code_action=action),
        workspace=t.WorkspaceClientCapabilities(
            workspace_edit=t.WorkspaceEditClientCapabilities(document_changes=True)),
        general=general)


class Session:
    """One server process and what it published."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.published: dict[str, list[t.PublishDiagnosticsParams]] = {}
        self.messages: list[t.ShowMessageParams | t.LogMessageParams] = []
        self.texts: dict[str, tuple[int, str]] = {}
        self.initialize_result: t.InitializeResult | None = None
        self.returncode: int | None = None
        self.log = ""
        """The server's stderr, once it has exited."""
        self._event = asyncio.Event()

    def on_publish(self, params: t.PublishDiagnosticsParams) -> None:
        self.published.setdefault(params.uri, []).append(params)
        self._event.set()

    async def diagnostics(self, uri: str, version: int | None = None, timeout: float = TIMEOUT
                          ) -> list[t.Diagnostic]:
        """The first diagnostics published for ``uri`` at ``version`` (or the next ones, without a version)."""
        seen = len(self.published.get(uri, ()))

        def ready() -> t.PublishDiagnosticsParams | None:
            for params in self.published.get(uri, ())[0 if version is not None else seen:]:
                if version is None or params.version == version:
                    return params
            return None

        async def wait() -> list[t.Diagnostic]:
            while (found := ready()) is None:
                self._event.clear()
                await self._event.wait()
            return list(found.diagnostics)

        return await asyncio.wait_for(wait(), timeout)

    def open(self, uri: str, text: str, language: str = "yaml", version: int = 1) -> None:
        self.texts[uri] = (version, text)
        self.client.text_document_did_open(t.DidOpenTextDocumentParams(
            t.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))

    def change(self, uri: str, edits: Sequence[t.TextEdit]) -> int:
        """Send ``edits`` (one incremental change each, in order) and return the new version."""
        version, text = self.texts[uri]
        for edit in edits:
            text = apply_edits(text, [edit])
        version += 1
        self.texts[uri] = (version, text)
        changes: list[t.TextDocumentContentChangeEvent] = [
            t.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for e in edits]
        self.client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=version), changes))
        return version

    def replace(self, uri: str, old: str, new: str) -> int:
        """Change the first ``old`` in the document to ``new`` with one incremental edit."""
        text = self.texts[uri][1]
        start = text.index(old)
        return self.change(uri, [t.TextEdit(range=t.Range(position(text, start), position(text, start + len(old))),
                                            new_text=new)])

    async def hover(self, uri: str, line: int, character: int) -> t.Hover | None:
        return await asyncio.wait_for(self.client.text_document_hover_async(
            t.HoverParams(t.TextDocumentIdentifier(uri), t.Position(line, character))), TIMEOUT)

    async def complete(self, uri: str, line: int, character: int) -> list[t.CompletionItem]:
        result = await asyncio.wait_for(self.client.text_document_completion_async(
            t.CompletionParams(t.TextDocumentIdentifier(uri), t.Position(line, character))), TIMEOUT)
        if result is None:
            return []
        return list(result.items if isinstance(result, t.CompletionList) else result)

    async def code_actions(self, uri: str, range_: t.Range, diagnostics: Sequence[t.Diagnostic] = (),
                           only: Sequence[str] | None = None) -> list[t.CodeAction]:
        result = await asyncio.wait_for(self.client.text_document_code_action_async(t.CodeActionParams(
            t.TextDocumentIdentifier(uri), range_, t.CodeActionContext(diagnostics=list(diagnostics),
                                                                        only=list(only) if only else None))),
            TIMEOUT)
        return [a for a in result or () if isinstance(a, t.CodeAction)]

    async def resolve(self, action: t.CodeAction) -> t.CodeAction:
        return await asyncio.wait_for(self.client.code_action_resolve_async(action), TIMEOUT)

    def apply(self, uri: str, edit: t.WorkspaceEdit) -> int:
        """Apply a WorkspaceEdit as an editor does (checking the version it was made for) and send the change."""
        edits: list[t.TextEdit] = []
        for change in edit.document_changes or ():
            assert isinstance(change, t.TextDocumentEdit)
            assert change.text_document.uri == uri
            assert change.text_document.version == self.texts[uri][0], "edit made for another version"
            edits.extend(e for e in change.edits if isinstance(e, t.TextEdit))
        for e in (edit.changes or {}).get(uri, ()):
            edits.append(e)
        version, text = self.texts[uri]
        new = apply_edits(text, edits)
        version += 1
        self.texts[uri] = (version, new)
        self.client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [t.TextDocumentContentChangeWholeDocument(text=new)]))
        return version


@asynccontextmanager
async def session(*args: str, resolve: bool = True, encodings: Sequence[str] | None = None,
                  root: Path | None = None, command: Sequence[str] = SERVER,
                  env: dict[str, str] | None = None) -> AsyncIterator[Session]:
    """A started and initialized server; shut down cleanly at the end (exit code 0 is asserted)."""
    client = LanguageClient("kubectl-testbench-tests", "1")
    s = Session(client)

    @client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: t.PublishDiagnosticsParams) -> None:
        s.on_publish(params)

    @client.feature(t.WINDOW_SHOW_MESSAGE)
    def on_show(params: t.ShowMessageParams) -> None:
        s.messages.append(params)

    @client.feature(t.WINDOW_LOG_MESSAGE)
    def on_log(params: t.LogMessageParams) -> None:
        s.messages.append(params)

    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    await client.start_io(command[0], *command[1:], *args, env=full_env)
    try:
        folders = [t.WorkspaceFolder(uri=root.as_uri(), name=root.name)] if root else None
        s.initialize_result = await asyncio.wait_for(client.initialize_async(t.InitializeParams(
            capabilities=capabilities(resolve, encodings), process_id=os.getpid(), workspace_folders=folders)),
            TIMEOUT)
        client.initialized(t.InitializedParams())
        yield s
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
        await asyncio.wait_for(client.stop(), TIMEOUT)
        s.returncode = client._server.returncode if client._server else None
        s.log = await stderr(client)
        assert s.returncode == 0, s.log
    finally:
        server = client._server
        if server is not None and server.returncode is None:
            server.kill()
            await server.wait()


async def stderr(client: LanguageClient) -> str:
    server = client._server
    if server is None or server.stderr is None:
        return ""
    return (await server.stderr.read()).decode("utf-8", "replace")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# --- an independent reading of LSP positions -----------------------------------------------------------------

_BREAK = re.compile(r"\r\n|\r|\n")


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _BREAK.finditer(text)]


def offset(text: str, pos: t.Position) -> int:
    starts = _line_starts(text)
    if pos.line >= len(starts):
        return len(text)
    start = starts[pos.line]
    match = _BREAK.search(text, start)
    line = text[start:match.start() if match else len(text)]
    units = line.encode("utf-16-le", "surrogatepass")[:2 * pos.character]
    return start + len(units.decode("utf-16-le", "surrogatepass"))


def position(text: str, index: int) -> t.Position:
    starts = _line_starts(text)
    line = max(i for i, s in enumerate(starts) if s <= index)
    return t.Position(line, len(text[starts[line]:index].encode("utf-16-le", "surrogatepass")) // 2)


def text_range(text: str, start: int, end: int) -> t.Range:
    return t.Range(position(text, start), position(text, end))


def apply_edits(text: str, edits: Sequence[t.TextEdit]) -> str:
    """Apply non-overlapping edits (all relative to ``text``), last first."""
    spans = sorted(((offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def covered(text: str, r: t.Range) -> str:
    """The text a range covers."""
    return text[offset(text, r.start):offset(text, r.end)]


# --- the raw base protocol, for bytes no well-behaved client sends ---------------------------------------------

RAW_MEMORY = 512 * 1024 * 1024
"""The hostile-input budget (tests/hostile): a server that tried to allocate what a header announces fails."""


def _raw_limits() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (RAW_MEMORY, RAW_MEMORY))


class RawServer:
    """The server as a process on pipes, spoken to in LSP's base protocol byte by byte (pygls' client only sends
    well-formed messages). stderr goes to a file: a pipe nobody reads would block the server once full."""

    def __init__(self, log: Path) -> None:
        import subprocess
        import threading

        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.log_path = log
        self._log = log.open("wb")
        self.proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                     env=env, preexec_fn=_raw_limits)
        self._timer = threading.Timer(TIMEOUT, self.proc.kill)
        self._timer.start()

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any] | bytes) -> None:
        import json

        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def receive(self) -> dict[str, Any]:
        """The next message from the server (the test fails with the log if the server ended instead)."""
        import json

        assert self.proc.stdout is not None
        length = None
        while True:
            line = self.proc.stdout.readline()
            assert line, f"the server closed its output:\n{self.finish()[1]}"
            if line == b"\r\n":
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        assert length is not None
        message: dict[str, Any] = json.loads(self.proc.stdout.read(length))
        return message

    def answer(self, msg_id: int | str | None) -> dict[str, Any]:
        """The response with ``msg_id``, skipping the server's notifications (diagnostics, log messages)."""
        while True:
            message = self.receive()
            if "method" not in message and message.get("id", "absent") == msg_id:
                return message

    def request(self, msg_id: int, method: str, params: Any) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return self.answer(msg_id)

    def initialize(self) -> None:
        result = self.request(0, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert "result" in result, result
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def finish(self, shutdown: bool = False) -> tuple[int, str]:
        """Shut down (or just close stdin) and return the exit code and the server's log."""
        assert self.proc.stdin is not None
        if shutdown:
            assert self.request(999_999, "shutdown", None).get("result", "absent") is None
            self.send({"jsonrpc": "2.0", "method": "exit"})
        self.proc.stdin.close()
        code = self.proc.wait()
        self._timer.cancel()
        self._log.close()
        return code, self.log_path.read_text(encoding="utf-8", errors="replace")
