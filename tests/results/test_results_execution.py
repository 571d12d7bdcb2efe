"""``--execution ID``: the Testkube API client, tested against a local http.server stand-in (not real Testkube).

The stand-in answers the two routes the client uses, the way the Testkube API server does
(``/v1/test-workflow-executions/{id}/artifacts`` and ``…/artifacts/{url-encoded name}``), and records
every request so the tests can check paths and headers.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from kubectl_testbench.results.testkube import ApiError, api_base, fetch_execution, pick_artifact
from tests.conftest import ROOT, run_cli, run_process
from tests.results.helpers import FIXTURES, fixture

EXEC = "6650a1b2c3d4e5f6a7b8c9d0"
ARTIFACT = "data/experiments/evaluated_experiment.json"
PREFIX = "/v1/test-workflow-executions"


class StandIn:
    """A fake Testkube API: executions map to their artifacts (name -> bytes)."""

    def __init__(self) -> None:
        self.executions: dict[str, dict[str, bytes]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.status: int | None = None
        self.redirect = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:
                server.requests.append((self.path, dict(self.headers)))
                if server.status is not None:
                    return self._send(server.status, b'{"title": "forced"}')
                if self.path.startswith("/storage/"):
                    execution, name = self.path.removeprefix("/storage/").split("/", 1)
                    return self._send(200, server.executions[execution][name])
                parts = self.path.removeprefix(PREFIX + "/").split("/")
                execution = parts[0]
                if not self.path.startswith(PREFIX) or execution not in server.executions:
                    return self._send(404, b'{"title": "execution not found"}')
                artifacts = server.executions[execution]
                if parts[1:] == ["artifacts"]:
                    listing = [{"name": n, "size": len(b), "status": "ready"} for n, b in artifacts.items()]
                    return self._send(200, json.dumps(listing).encode())
                from urllib.parse import unquote

                name = unquote(parts[2]) if len(parts) == 3 else ""
                if name not in artifacts:
                    return self._send(404, b'{"title": "artifact not found"}')
                if server.redirect:  # like a presigned object-storage URL
                    self.send_response(307)
                    self.send_header("Location", f"/storage/{execution}/{name}")
                    self.end_headers()
                    return None
                return self._send(200, artifacts[name])

            def _send(self, code: int, body: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    monkeypatch.delenv("TESTKUBE_API_URL", raising=False)
    monkeypatch.delenv("TESTKUBE_API_TOKEN", raising=False)
    with StandIn() as server:
        server.executions[EXEC] = {
            ARTIFACT: (FIXTURES / "failing.json").read_bytes(),
            "data/results/evaluation_report.html": b"<html></html>",
        }
        yield server


def test_fetch_execution_against_local_http_standin(standin: StandIn) -> None:
    result = run_cli("results", "--execution", EXEC, "--api-url", standin.url, "-o", "json")
    doc = json.loads(result.stdout)
    (run,) = doc["runs"]
    assert run["source"] == f"execution {EXEC}"
    assert (run["summary"]["checks"], run["summary"]["passed"], run["summary"]["failed"]) == (7, 4, 3)
    assert result.exit_code == 1
    assert [path for path, _ in standin.requests] == [
        f"{PREFIX}/{EXEC}/artifacts",
        f"{PREFIX}/{EXEC}/artifacts/data%2Fexperiments%2Fevaluated_experiment.json"]
    assert all("Authorization" not in headers for _, headers in standin.requests)


def test_api_url_and_token_from_the_environment_against_local_http_standin(
        standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESTKUBE_API_URL", standin.url + "/v1/")
    monkeypatch.setenv("TESTKUBE_API_TOKEN", "s3cr3t")
    result = run_cli("results", "--execution", EXEC, "--no-gate")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Results: execution {EXEC}\n")
    assert standin.requests[0][0] == f"{PREFIX}/{EXEC}/artifacts"
    assert {headers.get("Authorization") for _, headers in standin.requests} == {"Bearer s3cr3t"}


def test_redirect_to_object_storage_is_followed_against_local_http_standin(standin: StandIn) -> None:
    standin.redirect = True
    doc = fetch_execution(EXEC, standin.url)
    assert doc.data == (FIXTURES / "failing.json").read_bytes()
    assert standin.requests[-1][0] == f"/storage/{EXEC}/{ARTIFACT}"


def test_results_mixes_files_and_executions_against_local_http_standin(standin: StandIn) -> None:
    result = run_cli("results", fixture("passing.json"), "--execution", EXEC, "--api-url", standin.url, "-o", "csv")
    runs = [line.split(",", 1)[0] for line in result.stdout.splitlines()[1:]]
    assert runs == [fixture("passing.json")] * 4 + [f"execution {EXEC}"] * 7


def test_compare_base_file_against_candidate_execution_against_local_http_standin(standin: StandIn) -> None:
    standin.executions[EXEC][ARTIFACT] = (FIXTURES / "candidate.json").read_bytes()
    result = run_cli("compare", fixture("baseline.json"), "--candidate-execution", EXEC, "--api-url", standin.url,
                     "--max-regression", "0.1", "-o", "json")
    doc = json.loads(result.stdout)
    assert doc["candidate"]["source"] == f"execution {EXEC}"
    assert [m["regressed"] for m in doc["metrics"]] == [False, True]
    assert result.exit_code == 1
    both = run_cli("compare", "--base-execution", EXEC, "--candidate-execution", EXEC, "--api-url", standin.url)
    assert both.exit_code == 0


def test_unknown_execution_exits_2_against_local_http_standin(standin: StandIn) -> None:
    result = run_cli("results", "--execution", "nope", "--api-url", standin.url)
    assert result.exit_code == 2
    assert result.stderr == (f"error: Testkube API: execution nope not found (HTTP 404 from "
                             f"{standin.url}{PREFIX}/nope/artifacts)\n")


def test_execution_without_the_result_artifact_exits_2_against_local_http_standin(standin: StandIn) -> None:
    standin.executions["early"] = {"data/results/evaluation_report.html": b""}
    result = run_cli("results", "--execution", "early", "--api-url", standin.url)
    assert (result.exit_code, result.stderr) == (
        2, "error: execution early has no evaluated_experiment.json artifact (artifacts: "
           "data/results/evaluation_report.html); did its evaluate step run?\n")


def test_server_errors_and_refusals_exit_3_against_local_http_standin(standin: StandIn) -> None:
    standin.status = 500
    result = run_cli("results", "--execution", EXEC, "--api-url", standin.url)
    assert (result.exit_code, result.stderr) == (
        3, f"error: Testkube API answered HTTP 500 for execution {EXEC} ({standin.url}{PREFIX}/{EXEC}/artifacts)\n")
    standin.status = 401
    result = run_cli("results", "--execution", EXEC, "--api-url", standin.url)
    assert result.exit_code == 3
    assert result.stderr.startswith(f"error: Testkube API refused execution {EXEC} (HTTP 401): set TESTKUBE_API_TOKEN")


def test_malformed_artifact_from_the_api_is_a_clear_input_error(standin: StandIn) -> None:
    standin.executions[EXEC][ARTIFACT] = b'{"scenarios": [{"name": "x"}]}'
    result = run_cli("results", "--execution", EXEC, "--api-url", standin.url)
    assert (result.exit_code, result.stderr) == (
        2, f"error: execution {EXEC}: scenarios[0].steps: required field is missing\n")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


HOW = (f"download it with `testkube download artifacts {EXEC} --download-dir DIR` and pass DIR, or set "
       "--api-url / TESTKUBE_API_URL (e.g. after `kubectl port-forward -n testkube svc/testkube-api-server 8088`: "
       "http://localhost:8088)")


def test_unreachable_api_exits_3_and_says_how_to_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TESTKUBE_API_TOKEN", raising=False)
    url = f"http://127.0.0.1:{_closed_port()}"
    result = run_cli("results", "--execution", EXEC, "--api-url", url)
    assert result.exit_code == 3
    assert result.stderr.startswith(f"error: cannot reach the Testkube API at {url}{PREFIX}/{EXEC}/artifacts (")
    assert result.stderr.endswith(f"); {HOW}\n")
    assert result.stderr.count("\n") == 1


def test_no_api_configured_exits_2_and_says_how_to_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TESTKUBE_API_URL", raising=False)
    result = run_cli("results", "--execution", EXEC)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: --execution {EXEC} needs the Testkube API, and no API URL is configured: {HOW}\n"


def test_no_api_in_a_real_process_has_no_traceback() -> None:
    proc = run_process("results", "--execution", EXEC, env={"TESTKUBE_API_URL": ""})
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith(f"error: --execution {EXEC} needs the Testkube API")
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize(("execution", "url", "message"), [
    ("../../etc", "http://x", "not a Testkube execution id: '../../etc'"),
    (EXEC, "localhost:8088", "the Testkube API URL must start with http:// or https://, got 'localhost:8088'"),
])
def test_bad_ids_and_urls_are_refused_before_any_request(execution: str, url: str, message: str) -> None:
    with pytest.raises(ApiError) as err:
        fetch_execution(execution, url)
    assert (str(err.value), err.value.exit_code) == (message, 2)


def test_api_base_accepts_the_forms_people_paste() -> None:
    assert {api_base(u) for u in ("http://h:8088", "http://h:8088/", "http://h:8088/v1", " http://h:8088/v1/ ")} == {
        "http://h:8088/v1"}


def test_pick_artifact_prefers_the_evaluate_template_path() -> None:
    assert pick_artifact(["x/evaluated_experiment.json", ARTIFACT], EXEC) == ARTIFACT
    assert pick_artifact(["out/evaluated_experiment.json", "report.html"], EXEC) == "out/evaluated_experiment.json"
    with pytest.raises(ApiError) as err:
        pick_artifact(["a/evaluated_experiment.json", "b/evaluated_experiment.json"], EXEC)
    assert str(err.value) == (f"execution {EXEC} has several evaluated_experiment.json artifacts "
                              "(a/evaluated_experiment.json, b/evaluated_experiment.json); download them and pass "
                              "the one you mean")


def test_the_api_client_is_not_imported_for_file_inputs() -> None:
    code = ("import sys\nfrom kubectl_testbench.cli.main import main\n"
            f"sys.argv = ['kubectl-testbench', 'results', '{fixture('passing.json')}']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('loaded:', 'kubectl_testbench.results.testkube' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, check=False)
    assert done.stderr.decode() == "loaded: False\n"
