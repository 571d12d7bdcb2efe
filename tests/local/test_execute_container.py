"""The pure parts of running a step: loopback URLs as a container sees them, the env a process gets, where files
land, what a failed step's message shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_testbench.local.execute import (
    StepResult,
    container_command,
    container_host,
    host_path,
    place_files,
    process_env,
    to_container_url,
    warmable,
)
from kubectl_testbench.local.steps import LocalStep


@pytest.mark.parametrize(("url", "seen"), [
    ("http://127.0.0.1", "http://host.docker.internal"),
    ("http://127.0.0.1:8000/v1", "http://host.docker.internal:8000/v1"),
    ("https://localhost/x", "https://host.docker.internal/x"),
    ("http://localhost?q=1", "http://host.docker.internal?q=1"),
    ("http://localhost#f", "http://host.docker.internal#f"),
    ("http://[::1]:9000", "http://host.docker.internal:9000"),
    ("http://127.0.0.10:8000", "http://127.0.0.10:8000"),  # another address that starts the same
    ("http://localhost.example.com/x", "http://localhost.example.com/x"),
    ("http://localhostx:1", "http://localhostx:1"),
    ("ftp://127.0.0.1/x", "ftp://127.0.0.1/x"),
    ("127.0.0.1:8000", "127.0.0.1:8000"),
    ("http://gw.ns:80", "http://gw.ns:80"),
])
def test_loopback_urls_as_a_container_without_host_networking_sees_them(url: str, seen: str) -> None:
    assert to_container_url(url, "docker", host_network=False) == seen
    assert to_container_url(url, "docker", host_network=True) == url


@pytest.mark.parametrize(("runtime", "host"), [
    ("docker", "host.docker.internal"),
    ("/usr/local/bin/docker", "host.docker.internal"),
    ("podman", "host.containers.internal"),
    ("/opt/podman-remote", "host.containers.internal"),
    ("/podman/bin/docker", "host.docker.internal"),  # the program's name counts, not its directory
])
def test_the_runtimes_name_for_the_host(runtime: str, host: str) -> None:
    assert container_host(runtime) == host


def test_a_step_in_its_working_dir_with_its_env_by_name(tmp_path: Path) -> None:
    step = LocalStep("evaluate", ("-m", "testbench.evaluate", "http://localhost:4000"), {"URL": "http://[::1]:1"},
                     working_dir="/app")
    command = container_command("podman", "img", step, tmp_path, platform="darwin")
    assert command.argv == [
        "podman", "run", "--rm", "--pull=missing", "--volume", f"{tmp_path / 'data'}:/data", "--workdir", "/app",
        "--add-host=host.containers.internal:host-gateway", "--env", "URL", "img", "-m", "testbench.evaluate",
        "http://host.containers.internal:4000"]
    assert command.env == {"URL": "http://host.containers.internal:1"}
    assert "--network=host" in container_command("podman", "img", step, tmp_path, platform="linux2").argv


def test_the_process_env_is_passed_through_then_the_images_then_the_steps() -> None:
    step = LocalStep("s", ("-m", "x"), {"PYTHONUNBUFFERED": "0", "A": "step"})
    assert process_env(step, {"PATH": "/bin", "A": "base", "PYTHONDONTWRITEBYTECODE": "0"}) == {
        "PATH": "/bin", "A": "step", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "0"}


def test_files_land_under_the_root_relative_to_the_working_dir(tmp_path: Path) -> None:
    step = LocalStep("s", ("-m", "x"), working_dir="/work/dir",
                     files={"/data/a.json": b"{}", "rel/b.txt": b"b", "../../../../up.txt": b"u"})
    cwd = place_files(step, tmp_path)
    assert cwd == tmp_path / "work" / "dir" and cwd.is_dir()
    assert (tmp_path / "data" / "a.json").read_bytes() == b"{}"
    assert (tmp_path / "work" / "dir" / "rel" / "b.txt").read_bytes() == b"b"
    assert (tmp_path / "up.txt").read_bytes() == b"u"
    assert host_path(tmp_path, "/") == tmp_path


@pytest.mark.parametrize(("argv", "warm"), [
    (("-m", "testbench.run"), True),
    (("-m",), False),
    (("-c", "script"), False),
    ((), False),
])
def test_which_steps_start_ahead(argv: tuple[str, ...], warm: bool) -> None:
    assert warmable(LocalStep("s", argv)) is warm


def test_a_failed_steps_explanation_is_its_exit_and_the_end_of_its_log() -> None:
    step = LocalStep("evaluate", ("-m", "testbench.evaluate", "exp"))
    log = "\n".join(f"line {n}" for n in range(1, 31)) + "\n\n"
    failed = StepResult(step, 2, log, 1.5)
    assert failed.explain() == "evaluate (-m testbench.evaluate …) exited 2:\n" + "\n".join(
        f"line {n}" for n in range(6, 31))
    assert StepResult(step, -9, "  only\n", 9.0, timed_out=True).explain() == (
        "evaluate (-m testbench.evaluate …) timed out:\nonly")
    assert failed.tail(2) == "line 29\nline 30"
