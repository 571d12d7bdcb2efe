"""run --local's process side without the phase package: container paths, the docker/podman command line, the
pre-flight check, progress lines, and the output directory that only ever holds a finished run."""

from __future__ import annotations

import http.server
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from kubectl_testbench.local import preflight, session
from kubectl_testbench.local.execute import container_command, host_path, run_step
from kubectl_testbench.local.progress import Tracker
from kubectl_testbench.local.steps import LocalStep

STEP = LocalStep("run", ("-m", "testbench.run", "http://127.0.0.1:8000", "weather"),
                 {"OPENAI_API_KEY": "sk-secret", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318"},
                 template="run-template")


def test_container_paths_land_under_the_root_and_cannot_leave_it(tmp_path: Path) -> None:
    assert host_path(tmp_path, "/data/datasets/experiment.json") == tmp_path / "data" / "datasets" / "experiment.json"
    assert host_path(tmp_path, "data/x", "/work") == tmp_path / "work" / "data" / "x"
    assert host_path(tmp_path, "../../../etc/passwd", "/data") == tmp_path / "etc" / "passwd"


def test_the_linux_container_command_shares_the_network_mounts_data_and_passes_env_by_name(tmp_path: Path) -> None:
    command = container_command("docker", "ghcr.io/agentic-layer/testbench/testworkflows:0.0.1", STEP, tmp_path,
                                platform="linux")
    assert command.argv == [
        "docker", "run", "--rm", "--pull=missing", "--volume", f"{tmp_path / 'data'}:/data", "--workdir", "/",
        "--network=host", "--env", "OPENAI_API_KEY", "--env", "OTEL_EXPORTER_OTLP_ENDPOINT",
        "ghcr.io/agentic-layer/testbench/testworkflows:0.0.1", "-m", "testbench.run", "http://127.0.0.1:8000",
        "weather"]
    assert "sk-secret" not in " ".join(command.argv), "values go through the client's env, never argv"
    assert command.env == STEP.env


@pytest.mark.parametrize(("runtime", "host"), [("docker", "host.docker.internal"),
                                               ("/usr/bin/podman", "host.containers.internal")])
def test_elsewhere_loopback_urls_become_the_runtimes_host_name(tmp_path: Path, runtime: str, host: str) -> None:
    command = container_command(runtime, "img", STEP, tmp_path, platform="darwin")
    assert f"--add-host={host}:host-gateway" in command.argv and "--network=host" not in command.argv
    assert command.argv[-2] == f"http://{host}:8000"
    assert command.env["OTEL_EXPORTER_OTLP_ENDPOINT"] == f"http://{host}:4318"


def fake_python(tmp_path: Path, body: str) -> Path:
    """A stand-in for the phase environment's interpreter: a shell script run with the step's argv."""
    path = tmp_path / "fake-python"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_a_step_gets_only_its_env_the_images_and_what_is_passed_through(tmp_path: Path) -> None:
    python = fake_python(tmp_path, 'env | sort; pwd; echo "$@"\n')
    step = LocalStep("s", ("-m", "testbench.x", "a b"), {"ONLY": "this"}, working_dir="/work",
                     files={"/data/in.json": b"{}"})
    lines: list[str] = []
    result = run_step(python, step, tmp_path / "root", base_env={"PATH": os.environ["PATH"]}, on_line=lines.append)
    assert result.returncode == 0 and lines == result.output.splitlines()
    names = {line.split("=", 1)[0] for line in lines if "=" in line and not line.startswith("-m")}
    assert {"ONLY", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PATH"} <= names
    assert "HOME" not in names and "KUBECTL_TESTBENCH_CACHE_DIR" not in names
    assert str(tmp_path / "root" / "work") in lines and "-m testbench.x a b" in lines
    assert (tmp_path / "root" / "data" / "in.json").read_bytes() == b"{}"


def test_a_step_over_its_timeout_is_stopped(tmp_path: Path) -> None:
    result = run_step(fake_python(tmp_path, "sleep 30\n"), LocalStep("s", ("x",)), tmp_path / "root",
                      base_env={"PATH": os.environ["PATH"]}, timeout=0.5)
    assert result.timed_out and "timed out" in result.explain()
    assert result.seconds < 20, "sh is killed; the sleep it started holds the output open: read for 10 s more at most"


def test_preflight_takes_any_http_answer_and_names_what_does_not_answer() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)  # 501 to all
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        up = f"http://127.0.0.1:{server.server_address[1]}"
        assert preflight.check(up, up + "/v1") == []
        [agent, judge] = preflight.check(closed, closed + "/v1")
        assert (agent.what, judge.what) == ("agent", "judge")
        assert str(agent).startswith(f"the agent at {closed} cannot be reached: ") and "refused" in str(agent)
    finally:
        server.shutdown()
        server.server_close()


def test_progress_follows_the_phases_log_lines_and_escapes_dataset_text() -> None:
    said: list[str] = []
    run = Tracker("run", said.append, lambda: [2, 1])
    for line in ("INFO:testbench.run:Scenario 'Refund\x1b[2J' started (id=scn_1, trace_id=0)",
                 "INFO:testbench.run:  Step: Hi, my order arrived damaged.", "INFO:httpx:HTTP Request: POST …",
                 "INFO:testbench.run:  Step: Here is the photo.",
                 "ERROR:testbench.schema.a2a_client:Error querying agent for step 'Hi': Connection refused",
                 "INFO:testbench.run:Scenario 'Status' started (id=scn_2, trace_id=0)"):
        run.line(line)
    evaluate = Tracker("evaluate", said.append)
    evaluate.line("INFO:testbench.evaluate:Evaluating scenario 'Status'")
    evaluate.line("INFO:testbench.evaluate:  Metric 'ToolCallAccuracy': score=1.000 threshold=0.900 → pass")
    evaluate.line("ERROR:testbench.evaluate:  Metric 'AnswerAccuracy' errored — recording as fail")
    assert said == ["  scenario 1/2: Refund\\x1b[2J", "    step 1/2: Hi, my order arrived damaged.",
                    "    step 2/2: Here is the photo.", "    agent error: Connection refused",
                    "  scenario 2/2: Status", "  scenario 1: Status",
                    "    ToolCallAccuracy: 1.000 (threshold 0.900) pass",
                    "    AnswerAccuracy: errored (see the step's log)"]


def prepared(*steps: LocalStep) -> session.Prepared:
    return session.Prepared("ns/exp", "exp-ns-workflow", list(steps))


WRITE = LocalStep("write", ("-c", "testbench.evaluate"), files={"/data/datasets/experiment.json": b"{}"})
"""Not a ``-m`` step, so it is started at its turn (warm starts: the next test)."""


def test_a_run_lands_complete_replaces_an_earlier_one_and_a_failed_one_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "testbench-run"
    ok = fake_python(tmp_path, "mkdir -p data/experiments && echo \"$2\" > data/experiments/evaluated_experiment.json"
                               "\necho done\n")
    outcome = session.run(prepared(WRITE), out, python=ok)
    assert outcome.evaluated.read_text() == "testbench.evaluate\n"
    assert (out / session.MARKER).read_text() == "ns/exp\n"
    assert (out / "logs" / "01-write.log").read_text() == "done\n"
    assert oct(out.stat().st_mode & 0o777) != oct(0o700), "not mkdtemp's private mode"
    (out / "stale").write_text("x")
    session.run(prepared(WRITE), out, python=ok)
    assert not (out / "stale").exists()

    failing = fake_python(tmp_path, "echo boom >&2; exit 7\n")
    with pytest.raises(session.StepFailed) as err:
        session.run(prepared(WRITE, WRITE), out, python=failing)
    assert str(err.value) == "step 1/2 write exited 7" and err.value.result.output == "boom\n"
    assert outcome.evaluated.read_text() == "testbench.evaluate\n", "the previous run is untouched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-python", "testbench-run"], "no temporary left"


def test_a_directory_that_is_not_an_earlier_run_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(session.PrepareError, match="exists and is not the output of an earlier run --local"):
        session.run(prepared(WRITE), tmp_path, python=Path("/bin/true"))
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_warm_step_imports_ahead_and_runs_its_module_as_main_only_when_released(tmp_path: Path) -> None:
    """``python -c WARM_PRELUDE MODULE ARGS`` is ``python -m MODULE ARGS`` with the imports done early: the module
    runs as __main__ with the same argv once released, and not before; its own imports are already loaded."""
    import sys
    import time

    from kubectl_testbench.local.execute import WarmStep

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "heavy.py").write_text("import time\nLOADED_AT = time.time()\n")
    (package / "probe.py").write_text(
        "import json, sys, time\nimport heavy\n"
        "json.dump({'name': __name__, 'argv': sys.argv, 'heavy_before_main': heavy.LOADED_AT < time.time(),"
        " 'cwd_files': sorted(__import__('os').listdir('data'))}, open('probe.json', 'w'))\n")
    step = LocalStep("probe", ("-m", "probe", "a b", "--flag"), {"PYTHONPATH": str(package)},
                     files={"/data/in.json": b"{}"})
    warm = WarmStep(Path(sys.executable), step, tmp_path / "root", {"PATH": os.environ["PATH"]})
    time.sleep(0.5)
    assert not (tmp_path / "root" / "probe.json").exists(), "nothing of the module runs before release"
    assert not (tmp_path / "root" / "data").exists(), "files are placed at release"
    result = warm.release()
    assert result.returncode == 0, result.output
    import json

    seen = json.loads((tmp_path / "root" / "probe.json").read_text())
    assert seen == {"name": "__main__", "argv": [str(package / "probe.py"), "a b", "--flag"],
                    "heavy_before_main": True, "cwd_files": ["in.json"]}


def test_a_warm_step_that_is_never_released_is_stopped(tmp_path: Path) -> None:
    import sys

    from kubectl_testbench.local.execute import WarmStep

    warm = WarmStep(Path(sys.executable), LocalStep("p", ("-m", "json.tool")), tmp_path, {})
    warm.cancel()
    assert warm.running.process.poll() is not None


def test_a_container_step_runs_the_runtime_in_the_root_with_values_by_name_over_what_is_passed(tmp_path: Path) -> None:
    from kubectl_testbench.local.execute import run_container_step

    runtime = fake_python(tmp_path, 'echo "$@"; echo "URL=$URL KEEP=$KEEP OTHER=$OTHER"; pwd; cat data/in.json\n')
    root = tmp_path / "root"
    step = LocalStep("s", ("-m", "testbench.x", "http://localhost:1/v1"), {"URL": "http://127.0.0.1:1", "KEEP": "step"},
                     working_dir="/app", files={"/data/in.json": b'{"in": 1}'})
    lines: list[str] = []
    result = run_container_step(str(runtime), "img:1", step, root, on_line=lines.append, timeout=30,
                                base_env={"PATH": os.environ["PATH"], "KEEP": "base", "OTHER": "passed"})
    argv = container_command(str(runtime), "img:1", step, root).argv
    assert lines == [" ".join(argv[1:]), "URL=http://127.0.0.1:1 KEEP=step OTHER=passed", str(root), '{"in": 1}']
    assert (result.step, result.returncode, result.output, result.timed_out) == (step, 0, "\n".join(lines) + "\n",
                                                                                 False)
    assert 0 < result.seconds < 30


def test_a_container_step_gets_nothing_but_its_own_env_unless_passed_and_stops_at_its_timeout(tmp_path: Path) -> None:
    from kubectl_testbench.local.execute import run_container_step

    runtime = fake_python(tmp_path, 'echo "HOME=$HOME KEEP=$KEEP"; exit 4\n')
    step = LocalStep("s", ("-m", "testbench.x"), {"KEEP": "step"})
    result = run_container_step(str(runtime), "img", step, tmp_path / "root")
    assert (result.returncode, result.output, result.timed_out) == (4, "HOME= KEEP=step\n", False)
    sleeper = fake_python(tmp_path, "echo started; exec sleep 30\n")
    slow = run_container_step(str(sleeper), "img", step, tmp_path / "root", base_env={"PATH": os.environ["PATH"]},
                              timeout=0.5)
    assert slow.timed_out and slow.output == "started\n" and slow.seconds < 10


def test_output_lines_are_kept_as_written_undecodable_bytes_replaced_and_nothing_is_no_output(tmp_path: Path) -> None:
    python = fake_python(tmp_path, r"printf 'MAX\nspaced  \ncr\r\n\377bad\nlast'" + "\n")
    lines: list[str] = []
    result = run_step(python, LocalStep("s", ("x",)), tmp_path / "root", on_line=lines.append)
    assert lines == ["MAX", "spaced  ", "cr\r", "\ufffdbad", "last"]
    assert (result.returncode, result.output, result.timed_out) == (0, "MAX\nspaced  \ncr\r\n\ufffdbad\nlast\n", False)
    silent = run_step(fake_python(tmp_path, "exit 0\n"), LocalStep("s", ("x",)), tmp_path / "root")
    assert (silent.output, silent.tail()) == ("", "") and 0 < silent.seconds < 30


def test_a_step_never_reads_this_processs_stdin(tmp_path: Path) -> None:
    python = fake_python(tmp_path, "cat; echo end\n")
    read, write = os.pipe()
    os.write(write, b"typed at the terminal\n")
    os.close(write)
    saved = os.dup(0)
    os.dup2(read, 0)
    try:
        result = run_step(python, LocalStep("s", ("x",)), tmp_path / "root", timeout=30)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(read)
    assert result.output == "end\n"


def test_host_paths_relative_to_a_default_or_relative_working_dir_stay_under_the_root(tmp_path: Path) -> None:
    assert host_path(tmp_path, "data/x") == tmp_path / "data" / "x"
    assert host_path(tmp_path, "x", "work") == tmp_path / "work" / "x"
    assert host_path(tmp_path, "../../etc/passwd", "work") == tmp_path / "etc" / "passwd"


def test_a_step_without_files_still_gets_its_nested_working_dir(tmp_path: Path) -> None:
    from kubectl_testbench.local.execute import place_files

    assert place_files(LocalStep("s", ("x",), working_dir="/work/deep/dir"), tmp_path) == tmp_path / "work" / "deep" / \
        "dir"
    assert (tmp_path / "work" / "deep" / "dir").is_dir()


def warm_package(tmp_path: Path, main: str) -> Path:
    """A module ``probe`` whose top-level import prints while it warms up, and whose own body is ``main``."""
    package = tmp_path / "pkg"
    package.mkdir(exist_ok=True)
    (package / "noisy.py").write_text("print('imported', flush=True)\n")
    (package / "probe.py").write_text("import noisy\n" + main)
    return package


def warmed(warm: object, deadline: float = 20.0) -> None:
    """Until the warm step has said it imported (its reader holds the line)."""
    import time

    start = time.monotonic()
    while not warm.running.lines and time.monotonic() - start < deadline:  # type: ignore[attr-defined]
        time.sleep(0.02)
    assert warm.running.lines == ["imported"]  # type: ignore[attr-defined]


def test_a_warm_step_hands_over_what_it_printed_while_warming_then_the_rest(tmp_path: Path) -> None:
    import sys

    from kubectl_testbench.local.execute import WarmStep

    package = warm_package(tmp_path, "import os\nprint('ran in', os.getcwd())\n")
    step = LocalStep("probe", ("-m", "probe"), {"PYTHONPATH": str(package)}, working_dir="/work/deep")
    warm = WarmStep(Path(sys.executable), step, tmp_path / "root", {"PATH": os.environ["PATH"]})
    warmed(warm)
    lines: list[str] = []
    result = warm.release(on_line=lines.append, timeout=60)
    ran = f"ran in {tmp_path / 'root' / 'work' / 'deep'}"
    assert lines == ["imported", ran]
    assert (result.step, result.returncode, result.output, result.timed_out) == (step, 0, f"imported\n{ran}\n", False)
    assert 0 < result.seconds < 60


def test_a_released_warm_step_over_its_timeout_is_stopped(tmp_path: Path) -> None:
    import sys

    from kubectl_testbench.local.execute import WarmStep

    package = warm_package(tmp_path, "import time\nprint('running', flush=True)\ntime.sleep(30)\n")
    step = LocalStep("probe", ("-m", "probe"), {"PYTHONPATH": str(package)})
    warm = WarmStep(Path(sys.executable), step, tmp_path / "root", {"PATH": os.environ["PATH"]})
    warmed(warm)
    result = warm.release(timeout=1)
    assert result.timed_out and result.output == "imported\nrunning\n" and result.seconds < 10


def test_only_a_module_step_can_start_warm(tmp_path: Path) -> None:
    import sys

    from kubectl_testbench.local.execute import WarmStep

    with pytest.raises(ValueError, match=r"^step setup is not a -m step$"):
        WarmStep(Path(sys.executable), LocalStep("setup", ("-c", "print()")), tmp_path, {})
    assert list(tmp_path.iterdir()) == []
