"""The judge client, constructed exactly as the evaluate phase constructs it, in the environment Testkube gives the
evaluate step.

metrics/ragas/adapter.py@a8e16f1 ``create_callable`` builds ``AsyncOpenAI()`` with no arguments for every metric,
so the client reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` from the step's environment. The image pins
openai 2.54.0 (uv.lock), which refuses a missing *or empty* key ("Missing credentials"); evaluate.py catches
that per metric, skips every metric, and the run still ends green. This runs the real SDK at the pinned
version (a test dependency) in a process whose environment is exactly the resolved evaluate step's env; a
``valueFrom`` reference is filled in from a stand-in Secret store, as the kubelet would.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_testbench import layout
from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.resolve import ResolvedStep, resolve_objects
from kubectl_testbench.render.resolve.sources import templates_in
from kubectl_testbench.render.settings import Defaults, Flags
from tests.conftest import EXAMPLES, UPSTREAM, require_reference
from tests.contract.test_phase_contract import SOURCES, _defaults, _experiment
from tests.phase_package import clean_env

PINNED = "2.54.0"
SECRETS = {("judge-credentials", "api-key"): "sk-judge-from-secret"}
"""Stand-in for the cluster's Secrets (what the kubelet would put into the variable)."""
CONSTRUCT = """\
import openai
from openai import AsyncOpenAI
assert openai.__version__ == "@PINNED@", openai.__version__
client = AsyncOpenAI()  # metrics/ragas/adapter.py: no arguments
print(client.base_url, client.api_key)
""".replace("@PINNED@", PINNED)


def _environment(step: ResolvedStep) -> dict[str, str]:
    env: dict[str, str] = {}
    for name, value in step.env.items():
        if value.value_from is None:
            env[name] = value.value or ""
            continue
        ref = value.value_from.get("secretKeyRef") or value.value_from.get("configMapKeyRef") or {}
        env[name] = SECRETS.get((ref["name"], ref["key"]), f"value-of-{ref['name']}-{ref['key']}")
    return env


def construct(step: ResolvedStep) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("openai")
    return subprocess.run([sys.executable, "-c", CONSTRUCT], env=clean_env(**_environment(step)), capture_output=True,
                          text=True, timeout=120, check=False)


def _evaluate(objects: list[dict[str, Any]], templates: dict[str, dict[str, Any]] | None = None) -> ResolvedStep:
    result = resolve_objects(objects, templates)
    assert [str(e) for _, e in result.failures] == []
    return result.workflows[0].step(layout.EVALUATE_TEMPLATE)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_the_judge_client_builds_in_every_rendered_evaluate_step(path: Path) -> None:
    evaluate = _evaluate(render_experiment(_experiment(path), Flags(), _defaults(path)))
    proc = construct(evaluate)
    assert proc.returncode == 0, proc.stderr
    base_url, key = proc.stdout.split()
    assert base_url.startswith("http://ai-gateway.") and ".svc.cluster.local." in base_url
    assert key == "testbench"


def test_a_key_from_a_secret_reaches_the_client() -> None:
    exp = _experiment(EXAMPLES / "experiments" / "weather-inline.yaml")
    evaluate = _evaluate(render_experiment(exp, Flags(), Defaults(gateway_api_key_secret=("judge-credentials",
                                                                                          "api-key"))))
    proc = construct(evaluate)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[1] == "sk-judge-from-secret"


def _without_key(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What render wrote before this fix: the gateway's base path, no openAiApiKey."""
    for obj in objects:
        for use in obj.get("spec", {}).get("use", []):
            use.get("config", {}).pop("openAiApiKey", None)
    return objects


def test_todays_output_fails_to_build_the_client_with_our_templates_and_upstreams() -> None:
    exp = _experiment(EXAMPLES / "experiments" / "weather-inline.yaml")
    objects = _without_key(render_experiment(exp, Flags(), _defaults(EXAMPLES / "experiments" / "weather-inline.yaml")))
    upstream = templates_in(yaml.safe_load(p.read_text())
                            for p in sorted(require_reference(UPSTREAM / "templates").glob("*-template.yaml")))
    for templates in (None, upstream):
        evaluate = _evaluate(objects, templates)
        assert evaluate.env_value("OPENAI_API_KEY") == ""
        proc = construct(evaluate)
        assert proc.returncode == 1
        assert "openai.OpenAIError: Missing credentials" in proc.stderr
