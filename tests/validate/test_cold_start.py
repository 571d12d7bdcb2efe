"""A cold start (fresh runner: empty cache directory) imports only what the run needs.

Each case runs the CLI in a new interpreter with an empty ``XDG_CACHE_HOME`` and reports which modules
were imported. Timings live in benchmarks/ (``python -X importtime`` shows where the time goes); this
test keeps the heavy modules out for good.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT

HEAVY = {
    "celpy", "lark", "pendulum", "dateutil", "re2",  # CEL: answered by the package's generated tables
    "kubernetes", "urllib3", "requests", "ssl", "http.client", "socket",  # offline commands
    "ruamel", "pydantic", "pydantic_core", "jsonschema",  # round-trip YAML, models: not for reading
    "importlib.resources", "importlib.metadata", "email", "hashlib", "logging", "tempfile", "difflib",
    "multiprocessing", "concurrent.futures", "asyncio", "zoneinfo",
}
"""Modules a cold offline validate of a valid Experiment must not import (each costs milliseconds)."""

RUN = """
import json, sys
from kubectl_testbench.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

TWO_SOURCES = """apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata: {name: two-sources, namespace: default}
spec:
  agentRef: {name: weather-agent}
  aiGatewayRef: {name: gateway, namespace: ai-gateway}
  dataset:
    url: https://datasets.example.com/a.json
    s3: {bucket: b, key: k.json}
"""


def cold(tmp_path: Path, *args: str) -> tuple[int, set[str], str]:
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    proc = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache),
                               "HOME": str(tmp_path)})
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"]), proc.stdout


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m in HEAVY or m.split(".", 1)[0] in HEAVY}


def test_a_cold_validate_of_a_valid_experiment_imports_no_heavy_module(tmp_path: Path) -> None:
    code, modules, out = cold(tmp_path, "validate", str(EXAMPLES / "experiments" / "weather-inline.yaml"))
    assert (code, out.strip()) == (0, "1 file, 1 experiment: 1 valid, 0 invalid, 0 warnings")
    assert _heavy(modules) == set()
    assert "kubectl_testbench.validate.cel.shipped" in modules, "the dataset rule was checked"
    assert not any((tmp_path / "cache").iterdir()), "nothing computed, so nothing to remember"


def test_a_cold_validate_that_fails_the_cel_rule_imports_no_heavy_module(tmp_path: Path) -> None:
    bad = tmp_path / "two-sources.yaml"
    bad.write_text(TWO_SOURCES)
    code, modules, out = cold(tmp_path, "validate", str(bad))
    assert code == 1
    assert "cel/dataset-exactly-one" in out and "exactly one of s3, url, or inline must be set" in out
    assert _heavy(modules) == set()


def test_a_cold_validate_of_a_directory_with_a_defaults_file_needs_no_pydantic(tmp_path: Path) -> None:
    code, modules, out = cold(tmp_path, "validate", "-j", "1", str(EXAMPLES / "experiments"))
    assert code == 0, out
    # needed here: a schedule's timezone is looked up, kustomization.yaml's API group compared with ours
    assert {m for m in _heavy(modules) if m.split(".")[0] not in ("zoneinfo", "difflib")} == set()
    assert "pydantic" not in modules


@pytest.mark.parametrize("extra", [["--no-defaults"], []], ids=["no-defaults", "defaults-file"])
def test_a_cold_render_imports_no_heavy_module(tmp_path: Path, extra: list[str]) -> None:
    code, modules, out = cold(tmp_path, "render", *extra, str(EXAMPLES / "experiments" / "weather-inline.yaml"))
    assert code == 0 and "kind: TestWorkflow" in out
    # render's sinks import both at the top (atomic --output-dir writes, --check diffs): ~2 ms, left as they are
    assert _heavy(modules) - {"tempfile", "difflib"} == set()


def test_outside_the_packaged_crd_celpy_evaluates_without_building_parser_tables(tmp_path: Path) -> None:
    """The shipped outcomes are only a shortcut: a rule they do not list is evaluated by celpy, parsed with
    the generated LALR tables (Lark's table construction never runs)."""
    code = ("import lark.parsers.lalr_analysis as analysis; built = [];"
            "analysis.LALR_Analyzer.compute_lalr = lambda self: built.append(self);"
            "from kubectl_testbench.validate.cel.evaluate import evaluate_rule;"
            "r = evaluate_rule({'rule': 'self.size() < 2'}, ['a', 'b'], {'type': 'array'});"
            "print(r.passed, len(built))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path)})
    assert proc.stdout.split() == ["False", "0"]
