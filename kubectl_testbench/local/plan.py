"""What ``run --local`` changes in the resolved steps: the endpoints that only exist inside the cluster.

Everything else runs exactly as resolved. In order, on every step:

1. the run phase's agent URL (its first positional) becomes ``--agent-url``: the Experiment's is a Service in
   the cluster (``http://<agent>.<namespace>:8000``);
2. the judge: ``OPENAI_BASE_URL`` becomes ``--judge-url`` (without the flag the resolved one is kept, unless it is
   an in-cluster name), ``OPENAI_API_KEY`` becomes ``$OPENAI_API_KEY`` else ``testbench`` (the placeholder the
   operator passes to gateways that need no key);
3. OTLP: ``OTEL_EXPORTER_OTLP_ENDPOINT`` becomes ``--otlp-endpoint``; without it (or an OTLP endpoint given with
   ``--env``) every OTLP endpoint variable is removed and ``OTEL_SDK_DISABLED=true`` set (an in-cluster collector
   is not reachable, and the run phase would otherwise wait on ``localhost:4318`` for every span);
4. ``RAGAS_DO_NOT_TRACK=true`` (ragas' usage analytics; not set by the image);
5. ``--env NAME=VALUE`` last: the caller's word is final (MinIO endpoint and credentials, anything else);
6. the publish step is left out when no OTLP endpoint is set after all that: it would only log that publishing
   is disabled and exit 0 (publish.py; upstream's testworkflow runner skips it the same way).

Endpoints that are still in-cluster names after that (the setup phase's MinIO, a dataset URL) are refused with
the ``kubectl port-forward`` to use, before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from kubectl_testbench.layout import MINIO_DEFAULT
from kubectl_testbench.local.steps import LocalStep
from kubectl_testbench.render.settings import OTEL_SDK_DISABLED, OTLP_ENDPOINT_ENVS

JUDGE_PLACEHOLDER_KEY = "testbench"
OTLP_ENVS = (*OTLP_ENDPOINT_ENVS, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
LOCAL_ENV = {"RAGAS_DO_NOT_TRACK": "true"}
"""Set for every step unless ``--env`` says otherwise: ragas sends usage analytics to the internet by default."""
CLUSTER_SUFFIXES = (".svc", ".svc.cluster.local", ".cluster.local")


class PlanError(Exception):
    """The steps cannot run here as given (a usage error: the message names the flag that fixes it)."""


@dataclass(frozen=True)
class Endpoints:
    """The local stand-ins for what the workflow reaches inside the cluster."""

    agent_url: str | None
    judge_url: str | None = None
    judge_key: str = JUDGE_PLACEHOLDER_KEY
    otlp_endpoint: str | None = None


def in_cluster(url: str) -> bool:
    """A Service name that only resolves inside a cluster: one label (``minio``), ``<svc>.<ns>.svc[…]``; never
    an IP address (``[::1]`` has no dot either)."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host or host == "localhost" or ":" in host:
        return False
    return "." not in host or host.endswith(CLUSTER_SUFFIXES)


def port_forward_hint(url: str, flag: str) -> str:
    """``kubectl port-forward -n NS svc/NAME LOCAL:PORT``, then ``flag`` with the local URL (``--agent-url URL``,
    or ``--env NAME=`` followed directly by it)."""
    parts = urlsplit(url)
    labels = (parts.hostname or "").split(".")  # a trailing dot adds a last label, never read
    service, namespace = labels[0], (labels[1] if len(labels) > 1 else None)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    local = port if port >= 1024 else 8080
    ns = f" -n {namespace}" if namespace and namespace != "svc" else ""
    local_url = f"http://127.0.0.1:{local}{parts.path.rstrip('/')}"
    joined = f"{flag}{local_url}" if flag.endswith("=") else f"{flag} {local_url}"
    return f"kubectl port-forward{ns} svc/{service} {local}:{port}, then {joined}"


def _run_step(steps: Sequence[LocalStep]) -> LocalStep:
    found = [s for s in steps if s.phase == "run"]
    if len(found) != 1:
        raise PlanError(f"the workflow has {len(found)} run phase steps; run --local needs exactly one")
    return found[0]


def agent_url_in(steps: Sequence[LocalStep]) -> str:
    """The agent URL the workflow's run phase is given."""
    step = _run_step(steps)
    if len(step.argv) < 3:
        raise PlanError(f"step {step.name!r} passes no agent URL to testbench.run")
    return step.argv[2]


def plan(steps: Sequence[LocalStep], endpoints: Endpoints, given: Mapping[str, str] | None = None) -> list[LocalStep]:
    """The steps with the cluster's endpoints replaced (module docstring); PlanError when one is left unknown."""
    given = dict(given or {})
    resolved_agent = agent_url_in(steps)
    if not endpoints.agent_url:
        raise PlanError(f"--agent-url is required: the Experiment's agent {resolved_agent} is a Service in the "
                        f"cluster; {port_forward_hint(resolved_agent, '--agent-url')}")
    out: list[LocalStep] = []
    for step in steps:
        env = dict(step.env)
        argv = step.argv
        if step.phase == "run":
            argv = (*argv[:2], endpoints.agent_url, *argv[3:])
        if step.phase == "evaluate" or "OPENAI_BASE_URL" in env:
            _judge(env, endpoints, given)
        for name in OTLP_ENVS:
            env.pop(name, None)
        if endpoints.otlp_endpoint:
            env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoints.otlp_endpoint
        if endpoints.otlp_endpoint or any(name in given for name in OTLP_ENVS):
            env.pop(OTEL_SDK_DISABLED, None)  # an endpoint given with --env must not export into a disabled SDK
        else:
            env[OTEL_SDK_DISABLED] = "true"
        for name, value in LOCAL_ENV.items():
            env.setdefault(name, value)
        env.update(given)
        planned = replace(step, argv=argv, env=env)
        if planned.phase == "setup":
            _check_setup(planned)
        if planned.phase == "publish" and not planned.env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
            continue  # it would log "OTLP publishing disabled" and exit 0; testworkflow skips it the same way
        out.append(planned)
    return out


def _judge(env: dict[str, str], endpoints: Endpoints, given: Mapping[str, str]) -> None:
    base = env.get("OPENAI_BASE_URL")
    if endpoints.judge_url:
        env["OPENAI_BASE_URL"] = endpoints.judge_url
    elif base is not None and "OPENAI_BASE_URL" not in given and in_cluster(base):
        raise PlanError(f"--judge-url is required: the judge is reached through {base}, a Service in the cluster; "
                        f"{port_forward_hint(base, '--judge-url')}")
    env["OPENAI_API_KEY"] = endpoints.judge_key


def _check_setup(step: LocalStep) -> None:
    """The setup phase reads s3 through MINIO_ENDPOINT and a url directly: neither may be an in-cluster name."""
    if len(step.argv) < 4:
        return  # not the setup phase's argv (script, url, bucket, key): nothing it reads is known
    dataset_url, bucket = step.argv[2], step.argv[3]
    if dataset_url.startswith("s3://") or (not dataset_url and bucket):
        minio = step.env.get("MINIO_ENDPOINT")
        if minio is None:
            raise PlanError(f"the s3 dataset is read through MINIO_ENDPOINT, which the Experiment does not set "
                            f"(the setup phase's default is {MINIO_DEFAULT}, in the cluster): "
                            f"{port_forward_hint(MINIO_DEFAULT, '--env MINIO_ENDPOINT=')}")
        if in_cluster(minio):
            raise PlanError(f"the s3 dataset is read through MINIO_ENDPOINT={minio}, a Service in the cluster: "
                            f"{port_forward_hint(minio, '--env MINIO_ENDPOINT=')}")
    elif dataset_url and in_cluster(dataset_url):
        raise PlanError(f"the dataset URL {dataset_url.partition('?')[0]} is a Service in the cluster; fetch it "
                        "yourself and run an inline copy (kubectl testbench import) instead")
