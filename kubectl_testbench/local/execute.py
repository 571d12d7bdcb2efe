"""Run one :class:`~.steps.LocalStep` the way its container would: the container's ``/`` is a directory here.

Every container path (the working dir, the mounted files, the relative ``data/…`` paths the phases use) lands
under ``root``; ``..`` cannot leave it. The process gets only the step's env plus what the phase image sets
(``PYTHONUNBUFFERED``, ``PYTHONDONTWRITEBYTECODE``) and what the caller passes through (``base_env``), never
this process's whole environment. Output (stdout and stderr, merged as a container log is) is streamed line by
line to a callback and kept. With a container runtime the same step becomes a ``docker run``/``podman run``
command line (:func:`container_command`) that mounts ``root/data`` at ``/data``.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kubectl_testbench import layout
from kubectl_testbench.local.steps import PHASE_ENTRYPOINT, LocalStep

IMAGE_ENV = {"PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
"""What the phase image's Dockerfile sets for every phase (Dockerfile@84cbca3:22-23)."""
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
RUNTIMES = ("docker", "podman")
"""The container runtimes ``--runtime container`` looks for on PATH, in this order."""

Line = Callable[[str], None]


@dataclass(frozen=True)
class StepResult:
    step: LocalStep
    returncode: int
    output: str
    """stdout and stderr, interleaved as written (a container's log)."""
    seconds: float
    timed_out: bool = False

    def tail(self, lines: int = 25) -> str:
        return "\n".join(self.output.strip().splitlines()[-lines:])

    def explain(self) -> str:
        """For messages: the step, its exit code and the end of its log."""
        how = "timed out" if self.timed_out else f"exited {self.returncode}"
        return f"{self.step.name} ({' '.join(self.step.argv[:2])} …) {how}:\n{self.tail()}"


def host_path(root: Path, container_path: str, working_dir: str = "/") -> Path:
    """Where a container path lives under ``root``: ``/data/x`` → ``root/data/x``; ``..`` cannot escape root."""
    absolute = posixpath.normpath(posixpath.join("/", working_dir, container_path))
    return root.joinpath(*[part for part in absolute.split("/") if part])


def place_files(step: LocalStep, root: Path) -> Path:
    """Write the step's mounted files under ``root`` and create its working directory; returns that directory."""
    for path, content in step.files.items():
        target = host_path(root, path, step.working_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    cwd = host_path(root, step.working_dir)
    cwd.mkdir(parents=True, exist_ok=True)
    return cwd


def process_env(step: LocalStep, base_env: Mapping[str, str]) -> dict[str, str]:
    """``base_env`` (what the caller passes through: PATH, HOME, proxies …), the image's env, the step's env."""
    return {**base_env, **IMAGE_ENV, **step.env}


class Running:
    """A started process whose merged output is read line by line from the start; lines go to ``on_line`` once it
    is set (earlier ones are handed over then), and are all kept."""

    def __init__(self, command: Sequence[str], *, env: Mapping[str, str], cwd: Path, stdin: int | None) -> None:
        self.process = subprocess.Popen(list(command), cwd=cwd, env=dict(env), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, stdin=stdin)
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self._on_line: Line | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            with self._lock:
                self.lines.append(line)
                callback = self._on_line
            if callback is not None:
                callback(line)

    def follow(self, on_line: Line | None) -> None:
        with self._lock:  # held while the earlier lines are handed over, so none overtakes them
            self._on_line = on_line
            if on_line is not None:
                for line in self.lines:
                    on_line(line)

    def wait(self, timeout: float | None) -> tuple[int, str, bool]:
        """(exit code, output, timed out); the process is killed on a timeout or an interrupt."""
        timed_out = False
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            self.kill()
        except BaseException:  # an interrupt: the step must not outlive us
            self.kill()
            raise
        finally:
            self._reader.join(timeout=10)
        return self.process.returncode, "\n".join(self.lines) + ("\n" if self.lines else ""), timed_out

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def stream(command: Sequence[str], *, env: Mapping[str, str], cwd: Path, on_line: Line | None = None,
           timeout: float | None = None) -> tuple[int, str, bool]:
    """Run ``command``, passing each output line to ``on_line`` as it comes; (exit code, output, timed out)."""
    running = Running(command, env=env, cwd=cwd, stdin=subprocess.DEVNULL)
    running.follow(on_line)
    return running.wait(timeout)


def run_step(python: Path, step: LocalStep, root: Path, *, base_env: Mapping[str, str] | None = None,
             on_line: Line | None = None, timeout: float | None = None) -> StepResult:
    """Run ``step`` with the phase environment's ``python`` in ``root`` (the container's ``/``)."""
    cwd = place_files(step, root)
    start = time.monotonic()
    code, output, timed_out = stream([os.fspath(python), *step.argv], env=process_env(step, base_env or {}),
                                     cwd=cwd, on_line=on_line, timeout=timeout)
    return StepResult(step, code, output, time.monotonic() - start, timed_out)


# --- warm start: the next steps import while the one before them runs -------------------------------------------

WARM_PRELUDE = """\
import ast, importlib, importlib.util, runpy, sys
module = sys.argv[1]
spec = importlib.util.find_spec(module)
with open(spec.origin, "rb") as source:
    body = ast.parse(source.read()).body
for node in body:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        names = [node.module]
    else:
        continue
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            pass
if sys.stdin.readline() != "go\\n":
    sys.exit(0)
sys.stdin.close()
sys.argv = [spec.origin, *sys.argv[2:]]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""
"""``python -c WARM_PRELUDE MODULE ARGS…``: imports what ``MODULE`` imports at its top level (errors left for the
module itself to raise), waits for ``go`` on stdin, then runs ``MODULE`` as ``__main__`` with ``ARGS``: what
``python -m MODULE ARGS…`` does, with the imports done ahead of time. The module's own code runs unchanged."""


def warmable(step: LocalStep) -> bool:
    """A ``-m module`` step (every phase but the setup dispatcher, which is a ``-c`` script)."""
    return len(step.argv) >= 2 and step.argv[0] == "-m"


class WarmStep:
    """A step started ahead of its turn: its imports run now, its module when :meth:`release` says go."""

    def __init__(self, python: Path, step: LocalStep, root: Path, base_env: Mapping[str, str]) -> None:
        if not warmable(step):
            raise ValueError(f"step {step.name} is not a -m step")
        self.step, self.root = step, root
        cwd = host_path(root, step.working_dir)
        cwd.mkdir(parents=True, exist_ok=True)
        self.running = Running([os.fspath(python), "-c", WARM_PRELUDE, *step.argv[1:]],
                               env=process_env(step, base_env), cwd=cwd, stdin=subprocess.PIPE)

    def release(self, on_line: Line | None = None, timeout: float | None = None) -> StepResult:
        """Place the step's files, let it run, wait for it."""
        place_files(self.step, self.root)
        start = time.monotonic()
        stdin = self.running.process.stdin
        assert stdin is not None
        try:
            stdin.write(b"go\n")
            stdin.close()
        except BrokenPipeError:  # it ended while importing; its output says why
            pass
        self.running.follow(on_line)
        code, output, timed_out = self.running.wait(timeout)
        return StepResult(self.step, code, output, time.monotonic() - start, timed_out)

    def cancel(self) -> None:
        self.running.kill()


# --- the phase image under docker/podman ----------------------------------------------------------------------

@dataclass(frozen=True)
class ContainerCommand:
    """A ``docker run``/``podman run`` command line and the env its client needs: values are passed by name
    (``-e NAME``) and read from the client's env, so secrets never appear in the command line."""

    argv: list[str]
    env: dict[str, str]


def container_host(runtime: str) -> str:
    """The name a container uses for the machine it runs on (Docker Desktop, podman)."""
    return "host.containers.internal" if Path(runtime).name.startswith("podman") else "host.docker.internal"


def to_container_url(value: str, runtime: str, host_network: bool) -> str:
    """A loopback URL seen from the container: unchanged with host networking, else the host's name."""
    if host_network:
        return value
    for loopback in LOOPBACK_HOSTS:
        for scheme in ("http://", "https://"):
            rest = value[len(scheme + loopback):]
            if value.startswith(scheme + loopback) and rest[:1] in ("", ":", "/", "?", "#"):
                return scheme + container_host(runtime) + rest  # the host ends there: not 127.0.0.10, localhost.x
    return value


def container_command(runtime: str, image: str, step: LocalStep, root: Path, *,
                      platform: str = sys.platform) -> ContainerCommand:
    """``RUNTIME run`` for ``step``: the phase image with its own ENTRYPOINT, ``root/data`` mounted at ``/data``
    (the volume Testkube shares between steps), the step's working dir and env. On Linux the container shares
    the host's network, so ``127.0.0.1`` URLs (port-forwards, local stand-ins) reach the host; elsewhere they are
    rewritten to the runtime's host name. The container runs as the image's user (root), as in a Testkube pod:
    ``uv run`` syncs the image's project at start, which another user cannot (rootless podman maps root to the
    caller; rootful docker leaves the written files owned by root)."""
    host_network = platform.startswith("linux")
    data = host_path(root, layout.DATA_DIR)
    argv = [runtime, "run", "--rm", "--pull=missing", "--volume", f"{data}:{layout.DATA_DIR}",
            "--workdir", step.working_dir]
    if host_network:
        argv.append("--network=host")
    else:
        argv.append(f"--add-host={container_host(runtime)}:host-gateway")
    env = {name: to_container_url(value, runtime, host_network) for name, value in step.env.items()}
    for name in env:
        argv += ["--env", name]
    argv += [image, *(to_container_url(a, runtime, host_network) for a in step.argv)]
    return ContainerCommand(argv, env)


def run_container_step(runtime: str, image: str, step: LocalStep, root: Path, *,
                       base_env: Mapping[str, str] | None = None, on_line: Line | None = None,
                       timeout: float | None = None) -> StepResult:
    """Run ``step`` in the phase image itself (files placed under ``root`` first, as :func:`run_step` does)."""
    place_files(step, root)
    command = container_command(runtime, image, step, root)
    start = time.monotonic()
    code, output, timed_out = stream(command.argv, env={**(base_env or {}), **command.env}, cwd=root,
                                     on_line=on_line, timeout=timeout)
    return StepResult(step, code, output, time.monotonic() - start, timed_out)


__all__ = [
    "PHASE_ENTRYPOINT",
    "ContainerCommand",
    "StepResult",
    "container_command",
    "host_path",
    "run_container_step",
    "run_step",
]
