"""``kubectl testbench run``: start an Experiment's TestWorkflow and optionally wait for its result."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem

from kubectl_testbench.cli.cluster_options import (
    EXIT_CODES_HELP,
    Duration,
    cluster_errors,
    cluster_options,
    connect,
    default_namespace,
    quiet_cluster,
)
from kubectl_testbench.cli.common import EXIT_FINDINGS, fail
from kubectl_testbench.cluster.config import ClusterOptions

if TYPE_CHECKING:
    from kubectl_testbench.cluster.client import Client
    from kubectl_testbench.cluster.execution import Progress, Target


def complete_experiments(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Experiment names in the namespace: Experiment resources and generated TestWorkflows' labels."""

    def names(client: Client) -> list[str]:
        """Only valid names: what a misbehaving server lists goes into the user's shell."""
        from kubectl_testbench.cluster.resources import EXPERIMENT, TESTWORKFLOW, dig
        from kubectl_testbench.k8snames import dns1123_subdomain_error
        from kubectl_testbench.layout import TESTKUBE_NAMESPACE
        from kubectl_testbench.model import naming

        namespace = ctx.params.get("namespace") or client.connection.namespace
        found: set[Any] = set()
        if client.served(EXPERIMENT):
            found.update(dig(e, "metadata", "name") for e in client.list(EXPERIMENT, namespace))
        if client.served(TESTWORKFLOW):
            testkube = ctx.params.get("testkube_namespace") or TESTKUBE_NAMESPACE
            for wf in client.list(TESTWORKFLOW, testkube, f"{naming.LABEL_NAMESPACE}={namespace}"):
                found.add(dig(wf, "metadata", "labels", naming.LABEL_NAME))
        return sorted(n for n in found if isinstance(n, str) and not dns1123_subdomain_error(n))

    return [CompletionItem(n) for n in quiet_cluster(ctx, names) if n.startswith(incomplete)]


def _pairs(word: str) -> Callable[[click.Context, click.Parameter, tuple[str, ...]], dict[str, str]]:
    """A click callback turning repeated ``WORD=VALUE`` options into a dict (a later one of a name wins)."""

    def parse(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, str]:
        pairs: dict[str, str] = {}
        for value in values:
            key, sep, val = value.partition("=")
            if not sep or not key:
                raise click.BadParameter(f"{value!r}: use {word}=VALUE", ctx, param)
            pairs[key] = val
        return pairs

    return parse


LOCAL_EXIT_CODES = ("With --local: 0 every evaluation passed, 1 one failed or errored, 2 usage, 3 agent or judge "
                    "unreachable (checked first), a phase step failed, or the phase environment could not be built.")
CLUSTER_ONLY = ("testkube_namespace", "wait", "poll_interval", "tags", "dry_run", "kubeconfig", "context",
                "request_timeout")
LOCAL_ONLY = ("agent_url", "judge_url", "otlp_endpoint", "output_dir", "phase_python", "runtime", "image", "env",
              "values_from")


@click.command(epilog=EXIT_CODES_HELP + " With --wait, 1 also means the execution failed, was aborted or did "
               "not finish within --timeout. " + LOCAL_EXIT_CODES)
@click.argument("experiment", shell_complete=complete_experiments)
@click.option("--testkube-namespace", default=None, help="Namespace of Testkube and the workflow [testkube].")
@click.option("--wait", is_flag=True, help="Follow the execution until it ends; exit 1 unless it passed.")
@click.option("--timeout", type=Duration(), default="30m", show_default=True,
              help="With --wait: give up waiting after this long (the execution keeps running). With --local: "
                   "stop a step that runs longer.")
@click.option("--poll-interval", type=Duration(), default="2s", show_default=True,
              help="With --wait: how often to read the execution's status.")
@click.option("--tag", "tags", multiple=True, metavar="KEY=VALUE", callback=_pairs("KEY"),
              help="Testkube execution tag (repeatable).")
@click.option("--dry-run", type=click.Choice(("none", "client", "server")), default="none", show_default=True,
              help="client: print the TestWorkflowExecution and send nothing; server: create it with dryRun=All.")
@click.option("-o", "--output", "fmt", type=click.Choice(("name", "yaml", "json", "table", "csv", "markdown",
                                                          "junit")), default=None,
              help="What to print on stdout: the execution's name, or a record of it (name|yaml|json) [name]. "
                   "With --local: the results summary (table|json|csv|markdown|junit) [table].")
@click.option("--local", is_flag=True,
              help="Run the Experiment in FILE on this machine with the phase image's own code: no cluster, no "
                   "Testkube (docs/run-local.md).")
@click.option("--agent-url", default=None, metavar="URL",
              help="With --local: the agent's A2A URL here (required: the Experiment's is a Service in the "
                   "cluster; kubectl port-forward it).")
@click.option("--judge-url", default=None, metavar="URL",
              help="With --local: OpenAI-compatible base URL of the judge (key from $OPENAI_API_KEY, else "
                   "\"testbench\") [the Experiment's gateway, unless it is in-cluster].")
@click.option("--otlp-endpoint", default=None, metavar="URL",
              help="With --local: OTLP/HTTP endpoint for traces and scores [none: OTEL_SDK_DISABLED=true].")
@click.option("--output-dir", default=None, metavar="DIR",
              help="With --local: where the run's data/ tree and logs go, replaced by each run [testbench-run].")
@click.option("--phase-python", default=None, metavar="PATH",
              help="With --local: Python >= 3.12 for the phase environment [python3.13, python3.12, pyenv's].")
@click.option("--runtime", type=click.Choice(("local", "container")), default=None,
              help="With --local: run the phases in a cached virtualenv (local), or the phase image itself with "
                   "docker/podman (container) [local].")
@click.option("--image", default=None, metavar="IMAGE",
              help="With --runtime container: the phase image [the templates' image].")
@click.option("--env", "env", multiple=True, metavar="NAME=VALUE", callback=_pairs("NAME"),
              help="With --local: set a variable for every step, over the Experiment's (repeatable): MinIO "
                   "endpoint and credentials, values the cluster would take from Secrets.")
@click.option("--values-from", "values_from", multiple=True, metavar="PATH", type=click.Path(exists=True),
              help="With --local: Secrets/ConfigMaps (YAML/JSON files or directories, e.g. kubectl get secret X "
                   "-o yaml) that the Experiment's valueFrom references read (repeatable).")
@cluster_options
@click.pass_context
def run(ctx: click.Context, experiment: str, testkube_namespace: str | None, wait: bool, timeout: float,
        poll_interval: float, tags: dict[str, str], dry_run: str, fmt: str | None, local: bool,
        agent_url: str | None, judge_url: str | None, otlp_endpoint: str | None, output_dir: str | None,
        phase_python: str | None, runtime: str | None, image: str | None, env: dict[str, str],
        values_from: tuple[str, ...], cluster: ClusterOptions) -> None:
    """Start an evaluation: create a TestWorkflowExecution for the Experiment's TestWorkflow.

    The workflow is the one the Experiment's status names (operator), else <name>-<namespace>-workflow
    in the Testkube namespace (what render and apply create). With --wait, progress is shown on stderr
    until the execution passes, fails or is aborted; then the places of the HTML report and the
    metrics are printed.

    With --local, EXPERIMENT is a file: it is rendered and resolved as render --resolve shows it and every
    step runs here with the phase image's own package (or the image, --runtime container), against the
    agent and judge you give; the summary is printed like results, the report and results land in
    --output-dir. Examples:

    \b
      kubectl testbench run weather-eval -n team-a --wait
      kubectl testbench run weather-eval -n team-a -o json | jq -r .name
      kubectl testbench run --local experiment.yaml --agent-url http://127.0.0.1:8000 \\
          --judge-url http://127.0.0.1:4000/v1
    """
    given = {name for name in ctx.params if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE}
    if local:
        wrong = sorted(given & set(CLUSTER_ONLY))
        if wrong:
            fail(f"{_flag(wrong[0])} is for runs in the cluster; it cannot be combined with --local")
        if fmt in ("name", "yaml"):
            fail(f"-o {fmt}: with --local the summary is one of table, json, csv, markdown, junit")
        if image and runtime != "container":
            fail("--image is used by --runtime container")
        from kubectl_testbench.cli.run_local import DEFAULT_OUTPUT_DIR, LocalArgs, run_local

        run_local(LocalArgs(path=experiment, agent_url=agent_url, judge_url=judge_url, otlp_endpoint=otlp_endpoint,
                            output_dir=output_dir or DEFAULT_OUTPUT_DIR, phase_python=phase_python,
                            runtime=runtime or "local", image=image, env=env, values_from=values_from,
                            namespace=cluster.namespace, fmt=fmt or "table",
                            timeout=timeout if "timeout" in given else None))
    wrong = sorted(given & set(LOCAL_ONLY))
    if wrong:
        fail(f"{_flag(wrong[0])} is used with --local (run an Experiment file on this machine)")
    if fmt not in (None, "name", "yaml", "json"):
        fail(f"-o {fmt} is a --local summary format; a cluster run prints name, yaml or json")
    fmt = fmt or "name"
    from kubectl_testbench.cluster import execution as runlib
    from kubectl_testbench.layout import TESTKUBE_NAMESPACE
    from kubectl_testbench.model import naming

    testkube = testkube_namespace or TESTKUBE_NAMESPACE
    if dry_run == "client":
        namespace = default_namespace(cluster)
        workflow = naming.resource_name(experiment, namespace, naming.SUFFIX_WORKFLOW)
        target = runlib.Target(experiment, namespace, workflow, testkube, "naming convention")
        _emit(runlib.execution_body(target, tags), "yaml" if fmt == "name" else fmt)
        click.echo(f"testworkflowexecution would be created for TestWorkflow {testkube}/{workflow} (dry run)",
                   err=True)
        return
    if wait and dry_run == "server":
        fail("--wait cannot follow a dry run")
    client = connect(cluster)
    with cluster_errors():
        target = runlib.resolve_workflow(client, experiment, client.connection.namespace, testkube,
                                         note=lambda message: _say(f"note: {message}"))
        created = runlib.start(client, target, tags=tags, dry_run=dry_run == "server")
    from kubectl_testbench.cluster.resources import dig, text

    name = text(dig(created, "metadata", "name"))
    suffix = " (server dry run)" if dry_run == "server" else ""
    _say(f"testworkflowexecution.testworkflows.testkube.io/{name} created{suffix} for TestWorkflow "
         f"{target.testkube_namespace}/{target.workflow} (Experiment {target.namespace}/{target.experiment})")
    if not wait:
        if dry_run == "none":
            _say(f"follow it: kubectl testbench status {experiment} -n {target.namespace}, or run with --wait")
        _emit(_record(target, name, None), fmt, name)
        return
    final = _wait(client, target, name, timeout, poll_interval)
    _emit(_record(target, name, final), fmt, name)
    if not final.succeeded:
        sys.exit(EXIT_FINDINGS)


def _say(line: str) -> None:
    """One line of progress on stderr; it quotes cluster text (names, states, errors), so it is escaped."""
    from kubectl_testbench.safe_text import safe_log_line

    click.echo(safe_log_line(line), err=True)


def _flag(param: str) -> str:
    return {"tags": "--tag", "values_from": "--values-from", "env": "--env"}.get(param, "--" + param.replace("_", "-"))


def _wait(client: Client, target: Target, name: str, timeout: float, interval: float) -> Progress:
    from kubectl_testbench.cluster.execution import WaitTimeout, follow
    from kubectl_testbench.safe_text import safe_log_line

    live = _interactive()
    started = time.monotonic()
    shown = ""
    last: Progress | None = None
    with cluster_errors():
        try:
            for p in follow(client, target.testkube_namespace, name, timeout=timeout, interval=interval):
                last = p
                line = safe_log_line(_line(p))
                if live:
                    elapsed = int(time.monotonic() - started)
                    click.echo(f"\r\033[K{line} [{elapsed // 60}:{elapsed % 60:02d}]", err=True, nl=False, color=True)
                elif line != shown:
                    click.echo(line, err=True)
                shown = line
        except WaitTimeout as err:  # the caller still prints the record: its name is how to follow it further
            if live:
                click.echo("", err=True)
            number = f"#{err.last.number} " if err.last.number is not None else ""
            _say(f"error: execution {number}({name}) still {err.last.status} after {timeout:g}s (--timeout); "
                 f"it keeps running: kubectl testbench status {target.experiment} -n {target.namespace}")
            return err.last
    if live:
        click.echo("", err=True)
    assert last is not None  # follow yields at least once or raises
    _summary(target, last)
    return last


def _interactive() -> bool:
    """A terminal gets one self-updating progress line; pipes and CI logs get a line per change."""
    return sys.stderr.isatty()


def _line(p: Progress) -> str:
    number = f"#{p.number}" if p.number is not None else p.name
    step = f": step {min(p.done + 1, p.total)}/{p.total} {p.step}" if p.step and p.status == "running" else ""
    return f"execution {number} {p.status}{step}"


def _summary(target: Target, p: Progress) -> None:
    from kubectl_testbench.cluster.execution import where

    number = f"#{p.number}" if p.number is not None else p.name
    took = f" in {p.duration}" if p.duration else ""
    if p.succeeded:
        _say(f"execution {number} passed{took} (id {p.id or '-'})")
    else:
        at = f' at step "{p.step}"' if p.step else ""
        why = f": {p.error}" if p.error else ""
        _say(f"error: execution {number} {p.status}{at}{took}{why}")
    w = where(target, p)
    _say(f"  HTML report: artifact {w.report_artifact}: {w.download}")
    _say(f"               or kubectl get --raw {w.api}")
    _say(f"  dashboard:   <Testkube dashboard URL>{w.dashboard_path}")
    _say(f"  metrics:     {w.metrics} (OTLP)")


def _record(target: Target, name: str, p: Progress | None) -> dict[str, Any]:
    from kubectl_testbench.cluster.execution import where

    record: dict[str, Any] = {
        "name": name, "namespace": target.testkube_namespace, "workflow": target.workflow,
        "experiment": {"name": target.experiment, "namespace": target.namespace},
    }
    if p is not None:
        w = where(target, p)
        record.update({"id": p.id, "number": p.number, "status": p.status, "duration": p.duration,
                       "error": p.error, "report": {"artifact": w.report_artifact, "download": w.download,
                                                    "api": w.api, "dashboardPath": w.dashboard_path},
                       "metrics": w.metrics})
    return record


def _emit(data: dict[str, Any], fmt: str, name: str = "") -> None:
    from kubectl_testbench.emit.yamlout import dump

    if fmt == "name":
        from kubectl_testbench.safe_text import safe_log_line

        click.echo(safe_log_line(f"testworkflowexecution.testworkflows.testkube.io/{name}"))
    elif fmt == "json":
        click.echo(json.dumps(data, indent=4, ensure_ascii=False))
    else:
        click.echo(dump(data), nl=False)
