"""The phase TestWorkflowTemplates that every rendered TestWorkflow ``use``s.

This module is the contract between ``install`` and ``render``: the template names come from
:mod:`kubectl_testbench.layout`, the config parameters each template declares come from :data:`PHASES`, and
:func:`declared_parameters` lets render (and its tests) check every ``use[].config`` key against them.

Every step runs the phase image, whose ENTRYPOINT is ``uv run python3``, with ``-m testbench.<phase>`` and
``workingDir: /``: the phases read and write ``data/...`` relative to their working directory, which then
lands on the ``/data`` volume Testkube shares between the steps of an execution.

Facts the step definitions encode (docs/install.md explains them for users):

- Config values are int-or-string in the Testkube CRD, so every default is a string.
- ``evaluate-template`` maps ``openAiBasePath`` to ``OPENAI_BASE_URL`` through a Testkube expression that
  falls back to the OpenAI SDK's own default when the parameter is empty: the SDK treats a set-but-empty
  ``OPENAI_BASE_URL`` as the base URL itself (openai/openai-python#2927) and every request then fails.
  ``OPENAI_API_KEY`` stays ``""`` when unset: an absent key makes the SDK refuse to build a client at all,
  while an empty one works against gateways that need none.
- ``fetch-template`` (ours; upstream has none) downloads an ``url`` dataset with the phase image's own Python,
  so the url mode needs neither a shell nor a second image.
- MinIO credentials (``MINIO_*``) and ``OTEL_EXPORTER_OTLP_ENDPOINT`` are never set here: the workflow
  passes them in ``spec.container.env`` and a template value would override them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_testbench import layout

API_VERSION = "testworkflows.testkube.io/v1"
KIND = "TestWorkflowTemplate"
PULL_POLICY = "IfNotPresent"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""What the OpenAI SDK uses when ``OPENAI_BASE_URL`` is unset; the template's fallback for an empty value."""

LABELS: dict[str, str] = {
    "app.kubernetes.io/name": "testbench",
    "app.kubernetes.io/part-of": "testbench",
    "app.kubernetes.io/component": "testworkflow-template",
    "app.kubernetes.io/managed-by": "kubectl-testbench",
    "testkube.io/test-category": "ragas-evaluation",
    "app": "testworkflows",
}
"""Labels on every template; ``app`` and ``testkube.io/test-category`` are the upstream ones, kept so
selectors written against the upstream install keep matching."""

FETCH_SCRIPT = """\
import json, os, sys, urllib.error, urllib.request
url = sys.argv[1]
shown = url.split("?", 1)[0]  # never log query strings: presigned URLs carry their credentials there
target = "@DATASET@"
if not url.startswith(("http://", "https://")):
    sys.exit(f"fetch-template: the dataset URL must start with http:// or https://, got {shown!r}")
headers = {"Accept": "application/json", "User-Agent": "testbench-fetch"}
request = urllib.request.Request(url, headers=headers)
try:
    with urllib.request.urlopen(request, timeout=120) as response:
        body = response.read()
except urllib.error.HTTPError as err:
    sys.exit(f"fetch-template: GET {shown} failed: HTTP {err.code} {err.reason}")
except (urllib.error.URLError, OSError) as err:
    sys.exit(f"fetch-template: GET {shown} failed: {getattr(err, 'reason', err)}")
try:
    document = json.loads(body)
except ValueError as err:
    sys.exit(f"fetch-template: {shown} is not JSON ({err}); the run phase needs an Experiment .json file")
if not isinstance(document, dict) or not isinstance(document.get("scenarios"), list):
    sys.exit(f"fetch-template: {shown} is JSON but not an Experiment (an object with a scenarios list)")
os.makedirs(os.path.dirname(target), exist_ok=True)
with open(target + ".part", "wb") as out:
    out.write(body)
os.replace(target + ".part", target)
print(f"fetch-template: saved {len(body)} bytes from {shown} to {os.path.abspath(target)}")
""".replace("@DATASET@", layout.DATASET_RELATIVE)
"""Run as ``python3 -c FETCH_SCRIPT URL`` with working directory ``/``. It must never contain ``{{``:
Testkube would read that as an expression."""


@dataclass(frozen=True, slots=True)
class Parameter:
    """One ``spec.config`` entry; ``default`` None means Testkube requires a value in ``use[].config``."""

    name: str
    description: str
    default: str | None = None


@dataclass(frozen=True, slots=True)
class Phase:
    """What one template runs: its single step, the parameters it declares, the files it keeps."""

    template: str
    description: str
    step: str
    args: tuple[str, ...]
    parameters: tuple[Parameter, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    artifacts: tuple[str, ...] = ()


def _config(name: str) -> str:
    return "{{ config." + name + " }}"


_EXECUTION = ("{{ execution.id }}", "{{ execution.number }}")

PHASES: dict[str, Phase] = {
    p.template: p
    for p in (
        Phase(
            template=layout.SETUP_TEMPLATE,
            description="Download an Experiment dataset (.json) from S3/MinIO to the shared data volume.",
            step="setup",
            args=("-m", "testbench.setup", _config("bucket"), _config("key")),
            parameters=(
                Parameter("bucket", "S3/MinIO bucket that holds the dataset"),
                Parameter("key", "S3/MinIO object key of the dataset (an Experiment .json file)"),
            ),
            artifacts=(layout.DATASET_PATH,),
        ),
        Phase(
            template=layout.FETCH_TEMPLATE,
            description="Download an Experiment dataset (.json) over HTTP(S) to the shared data volume.",
            step="fetch-dataset",
            args=("-c", FETCH_SCRIPT, _config("url")),
            parameters=(Parameter("url", "http(s) URL of the dataset (an Experiment .json file)"),),
            artifacts=(layout.DATASET_PATH,),
        ),
        Phase(
            template=layout.RUN_TEMPLATE,
            description="Send every step of the dataset to the agent over A2A and record its answers.",
            step="run",
            args=("-m", "testbench.run", _config("agentUrl"), _config("experimentName")),
            parameters=(
                Parameter("agentUrl", "URL of the agent's A2A endpoint"),
                Parameter("experimentName", "Experiment name, for OpenTelemetry labels"),
            ),
            artifacts=(layout.EXECUTED_PATH,),
        ),
        Phase(
            template=layout.EVALUATE_TEMPLATE,
            description="Score the agent's answers with the dataset's metrics (LLM as a judge).",
            step="evaluate-results",
            args=("-m", "testbench.evaluate"),
            parameters=(
                Parameter("openAiBasePath", "Base URL of the OpenAI-compatible API for the judge (empty: the "
                          "OpenAI default)", default=""),
                Parameter("openAiApiKey", "API key for the OpenAI-compatible API (empty: none)", default=""),
            ),
            env=(
                ("OPENAI_BASE_URL", '{{ config.openAiBasePath || "' + OPENAI_DEFAULT_BASE_URL + '" }}'),
                ("OPENAI_API_KEY", _config("openAiApiKey")),
            ),
            artifacts=(layout.EVALUATED_PATH,),
        ),
        Phase(
            template=layout.PUBLISH_TEMPLATE,
            description="Publish the scores as the OpenTelemetry gauge testbench_evaluation_metric (OTLP).",
            step="publish-metrics",
            args=("-m", "testbench.publish", _config("experimentName"), *_EXECUTION),
            parameters=(Parameter("experimentName", "Experiment name, for metric labels"),),
        ),
        Phase(
            template=layout.VISUALIZE_TEMPLATE,
            description="Write a self-contained HTML report of the scores as an artifact.",
            step="visualize-metrics",
            args=("-m", "testbench.visualize", _config("experimentName"), *_EXECUTION),
            parameters=(Parameter("experimentName", "Experiment name, for the report title"),),
            artifacts=(layout.REPORT_PATH,),
        ),
    )
}


def default_image(tag: str = layout.DEFAULT_IMAGE_TAG) -> str:
    """The phase image reference for a release tag."""
    return f"{layout.TESTWORKFLOW_IMAGE}:{tag}"


def declared_parameters(template_name: str) -> dict[str, bool]:
    """``{parameter: has_default}`` of a template: render must give every parameter without a default, and
    no key that is not declared. Raises KeyError for a template we do not ship."""
    return {p.name: p.default is not None for p in PHASES[template_name].parameters}


def template(phase: Phase, image: str, namespace: str) -> dict[str, Any]:
    """One TestWorkflowTemplate manifest, keys in kubectl's reading order."""
    config: dict[str, Any] = {}
    for p in phase.parameters:
        entry: dict[str, Any] = {"type": "string", "description": p.description}
        if p.default is not None:
            entry["default"] = p.default
        config[p.name] = entry
    run: dict[str, Any] = {
        "image": image,
        "imagePullPolicy": PULL_POLICY,
        "workingDir": layout.WORKING_DIR,
        "args": list(phase.args),
    }
    if phase.env:
        run["env"] = [{"name": name, "value": value} for name, value in phase.env]
    step: dict[str, Any] = {"name": phase.step, "run": run}
    if phase.artifacts:
        step["artifacts"] = {"paths": list(phase.artifacts)}
    spec: dict[str, Any] = {}
    if config:
        spec["config"] = config
    spec["steps"] = [step]
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": phase.template, "namespace": namespace, "labels": dict(LABELS)},
        "description": phase.description,
        "spec": spec,
    }


def templates(image: str, namespace: str = layout.TESTKUBE_NAMESPACE) -> list[dict[str, Any]]:
    """All phase templates, in :data:`layout.PHASE_TEMPLATES` order."""
    return [template(PHASES[name], image, namespace) for name in layout.PHASE_TEMPLATES]


def use_errors(uses: list[dict[str, Any]]) -> list[str]:
    """Why a TestWorkflow's ``spec.use`` would not compile against these templates (empty when it would).

    Testkube rejects a ``use[].config`` key the template does not declare, a parameter without a default that
    is not given, and values that are not int-or-string; the upstream operator's url mode fails exactly so
    (``datasetUrl`` passed to ``setup-template``). render's tests run every rendered workflow through this.
    """
    problems: list[str] = []
    for i, use in enumerate(uses):
        name = use.get("name")
        phase = PHASES.get(name) if isinstance(name, str) else None
        if phase is None:
            problems.append(f"use[{i}]: unknown template {name!r} (shipped: {', '.join(layout.PHASE_TEMPLATES)})")
            continue
        config = use.get("config") or {}
        declared = declared_parameters(phase.template)
        for key in sorted(set(config) - set(declared)):
            problems.append(f"use[{i}] {name}: config.{key} is not declared by the template")
        for key in sorted(k for k, has_default in declared.items() if not has_default and k not in config):
            problems.append(f"use[{i}] {name}: config.{key} is required")
        for key, value in sorted(config.items()):
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                problems.append(f"use[{i}] {name}: config.{key} must be a string or an integer, "
                                f"got {type(value).__name__}")
    return problems
