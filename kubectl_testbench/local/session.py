"""One ``run --local``: render and resolve the Experiment with our own code, plan the local endpoints, run every
step in a fresh directory, and put the finished ``data/`` tree in place.

The output directory is the container's ``/`` of every step: the phases write ``data/experiments/…`` and
``data/results/…`` there, ``logs/`` holds each step's log, and a marker file says the directory is ours (a
directory without it is never replaced). A run is built in a temporary directory beside it and renamed into
place only when every step exited 0, so a failed or interrupted run leaves the previous output as it was.
Library code: errors are exceptions (:class:`PrepareError` for usage, :class:`StepFailed` for a phase that
failed), progress goes to a callback.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kubectl_testbench import layout
from kubectl_testbench.local.execute import StepResult, WarmStep, host_path, run_container_step, run_step, warmable
from kubectl_testbench.local.plan import Endpoints, PlanError, plan
from kubectl_testbench.local.progress import Tracker
from kubectl_testbench.local.steps import LocalStep, StepError, local_steps
from kubectl_testbench.local.values import Values, ValuesError

if TYPE_CHECKING:
    from kubectl_testbench.validate.diagnostics import Diagnostic

MARKER = ".kubectl-testbench-run"
"""Marks an output directory as ours: only such a directory is replaced by the next run."""
EVALUATED = "data/experiments/evaluated_experiment.json"
REPORT = "data/results/evaluation_report.html"
PASSED_ENV = ("PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT",
              "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
              "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE")
"""What the phase processes get from this environment (the rest of their env is the resolved step's): where
programs are, the locale, and how to reach the network (proxies, CA bundles)."""

Say = Callable[[str], None]


class PrepareError(Exception):
    """The Experiment cannot be run here as given (usage: exit 2); ``details`` are the findings behind it."""

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details = list(details)


class StepFailed(Exception):
    """A step exited non-zero; nothing was written to the output directory."""

    def __init__(self, result: StepResult, index: int, total: int) -> None:
        super().__init__(f"step {index}/{total} {result.step.name} "
                         + ("timed out" if result.timed_out else f"exited {result.returncode}"))
        self.result = result


@dataclass(frozen=True)
class Prepared:
    """An Experiment rendered, resolved and planned: ready to run."""

    experiment: str
    """``namespace/name``."""
    workflow: str
    steps: list[LocalStep]
    warnings: list[str] = field(default_factory=list)
    """Validation warnings, one formatted line each."""

    @property
    def agent_url(self) -> str:
        return next(s.argv[2] for s in self.steps if s.phase == "run")

    @property
    def judge_url(self) -> str | None:
        return next((s.env.get("OPENAI_BASE_URL") for s in self.steps if s.phase == "evaluate"), None)


@dataclass(frozen=True)
class Outcome:
    output_dir: Path
    results: list[StepResult]

    @property
    def evaluated(self) -> Path:
        return self.output_dir / EVALUATED

    @property
    def report(self) -> Path:
        return self.output_dir / REPORT


def execution_id() -> str:
    """A Testkube-shaped execution id (24 hex: seconds, then random), so runs are told apart in reports."""
    return f"{int(time.time()):08x}{secrets.token_hex(8)}"


def prepare(path: str, endpoints: Endpoints, *, namespace: str | None = None,
            given_env: Mapping[str, str] | None = None, values: Sequence[Mapping[str, Any]] = (),
            execution: str | None = None) -> Prepared:
    """Validate and render ``path`` (one Experiment, defaults file discovered as ``render`` does), resolve its
    workflow against the templates ``install`` ships, and plan the local endpoints."""
    from kubectl_testbench.model.constants import DEFAULT_NAMESPACE
    from kubectl_testbench.pipeline.render import Request, render_all
    from kubectl_testbench.render.resolve import ExecutionContext, resolve_objects
    from kubectl_testbench.render.settings import Flags

    outcome = render_all([path], Request(flags=Flags(namespace=namespace or DEFAULT_NAMESPACE), fmt="json"), jobs=1)
    if not outcome.ok:
        raise PrepareError(f"{path}: nothing run: {outcome.counts.summary()}", _lines(outcome.problems))
    objects = [o.data for o in outcome.objects if o.data is not None]
    workflows = [o for o in objects if o.get("kind") == "TestWorkflow"]
    if len(workflows) != 1:
        raise PrepareError(f"{path}: holds {len(workflows)} Experiments; run --local runs exactly one")
    from kubectl_testbench.model import naming

    labels = workflows[0]["metadata"]["labels"]  # render puts both on every object it writes
    experiment = f"{labels[naming.LABEL_NAMESPACE]}/{labels[naming.LABEL_NAME]}"
    resolved = resolve_objects(objects, execution=ExecutionContext(id=execution or execution_id()))
    if resolved.failures:
        _, err = resolved.failures[0]
        raise PrepareError(f"{path}: the workflow does not resolve: {err}")
    [workflow] = resolved.workflows
    try:
        steps = plan(local_steps(workflow, Values(values, given_env)), endpoints, given_env)
    except (StepError, PlanError, ValuesError) as err:
        raise PrepareError(str(err)) from None
    return Prepared(experiment, workflow.name, steps, _lines(outcome.warnings))


def _lines(diagnostics: Iterable[Diagnostic]) -> list[str]:
    """One finding each, as ``validate`` prints it, without the newline that ends every one."""
    from kubectl_testbench.validate.report import text_line

    return [text_line(d).removesuffix("\n") for d in diagnostics]


def check_output_dir(output_dir: Path) -> None:
    """Refuse a directory we would replace but did not write (anything but an earlier run's output)."""
    if output_dir.is_symlink() or (output_dir.exists() and not output_dir.is_dir()):
        raise PrepareError(f"--output-dir {output_dir}: exists and is not a directory")
    if output_dir.is_dir() and any(output_dir.iterdir()) and not (output_dir / MARKER).is_file():
        raise PrepareError(f"--output-dir {output_dir}: exists and is not the output of an earlier run --local "
                           f"(no {MARKER}); choose another directory or empty it")


def dataset_shape(root: Path) -> list[int]:
    """Steps per scenario of the dataset the run phase will read (empty when it is not there or not JSON)."""
    try:
        data = json.loads(host_path(root, layout.DATASET_PATH).read_text(encoding="utf-8"))
        return [len(s.get("steps") or []) for s in data.get("scenarios") or []]
    except (OSError, ValueError, AttributeError, TypeError):
        return []


def run(prepared: Prepared, output_dir: Path, *, python: Path | None = None, runtime: str | None = None,
        image: str | None = None, say: Say | None = None, timeout: float | None = None) -> Outcome:
    """Run every step (``python``: the phase environment; or ``runtime``: docker/podman with the phase image),
    then swap the finished directory in. Raises :class:`StepFailed` at the first step that fails."""
    if (python is None) == (runtime is None):
        raise ValueError("give exactly one of python and runtime")
    tell = say or (lambda _line: None)
    check_output_dir(output_dir)
    output_dir = output_dir.absolute()
    output_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output_dir.name}.running-", dir=output_dir.parent))
    umask = os.umask(0)
    os.umask(umask)
    work.chmod(0o777 & ~umask)  # mkdtemp's 0700 would end up on the output directory
    base_env = {k: v for k, v in os.environ.items() if k in PASSED_ENV} if runtime is None else dict(os.environ)
    results: list[StepResult] = []
    warm: dict[int, WarmStep] = {}
    try:
        (work / "logs").mkdir()
        if python is not None:  # every -m step imports now, while the steps before it run (execute.WARM_PRELUDE)
            warm = {i: WarmStep(python, step, work, base_env) for i, step in enumerate(prepared.steps)
                    if warmable(step)}
        total = len(prepared.steps)
        for index, step in enumerate(prepared.steps, start=1):
            tell(f"[{index}/{total}] {step.name} ({step.phase or ' '.join(step.argv[:2])})")
            tracker = Tracker(step.phase, tell, lambda: dataset_shape(work))
            if runtime is not None:
                result = run_container_step(runtime, image or step.image, step, work, base_env=base_env,
                                            on_line=tracker.line, timeout=timeout)
            elif index - 1 in warm:
                result = warm.pop(index - 1).release(on_line=tracker.line, timeout=timeout)
            else:
                assert python is not None
                result = run_step(python, step, work, base_env=base_env, on_line=tracker.line, timeout=timeout)
            (work / "logs" / f"{index:02d}-{step.name}.log").write_text(result.output, encoding="utf-8")
            results.append(result)
            if result.returncode != 0 or result.timed_out:
                raise StepFailed(result, index, total)
            tell(f"      {step.name} done in {result.seconds:.1f} s")
        (work / MARKER).write_text(f"{prepared.experiment}\n", encoding="utf-8")
        _swap(work, output_dir)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    finally:
        for started in warm.values():
            started.cancel()
    return Outcome(output_dir, results)


def _swap(new: Path, target: Path) -> None:
    """Put ``new`` at ``target``; an earlier run's directory there goes (renamed aside first, then removed)."""
    if not target.exists():
        os.rename(new, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rename(target, old / "previous")
    os.rename(new, target)
    shutil.rmtree(old, ignore_errors=True)
