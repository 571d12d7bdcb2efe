"""A resolved step as a process: which steps are phases, the env after references, the files, the refusals."""

from __future__ import annotations

import pytest

from kubectl_testbench.layout import SETUP_TEMPLATE
from kubectl_testbench.local.steps import PHASE_ENTRYPOINT, LocalStep, StepError, local_step, local_steps
from kubectl_testbench.local.values import Values
from kubectl_testbench.render.resolve import EnvValue, MountedFile, ResolvedStep, ResolvedWorkflow

SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v", "f": "body"}}


def step(**changes: object) -> ResolvedStep:
    base: dict[str, object] = {"name": "run", "template": "run-template", "image": "img:1",
                               "command": list(PHASE_ENTRYPOINT), "args": ["-m", "testbench.run", "http://a", "x"],
                               "working_dir": "/app", "env": {}}
    return ResolvedStep(**(base | changes))  # type: ignore[arg-type]


@pytest.mark.parametrize(("argv", "template", "phase"), [
    (("-c", "import x"), SETUP_TEMPLATE, "setup"),
    (("-c", "import x"), "run-template", None),  # a script outside the setup template is no phase
    (("-m", "testbench.run", "u"), "", "run"),
    (("-m", "testbench.evaluate"), "x", "evaluate"),
    (("-m", "other.run"), "", None),
    (("-m",), "", None),
    (("testbench.run", "-m"), "", None),
    ((), SETUP_TEMPLATE, None),
])
def test_the_phase_of_a_step(argv: tuple[str, ...], template: str, phase: str | None) -> None:
    assert LocalStep("s", argv, template=template).phase == phase


def test_with_env_replaces_the_env_and_keeps_the_rest() -> None:
    original = LocalStep("s", ("-m", "testbench.run"), {"A": "1"}, "/w", {"/f": b"x"}, "img", "t")
    changed = original.with_env({"B": "2"})
    assert changed == LocalStep("s", ("-m", "testbench.run"), {"B": "2"}, "/w", {"/f": b"x"}, "img", "t")
    assert original.env == {"A": "1"}


def test_a_resolved_step_becomes_argv_env_and_files() -> None:
    resolved = step(env={"CI": EnvValue("1"), "EMPTY": EnvValue(None), "FROM": EnvValue(value_from={
                    "secretKeyRef": {"name": "s", "key": "k"}}), "GONE": EnvValue(value_from={
                    "secretKeyRef": {"name": "none", "key": "k", "optional": True}})},
                    files=[MountedFile("/data/x.json", {"configMap": "c"}, "{}"),
                           MountedFile("creds", {"secretKeyRef": {"name": "s", "key": "f"}})])
    local = local_step(resolved, Values([SECRET]))
    assert local == LocalStep("run", ("-m", "testbench.run", "http://a", "x"), {"CI": "1", "EMPTY": "", "FROM": "v"},
                              "/app", {"/data/x.json": b"{}", "creds": b"body"}, "img:1", "run-template")
    assert list(local.env) == ["CI", "EMPTY", "FROM"]  # the optional reference that finds nothing stays unset
    assert local_step(step(working_dir=""), Values()).working_dir == "/"


def test_a_step_of_another_command_is_refused_naming_it() -> None:
    with pytest.raises(StepError) as err:
        local_step(step(command=["sh", "-c"]), Values())
    assert str(err.value) == ("step 'run' (run-template) runs sh -c in img:1: only the phase image's steps "
                              "(uv run python3 …) can run here")
    with pytest.raises(StepError) as err:
        local_step(step(command=[], template="", name="own"), Values())
    assert str(err.value) == ("step 'own' (workflow) runs the image's own ENTRYPOINT in img:1: only the phase "
                              "image's steps (uv run python3 …) can run here")


def test_references_that_find_nothing_name_the_step() -> None:
    with pytest.raises(StepError) as err:
        local_step(step(env={"P": EnvValue(value_from={"fieldRef": {}})}), Values())
    assert str(err.value) == ("step 'run': env P comes from fieldRef, which only a pod in the cluster has: give it "
                              "with --env P=VALUE")
    with pytest.raises(StepError) as err:
        local_step(step(files=[MountedFile("/f", {"secretKeyRef": {"name": "s", "key": "nope"}})]), Values([SECRET]))
    assert str(err.value) == ("step 'run': file /f comes from secretKeyRef s/nope: give the Secret with "
                              "--values-from FILE (kubectl get secret s -o yaml)")


def test_every_step_in_run_order() -> None:
    workflow = ResolvedWorkflow("w", "ns", [step(name="a"), step(name="b")])
    assert [s.name for s in local_steps(workflow, Values())] == ["a", "b"]
