"""Fixtures: a running local HTTP stand-in of the API server and a kubeconfig pointing at it."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result

from tests.cluster.fakeapi import FakeApiServer
from tests.conftest import run_cli

FIXTURES = Path(__file__).parent / "fixtures"
NAMESPACE_NOTICE = ('notice: 2 Experiments without metadata.namespace go to namespace "team-a" (from the kubeconfig '
                    f'context "stand-in"): {FIXTURES / "news.yaml"}:1, {FIXTURES / "weather.yaml"}:2')
"""What every cluster command says about FIXTURES with the stand-in's kubeconfig (namespace team-a)."""


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No ambient cluster configuration: empty HOME, no KUBECONFIG, not in a pod."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    for name in ("NO_PROXY", "no_proxy"):  # the stand-in is local, whatever proxy the CI machine uses
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    return home


FAKE_REASON = "fake_api"
"""The marker every test on the stand-in carries, saying why kube-apiserver (tests/controlplane) will not do: a fault it
will not produce on demand, or the exact requests we send, which it does not show."""


@pytest.fixture
def api(request: pytest.FixtureRequest) -> Iterator[FakeApiServer]:
    marker = request.node.get_closest_marker(FAKE_REASON)
    if marker is None or not marker.args or not str(marker.args[0]).strip():
        pytest.fail("a test on the stand-in API server says why the real one will not do: "
                    "pytest.mark.fake_api(reason) on the test or its module (pytestmark)")
    server = FakeApiServer().start()
    yield server
    server.stop()


@pytest.fixture
def kubeconfig(api: FakeApiServer, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$KUBECONFIG`` pointing at the stand-in, context namespace ``team-a``."""
    path = api.kubeconfig(isolated / "kubeconfig")
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path


@pytest.fixture
def closed_port() -> int:
    """A local port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(*args: str, input: str | None = None) -> Result:
    """Run the CLI in-process and check the universal rules: no traceback, no unexpected exception."""
    result = run_cli(*args, input=input)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def one_line_error(result: Result) -> str:
    """The first ``error:`` line on stderr, asserting it is a single line."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert lines, result.stderr
    return lines[0]
