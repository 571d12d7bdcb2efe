"""The phase TestWorkflowTemplates that every rendered TestWorkflow ``use``s.

This module is the contract between ``install`` and ``render``: the template names come from
:mod:`kubectl_testbench.layout`, the config parameters each template declares come from :data:`PHASES`, and
``render --resolve`` (:mod:`kubectl_testbench.render.resolve`) expands every rendered workflow against them
exactly as Testkube would.

Every step runs the phase image, whose ENTRYPOINT is ``uv run python3``, with ``-m testbench.<phase>`` (or
``-c <script>`` for the setup dispatcher) and ``workingDir: /``: the phases read and write ``data/...`` relative
to their working directory, which then lands on the ``/data`` volume Testkube shares between the steps.

Facts the templates encode (docs/install.md explains them for users):

- Config values are int-or-string in the Testkube CRD, so every default is a string.
- ``setup-template`` takes the operator's ``datasetUrl`` (``s3://bucket/key`` or ``http(s)://…``) as well as the
  upstream template's ``bucket``/``key``, all defaulting to ``""``: the upstream operator sends ``datasetUrl``
  to a template that declared only ``bucket``/``key`` without defaults, which Testkube fails on
  (``config.bucket`` unresolved). :data:`SETUP_SCRIPT` dispatches; s3 runs the image's own
  ``testbench.setup`` CLI, http(s) downloads and validates with the image's own ``testbench.setup`` functions.
- ``evaluate-template`` sets ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` in the *template's* ``spec.container.env``,
  not on its step. Testkube merges a template's container config under the workflow's
  (testworkflowresolver/apply.go ``injectTemplateToSpec`` → merge.go ``MergeContainerConfig``: env appended,
  then ``DedupeEnvVars`` keeps the last entry of a name), so an ``OPENAI_API_KEY`` from a Secret in the
  workflow's ``spec.container.env`` wins over the placeholder; a step-level value would win over the workflow
  (testworkflowprocessor/stage/container.go ``Env``: parent first, step last).
- ``OPENAI_BASE_URL`` falls back to the OpenAI SDK's own default when ``openAiBasePath`` is empty: the SDK
  treats a set-but-empty ``OPENAI_BASE_URL`` as the base URL itself (openai/openai-python#2927).
- MinIO credentials (``MINIO_*``) and ``OTEL_EXPORTER_OTLP_ENDPOINT`` are never set here: the workflow passes
  them in ``spec.container.env``.
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

SETUP_SCRIPT = """\
import os, runpy, sys, urllib.error, urllib.request
dataset_url, bucket, key = sys.argv[1:4]
def fail(message):
    sys.exit("setup-template: " + message)
if dataset_url.startswith("s3://"):
    bucket, _, key = dataset_url[len("s3://"):].partition("/")
    if not bucket or not key:
        fail("datasetUrl %r is not s3://<bucket>/<key>" % dataset_url)
elif dataset_url.startswith(("http://", "https://")):
    shown = dataset_url.split("?", 1)[0]  # never log query strings: presigned URLs carry credentials there
    request = urllib.request.Request(dataset_url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            body = response.read()
    except urllib.error.HTTPError as err:
        fail("GET %s failed: HTTP %s %s" % (shown, err.code, err.reason))
    except (urllib.error.URLError, OSError) as err:
        fail("GET %s failed: %s" % (shown, getattr(err, "reason", err)))
    from testbench.setup import parse_experiment, save_experiment
    try:
        experiment = parse_experiment(body, shown)
    except ValueError as err:
        fail("%s is not an Experiment the run phase reads: %s" % (shown, str(err).splitlines()[0]))
    save_experiment(experiment)
    print("setup-template: saved the Experiment from %s to %s" % (shown, os.path.abspath("@DATASET@")))
    sys.exit(0)
elif dataset_url:
    fail("datasetUrl must start with s3://, http:// or https://, got %r" % dataset_url.split("?", 1)[0])
if not bucket or not key:
    fail("no dataset: set datasetUrl, or bucket and key")
sys.argv = ["testbench.setup", bucket, key]
runpy.run_module("testbench.setup", run_name="__main__", alter_sys=True)
""".replace("@DATASET@", layout.DATASET_RELATIVE)
"""Run as ``python3 -c SETUP_SCRIPT DATASET_URL BUCKET KEY`` with working directory ``/``. Arguments arrive as
argv, never through a shell. s3 runs ``testbench.setup BUCKET KEY`` itself (the phase's own CLI, as
``-m testbench.setup`` would); http(s) uses the same module's ``parse_experiment``/``save_experiment`` (its
``.json`` check, the Experiment model, the normalised output) but its own download, which never logs query
strings. Errors are one line prefixed ``setup-template:``. It must never contain ``{{``: Testkube would read
that as an expression."""


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
    container_env: tuple[tuple[str, str], ...] = ()
    """The template's ``spec.container.env``: merged under the workflow's env, which wins on a name clash."""
    artifacts: tuple[str, ...] = ()


def _config(name: str) -> str:
    return "{{ config." + name + " }}"


_EXECUTION = ("{{ execution.id }}", "{{ execution.number }}")

PHASES: dict[str, Phase] = {
    p.template: p
    for p in (
        Phase(
            template=layout.SETUP_TEMPLATE,
            description="Download the Experiment dataset (.json) from S3/MinIO or HTTP(S) to the shared data volume.",
            step="setup",
            args=("-c", SETUP_SCRIPT, _config("datasetUrl"), _config("bucket"), _config("key")),
            parameters=(
                Parameter("datasetUrl", "s3://<bucket>/<key> or http(s) URL of the dataset (an Experiment .json "
                          "file); what the operator passes", default=""),
                Parameter("bucket", "S3/MinIO bucket that holds the dataset (when datasetUrl is empty)", default=""),
                Parameter("key", "S3/MinIO object key of the dataset (when datasetUrl is empty)", default=""),
            ),
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
                Parameter("openAiApiKey", "API key for the OpenAI-compatible API; must not be empty (the judge "
                          "client refuses an empty key). An OPENAI_API_KEY in the workflow's env wins",
                          default=""),
            ),
            container_env=(
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
    step: dict[str, Any] = {"name": phase.step, "run": run}
    if phase.artifacts:
        step["artifacts"] = {"paths": list(phase.artifacts)}
    spec: dict[str, Any] = {}
    if config:
        spec["config"] = config
    if phase.container_env:
        spec["container"] = {"env": [{"name": name, "value": value} for name, value in phase.container_env]}
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
