"""A dataset file (``experiment.json``: what the setup phase downloads) checked against the phase package's own
schema, with located findings.

The schema is ``testbench/schema/experiment.schema.json`` of agentic-layer-testbench, joined with the
``common.schema.json`` it refers to (:mod:`kubectl_testbench.generate.dataset_schema`, drift-tested against the
installed package). It is walked by the same validator as the CRD's schema, read the way the phase reads it:

- fields the schema does not name are allowed by it and dropped by the phase's models, so they are warnings
  (``dataset/unknown-field``, with the closest field the schema names), not errors;
- an object the schema gives no properties (``args``, ``parameters``, ``custom_values``) takes any field;
- ``null`` for an optional field is what the phase's models take as absent (pydantic ``X | None``), so it is
  accepted; ``null`` for a required one (``input``, ``name``) is reported missing.

``dataset validate`` reads the file as the setup phase does (``json.loads`` of UTF-8: one value, no BOM, no
YAML) with the project's JSON reader and its reading limits; ``validate`` checks a dataset file it meets among its
inputs (a mapping with ``scenarios``, neither ``apiVersion`` nor ``kind``, and none of the fields a run's result
adds: :func:`is_dataset`) with :func:`check_dataset`.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.positions import field_path, locate
from kubectl_testbench.package_data import GENERATED_DIR
from kubectl_testbench.rules import severity
from kubectl_testbench.rules.dataset import DATASET_NOT_JSON, DATASET_SCHEMA, DATASET_UNKNOWN_FIELD
from kubectl_testbench.rules.schema import SCHEMA_UNKNOWN_FIELD
from kubectl_testbench.rules.yaml import YAML_DUPLICATE_KEY, YAML_SYNTAX
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity

GENERATED_SCHEMA = GENERATED_DIR / "dataset-schema.json"
"""The phase package's schema of a dataset file, joined into one document and committed."""
DATASET_OBJECT = "dataset"
"""What a dataset finding is about (the ``object`` of its Diagnostic)."""


RUN_OUTPUT_FIELDS = frozenset({"id", "trace_id", "turns", "evaluations"})
"""What the run and evaluate phases add to the experiment they write (``ExecutedExperiment``: ``id``; its scenarios
``id``/``trace_id``, its steps ``id``/``turns``; ``EvaluatedStep``: ``evaluations``): such a file is a run's
result (``kubectl testbench results`` reads it), not a dataset."""


def is_dataset(data: Any) -> bool:
    """A dataset file's content: ``scenarios``, no ``apiVersion``/``kind`` (not a Kubernetes object) and none of the
    fields a run adds (not an executed or evaluated experiment)."""
    if not (isinstance(data, dict) and "scenarios" in data and "apiVersion" not in data and "kind" not in data):
        return False
    if "id" in data:
        return False
    scenarios = data["scenarios"]
    first = scenarios[0] if isinstance(scenarios, list) and scenarios else None
    if isinstance(first, dict):
        steps = first.get("steps")
        step = steps[0] if isinstance(steps, list) and steps else None
        if RUN_OUTPUT_FIELDS & set(first) or (isinstance(step, dict) and RUN_OUTPUT_FIELDS & set(step)):
            return False
    return True


def schema() -> dict[str, Any]:
    """The committed schema, as generated (``$comment`` and descriptions included)."""
    with GENERATED_SCHEMA.open(encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)
    return loaded


def _as_read(node: Any) -> Any:
    """The schema as the walk must read it: an object without properties takes any field."""
    if isinstance(node, dict):
        out = {k: _as_read(v) for k, v in node.items()}
        if out.get("type") == "object" and "properties" not in out:
            out["x-kubernetes-preserve-unknown-fields"] = True
        return out
    if isinstance(node, list):
        return [_as_read(v) for v in node]
    return node


@cache
def _validator() -> Any:
    from kubectl_testbench.validate.schema import SchemaValidator

    return SchemaValidator(_as_read(schema()))


def check_dataset(doc: Any, file: str, max_findings: int = DEFAULT_LIMITS.max_findings) -> list[Diagnostic]:
    """Schema findings for one dataset document (positions from the reader's nodes, when it kept them)."""
    errors, _ = _validator().validate(doc)
    out: list[Diagnostic] = []
    for err in errors[:max_findings]:
        unknown = err.rule == SCHEMA_UNKNOWN_FIELD.id
        rule = DATASET_UNKNOWN_FIELD if unknown else DATASET_SCHEMA
        line, col = locate(doc, err.path, key=err.key) or (1, 1)
        message = (f'"{err.path[-1]}" is not a field of the schema: the phase package ignores it' if unknown
                   else err.message)
        hint = "" if "YAML" in err.hint else err.hint  # the walk's hints about YAML scalars do not apply to JSON
        out.append(Diagnostic(rule.id, rule.severity, message, file, line, col, field_path(err.path), hint,
                              DATASET_OBJECT))
    return out


def check_dataset_bytes(data: bytes, file: str, limits: Limits = DEFAULT_LIMITS) -> list[Diagnostic]:
    """Every finding for a dataset file's bytes, read as the setup phase reads them: UTF-8 (no byte-order mark),
    one JSON value. Reading is bounded by ``limits`` (size is the caller's: it read the bytes)."""
    import codecs

    if data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return [not_json_finding(file, (1, 1), "the file starts with a byte-order mark: the setup phase's json.loads "
                                        "refuses it", "save the file as UTF-8 without a byte-order mark")]
    from kubectl_testbench.load.decode import DecodeError, decode

    try:
        text = decode(data)
    except DecodeError as err:
        return [Diagnostic(err.rule, severity(err.rule), err.message, file, *err.mark, object=DATASET_OBJECT)]
    return check_dataset_text(text, file, limits)


def check_dataset_text(text: str, file: str, limits: Limits = DEFAULT_LIMITS) -> list[Diagnostic]:
    """Every finding for a dataset file's text: one JSON value (the reader's own findings for syntax, depth,
    size and duplicate fields), then the schema."""
    from kubectl_testbench.load.jsonread import read_stream

    if text.lstrip()[:1] not in ("{", "["):
        return [not_json_finding(file, _first_mark(text), "not JSON: a dataset file is one JSON object (the setup "
                                 "phase reads it with json.loads)",
                                 "convert it: kubectl testbench import --from json, csv, …")]
    documents = read_stream(text, limits)
    first = next(documents)
    if first.error is not None:
        return [_remark(first.error, file)]
    out = [_remark(remark, file) for remark in first.remarks]
    second = next(documents, None)
    if second is not None:
        return [*out, not_json_finding(file, (second.start_line + 1, _col(text, second.start)),
                                "a second JSON value after the first: the setup phase's json.loads refuses the "
                                "file (Extra data)", "keep one object in the file")]
    out.extend(check_dataset(first.data, file, limits.max_findings))
    return sorted(out, key=Diagnostic.sort_key)


def _remark(remark: Any, file: str) -> Diagnostic:
    message = remark.message
    if remark.rule == YAML_SYNTAX.id:
        message = f"JSON: {message}"
    elif remark.rule == YAML_DUPLICATE_KEY.id:
        message = f'duplicate field "{remark.path[-1]}": the setup phase\'s json.loads keeps the later value'
    line, col = remark.mark
    return Diagnostic(remark.rule, severity(remark.rule), message, file, line, col, field_path(remark.path),
                      object=DATASET_OBJECT)


def not_json_finding(file: str, mark: tuple[int, int], message: str, hint: str) -> Diagnostic:
    """A ``dataset/not-json`` finding: the setup phase's ``json.loads`` cannot read the file at ``mark``."""
    return Diagnostic(DATASET_NOT_JSON.id, Severity.ERROR, message, file, *mark, hint=hint, object=DATASET_OBJECT)


def _first_mark(text: str) -> tuple[int, int]:
    """Where the first character that is not white space is (1-based), or 1:1."""
    stripped = text.lstrip()
    if not stripped:
        return (1, 1)
    offset = len(text) - len(stripped)
    return text.count("\n", 0, offset) + 1, _col(text, offset)


def _col(text: str, offset: int) -> int:
    return offset - text.rfind("\n", 0, offset)
