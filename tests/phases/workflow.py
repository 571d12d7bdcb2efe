"""From an Experiment to the phase steps the tests run: ``render --resolve``, then run --local's translation.

- gitops mode: ``kubectl testbench render FILE --resolve -o json`` (our CLI, our templates), read back with
  ``parse_document``;
- operator mode: the TestWorkflow the upstream operator builds (tests/contract/operator.py), resolved against
  ``install --mode operator``'s templates and printed/read back the same way;
- each resolved step becomes a :class:`~kubectl_testbench.local.steps.LocalStep` (``valueFrom`` looked up in
  the Secrets/ConfigMaps the test gives, refused otherwise; mounted files from their rendered content);
- then only the in-cluster host names are swapped for the stand-ins' ``127.0.0.1`` origins (:func:`swap_hosts`):
  the agent, the gateway, MinIO, the OTLP collector and the dataset host. Everything else runs as resolved.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kubectl_testbench.install import bundle
from kubectl_testbench.local.steps import LocalStep, local_steps
from kubectl_testbench.local.values import Values
from kubectl_testbench.render.resolve import (
    ExecutionContext,
    ResolvedWorkflow,
    document,
    parse_document,
    resolve_objects,
)
from kubectl_testbench.render.resolve.sources import templates_in
from tests.conftest import run_cli
from tests.contract.operator import operator_objects

EXECUTION = ExecutionContext()
"""The placeholders ``render --resolve`` prints: execution id ``000000000000000000000001``, number 1."""


def resolve_gitops(path: Path, *args: str) -> ResolvedWorkflow:
    """``render PATH --resolve -o json ARGS`` as our CLI prints it, read back."""
    result = run_cli("render", str(path), "--resolve", "-o", "json", *args)
    assert result.exit_code == 0, result.output
    [workflow] = parse_document(json.loads(result.stdout))
    return workflow


def resolve_operator(experiment: dict[str, Any]) -> ResolvedWorkflow:
    """The operator's TestWorkflow for ``experiment``, resolved against ``install --mode operator``'s templates
    and passed through the printed form like the CLI's."""
    templates = templates_in(bundle.objects(bundle.Options(mode="operator")))
    resolved = resolve_objects(operator_objects(experiment), templates, EXECUTION)
    assert [str(err) for _, err in resolved.failures] == []
    [workflow] = parse_document(json.loads(json.dumps(document(resolved.workflows, EXECUTION))))
    return workflow


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL, as written."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


def in_cluster_origins(steps: Iterable[LocalStep]) -> dict[str, str]:
    """The origins the steps reach, by role: agent, gateway, otlp, minio, dataset (only those present)."""
    found: dict[str, str] = {}
    for step in steps:
        if step.phase == "run":
            found["agent"] = origin(step.argv[2])
        if step.phase == "setup" and step.argv[2].startswith(("http://", "https://")):
            found["dataset"] = origin(step.argv[2])
        for name, role in (("OPENAI_BASE_URL", "gateway"), ("OTEL_EXPORTER_OTLP_ENDPOINT", "otlp"),
                           ("MINIO_ENDPOINT", "minio")):
            if step.env.get(name):
                found[role] = origin(step.env[name])
    return found


def _swap(value: str, origins: Mapping[str, str]) -> str:
    for original, replacement in origins.items():
        if value == original or value.startswith((original + "/", original + "?")):
            return replacement + value[len(original):]
    return value


def swap_hosts(steps: Iterable[LocalStep], origins: Mapping[str, str]) -> list[LocalStep]:
    """Every argument and env value that starts with an in-cluster origin, with the stand-in's origin instead."""
    return [replace(step, argv=tuple(_swap(a, origins) for a in step.argv),
                    env={k: _swap(v, origins) for k, v in step.env.items()}) for step in steps]


def phase_steps(workflow: ResolvedWorkflow, values: Values, standins: Mapping[str, str]) -> list[LocalStep]:
    """The workflow's steps with references looked up and each in-cluster origin (by role, from
    :func:`in_cluster_origins`) swapped for ``standins[role]``. A role the case has no stand-in for keeps its
    in-cluster name (MinIO of an Experiment whose dataset is not in S3: nothing reads it)."""
    steps = local_steps(workflow, values)
    found = in_cluster_origins(steps)
    assert "agent" in found and "agent" in standins, found
    return swap_hosts(steps, {found[role]: standins[role] for role in found if role in standins})


def host(url: str) -> str:
    return urlsplit(url).hostname or ""
