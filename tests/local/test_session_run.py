"""session.run() in-process, with the step runners faked: which runner each step goes to and with what (the
phase environment's python or the container runtime, the env passed through, the timeout, the directory the
steps share), the progress lines, the logs and marker written, which warm starts are released or cancelled, and
what the output directory holds afterwards, also when a directory cannot be removed. The real processes behind
the runners: test_execute_session.py."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kubectl_testbench import layout
from kubectl_testbench.local import session
from kubectl_testbench.local.execute import StepResult, host_path
from kubectl_testbench.local.steps import LocalStep

PYTHON = Path("/env/bin/python")
SETUP = LocalStep("setup", ("-c", "dispatch", "inline"), template=layout.SETUP_TEMPLATE, image="phase:1")
SCRIPT = LocalStep("script", ("-c", "print()", "extra"), image="phase:1")
RUN = LocalStep("run", ("-m", "testbench.run", "http://127.0.0.1:8000", "exp"), image="phase:1")
EVALUATE = LocalStep("evaluate", ("-m", "testbench.evaluate", "exp"), image="phase:2")
DATASET = b'{"scenarios": [{"name": "A", "steps": [{}]}, {"name": "B", "steps": [{}, {}]}]}'
LINES = {
    "setup": ["INFO:testbench.setup:dataset written"],
    "script": ["plain output"],
    "run": ["INFO:testbench.run:Scenario 'A' started (id=1, trace_id=0)", "INFO:testbench.run:  Step: hi"],
    "evaluate": ["INFO:testbench.evaluate:Evaluating scenario 'A'"],
}


@dataclass
class Fake:
    """What the runners were asked to do, and how each step ends (name → (exit code, timed out))."""

    calls: list[tuple[object, ...]] = field(default_factory=list)
    ends: dict[str, tuple[int, bool]] = field(default_factory=dict)
    results: list[StepResult] = field(default_factory=list)
    roots: set[Path] = field(default_factory=set)
    during: Callable[[str], None] = lambda _name: None

    def result(self, step: LocalStep, root: Path, on_line: Callable[[str], None] | None) -> StepResult:
        self.roots.add(root)
        if step.name == "setup":
            host_path(root, layout.DATASET_PATH).parent.mkdir(parents=True, exist_ok=True)
            host_path(root, layout.DATASET_PATH).write_bytes(DATASET)
        assert on_line is not None
        for line in LINES[step.name]:
            on_line(line)
        self.during(step.name)
        code, timed_out = self.ends.get(step.name, (0, False))
        result = StepResult(step, code, "\n".join(LINES[step.name]) + "\n", 0.25 + len(self.results), timed_out)
        self.results.append(result)
        return result


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Fake:
    fake = Fake()

    def run_step(python: Path, step: LocalStep, root: Path, *, base_env: dict[str, str] | None = None,
                 on_line: Callable[[str], None] | None = None, timeout: float | None = None) -> StepResult:
        fake.calls.append(("run_step", python, step.name, base_env, timeout))
        return fake.result(step, root, on_line)

    def run_container_step(runtime: str, image: str, step: LocalStep, root: Path, *,
                           base_env: dict[str, str] | None = None, on_line: Callable[[str], None] | None = None,
                           timeout: float | None = None) -> StepResult:
        fake.calls.append(("container", runtime, image, step.name, base_env, timeout))
        return fake.result(step, root, on_line)

    class WarmStep:
        def __init__(self, python: Path, step: LocalStep, root: Path, base_env: dict[str, str]) -> None:
            self.step, self.root = step, root
            fake.roots.add(root)
            fake.calls.append(("warm", python, step.name, base_env))

        def release(self, on_line: Callable[[str], None] | None = None, timeout: float | None = None) -> StepResult:
            fake.calls.append(("release", self.step.name, timeout))
            return fake.result(self.step, self.root, on_line)

        def cancel(self) -> None:
            fake.calls.append(("cancel", self.step.name))

    monkeypatch.setattr(session, "run_step", run_step)
    monkeypatch.setattr(session, "run_container_step", run_container_step)
    monkeypatch.setattr(session, "WarmStep", WarmStep)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("KUBECTL_TESTBENCH_TEST_SECRET", "not for the phases")
    return fake


def prepared(*steps: LocalStep, experiment: str = "ns/exp") -> session.Prepared:
    return session.Prepared(experiment, "exp-ns-workflow", list(steps))


def passed_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in session.PASSED_ENV}


def test_the_phase_environment_runs_every_step_warm_starting_the_module_ones(fake: Fake, tmp_path: Path) -> None:
    said: list[str] = []
    out = tmp_path / "testbench-run"
    outcome = session.run(prepared(SETUP, SCRIPT, RUN, EVALUATE), out, python=PYTHON, say=said.append, timeout=12.5)

    env = passed_env()
    assert env["LANG"] == "C.UTF-8" and "KUBECTL_TESTBENCH_TEST_SECRET" not in env
    assert fake.calls == [
        ("warm", PYTHON, "run", env), ("warm", PYTHON, "evaluate", env),
        ("run_step", PYTHON, "setup", env, 12.5), ("run_step", PYTHON, "script", env, 12.5),
        ("release", "run", 12.5), ("release", "evaluate", 12.5)]
    assert said == ["[1/4] setup (setup)", "      setup done in 0.2 s",
                    "[2/4] script (-c print())", "      script done in 1.2 s",
                    "[3/4] run (run)", "  scenario 1/2: A", "    step 1/1: hi", "      run done in 2.2 s",
                    "[4/4] evaluate (evaluate)", "  scenario 1/2: A", "      evaluate done in 3.2 s"]
    [work] = fake.roots
    assert work.parent == tmp_path and work.name.startswith(".testbench-run.running-")
    assert outcome.output_dir == out and outcome.results == fake.results
    assert sorted(p.name for p in (out / "logs").iterdir()) == ["01-setup.log", "02-script.log", "03-run.log",
                                                                 "04-evaluate.log"]
    assert (out / "logs" / "03-run.log").read_text(encoding="utf-8") == "\n".join(LINES["run"]) + "\n"
    assert (out / session.MARKER).read_text(encoding="utf-8") == "ns/exp\n"
    assert host_path(out, layout.DATASET_PATH).read_bytes() == DATASET
    assert sorted(p.name for p in tmp_path.iterdir()) == ["testbench-run"]


def test_a_container_runtime_runs_every_step_in_the_image_with_this_whole_environment(fake: Fake,
                                                                                       tmp_path: Path) -> None:
    said: list[str] = []
    session.run(prepared(SETUP, RUN, EVALUATE), tmp_path / "out", runtime="/usr/bin/docker", say=said.append)
    everything = dict(os.environ)
    assert everything["KUBECTL_TESTBENCH_TEST_SECRET"] == "not for the phases"
    assert fake.calls == [("container", "/usr/bin/docker", "phase:1", "setup", everything, None),
                          ("container", "/usr/bin/docker", "phase:1", "run", everything, None),
                          ("container", "/usr/bin/docker", "phase:2", "evaluate", everything, None)]
    assert "  scenario 1/2: A" in said
    fake.calls.clear()
    session.run(prepared(RUN), tmp_path / "out", runtime="podman", image="mine:3", timeout=5)
    assert fake.calls == [("container", "podman", "mine:3", "run", everything, 5)]


def test_give_exactly_one_of_python_and_runtime(tmp_path: Path) -> None:
    for python, runtime in ((None, None), (PYTHON, "docker")):
        with pytest.raises(ValueError, match=r"^give exactly one of python and runtime$"):
            session.run(prepared(RUN), tmp_path / "out", python=python, runtime=runtime)
    assert list(tmp_path.iterdir()) == []


def test_without_say_a_run_is_silent_and_still_complete(fake: Fake, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    outcome = session.run(prepared(SETUP), tmp_path / "out", python=PYTHON)
    assert capsys.readouterr() == ("", "") and outcome.results == fake.results


def test_the_output_directory_is_made_with_its_parents_relative_to_here_and_with_the_umask(
        fake: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    old = os.umask(0o027)
    try:
        outcome = session.run(prepared(SETUP), Path("a/b/out"), python=PYTHON)
    finally:
        os.umask(old)
    assert outcome.output_dir == tmp_path / "a" / "b" / "out" and outcome.output_dir.is_absolute()
    assert (outcome.output_dir.stat().st_mode & 0o7777) == 0o750
    assert (tmp_path / "a" / "b" / "out" / session.MARKER).is_file()


@pytest.mark.parametrize(("ends", "message"), [((3, False), "step 2/3 run exited 3"),
                                               ((0, True), "step 2/3 run timed out")])
def test_a_failed_step_stops_the_run_cancels_the_warm_starts_and_leaves_the_earlier_output(
        fake: Fake, tmp_path: Path, ends: tuple[int, bool], message: str) -> None:
    out = tmp_path / "out"
    session.run(prepared(SETUP), out, python=PYTHON)
    fake.calls.clear()
    fake.ends["run"] = ends
    said: list[str] = []
    with pytest.raises(session.StepFailed) as err:
        session.run(prepared(SETUP, RUN, EVALUATE), out, python=PYTHON, say=said.append)
    assert str(err.value) == message and err.value.result is fake.results[-1]
    assert fake.calls[-2:] == [("release", "run", None), ("cancel", "evaluate")]
    assert said[-1] == "    step 1/1: hi", "no 'done' line for a failed step"
    assert sorted(p.name for p in out.iterdir()) == [session.MARKER, "data", "logs"]
    assert sorted(p.name for p in (out / "logs").iterdir()) == ["01-setup.log"], "the earlier run, untouched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "no temporary directory left"


@contextmanager
def nothing_removable(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A file system that refuses every removal (files written by another user, say)."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(args[0]))

    with monkeypatch.context() as patched:
        patched.setattr(os, "rmdir", refuse)
        patched.setattr(os, "unlink", refuse)
        yield


def test_a_failed_run_that_cannot_be_cleaned_up_still_reports_the_step(fake: Fake, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    fake.ends["setup"] = (1, False)
    with nothing_removable(monkeypatch), pytest.raises(session.StepFailed, match=r"^step 1/1 setup exited 1$"):
        session.run(prepared(SETUP), tmp_path / "out", python=PYTHON)
    [left] = tmp_path.iterdir()
    assert left.name.startswith(".out.running-") and (left / "logs" / "01-setup.log").is_file()


def test_an_earlier_run_that_cannot_be_removed_is_left_aside_and_the_new_one_is_in_place(
        fake: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    session.run(prepared(SETUP, experiment="ns/first"), out, python=PYTHON)
    with nothing_removable(monkeypatch):
        outcome = session.run(prepared(SETUP, experiment="ns/second"), out, python=PYTHON)
    assert outcome.output_dir == out and (out / session.MARKER).read_text(encoding="utf-8") == "ns/second\n"
    [aside] = (p for p in tmp_path.iterdir() if p.name != "out")
    assert aside.name.startswith(".out.old-")
    assert (aside / "previous" / session.MARKER).read_text(encoding="utf-8") == "ns/first\n"


@pytest.mark.usefixtures("ascii_locale")
def test_logs_and_the_marker_are_utf_8_whatever_the_locale(fake: Fake, tmp_path: Path) -> None:
    LINES["unicode"] = ["naïve ✓ 雨"]
    try:
        session.run(prepared(LocalStep("unicode", ("-c", "x")), experiment="ns/ünï"), tmp_path / "out",
                    python=PYTHON)
    finally:
        del LINES["unicode"]
    assert (tmp_path / "out" / "logs" / "01-unicode.log").read_bytes() == "naïve ✓ 雨\n".encode()
    assert (tmp_path / "out" / session.MARKER).read_bytes() == "ns/ünï\n".encode()
