"""``_generated/dataset-schema.json``: the phase package's own schema of a dataset file, in one document.

agentic-layer-testbench ships ``testbench/schema/experiment.schema.json`` (draft-07), which refers to
``common.schema.json`` for a step's reference and metrics. The two files are read from the installed package in
the phase environment (found or built as for the metric table, hence only on request: ``--write dataset-schema``)
and joined: every ``$ref`` is replaced by what it names, nothing else changes, and a ``$comment`` says where the
schema comes from (the package is Apache-2.0). ``dataset validate`` checks files against the committed result;
tests/phases/test_dataset_schema_drift.py derives it again from the installed package and compares.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from kubectl_testbench.phases.env import PACKAGE, PACKAGE_VERSION, Env, PhaseEnvError, ensure_phase_env

SCHEMA_FILES = ("experiment.schema.json", "common.schema.json")
_READ = ("import json, importlib.resources as r; d = r.files('testbench.schema'); "
         f"print(json.dumps({{n: d.joinpath(n).read_text(encoding='utf-8') for n in {SCHEMA_FILES!r}}}))")
SOURCE_COMMENT = (f"testbench/schema/experiment.schema.json of {PACKAGE} {PACKAGE_VERSION} (Apache-2.0, "
                  "https://github.com/agentic-layer/testbench), with its $refs to common.schema.json and to its own "
                  "definitions replaced by what they name. Generated: python -m kubectl_testbench.generate --write "
                  "dataset-schema")


def installed_schemas(env: Env) -> dict[str, Any]:
    """The package's schema files as installed in ``env``, parsed, by file name."""
    done = subprocess.run([os.fspath(env.python), "-I", "-c", _READ], capture_output=True, text=True, timeout=120,
                          check=False)
    if done.returncode != 0:
        raise PhaseEnvError(f"reading the phase package's schemas failed (exit {done.returncode}):\n"
                            f"{done.stderr[-3000:]}")
    texts: dict[str, str] = json.loads(done.stdout)
    return {name: json.loads(text) for name, text in texts.items()}


def joined(schemas: dict[str, Any]) -> dict[str, Any]:
    """``experiment.schema.json`` with every ``$ref`` (``#/definitions/x``, ``common.schema.json#/…``) inlined."""
    root_name = SCHEMA_FILES[0]

    def resolve(ref: str, current: str) -> tuple[Any, str]:
        file, _, pointer = ref.partition("#")
        file = file or current
        node: Any = schemas[file]
        for part in pointer.strip("/").split("/") if pointer.strip("/") else ():
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node, file

    def inline(node: Any, current: str, depth: int) -> Any:
        if depth > 50:
            raise ValueError("the schema's $refs nest deeper than 50: a recursive schema cannot be inlined")
        if isinstance(node, dict):
            if "$ref" in node:
                target, file = resolve(node["$ref"], current)
                return inline(target, file, depth + 1)
            return {k: inline(v, current, depth + 1) for k, v in node.items() if k != "definitions"}
        if isinstance(node, list):
            return [inline(v, current, depth + 1) for v in node]
        return node

    out: dict[str, Any] = {"$comment": SOURCE_COMMENT}
    out.update(inline(schemas[root_name], root_name, 0))
    return out


def render(schema: dict[str, Any]) -> str:
    """The committed bytes: the schema's own key order, two-space indent, final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def dataset_schema_text() -> str:
    """The joined schema of the phase environment ``$KUBECTL_TESTBENCH_PHASE_PYTHON`` names, else the cached one;
    raises :class:`PhaseEnvError` when there is none and it cannot be built."""
    env = ensure_phase_env(os.environ.get("KUBECTL_TESTBENCH_PHASE_PYTHON"),
                           progress=lambda message: print(message, file=sys.stderr))
    return render(joined(installed_schemas(env)))
