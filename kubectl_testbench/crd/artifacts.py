"""The generated, committed artefacts: ``schemas/``, the validator's packaged copy of the CRD, and what
CEL needs on a cold start (celpy's grammar as LALR tables, the packaged rules' outcomes).

``python -m kubectl_testbench.crd.artifacts --write`` regenerates them; tests fail when they drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from kubectl_testbench.emit.yamlout import dump

PACKAGE = Path(__file__).resolve().parent.parent
REPO = PACKAGE.parent
CRD_FILE = "testbench.agentic-layer.ai_experiments.yaml"
JSON_SCHEMA_FILE = "experiment.schema.json"
PACKAGED_CRD = PACKAGE / "_generated" / "experiment-crd.json"
CEL_PARSER = PACKAGE / "_generated" / "cel-parser.json"
CEL_RULES = PACKAGE / "_generated" / "cel-rules.json"
DEFAULTS_SCHEMA = PACKAGE / "_generated" / "render-defaults-schema.json"


def sort_keys(value: Any) -> Any:
    """controller-gen writes every mapping with sorted keys; so do we, for stable diffs against it."""
    if isinstance(value, dict):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sort_keys(v) for v in value]
    return value


def crd_document() -> dict[str, Any]:
    from kubectl_testbench.crd.document import experiment_crd

    doc: dict[str, Any] = sort_keys(experiment_crd())
    return doc


def crd_yaml() -> str:
    return "---\n" + dump(crd_document())


def json_schema_text() -> str:
    from kubectl_testbench.crd.jsonschema import experiment_json_schema

    return json.dumps(experiment_json_schema(), indent=2, ensure_ascii=False) + "\n"


def packaged_crd_text() -> str:
    return json.dumps(crd_document(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def cel_rules_text() -> str:
    from kubectl_testbench.validate.cel_shipped import table_text

    versions = crd_document()["spec"]["versions"]
    if len(versions) != 1:
        raise NotImplementedError("cel-rules.json describes one CRD version")
    return table_text(versions[0]["schema"]["openAPIV3Schema"])


def cel_parser_text() -> str:
    from kubectl_testbench.validate.cel_tables import tables_text

    return tables_text()


def defaults_schema_text() -> str:
    from kubectl_testbench.render.defaults_file import defaults_schema

    return json.dumps(defaults_schema(), indent=1, ensure_ascii=False) + "\n"


def expected_files() -> dict[Path, str]:
    """Every generated file and the content it must have."""
    from kubectl_testbench.rules.docs import markdown

    return {
        REPO / "docs" / "rules.md": markdown(),
        REPO / "schemas" / CRD_FILE: crd_yaml(),
        REPO / "schemas" / JSON_SCHEMA_FILE: json_schema_text(),
        PACKAGED_CRD: packaged_crd_text(),
        CEL_PARSER: cel_parser_text(),
        CEL_RULES: cel_rules_text(),
        DEFAULTS_SCHEMA: defaults_schema_text(),
    }


def main(argv: list[str]) -> int:
    stale = [p for p, text in expected_files().items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if "--write" in argv:
        for path, text in expected_files().items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return 0
    for path in stale:
        print(f"stale: {path}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
