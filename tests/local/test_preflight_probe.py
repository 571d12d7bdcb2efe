"""The reachability check before run --local starts anything, against a local HTTP stand-in for the agent and
the judge: which requests it sends, what counts as an answer, and what the user reads when nothing answers."""

from __future__ import annotations

import http.server
import socket
import threading
import time
from collections.abc import Iterator
from typing import ClassVar

import pytest

from kubectl_testbench.local import preflight


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str, str]]] = []

    def do_GET(self) -> None:
        self.seen.append((self.command, self.path, self.headers.get("User-Agent", "")))
        status = 200 if self.path.endswith("/models") else 405
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stand_in() -> Iterator[str]:
    _Recorder.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_the_agent_itself_and_the_judges_models_are_asked_with_get(stand_in: str) -> None:
    assert preflight.check(stand_in + "/a2a", stand_in + "/v1/") == []
    assert preflight.check(stand_in, stand_in + "/apiX") == []
    assert _Recorder.seen == [("GET", "/a2a", "kubectl-testbench run --local"),
                              ("GET", "/v1/models", "kubectl-testbench run --local"),
                              ("GET", "/", "kubectl-testbench run --local"),
                              ("GET", "/apiX/models", "kubectl-testbench run --local")]


def test_without_a_judge_only_the_agent_is_asked(stand_in: str) -> None:
    assert preflight.check(stand_in, None) == []
    assert preflight.check(stand_in, "") == []
    assert [path for _, path, _ in _Recorder.seen] == ["/", "/"]


def test_an_error_status_is_an_answer(stand_in: str) -> None:
    assert preflight.probe(stand_in + "/x") is None  # 405
    assert preflight.probe(stand_in + "/models") is None  # 200


def test_what_does_not_answer_is_named_with_why(stand_in: str) -> None:
    closed = closed_port()
    [judge] = preflight.check(stand_in, closed + "/v1")
    assert str(judge).startswith(f"the judge at {closed}/v1 cannot be reached: ")
    assert "refused" in judge.reason.lower()
    [agent] = preflight.check(closed, stand_in)
    assert (agent.what, agent.url) == ("agent", closed)


def test_a_url_that_cannot_be_requested_gets_its_reason() -> None:
    assert preflight.probe("ftp2://x") == "unknown url type: ftp2"
    assert preflight.probe("not a url") == "unknown url type: 'not a url'"


def test_an_endpoint_that_never_answers_times_out_after_the_timeout_given() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(2)  # accepts the connections, never answers
        silent = f"http://127.0.0.1:{listener.getsockname()[1]}"
        assert preflight.probe(silent, timeout=0.2) == "timed out"
        started = time.monotonic()
        assert [(u.what, u.reason) for u in preflight.check(silent, silent, timeout=0.2)] == [
            ("agent", "timed out"), ("judge", "timed out")]
        assert time.monotonic() - started < 4.0  # the timeout given, not the 5 s default, for each probe


def test_an_os_error_without_a_message_is_named_by_its_type(monkeypatch: pytest.MonkeyPatch) -> None:
    def aborted(*args: object, **kwargs: object) -> None:
        raise ConnectionAbortedError()

    monkeypatch.setattr(preflight.urllib.request, "urlopen", aborted)
    assert preflight.probe("http://127.0.0.1:1") == "ConnectionAbortedError"


def test_a_port_that_answers_something_other_than_http_is_unreachable_not_a_crash() -> None:
    """Was an uncaught http.client.BadStatusLine: a traceback from run --local pointed at an SSH port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(4096)
            conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        assert [str(u) for u in preflight.check(url, None)] == [
            f"the agent at {url} cannot be reached: no HTTP answer (BadStatusLine)"]
    finally:
        thread.join(5)
        listener.close()
