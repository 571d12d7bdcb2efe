"""From a resolved TestWorkflow step (``render --resolve``) to what a process runs: argv, env, files.

A :class:`LocalStep` is a resolved step with every value known: the argv after the phase image's ENTRYPOINT
(``uv run python3``), the env with ``valueFrom`` references looked up (:mod:`.values`), and the mounted files'
bytes, all in container paths. Nothing is guessed: a step that runs another image or command, or a reference
that cannot be looked up, is a :class:`StepError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from kubectl_testbench import layout
from kubectl_testbench.local.values import Values, ValuesError
from kubectl_testbench.render.resolve import IMAGE_ENTRYPOINTS, ResolvedStep, ResolvedWorkflow

PHASE_ENTRYPOINT = list(IMAGE_ENTRYPOINTS[layout.TESTWORKFLOW_IMAGE])
"""``uv run python3``: what the phase image runs; the argv of a :class:`LocalStep` comes after it."""
SETUP_FLAG = "-c"


class StepError(Exception):
    """A resolved step that cannot run here (one line: the step and why)."""


@dataclass(frozen=True)
class LocalStep:
    """One step with everything known, in container paths (the container's ``/`` is mapped by the executor)."""

    name: str
    argv: tuple[str, ...]
    """After the image's ``python3``: ``("-m", "testbench.run", URL, NAME)`` or ``("-c", SCRIPT, …)``."""
    env: Mapping[str, str] = field(default_factory=dict)
    working_dir: str = "/"
    files: Mapping[str, bytes] = field(default_factory=dict)
    """Container path (absolute, or relative to ``working_dir``) → content, placed before the step starts."""
    image: str = ""
    template: str = ""

    @property
    def phase(self) -> str | None:
        """``setup``, ``run``, ``evaluate``, ``publish`` or ``visualize`` (None: not a phase of the image)."""
        if self.argv[:1] == (SETUP_FLAG,) and self.template == layout.SETUP_TEMPLATE:
            return "setup"
        if len(self.argv) >= 2 and self.argv[0] == "-m" and self.argv[1].startswith("testbench."):
            return self.argv[1].removeprefix("testbench.")
        return None

    def with_env(self, env: Mapping[str, str]) -> LocalStep:
        return replace(self, env=dict(env))


def local_step(step: ResolvedStep, values: Values) -> LocalStep:
    """``step`` with its references looked up; StepError when it is not a phase image step or a value is unknown."""
    if step.command != PHASE_ENTRYPOINT:
        shown = " ".join(step.command) or "the image's own ENTRYPOINT"
        raise StepError(f"step {step.name!r} ({step.template or 'workflow'}) runs {shown} in {step.image}: only "
                        f"the phase image's steps ({' '.join(PHASE_ENTRYPOINT)} …) can run here")
    env: dict[str, str] = {}
    for name, item in step.env.items():
        try:
            value = values.env(name, item.value_from) if item.value_from is not None else item.value or ""
        except ValuesError as err:
            raise StepError(f"step {step.name!r}: {err}") from None
        if value is not None:
            env[name] = value
    files: dict[str, bytes] = {}
    for mounted in step.files:
        if mounted.content is not None:
            files[mounted.path] = mounted.content.encode()
            continue
        try:
            files[mounted.path] = values.file(mounted.path, mounted.source)
        except ValuesError as err:
            raise StepError(f"step {step.name!r}: {err}") from None
    return LocalStep(name=step.name, argv=tuple(step.args), env=env, working_dir=step.working_dir or "/",
                     files=files, image=step.image, template=step.template)


def local_steps(workflow: ResolvedWorkflow, values: Values) -> list[LocalStep]:
    """Every step of ``workflow``, in run order."""
    return [local_step(step, values) for step in workflow.steps]
