"""Property-based fuzzing of validate and render, bounded for CI (FUZZ_EXAMPLES raises the budget).

Valid Experiments come from tests.strategies; mutations break them the way edits and attacks do (wrong
types, deleted or unknown keys, expression and shell text, duplicated keys, truncated or corrupted
text). Properties: validate never raises; every finding has a location; valid input renders
deterministically to Testkube-schema-valid manifests; invalid input never renders.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from kubectl_testbench.emit.yamlout import dump
from kubectl_testbench.load.builder import build
from kubectl_testbench.load.sources import Source
from kubectl_testbench.pipeline.render import Request, render_source
from kubectl_testbench.render.compile import render_experiment
from kubectl_testbench.render.settings import Flags
from kubectl_testbench.validate.diagnostics import Severity
from kubectl_testbench.validate.engine import Options, validate_text
from tests.conftest import TESTKUBE_CRDS
from tests.strategies import experiments, json_value
from tests.validate.helpers import keep

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.function_scoped_fixture])
NASTY = st.sampled_from(["{{ env.SECRET }}", "$(rm -rf /)", "`id`", "${HOME}", "yes", "1:20", "0755", "~", "",
                         "\u2028", "a: b", "- x", "#", "\x00", "\ud800", "é" * 70, "x" * 300, ".inf", "null"])
LEAVES = st.one_of(json_value, NASTY, st.floats(allow_nan=True, allow_infinity=True))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    doc = draw(experiments())
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        path = draw(st.sampled_from(paths))
        parent = doc
        for seg in path[:-1]:
            parent = parent[seg]
        key = path[-1]
        action = draw(st.sampled_from(["delete", "replace", "unknown", "duplicate", "wrap"]))
        if action == "delete" and isinstance(parent, dict):
            del parent[key]
        elif action == "replace":
            parent[key] = draw(LEAVES)
        elif action == "unknown" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["agentref", "extra", "metric_name", "Input"]))] = draw(LEAVES)
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        elif action == "wrap":
            parent[key] = [parent[key]]
    return doc


def _text(doc: dict[str, Any]) -> str:
    try:
        return dump(doc)
    except (TypeError, UnicodeEncodeError):
        return repr(doc)


def _check_findings(result: Any, text: str) -> None:
    for d in result.diagnostics:
        assert d.rule and d.message and d.severity in Severity
        if d.rule != "input/empty":
            assert d.line >= 1 and d.col >= 0, d
            assert d.line <= text.count("\n") + 2, d


@FUZZ
@given(doc=mutated())
def test_validate_never_raises_and_every_finding_has_a_location(doc: dict[str, Any]) -> None:
    text = _text(doc)
    result = validate_text(text, "fuzz.yaml")
    _check_findings(result, text)


@FUZZ
@given(doc=experiments())
def test_valid_input_renders_deterministically_and_schema_valid(doc: dict[str, Any]) -> None:
    text = dump(doc)
    result = validate_text(text, "fuzz.yaml", Options(), keep=keep(experiments=True))
    assert result.counts.valid == 1, [d.message for d in result.diagnostics]
    first = render_experiment(result.experiments[0].data, Flags())
    again = render_experiment(validate_text(text, "f", keep=keep(experiments=True)).experiments[0].data, Flags())
    assert dump(first) == dump(again)
    if TESTKUBE_CRDS.exists():
        from tests.testkube_schema import problems

        for obj in first:
            assert problems(obj) == []


@FUZZ
@given(doc=mutated())
def test_invalid_input_never_renders(doc: dict[str, Any], tmp_path_factory: Any) -> None:
    path = Path(tmp_path_factory.mktemp("fuzz")) / "exp.yaml"
    path.write_text(_text(doc), encoding="utf-8", errors="surrogatepass")
    out = render_source(Source(str(path), root=str(path)), Request(discover_defaults=False))
    errors = [d for d in out.result.diagnostics if d.severity is Severity.ERROR]
    if errors or out.result.counts.invalid or out.result.counts.unreadable:
        assert out.objects == []
    elif out.result.counts.valid:
        assert out.objects, "a valid Experiment renders at least a TestWorkflow"


@FUZZ
@given(data=st.data())
def test_raw_loader_never_raises_on_corrupted_text(data: st.DataObject) -> None:
    text = dump(data.draw(experiments()))
    ops = data.draw(st.lists(st.tuples(st.sampled_from(["insert", "delete", "flip"]), st.integers(0, len(text)),
                                       st.text(min_size=1, max_size=4)), min_size=1, max_size=5))
    for op, at, chunk in ops:
        at = min(at, len(text))
        if op == "insert":
            text = text[:at] + chunk + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + len(chunk):]
        else:
            text = text[:at] + chunk[0] + text[at + 1:]
    built = build(text)
    assert built.error is None or (built.error.rule.startswith("yaml/") and built.error.mark[0] >= 1)
    result = validate_text(text, "corrupt.yaml")
    _check_findings(result, text)


@FUZZ
@given(blob=st.binary(max_size=512))
def test_raw_bytes_never_crash_the_reader(blob: bytes, tmp_path_factory: Any) -> None:
    from kubectl_testbench.pipeline.inputs import validate_source

    path = Path(tmp_path_factory.mktemp("bytes")) / "blob.yaml"
    path.write_bytes(blob)
    result = validate_source(Source(str(path)))
    assert all(d.rule for d in result.diagnostics)
