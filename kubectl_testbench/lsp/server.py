"""The language server process: pygls on stdio, the open documents, and handlers that delegate to the engine.

Documents are kept here rather than in pygls' workspace, which splits lines with ``str.splitlines`` (form
feeds, NEL, U+2028 break lines there but not in the editor, so an incremental edit below such a character
would land on the wrong line). Validation runs on one worker thread, so the event loop keeps answering
hovers and completions while a large file is checked, and the engine is never entered twice at once.
A failing handler is logged and answered with an LSP error by pygls; the server keeps serving. Messages are read
by lsp.stdio, which bounds their size and answers every request it cannot hand to pygls with a JSON-RPC error.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from kubectl_testbench import __version__
from kubectl_testbench.lsp import actions, check, completion, hover
from kubectl_testbench.lsp.context import Readings
from kubectl_testbench.lsp.publish import Placed, place
from kubectl_testbench.lsp.schedule import Scheduler
from kubectl_testbench.lsp.text import UTF16, Document, Position, TextIndex
from kubectl_testbench.validate.diagnostics import Diagnostic
from kubectl_testbench.validate.engine import FileResult

log = logging.getLogger("kubectl_testbench.lsp")

DEFAULT_DEBOUNCE = 0.15
"""Seconds between validations of a document while it is being typed in (the first change after a pause
is validated at once)."""


@dataclass(slots=True)
class Result:
    """The findings published for one version of a document, kept for code actions."""

    version: int
    index: TextIndex
    placed: list[Placed]
    """The findings as published; their fixes are not placed in the text yet when ``unplaced`` is set."""
    unplaced: FileResult | None = None
    """The engine's result whose fixes :meth:`with_fixes` places, the first time code actions need them."""

    def with_fixes(self) -> list[Placed]:
        """``placed`` with every fix placed in the text (computed once per version; run on the worker)."""
        if self.unplaced is not None:
            findings = self.unplaced.placed()
            self.placed = [replace(p, finding=f) for p, f in zip(self.placed, findings, strict=True)]
            self.unplaced = None
        return self.placed


class Protocol(LanguageServerProtocol):
    """pygls' protocol, with our document store in place of its workspace documents."""

    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: lsp.DidOpenTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._user(lsp.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: lsp.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._user(lsp.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: lsp.DidCloseTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._user(lsp.TEXT_DOCUMENT_DID_CLOSE, params)

    def _user(self, method: str, params: Any) -> Generator[Any, Any, None]:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None


class ExperimentLanguageServer(LanguageServer):
    """pygls' server with the open documents, their last findings and the validation worker."""

    def __init__(self, settings: check.Settings = check.DEFAULT_SETTINGS, debounce: float = DEFAULT_DEBOUNCE) -> None:
        super().__init__("kubectl-testbench", __version__, protocol_cls=Protocol)  # incremental sync: the default
        self.settings = settings
        self.documents: dict[str, Document] = {}
        self.results: dict[str, Result] = {}
        self.on_disk: dict[str, Diagnostic] = {}
        """The decoding error of each open file whose bytes on disk validate cannot read (read on open and save)."""
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kubectl-testbench-validate")
        self.scheduler = Scheduler(debounce, self.validate, self.failed)
        self._settled = False

    @property
    def encoding(self) -> str:
        chosen = self.server_capabilities.position_encoding if self.protocol._workspace else None
        if isinstance(chosen, lsp.PositionEncodingKind):  # pygls' default is the enum: its str() is its name
            return chosen.value
        return chosen or UTF16

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdio with our reading loop (lsp.stdio), which bounds message sizes and answers malformed
        requests, instead of pygls' own."""
        from kubectl_testbench.lsp.stdio import message_limit, serve_stdio

        serve_stdio(self, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer,
                    message_limit(self.settings.limits.max_file_bytes))

    def located(self, doc: Document) -> tuple[str, str | None]:
        """The path the engine reports ``doc`` under (its file, else its URI) and the workspace folder holding
        its file (None for an unsaved buffer: it has no directory to find a defaults file in)."""
        if not doc.path:
            return doc.uri, None
        return doc.path, check.workspace_root(doc.path, self.folders())

    def folders(self) -> list[str]:
        workspace = self.workspace
        paths = [to_fs_path(uri) for uri in workspace.folders]
        if workspace.root_path:
            paths.append(workspace.root_path)
        return [p for p in paths if p]

    # --- documents ---------------------------------------------------------------------------------------

    def open(self, item: lsp.TextDocumentItem) -> None:
        path = to_fs_path(item.uri)  # None unless a file: URI
        self.documents[item.uri] = Document(item.uri, item.text, item.version, item.language_id, path)
        self.read_disk(item.uri)
        self.scheduler.now(item.uri)

    def read_disk(self, uri: str) -> None:
        """Check the bytes of the document's file as validate reads them: the editor may have decoded them
        from an encoding validate refuses, and then the buffer alone looks clean."""
        doc = self.documents.get(uri)
        found = None
        if doc is not None and doc.path and check.is_served(doc.language_id, doc.uri):
            found = check.disk_decoding_error(doc.path, self.settings.limits, check.DECODED_OTHERWISE)
        if found is None:
            self.on_disk.pop(uri, None)
        else:
            self.on_disk[uri] = found

    def change(self, params: lsp.DidChangeTextDocumentParams) -> None:
        doc = self.documents.get(params.text_document.uri)
        if doc is None:
            log.warning("change of a document that is not open: %s", params.text_document.uri)
            return
        for change in params.content_changes:
            if isinstance(change, lsp.TextDocumentContentChangePartial):
                start = Position(change.range.start.line, change.range.start.character)
                end = Position(change.range.end.line, change.range.end.character)
                doc.apply(start, end, change.text, self.encoding)
            else:
                doc.apply(None, None, change.text, self.encoding)
        doc.version = params.text_document.version
        self.scheduler.changed(doc.uri)

    def close(self, uri: str) -> None:
        self.documents.pop(uri, None)
        self.results.pop(uri, None)
        self.on_disk.pop(uri, None)
        self.scheduler.forget(uri)
        self.publish(uri, [], None)

    # --- diagnostics -------------------------------------------------------------------------------------

    async def validate(self, uri: str) -> None:
        """Check the document's current text on the worker and publish, unless it changed meanwhile."""
        doc = self.documents.get(uri)
        if doc is None:
            return
        result = await self.analyze(doc)
        current = self.documents.get(uri)
        if current is None or current.version != result.version or current.text is not result.index.text:
            return  # edited meanwhile: the run planned for the edit publishes
        self.results[uri] = result
        self.publish(uri, [p.diagnostic for p in result.placed], result.version)
        log.debug("%s version %s: %d findings", uri, result.version, len(result.placed))
        if not self._settled:
            self._settled = True
            settle_memory()

    async def analyze(self, doc: Document) -> Result:
        loop = asyncio.get_running_loop()
        text, version, encoding = doc.text, doc.version, self.encoding
        if not (check.is_served(doc.language_id, doc.uri) and check.holds_experiments(text)):
            return Result(version, TextIndex(text, encoding), [])
        path, root = self.located(doc)
        on_disk = self.on_disk.get(doc.uri)

        def run() -> Result:
            index = TextIndex(text, encoding)
            found = check.check_later(text, path, root, self.settings, on_disk=on_disk)
            return Result(version, index, place(found.diagnostics, index), found if found.deferred else None)

        return await loop.run_in_executor(self.worker, run)

    async def current(self, uri: str) -> Result | None:
        """The findings for the document's current version (validated now when not yet)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        result = self.results.get(uri)
        if result is not None and result.version == doc.version and result.index.text is doc.text:
            return result
        return await self.analyze(doc)

    async def fixes(self, result: Result) -> list[Placed]:
        """The findings of ``result`` with their fixes placed (on the worker: it reads the document again)."""
        if result.unplaced is None:
            return result.placed
        return await asyncio.get_running_loop().run_in_executor(self.worker, result.with_fixes)

    def failed(self, uri: str, err: Exception) -> None:
        """Validation raised: the traceback is in the log; the client's log gets one line, the last findings stay."""
        self.window_log_message(lsp.LogMessageParams(
            type=lsp.MessageType.Error,
            message=f"kubectl-testbench: validating {uri} failed: {type(err).__name__}: {err} (see the server log)"))

    def publish(self, uri: str, diagnostics: list[lsp.Diagnostic], version: int | None) -> None:
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics,
                                                                             version=version))

    # --- requests ----------------------------------------------------------------------------------------

    def cursor(self, uri: str, position: lsp.Position) -> tuple[TextIndex, int, Readings] | None:
        """The served document's index, the offset of ``position`` in it, and what earlier requests read of it."""
        doc = self.served(uri)
        if doc is None:
            return None
        index = doc.index(self.encoding)
        return index, index.offset(Position(position.line, position.character)), doc.readings

    def served(self, uri: str) -> Document | None:
        doc = self.documents.get(uri)
        if doc is None or not check.is_served(doc.language_id, doc.uri) or not check.holds_experiments(doc.text):
            return None
        return doc

    def resolves_edits(self) -> bool:
        """Whether the client fills in a code action's edit through ``codeAction/resolve``."""
        caps = self.client_capabilities.text_document
        action = caps.code_action if caps else None
        support = action.resolve_support if action else None
        return bool(action and action.data_support and support and "edit" in support.properties)


def build(settings: check.Settings = check.DEFAULT_SETTINGS,
          debounce: float = DEFAULT_DEBOUNCE) -> ExperimentLanguageServer:
    """The server with every feature registered."""
    server = ExperimentLanguageServer(settings, debounce)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ExperimentLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.open(params.text_document)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ExperimentLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.change(params)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ExperimentLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        from kubectl_testbench.render.defaults_file import DEFAULTS_FILE

        saved = params.text_document.uri
        if saved.rsplit("/", 1)[-1] == DEFAULTS_FILE:
            for uri in ls.documents:  # the defaults file decides semantic/no-gateway for its whole tree
                ls.scheduler.now(uri)
        elif saved in ls.documents:
            ls.read_disk(saved)
            ls.scheduler.now(saved)  # the file on disk changed: its encoding, its neighbours

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ExperimentLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: ExperimentLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        at = ls.cursor(params.text_document.uri, params.position)
        if at is None:
            return None
        index, offset, readings = at
        found = hover.hover_at(index.text, offset, index.lines, readings)
        if found is None:
            return None
        a, b = index.position(found.start), index.position(found.end)
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.markdown),
                         range=lsp.Range(lsp.Position(a.line, a.character), lsp.Position(b.line, b.character)))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[":", "\""]))
    def on_completion(ls: ExperimentLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
        at = ls.cursor(params.text_document.uri, params.position)
        if at is None:
            return None
        return lsp.CompletionList(is_incomplete=False, items=completion.complete(*at))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix, actions.FIX_ALL], resolve_provider=True))
    async def on_code_action(ls: ExperimentLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        uri = params.text_document.uri
        if ls.served(uri) is None:
            return None
        result = await ls.current(uri)
        if result is None:
            return None
        index = result.index
        start = index.offset(Position(params.range.start.line, params.range.start.character))
        end = index.offset(Position(params.range.end.line, params.range.end.character))
        only = [str(k) for k in params.context.only] if params.context.only else None
        found: list[lsp.CodeAction] = []
        if not any(p.finding.fix is not None for p in result.placed):
            return found
        placed = await ls.fixes(result)
        if actions.wanted(only, lsp.CodeActionKind.QuickFix):
            found += actions.quick_fixes(placed, start, end, index, uri, result.version)
        fixable = any(p.finding.fix is not None and p.finding.fix.edits for p in placed)
        if fixable and actions.wanted(only, actions.FIX_ALL):
            fix_all = lsp.CodeAction(title=actions.FIX_ALL_TITLE, kind=actions.FIX_ALL,
                                     data={"uri": uri, "version": result.version})
            found.append(fix_all if ls.resolves_edits() else await _resolve_fix_all(ls, fix_all))
        return found

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def on_resolve(ls: ExperimentLanguageServer, action: lsp.CodeAction) -> lsp.CodeAction:
        if action.kind == actions.FIX_ALL and action.edit is None:
            return await _resolve_fix_all(ls, action)
        return action

    return server


async def _resolve_fix_all(ls: ExperimentLanguageServer, action: lsp.CodeAction) -> lsp.CodeAction:
    """Run ``fix`` on the buffer's current text (on the worker) and attach the edit that makes it so."""
    uri = action.data.get("uri") if isinstance(action.data, dict) else None
    doc = ls.documents.get(uri) if isinstance(uri, str) else None
    if doc is None:
        return action
    text, version, encoding = doc.text, doc.version, ls.encoding
    path, root = ls.located(doc)
    loop = asyncio.get_running_loop()
    new = await loop.run_in_executor(ls.worker, actions.fix_all, text, path, root, ls.settings)
    edits = actions.whole_text_edit(TextIndex(text, encoding), new)
    action.edit = actions.workspace_edit(doc.uri, version, edits)
    return action


def settle_memory() -> None:
    """After the first validation has loaded the engine (schema, validators, CEL programs): move everything
    alive to the collector's permanent generation and collect the young generation less often. Full
    collections then scan only what validations allocate, not the whole engine: measured on a 2,000-line
    Experiment, GC time per validation fell from ~2.4 ms to ~0.5 ms and the slowest of 60 runs from 33 to
    22 ms (benchmarks/lsp_latency.py)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


def serve(settings: check.Settings = check.DEFAULT_SETTINGS, debounce: float = DEFAULT_DEBOUNCE,
          log_file: str | None = None, verbose: bool = False,
          stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Serve on stdin/stdout (or the streams given) until the client says exit; the exit code LSP asks for
    (0 after shutdown)."""
    _configure_logging(log_file, verbose)
    server = build(settings, debounce)
    log.info("kubectl-testbench %s language server on stdio (pid %d)", __version__, os.getpid())
    server.start_io(stdin, stdout)
    server.worker.shutdown(wait=False, cancel_futures=True)
    return 0 if server.protocol._shutdown else 1


def _configure_logging(log_file: str | None, verbose: bool) -> None:
    """Our log on stderr (clients show it in their server log) and optionally in a file; pygls' own chatter
    (every message body at INFO) only from warnings up."""
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, handlers=handlers,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
