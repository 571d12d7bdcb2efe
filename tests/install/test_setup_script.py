"""The setup-template's dispatcher (``SETUP_SCRIPT``), run for real: ``python3 -c SCRIPT DATASET_URL BUCKET KEY``.

The upstream operator sends ``datasetUrl`` (``s3://bucket/key`` or the http(s) URL); hand-written workflows may
send upstream's ``bucket``/``key``. Every path is run here as a process: error paths with this interpreter
(they exit before importing the phase package), s3 and http(s) with the phase image's own package
(agentic-layer-testbench 0.10.0) against local stand-ins for MinIO (S3 GetObject over HTTP) and a dataset host.
Arguments arrive as argv: no text from them can become a shell command.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kubectl_testbench import layout
from kubectl_testbench.install.templates import SETUP_SCRIPT
from tests.phase_package import clean_env, phase_python

EXPERIMENT = {"llm_as_a_judge_model": "m", "scenarios": [{"name": "s", "steps": [{"input": "hi"}]}]}


def _run(python: str, args: tuple[str, str, str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-c", SETUP_SCRIPT, *args], cwd=cwd, env=clean_env(**env), capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_setup_script_contains_no_testkube_expression_and_compiles() -> None:
    assert "{{" not in SETUP_SCRIPT and "}}" not in SETUP_SCRIPT and "${" not in SETUP_SCRIPT
    compile(SETUP_SCRIPT, "<setup-template>", "exec")


@pytest.mark.parametrize(("args", "message"), [
    (("ftp://host/e.json", "", ""), "datasetUrl must start with s3://, http:// or https://, got 'ftp://host/e.json'"),
    (("s3://bucket-only", "", ""), "datasetUrl 's3://bucket-only' is not s3://<bucket>/<key>"),
    (("s3:///key.json", "", ""), "is not s3://<bucket>/<key>"),
    (("", "", ""), "no dataset: set datasetUrl, or bucket and key"),
    (("", "bucket", ""), "no dataset: set datasetUrl, or bucket and key"),
])
def test_bad_input_fails_with_one_line_before_touching_anything(tmp_path: Path, args: tuple[str, str, str],
                                                                message: str) -> None:
    proc = _run(sys.executable, args, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == f"setup-template: {message}\n" or message in proc.stderr.splitlines()[0]
    assert proc.stderr.startswith("setup-template: ") and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_shell_text_in_the_url_is_data_not_a_command(tmp_path: Path) -> None:
    args = ("$(touch pwned-1); `touch pwned-2`; touch pwned-3", "", "")
    proc = _run(sys.executable, args, tmp_path)
    assert proc.returncode == 1 and "must start with s3://" in proc.stderr
    assert list(tmp_path.iterdir()) == [], "nothing was executed"


# --- a recording stand-in for testbench.setup: which argv the s3 path hands to the phase CLI ----------------

RECORDER = '''import json, sys
json.dump({"argv": sys.argv, "name": __name__}, open("recorded.json", "w"))
'''


@pytest.mark.parametrize(("args", "bucket", "key"), [
    (("s3://datasets/team/a b;$(id)/experiment.json", "", ""), "datasets", "team/a b;$(id)/experiment.json"),
    (("", "datasets", "rag/experiment.json"), "datasets", "rag/experiment.json"),
    (("s3://from-url/k.json", "ignored", "ignored.json"), "from-url", "k.json"),
])
def test_s3_runs_the_phase_cli_as_python_m_would(tmp_path: Path, args: tuple[str, str, str], bucket: str,
                                                key: str) -> None:
    """Stand-in package on PYTHONPATH records argv and ``__name__``: the dispatcher runs it as ``__main__`` with
    exactly ``[prog, bucket, key]``, whatever characters the key holds."""
    package = tmp_path / "pkg" / "testbench"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "setup.py").write_text(RECORDER)
    work = tmp_path / "work"
    work.mkdir()
    proc = _run(sys.executable, args, work, PYTHONPATH=str(tmp_path / "pkg"))
    assert proc.returncode == 0, proc.stderr
    recorded = json.loads((work / "recorded.json").read_text())
    assert recorded == {"argv": [recorded["argv"][0], bucket, key], "name": "__main__"}


# --- the real phase package against local stand-ins --------------------------------------------------------------

class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves fixed bodies by path: a dataset host, and MinIO's path-style GetObject (``/<bucket>/<key>``)."""

    routes: ClassVar[dict[str, tuple[int, bytes]]] = {}
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.path)
        status, body = self.routes.get(self.path.split("?")[0], (404, b"<Error><Code>NoSuchKey</Code></Error>"))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    body = json.dumps(EXPERIMENT).encode()
    _Handler.routes = {
        "/datasets/rag/experiment.json": (200, body),
        "/experiment.json": (200, body),
        "/broken.json": (200, b"{not json"),
        "/bad-model.json": (200, json.dumps({"scenarios": [{"name": "s"}]}).encode()),
        "/private.json": (403, b"forbidden"),
        "/dataset.csv": (200, b"input\nhi\n"),
    }
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _written(cwd: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((cwd / layout.DATASET_RELATIVE).read_text())
    return data


@pytest.mark.parametrize("args", [("s3://datasets/rag/experiment.json", "", ""),
                                  ("", "datasets", "rag/experiment.json")])
def test_s3_with_the_real_setup_phase_against_a_minio_stand_in(server: str, tmp_path: Path,
                                                               args: tuple[str, str, str]) -> None:
    proc = _run(phase_python(), args, tmp_path, MINIO_ENDPOINT=server)
    assert proc.returncode == 0, proc.stderr
    assert "/datasets/rag/experiment.json" in _Handler.seen
    assert _written(tmp_path) == {**EXPERIMENT, "default_threshold": 0.9}, "normalised by the image's model"


def test_http_with_the_real_setup_functions_never_logs_the_query(server: str, tmp_path: Path) -> None:
    proc = _run(phase_python(), (f"{server}/experiment.json?X-Amz-Signature=secret", "", ""), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _written(tmp_path) == {**EXPERIMENT, "default_threshold": 0.9}
    assert "secret" not in proc.stdout + proc.stderr
    assert proc.stdout == f"setup-template: saved the Experiment from {server}/experiment.json to " \
                          f"{tmp_path / layout.DATASET_RELATIVE}\n"


@pytest.mark.parametrize(("path", "message"), [
    ("/private.json", "failed: HTTP 403"),
    ("/missing.json", "failed: HTTP 404"),
    ("/broken.json", "is not an Experiment the run phase reads"),
    ("/bad-model.json", "is not an Experiment the run phase reads: Experiment validation failed"),
    ("/dataset.csv", "Unsupported filetype"),
])
def test_http_failures_are_one_line_and_write_nothing(server: str, tmp_path: Path, path: str, message: str) -> None:
    proc = _run(phase_python(), (f"{server}{path}", "", ""), tmp_path)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("setup-template: ") and message in last, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / layout.DATASET_RELATIVE).exists()
