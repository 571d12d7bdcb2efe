"""The server never falls over: half-typed YAML keystroke by keystroke, bodies that are not UTF-8, lone
surrogates, a file on disk that is not UTF-8, a 10 MiB Experiment, a handler that raises. All over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from lsprotocol import types as t
from pygls.exceptions import JsonRpcException

from kubectl_testbench.validate.engine import validate_text
from tests.conftest import EXAMPLES, run_cli
from tests.lsp.client import SERVER, RawServer, covered, position, run, session, stderr, text_range

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")


def test_typing_an_experiment_keystroke_by_keystroke() -> None:
    """Every prefix of a real Experiment is a document the server gets; it answers completions and hovers on
    each line as it is typed and ends with exactly validate's findings for the whole file."""

    async def go() -> None:
        async with session() as s:
            uri = "file:///typing/weather.yaml"
            s.open(uri, "")
            await s.diagnostics(uri, version=1)
            text = ""
            for index, char in enumerate(WEATHER):
                s.change(uri, [t.TextEdit(range=text_range(text, len(text), len(text)), new_text=char)])
                text += char
                if char == "\n" or index % 97 == 0:
                    pos = position(text, len(text) - 1 if char == "\n" else len(text))
                    await s.complete(uri, pos.line, pos.character)
                    await s.hover(uri, pos.line, pos.character)
            version = s.texts[uri][0]
            final = await s.diagnostics(uri, version=version)
            expected = validate_text(WEATHER, "weather.yaml").diagnostics
            assert [d.code for d in final] == [d.rule for d in expected]
            versions = [p.version for p in s.published[uri]]
            assert versions == sorted(versions), "a stale result was published after a newer one"
            assert len(versions) < len(WEATHER) / 4, "changes during typing were coalesced"

    run(go())


def test_bodies_that_are_not_utf8_are_refused_and_the_server_keeps_serving() -> None:
    """JSON-RPC bodies are UTF-8 by the protocol: a client sending other bytes cannot be understood, not even
    the id of its request. Each is answered with a ParseError with id null (JSON-RPC 2.0) and logged; the next
    messages are answered."""

    async def go() -> None:
        async with session() as s:
            writer = s.client.protocol.writer
            assert writer is not None
            for body in (b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": '
                         b'{"uri": "file:///bad.yaml", "languageId": "yaml", "version": 1, '
                         b'"text": "kind: Experiment\\nname: \xff\xfe\\n"}}}',
                         b'{"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": '
                         b'{"textDocument": {"uri": "file:///bad.yaml\xc3"}, "position": {"line": 0, "character": 0}}}',
                         b"\xff\xfe not json at all"):
                writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            # the document was never opened: changes and requests for it are answered harmlessly
            s.texts["file:///bad.yaml"] = (1, "")
            s.change("file:///bad.yaml", [t.TextEdit(range=text_range("", 0, 0), new_text="kind: Experiment\n")])
            assert await s.hover("file:///bad.yaml", 0, 1) is None
            good = "file:///good.yaml"
            s.open(good, WEATHER)
            assert await s.diagnostics(good, version=1) == []
            hover = await s.hover(good, 11, 3)
            assert hover is not None and isinstance(hover.contents, t.MarkupContent)
            assert "FIELD: agentRef <Object> -required-" in hover.contents.value
        assert s.log.count("refused a message (id null): the body is not UTF-8 JSON: 'utf-8' codec can't decode") == 3

    run(go())


def test_a_lone_surrogate_from_the_client_is_an_encoding_finding_at_its_place() -> None:
    """A client can send a lone surrogate as a JSON escape; such text cannot be saved as UTF-8, so it gets the
    finding validate gives a file that is not UTF-8, at the surrogate."""

    async def go() -> None:
        async with session() as s:
            uri = "file:///surrogate.yaml"
            text = WEATHER.replace("New York right now?", "München 😀 \ud83d?")
            s.open(uri, text)
            [finding] = await s.diagnostics(uri, version=1)
            assert finding.code == "input/encoding"
            assert finding.range.start == position(text, text.index("\ud83d"))
            assert "lone UTF-16 surrogate (U+D83D)" in finding.message
            version = s.replace(uri, "\ud83d", "d")
            assert await s.diagnostics(uri, version=version) == []

    run(go())


def test_a_file_that_is_not_utf8_on_disk_gets_validates_decoding_error(tmp_path: Path) -> None:
    """Editors show such a file decoded with replacement characters; the finding is the file's own."""
    path = tmp_path / "latin1.yaml"
    path.write_bytes(WEATHER.replace("# Single-turn", "# Einf\xfchrung: single-turn").encode("latin-1"))
    cli = run_cli("validate", str(path))
    assert cli.exit_code == 1 and "error[input/encoding]" in cli.output
    validate_message = cli.output.split("error[input/encoding] ")[1].splitlines()[0]
    assert "byte 0xfc at line 2, column 7" in validate_message

    async def go() -> None:
        async with session() as s:
            uri = path.as_uri()
            s.open(uri, path.read_bytes().decode("utf-8", "replace"))
            [finding] = await s.diagnostics(uri, version=1)
            assert finding.code == "input/encoding"
            assert finding.message.startswith(f"the file on disk: {validate_message}\n")
            assert finding.range.start == t.Position(1, 6)

    run(go())


def _big_experiment(mib: int) -> str:
    """An Experiment of at least ``mib`` MiB: long multi-turn inputs, as real datasets have them."""
    head = WEATHER.split("      scenarios:\n")[0] + "      scenarios:\n"
    step = ("            - input: |\n" + "                " + "Wie wird das Wetter morgen in München? 🌦 " * 40 + "\n"
            "              reference:\n                response: Sonnig.\n"
            "              metrics:\n                - metricName: AgentGoalAccuracyWithReference\n")
    steps_per_scenario = 50
    scenario = "        - name: Szenario {n}\n          steps:\n" + step * steps_per_scenario
    out = [head]
    size = len(head.encode())
    n = 0
    while size < mib * 1024 * 1024:
        block = scenario.format(n=n)
        out.append(block)
        size += len(block.encode())
        n += 1
    return "".join(out)


def test_a_10_mib_experiment_is_validated_while_requests_are_answered() -> None:
    text = _big_experiment(10)
    assert len(text.encode()) >= 10 * 1024 * 1024

    async def go() -> None:
        async with session() as s:
            uri = "file:///big/experiment.yaml"
            s.open(uri, text)
            hover = await s.hover(uri, 11, 3)  # answered while the worker validates
            assert hover is not None
            found = await s.diagnostics(uri, version=1, timeout=240)
            assert [d.code for d in found] == ["semantic/inline-size"]
            version = s.replace(uri, "Sonnig.", "Regnerisch.")
            assert [d.code for d in await s.diagnostics(uri, version=version, timeout=240)] == ["semantic/inline-size"]
            s.client.text_document_did_close(t.DidCloseTextDocumentParams(t.TextDocumentIdentifier(uri)))
            assert await s.diagnostics(uri) == []

    run(go())


def test_a_text_over_the_file_size_limit_gets_validates_finding() -> None:
    text = _big_experiment(2)

    async def go() -> None:
        async with session("--max-file-size", "1") as s:
            uri = "file:///big/experiment.yaml"
            s.open(uri, text)
            [finding] = await s.diagnostics(uri, version=1)
            assert finding.code == "input/too-large"
            assert finding.message == "larger than the 1 MiB limit (raise with --max-file-size)"
            assert covered(text, finding.range) == text.splitlines()[0]

    run(go())


BOOT = """
import kubectl_testbench.lsp.check as check
import kubectl_testbench.lsp.hover as hover

def once(function, name):
    calls = []
    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError(f"injected failure in {name}")
        return function(*args, **kwargs)
    return failing

hover.hover_at = once(hover.hover_at, "hover")
check.check_later = once(check.check_later, "validation")
from kubectl_testbench.cli.main import main
main(["lsp"])
"""


def test_a_failing_handler_is_logged_answered_with_an_error_and_the_server_keeps_serving() -> None:
    async def go() -> None:
        async with session(command=(sys.executable, "-c", BOOT)) as s:
            uri = "file:///failing/weather.yaml"
            s.open(uri, WEATHER.replace("concurrencyPolicy", "concurrencyPolicy"))
            await asyncio.sleep(0)
            with pytest.raises(JsonRpcException) as raised:
                await s.hover(uri, 11, 3)
            assert raised.value.code == -32603  # InternalError
            assert "injected failure in hover" in str(raised.value)
            hover = await s.hover(uri, 11, 3)
            assert hover is not None
            for _ in range(100):
                if any("validating file:///failing/weather.yaml failed: RuntimeError: injected failure in validation"
                       in m.message for m in s.messages):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"no log message about the failed validation: {s.messages}")
            assert uri not in s.published  # the failed run published nothing
            version = s.replace(uri, "weather-agent-smoke", "weather-agent")
            assert await s.diagnostics(uri, version=version) == []
        assert s.returncode == 0
        assert "RuntimeError: injected failure in hover" in s.log and "Traceback" in s.log
        assert "validating file:///failing/weather.yaml failed" in s.log

    run(go())


def test_exit_without_shutdown_exits_1_and_a_vanished_client_ends_the_server() -> None:
    from pygls.lsp.client import LanguageClient

    from tests.lsp.client import capabilities

    async def go() -> tuple[int | None, int | None]:
        codes = []
        for say_exit in (True, False):
            client = LanguageClient("t", "1")
            await client.start_io(*SERVER)
            await client.initialize_async(t.InitializeParams(capabilities=capabilities()))
            if say_exit:
                client.exit(None)
            else:
                assert client._server is not None and client._server.stdin is not None
                client._server.stdin.close()
            assert client._server is not None
            codes.append(await asyncio.wait_for(client._server.wait(), 60))
            await stderr(client)
            await client.stop()
        return codes[0], codes[1]

    assert run(go()) == (1, 1)


# --- the base protocol: sizes and messages no well-behaved client sends -------------------------------------------

RAW_URI = "file:///raw/weather.yaml"
HOVER_AGENT_REF = {"textDocument": {"uri": RAW_URI}, "position": {"line": 11, "character": 3}}
MiB = 1024 * 1024


def _raw_server(tmp_path: Path) -> RawServer:
    server = RawServer(tmp_path / "server.log")
    server.initialize()
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": RAW_URI, "languageId": "yaml", "version": 1, "text": WEATHER}}})
    return server


def _still_serving(server: RawServer, msg_id: int = 1000) -> None:
    hover = server.request(msg_id, "textDocument/hover", HOVER_AGENT_REF)
    assert "FIELD: agentRef <Object> -required-" in hover["result"]["contents"]["value"]


def test_a_header_announcing_100_gb_is_refused_without_allocating_it(tmp_path: Path) -> None:
    """pygls read the announced body in one read: 100 GB ended the server in a MemoryError."""
    server = _raw_server(tmp_path)
    server.write(b"Content-Length: 100000000000\r\n\r\n")
    assert server.answer(None) == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "a message of 100000000000 bytes is over the 64 MiB limit: it is skipped"}}
    code, log = server.finish()  # the body never comes: the client goes away
    assert code == 1, log
    assert "Traceback" not in log and "MemoryError" not in log


def test_a_message_over_the_limit_is_skipped_and_the_next_one_answered(tmp_path: Path) -> None:
    server = _raw_server(tmp_path)
    body = b'{"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {}}'.ljust(64 * MiB + 1)
    server.write(b"Content-Length: %d\r\n\r\n" % len(body))
    server.write(body)
    assert server.answer(None)["error"] == {
        "code": -32600, "message": f"a message of {64 * MiB + 1} bytes is over the 64 MiB limit: it is skipped"}
    _still_serving(server)
    code, log = server.finish(shutdown=True)
    assert code == 0, log


HOVER = {"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover"}


@pytest.mark.parametrize(("message", "code", "answered_id"), [
    ({**HOVER, "params": {"textDocument": {"uri": RAW_URI}, "position": "x"}}, -32602, 7),
    ({**HOVER, "params": "x"}, -32602, 7),
    ({**HOVER, "params": {"textDocument": {"uri": RAW_URI}}}, -32602, 7),
    ({**HOVER, "method": 5, "params": HOVER_AGENT_REF}, -32600, 7),
    ({**HOVER, "jsonrpc": "1.0", "params": HOVER_AGENT_REF}, -32600, 7),
    ({"id": 7, "method": "textDocument/hover", "params": HOVER_AGENT_REF}, -32600, 7),
    ({**HOVER, "id": {"a": 1}, "params": HOVER_AGENT_REF}, -32600, None),
    ({**HOVER, "id": True, "params": HOVER_AGENT_REF}, -32600, None),
    ({"jsonrpc": "2.0", "id": 7}, -32600, 7),
    (b'{"jsonrpc": "2.0", "id": 7, "method": ', -32700, None),
    (b"[" * 100_000 + b"]" * 100_000, -32700, None),
    (b'[{"jsonrpc": "2.0", "id": 7, "method": "shutdown"}]', -32600, None),
    (b"\xff\xfe not UTF-8", -32700, None),
], ids=["position-not-an-object", "params-not-an-object", "position-missing", "method-not-a-string",
        "jsonrpc-1.0", "jsonrpc-missing", "id-an-object", "id-a-boolean", "neither-request-nor-response",
        "truncated-json", "json-nested-100k", "batch", "not-utf8"])
def test_a_malformed_request_is_answered_with_an_error_and_the_server_keeps_serving(
        tmp_path: Path, message: dict[str, object] | bytes, code: int, answered_id: int | None) -> None:
    """JSON-RPC 2.0: every request gets a response; one whose id cannot be read gets it with id null. pygls logged
    and dropped these, and the client waited for an answer that never came."""
    server = _raw_server(tmp_path)
    server.send(message)
    answer = server.answer(answered_id)
    assert answer["error"]["code"] == code, answer
    assert "result" not in answer
    _still_serving(server)
    exit_code, log = server.finish(shutdown=True)
    assert exit_code == 0, log


def test_the_message_limit_grows_with_the_file_size_limit() -> None:
    """A raised --max-file-size must not be undone by the message limit: a didOpen carries the file JSON-escaped."""
    from kubectl_testbench.lsp.stdio import MAX_MESSAGE_BYTES, message_limit

    assert message_limit(0) == MAX_MESSAGE_BYTES
    assert message_limit(16 * MiB) == message_limit(1 * MiB) == 64 * MiB
    assert message_limit(40 * MiB) == 160 * MiB
