"""The editor JSON Schema (schemas/experiment.schema.json) loads in Ajv's strict mode and judges like the validator.

Ajv is what many editors and CI checks use; ``--strict=true`` refuses schemas with ambiguities (a
``required`` property no subschema defines, a ``pattern`` without ``type: string``). ``ajv-formats`` is the
standard plugin for ``format: date-time``. Runs with ajv-cli from npm; skipped with the reason when absent.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import EXAMPLES, ROOT
from tests.npm_tools import npm_prefix

SCHEMA = ROOT / "schemas" / "experiment.schema.json"
CORPUS = ROOT / "tests" / "validate" / "corpus"


def _ajv() -> tuple[list[str], Path]:
    prefix = npm_prefix("ajv-cli")
    return [str(prefix / "node_modules" / ".bin" / "ajv")], prefix


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    command, prefix = _ajv()
    # -c resolves the plugin module from the working directory: run where ajv-formats is installed
    return subprocess.run([*command, *args, "--strict=true", "-c", "ajv-formats", "-s", str(SCHEMA)], cwd=prefix,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_json_schema_compiles_in_ajv_strict_mode() -> None:
    proc = _run("compile")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "is valid" in proc.stdout + proc.stderr


def test_ajv_accepts_the_examples_and_rejects_what_the_validator_rejects() -> None:
    examples = sorted(p for p in (EXAMPLES / "experiments").glob("[!.]*.yaml")
                      if p.name not in ("kustomization.yaml", "testbench-defaults.yaml"))
    for path in examples:
        proc = _run("validate", "-d", str(path))
        assert proc.returncode == 0, path.name + ": " + proc.stdout + proc.stderr
    for name in ("two-dataset-sources.yaml", "three-dataset-sources.yaml", "no-dataset-source.yaml"):
        proc = _run("validate", "-d", str(CORPUS / name))
        assert proc.returncode != 0 and "invalid" in proc.stdout + proc.stderr, name
