"""The scalar tables of tests/load/test_scalars_tags.py against Kubernetes' own decoder (sigs.k8s.io/yaml YAMLToJSON,
run by the oracle built from Debian's Go packages; skipped, naming what to install, without them)."""

from __future__ import annotations

import json
from typing import Any

from tests.load.test_scalars_tags import PLAIN, REFUSED, TAGGED
from tests.oracle.harness import Oracle


def _decoded(oracle: Oracle, lines: list[str]) -> list[dict[str, Any]]:
    answers = oracle.ask([f"v: {line}\n".encode() for line in lines])
    return [docs[0] for docs in answers]


def _same(go_text: str, ours: object) -> bool:
    """Go writes a float64 in its shortest form (2**63 as 9223372036854776000): compare such numbers as floats."""
    go = json.loads(go_text)["v"]
    if isinstance(ours, bool) or ours is None or isinstance(ours, str):
        return go is ours or (isinstance(go, str) and go == ours)
    if isinstance(go, bool) or not isinstance(go, int | float):
        return False
    if isinstance(go, int) and abs(go) >= 2**53 and go != ours:
        # Go printed a float64 (its shortest form): ours must be that very float64, not a nearby exact integer
        return float(go) == float(ours) and int(float(ours)) == ours
    return bool(go == ours)


def test_plain_rows_agree_with_kubernetes(oracle: Oracle) -> None:
    docs = _decoded(oracle, [text for text, _, _ in PLAIN])
    wrong = [(text, doc.get("yaml_to_json") or doc.get("parse_error"), value)
             for (text, value, _), doc in zip(PLAIN, docs, strict=True)
             if not _same(doc.get("yaml_to_json", '{"v": "<no JSON>"}'), value)]
    assert wrong == []


def test_tagged_rows_agree_with_kubernetes(oracle: Oracle) -> None:
    docs = _decoded(oracle, [f"!!{tag} {json.dumps(text)}" for tag, text, _ in TAGGED])
    wrong = [(tag, text, doc.get("yaml_to_json") or doc.get("parse_error"), value)
             for (tag, text, value), doc in zip(TAGGED, docs, strict=True)
             if not _same(doc.get("yaml_to_json", '{"v": "<no JSON>"}'), value)]
    assert wrong == []


def test_refused_rows_are_refused_by_kubernetes(oracle: Oracle) -> None:
    docs = _decoded(oracle, [f"!!{tag} {json.dumps(text)}" for tag, text, _ in REFUSED])
    accepted = [(tag, text, doc.get("yaml_to_json")) for (tag, text, _), doc in zip(REFUSED, docs, strict=True)
                if "cannot decode" not in doc.get("parse_error", "")]
    assert accepted == []


