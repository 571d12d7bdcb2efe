"""Machine-readable fixes: ``validate -o sarif`` and ``-o json`` carry each fix, SARIF with fixes passes the OASIS
schema, and applying the SARIF replacements to the original bytes gives exactly what ``fix`` writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_process
from tests.fix.helpers import CORPUS, bom, crlf
from tests.integrations.test_ci_output import sarif_schema

NEGATIVE = ROOT / "tests" / "validate" / "corpus"
ONE_ROUND = ["concurrency-policy-lowercase.yaml", "status-in-file.yaml", "tab-indentation.yaml",
             "threshold-quoted.yaml", "document-separator-with-content.yaml", "input-yaml11-boolean.yaml"]


def _sarif(path: Path) -> dict[str, Any]:
    proc = run_process("validate", "-o", "sarif", path.name, cwd=path.parent)
    doc = json.loads(proc.stdout)
    assert isinstance(doc, dict)
    return doc


def _replacements(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for result in doc["runs"][0]["results"] for fix in result.get("fixes", ())
            for change in fix["artifactChanges"] for r in change["replacements"]]


def _apply(data: bytes, replacements: list[dict[str, Any]]) -> bytes:
    for r in sorted(replacements, key=lambda r: r["deletedRegion"]["byteOffset"], reverse=True):
        region = r["deletedRegion"]
        start = region["byteOffset"]
        data = data[:start] + r["insertedContent"]["text"].encode() + data[start + region["byteLength"]:]
    return data


def _fixed_by_the_cli(source: Path, tmp_path: Path) -> bytes:
    copy = tmp_path / "cli" / source.name
    copy.parent.mkdir(exist_ok=True)
    shutil.copyfile(source, copy)
    proc = run_process("fix", str(copy))
    assert b"Traceback" not in proc.stderr
    return copy.read_bytes()


def _variants(tmp_path: Path) -> list[Path]:
    out = [NEGATIVE / name for name in ONE_ROUND]
    out.append(ROOT / "tests" / "hostile" / "corpus" / "json-stream-emoji.json")  # JSON read as kubectl reads it
    for name in ("flow-style.yaml", "comments-with-fixes.yaml", "multi-document.yaml", "json-experiment.json"):
        changes = (("plain", lambda b: b), ("crlf", crlf), ("bom", bom), ("crlf-bom", lambda b: bom(crlf(b))))
        for variant, change in changes:
            target = tmp_path / variant / name
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(change((CORPUS / name).read_bytes()))
            out.append(target)
    return out


def test_sarif_with_fixes_validates_against_the_oasis_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft4Validator(sarif_schema(), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    for variant in ("crlf", "bom"):
        (tmp_path / variant).mkdir()
        for source in CORPUS.glob("*.yaml"):
            (tmp_path / variant / source.name).write_bytes((crlf if variant == "crlf" else bom)(source.read_bytes()))
    shutil.copytree(NEGATIVE, tmp_path / "negative")
    proc = run_process("validate", "-o", "sarif", ".", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert errors == [], [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]
    fixes = [f for r in doc["runs"][0]["results"] for f in r.get("fixes", ())]
    assert len(fixes) >= 40
    for fix in fixes:
        (change,) = fix["artifactChanges"]
        assert change["artifactLocation"]["uriBaseId"] == "%SRCROOT%" and fix["description"]["text"]


def test_sarif_replacements_applied_to_the_original_bytes_give_what_fix_writes(tmp_path: Path) -> None:
    for source in _variants(tmp_path):
        original = source.read_bytes()
        expected = _fixed_by_the_cli(source, tmp_path)
        work = tmp_path / "sarif" / source.name
        work.parent.mkdir(exist_ok=True)
        work.write_bytes(original)
        rounds = 0
        while True:
            replacements = _replacements(_sarif(work))
            if not replacements:
                break
            work.write_bytes(_apply(work.read_bytes(), replacements))
            rounds += 1
        assert work.read_bytes() == expected, source
        if source.name in ONE_ROUND or source.name == "flow-style.yaml":
            assert rounds == 1, source


def test_sarif_regions_by_line_and_by_byte_are_the_same_range(tmp_path: Path) -> None:
    source = tmp_path / "x.yaml"
    source.write_bytes(bom(crlf((CORPUS / "comments-with-fixes.yaml").read_bytes())).replace(
        b"# who and where", "# wer und wo \u2014 \u5929\u6c17 \U0001f326".encode()))  # multi-byte code points
    data = source.read_bytes()
    text = data[3:].decode()
    lines = text.split("\r\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 2)
    replacements = _replacements(_sarif(source))
    assert len(replacements) >= 10
    for r in replacements:
        region = r["deletedRegion"]
        for line_key, col_key, byte_of in (("startLine", "startColumn", region["byteOffset"]),
                                           ("endLine", "endColumn", region["byteOffset"] + region["byteLength"])):
            char = starts[region[line_key] - 1] + region[col_key] - 1
            assert 3 + len(text[:char].encode()) == byte_of


def test_json_report_carries_the_same_fix_with_offsets_lines_and_text(tmp_path: Path) -> None:
    path = tmp_path / "enum.yaml"
    shutil.copyfile(NEGATIVE / "concurrency-policy-lowercase.yaml", path)
    proc = run_process("validate", "-o", "json", path.name, cwd=tmp_path)
    (diag,) = [d for d in json.loads(proc.stdout)["diagnostics"] if "fix" in d]
    assert diag["rule"] == "schema/enum"
    data = path.read_bytes()
    start = data.index(b"concurrencyPolicy: allow") + len(b"concurrencyPolicy: ")  # ASCII file: chars == bytes
    line = data[:start].count(b"\n") + 1
    column = start - data.rindex(b"\n", 0, start)
    assert diag["fix"] == {"kind": "replace", "path": "spec.trigger.concurrencyPolicy", "value": "Allow",
                           "title": 'write "Allow"',
                           "edits": [{"start": start, "end": start + 5, "byteOffset": start, "byteLength": 5,
                                      "startLine": line, "startColumn": column, "endLine": line,
                                      "endColumn": column + 5, "text": "Allow"}]}
    assert (line, column) == (28, 24)
