"""LSP's base protocol on stdio, read within bounds, with an answer for every request the server cannot take.

pygls' reading loop (``pygls.io_.run_async``) trusts the client: it reads the body a ``Content-Length`` header
announces in one read, so a header announcing 100 GB ended the server in a MemoryError; it reads header lines
without a bound; and a body that is not JSON, not a JSON-RPC 2.0 message, or whose params do not fit the
method's type is logged and dropped, so the client waits forever for the answer to its request. This loop
replaces it (``ExperimentLanguageServer.start_io``) and hands pygls only messages it can structure:

* a body larger than :data:`MAX_MESSAGE_BYTES` (or four times ``--max-file-size``) is refused before it is
  read, then skipped in chunks, so the stream stays in step and the next message is served;
* a body that is not UTF-8 JSON gets ParseError (-32700), a message that is not a JSON-RPC 2.0 request,
  notification or response InvalidRequest (-32600), a request whose params do not fit its method
  InvalidParams (-32602). Where the id cannot be read the answer has id null, as JSON-RPC 2.0 asks;
  notifications get no answer (JSON-RPC forbids one) and are logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import Any, BinaryIO

from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCProtocol
from pygls.server import JsonRPCServer

log = logging.getLogger("kubectl_testbench.lsp")

MiB = 1024 * 1024
MAX_MESSAGE_BYTES = 64 * MiB
"""The largest message body the server reads: four times the largest file validate reads by default (16 MiB),
which a client sends JSON-escaped inside a didOpen, with room to spare. ``--max-file-size`` raises it (to four
times the file size): :func:`message_limit`."""
MAX_HEADER_LINE = 8 * 1024
"""Header lines are read in pieces of at most this many bytes, so a line without an end cannot fill memory."""
CHUNK = MiB
"""Bodies are read (and skipped) in pieces of at most this size."""

MsgId = int | str | None
Read = Callable[[int], Awaitable[bytes]]


def message_limit(max_file_bytes: int) -> int:
    """The largest body read when files up to ``max_file_bytes`` are validated."""
    return max(MAX_MESSAGE_BYTES, 4 * max_file_bytes)


def serve_stdio(server: JsonRPCServer, stdin: BinaryIO, stdout: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
    """Serve ``server`` on the streams until the input ends or the client says exit; bodies over ``limit`` bytes
    are refused."""
    server.protocol.set_writer(StdoutWriter(stdout))
    try:
        asyncio.run(_serve(stdin, server.protocol, server.thread_pool, limit))
    except BrokenPipeError:
        log.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):  # pygls' exit handler ends the process with sys.exit
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated


async def _serve(stdin: BinaryIO, protocol: JsonRPCProtocol, pool: Executor, limit: int) -> None:
    loop = asyncio.get_running_loop()

    def readline(limit: int) -> Awaitable[bytes]:  # blocking reads on a worker: the event loop keeps serving
        return loop.run_in_executor(pool, stdin.readline, limit)

    def read(size: int) -> Awaitable[bytes]:
        return loop.run_in_executor(pool, stdin.read, size)

    while True:
        ended, length = await _content_length(readline)
        if ended:
            return
        if length is None:
            refuse(protocol, None, JsonRpcInvalidRequest.CODE, "a message without a valid Content-Length header")
            continue
        if length > limit:
            refuse(protocol, None, JsonRpcInvalidRequest.CODE, f"a message of {length} bytes is over the "
                   f"{limit // MiB} MiB limit: it is skipped")
            if not await _skip(read, length):
                return
            continue
        body = await _read_exactly(read, length)
        if body is None:
            return
        dispatch(protocol, body)


async def _content_length(readline: Callable[[int], Awaitable[bytes]]) -> tuple[bool, int | None]:
    """Whether the input ended, and the Content-Length of the next header block (None when it has none, or an
    unusable one). Blank lines before a block are skipped; other headers (Content-Type) are ignored."""
    length: int | None = None
    seen = False
    while True:
        line = await readline(MAX_HEADER_LINE)
        if not line:
            return True, None
        if line in (b"\r\n", b"\n"):
            if seen:
                return False, length
            continue
        seen = True
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"content-length":
            digits = value.strip()
            length = int(digits) if digits.isdigit() and len(digits) <= 20 else None


async def _read_exactly(read: Read, size: int) -> bytes | None:
    """``size`` bytes (None if the input ends first), read in chunks: a read for a huge size allocates it whole."""
    parts: list[bytes] = []
    left = size
    while left:
        part = await read(min(left, CHUNK))
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


async def _skip(read: Read, size: int) -> bool:
    """Read and drop ``size`` bytes; False if the input ends first."""
    left = size
    while left:
        part = await read(min(left, CHUNK))
        if not part:
            return False
        left -= len(part)
    return True


def refuse(protocol: JsonRPCProtocol, msg_id: MsgId, code: int, message: str) -> None:
    """Answer with a JSON-RPC error (id null when the request's id is unknown) and log why."""
    log.warning("refused a message (id %s): %s", json.dumps(msg_id), message)
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def dispatch(protocol: JsonRPCProtocol, body: bytes) -> None:
    """Hand one body to pygls as a structured message, or answer why it cannot be taken."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:  # RecursionError: JSON nested past Python's limit
        refuse(protocol, None, JsonRpcParseError.CODE, f"the body is not UTF-8 JSON: {_first_line(err)}")
        return
    problem, msg_id = envelope_problem(data)
    if problem is not None:
        refuse(protocol, msg_id, JsonRpcInvalidRequest.CODE, problem)
        return
    try:
        message = protocol.structure_message(data)
    except Exception:  # pygls raises InvalidParams (or InternalError) after logging the details
        method = data.get("method")
        if "id" in data and method is not None:
            refuse(protocol, msg_id, JsonRpcInvalidParams.CODE, f"invalid params for {method}")
        else:
            log.warning("dropped a notification or response that does not fit its type: %s", method or "response")
        return
    try:
        protocol.handle_message(message)
    except Exception:  # as pygls' own loop: the handlers answer for themselves, anything else is logged
        log.exception("unable to handle a message")


def envelope_problem(data: Any) -> tuple[str | None, MsgId]:
    """What keeps ``data`` from being a JSON-RPC 2.0 request, notification or response (None if nothing), and the
    id to answer with (None when there is no usable one)."""
    if not isinstance(data, dict):
        return "a message must be a JSON object (LSP has no batches)", None
    msg_id = data.get("id")
    has_id = "id" in data
    if has_id and (isinstance(msg_id, bool) or not isinstance(msg_id, (int, str))):
        return "the id must be an integer or a string", None
    if data.get("jsonrpc") != "2.0":
        return 'a message must say "jsonrpc": "2.0"', msg_id
    if "method" in data:
        if not isinstance(data["method"], str):
            return "the method must be a string", msg_id
        return None, msg_id
    if has_id and ("result" in data or "error" in data):
        return None, msg_id
    return "neither a request, a notification nor a response", msg_id


def _first_line(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    return text.splitlines()[0][:200]
