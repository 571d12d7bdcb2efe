"""The end-to-end matrix: every example and golden Experiment × install mode × dataset mode, each run through
every phase by the real package against its own stand-ins (tests/phases/workflow.py says how a case becomes steps).

A case is prepared (rendered and resolved) in the main thread, because the CLI runner swaps ``sys.stdout``; the
phases then run in a worker (:func:`run_case`), which starts the case's own stand-ins on 127.0.0.1 and stops
them when the phases are done. Cases share nothing but the read-only phase environment, so they can run side by
side (``KUBECTL_TESTBENCH_PHASE_JOBS``, default 2): each has its own directory for the container's ``/``, its own
``HOME`` and its own stand-ins.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubectl_testbench.install import bundle
from kubectl_testbench.local.values import Values
from kubectl_testbench.model.experiment_json import experiment_json
from kubectl_testbench.phases.env import Env
from kubectl_testbench.render.resolve import ResolvedWorkflow
from tests.conftest import EXAMPLES
from tests.contract.test_phase_contract import INLINE, MODES, OPERATOR_DEFECTS, SOURCES, _as, _experiment
from tests.phases import workflow as wf
from tests.phases.a2a_agent import A2AAgentStandIn
from tests.phases.harness import PhaseResult, PhaseStep, run_phase, run_phases
from tests.phases.judge import JudgeStandIn
from tests.phases.otlp import GaugePoint, OtlpStandIn
from tests.phases.s3 import PASSWORD, USER, S3StandIn
from tests.phases.standin_http import StandIn
from tests.phases.static import StaticStandIn

DEFAULTS = EXAMPLES / "experiments" / "testbench-defaults.yaml"
"""The cluster's defaults (gateway ai-gateway/ai-gateway, OTLP collector), for every gitops render."""
OTLP_IN_CLUSTER = "http://lgtm.monitoring.svc.cluster.local:4318"
MINIO_ENV = [{"name": "MINIO_ENDPOINT", "value": "http://minio.storage.svc.cluster.local:9000"},
             {"name": "MINIO_ROOT_USER", "valueFrom": {"secretKeyRef": {"name": "minio-credentials", "key": "user"}}},
             {"name": "MINIO_ROOT_PASSWORD",
              "valueFrom": {"secretKeyRef": {"name": "minio-credentials", "key": "password"}}}]
"""What an Experiment whose dataset is in S3 sets (as examples/experiments/rag-s3-nightly.yaml does), given to
those turned into s3 mode that have no MinIO of their own."""
VALUES = [
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
     "stringData": {"user": USER, "password": PASSWORD}} for name in ("minio", "minio-credentials")
] + [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "otel-config"},
      "data": {"OTEL_EXPORTER_OTLP_ENDPOINT": OTLP_IN_CLUSTER}}]
"""The Secrets and ConfigMaps the examples' ``valueFrom`` entries name, as the cluster would hold them."""


@dataclass(frozen=True)
class Case:
    source: Path
    install: bundle.Mode
    mode: str

    @property
    def id(self) -> str:
        return f"{self.source.stem}-{self.install}-{self.mode}"


CASES = [Case(p, install, mode) for p in SOURCES for install in bundle.MODES for mode in MODES]


@dataclass
class Prepared:
    case: Case
    workflow: ResolvedWorkflow
    served: bytes | None
    """The experiment.json the stand-in S3/HTTP server holds (s3 and url modes)."""
    values: list[dict[str, Any]] = field(default_factory=lambda: list(VALUES))


@dataclass
class Observed:
    """What one case did: the phases' results and everything the stand-ins saw."""

    prepared: Prepared
    root: Path
    steps: list[PhaseStep]
    results: list[PhaseResult]
    agent_inputs: list[str]
    authorizations: list[str | None]
    judge_requests: int
    gauges: list[GaugePoint]
    dataset_requests: list[str]


def experiment_for(case: Case) -> tuple[dict[str, Any], bytes | None]:
    """The case's Experiment (its dataset in the case's mode) and, for s3/url, the experiment.json to serve: the
    Experiment's own inline dataset, else the contract tests' small one."""
    exp = _experiment(case.source)
    inline = exp["spec"]["dataset"].get("inline") or INLINE
    converted = _as(exp, case.mode)
    served = None if case.mode == "inline" else experiment_json(copy.deepcopy(inline)).encode()
    env = converted["spec"].setdefault("env", [])
    if case.mode == "s3" and not any(e["name"] == "MINIO_ENDPOINT" for e in env):
        env.extend(copy.deepcopy(MINIO_ENV))
    if case.install == "operator":
        if case.source.stem in OPERATOR_DEFECTS:  # the operator writes {{ … }} unescaped: Testkube refuses it
            env[:] = [e for e in env if "{{" not in e.get("value", "")]
        if not any(e["name"] == "OTEL_EXPORTER_OTLP_ENDPOINT" for e in env):
            # an operator cluster has no defaults file: an Experiment that publishes names its collector itself
            env.append({"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": OTLP_IN_CLUSTER})
    return converted, served


def prepare(case: Case, work: Path) -> Prepared:
    """Render and resolve the case (main thread only: gitops goes through the CLI)."""
    exp, served = experiment_for(case)
    if case.install == "gitops":
        path = work / f"{case.id}.yaml"
        path.write_text(yaml.safe_dump(exp, sort_keys=False), encoding="utf-8")
        workflow = wf.resolve_gitops(path, "--defaults", str(DEFAULTS))
    else:
        workflow = wf.resolve_operator(exp)
    return Prepared(case, workflow, served)


def run_case(prepared: Prepared, phase_env: Env, s3_python: Path | None, root: Path) -> Observed:
    """Start the case's stand-ins, run its phases, stop the stand-ins; return what happened."""
    agent, judge, otlp = A2AAgentStandIn(), JudgeStandIn(), OtlpStandIn()
    static = StaticStandIn()
    s3 = S3StandIn(s3_python) if prepared.case.mode == "s3" and s3_python is not None else None
    started: list[StandIn] = []
    try:
        for standin in (agent, judge, otlp, static, *([s3] if s3 else [])):
            started.append(standin.start())
        standins = {"agent": agent.url, "gateway": judge.url, "otlp": otlp.url, "dataset": static.url}
        if s3 is not None:
            standins["minio"] = s3.url
        steps = wf.phase_steps(prepared.workflow, Values(prepared.values), standins)
        if prepared.served is not None:
            _serve(prepared, steps, static, s3, phase_env, root)
        results = run_phases(phase_env, steps, root / "container")
    finally:
        for standin in reversed(started):
            standin.stop()
    return Observed(prepared, root / "container", steps, results, list(agent.executor.inputs),
                    list(judge.authorizations), len(judge.requests), list(otlp.gauges), list(static.requested))


def _serve(prepared: Prepared, steps: list[PhaseStep], static: StaticStandIn, s3: S3StandIn | None,
           phase_env: Env, root: Path) -> None:
    """Put the dataset where the setup step will fetch it: the static server's path, or S3 (boto3 of the phase
    environment, against the stand-in)."""
    assert prepared.served is not None
    setup = next(s for s in steps if s.phase == "setup")
    url = setup.argv[2]
    if prepared.case.mode == "url":
        static.files[url.split(static.url, 1)[1].split("?", 1)[0]] = prepared.served
        return
    assert s3 is not None
    bucket, _, key = url.removeprefix("s3://").partition("/")
    script = ("import sys, boto3\n"
              "s3 = boto3.client('s3', endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2],"
              " aws_secret_access_key=sys.argv[3], region_name='us-east-1')\n"
              "s3.create_bucket(Bucket=sys.argv[4])\n"
              "s3.put_object(Bucket=sys.argv[4], Key=sys.argv[5], Body=open(sys.argv[6], 'rb').read())\n")
    (root / "dataset.json").parent.mkdir(parents=True, exist_ok=True)
    (root / "dataset.json").write_bytes(prepared.served)
    upload = PhaseStep("upload", ("-c", script, s3.url, USER, PASSWORD, bucket, key, str(root / "dataset.json")))
    result = run_phase(phase_env, upload, root / "uploader")
    assert result.returncode == 0, result.explain()


def dataset_of(observed: Observed) -> dict[str, Any]:
    """The experiment.json the run phase read (mounted, or fetched by setup)."""
    path = observed.root / "data" / "datasets" / "experiment.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
