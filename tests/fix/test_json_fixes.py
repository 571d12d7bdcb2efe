"""Fixes on JSON input, which kubectl (and, since issue 16, validate) reads with a JSON decoder, not as YAML.

Spans come from the JSON reader's own tokens; a fixed file must stay a JSON stream that decodes to exactly
what the fix promises, and where a node cannot be placed once (a repeated key) the fix is blocked with why.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from kubectl_testbench.fix.apply import FixOptions, fix_text
from kubectl_testbench.validate.engine import validate_text
from kubectl_testbench.validate.spans import find, json_span_tree
from tests.conftest import run_cli
from tests.validate.helpers import VALID


def _experiment(**changes: object) -> dict[str, object]:
    doc: dict[str, object] = yaml.safe_load(VALID)
    spec = doc["spec"]
    assert isinstance(spec, dict)
    spec.update(changes)
    return doc


def _values(text: str) -> list[object]:
    """Every value of a JSON stream, decoded by the standard library (an independent reading)."""
    decoder, values, pos = json.JSONDecoder(), [], 0
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos == len(text):
            break
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)
    return values


def test_a_stream_of_values_on_one_line_is_fixed_in_the_value_that_needs_it_only() -> None:
    first = json.dumps(_experiment())
    second = json.dumps(_experiment(trigger={"enabled": True, "concurrencyPolicy": "forbid"}))
    text = first + second + "\n"
    outcome = fix_text(text, "s.json", FixOptions())
    assert outcome.after == first + second.replace('"forbid"', '"Forbid"') + "\n"
    assert [v["spec"].get("trigger") for v in _values(outcome.after)] == [  # type: ignore[index]
        None, {"enabled": True, "concurrencyPolicy": "Forbid"}]
    assert validate_text(outcome.after, "s.json").diagnostics == []


def test_surrogate_escapes_that_libyaml_refuses_do_not_stop_a_fix() -> None:
    doc = _experiment(trigger={"enabled": True, "concurrencyPolicy": "replace"})
    doc["metadata"]["annotations"] = {"note": "\U0001f600"}  # type: ignore[index]
    text = json.dumps(doc, indent=2)  # writes \ud83d\ude00
    assert "\\ud83d\\ude00" in text
    after = fix_text(text, "e.json", FixOptions()).after
    assert after == text.replace('"replace"', '"Replace"')
    assert json.loads(after)["metadata"]["annotations"]["note"] == "\U0001f600"


def test_a_repeated_key_loses_its_earlier_copy_then_its_value_is_fixed() -> None:
    """While the key repeats, the enum's fix is not placed (which copy?); the duplicate's fix removes the earlier
    copy, which Kubernetes never reads, and the next round fixes the one left."""
    text = json.dumps(_experiment(trigger={"enabled": True})).replace(
        '"enabled": true', '"concurrencyPolicy": "allow", "concurrencyPolicy": "allow", "enabled": true')
    diagnostics = validate_text(text, "d.json").diagnostics
    (enum,) = [d for d in diagnostics if d.rule == "schema/enum"]
    assert enum.fix is not None and not enum.fix.edits
    assert enum.fix.blocked == ("the node is not written once at this path (it comes from an alias or a merge key, "
                                "or the key repeats)")
    (duplicate,) = [d for d in diagnostics if d.rule == "yaml/duplicate-key"]
    assert duplicate.fix is not None and [e.text for e in duplicate.fix.edits] == [""]
    assert fix_text(text, "d.json", FixOptions()).after == text.replace(
        '"concurrencyPolicy": "allow", "concurrencyPolicy": "allow"', '"concurrencyPolicy": "Allow"')


def test_every_fix_kind_on_json_writes_json(tmp_path: Path) -> None:
    """Quote, replace (enum, number, metric case), rename, delete, insert: one file, decoded after the fix."""
    doc = _experiment(trigger={"enabled": True, "concurrencyPolicy": "allow"})
    doc["metadata"]["creationTimestamp"] = None  # type: ignore[index]
    doc["metadata"]["lables"] = {"team": "weather"}  # type: ignore[index]
    inline = doc["spec"]["dataset"]["inline"]  # type: ignore[index]
    inline["defaultThreshold"] = "0.8"
    step = inline["scenarios"][0]["steps"][0]
    step["input"] = 42
    step["reference"]["toolCalls"] = [{"name": "get_weather"}]
    step["metrics"] = [{"metricName": "toolcallaccuracy"}]
    path = tmp_path / "all.json"
    path.write_text(json.dumps(doc, indent=2) + "\n")
    result = run_cli("fix", str(path))
    assert result.exit_code == 0, result.output
    after = json.loads(path.read_text())
    assert after["metadata"] == {"name": "weather-eval", "namespace": "agents", "labels": {"team": "weather"}}
    step = after["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][0]
    assert step["input"] == "42" and step["metrics"] == [{"metricName": "ToolCallAccuracy"}]
    assert step["reference"]["toolCalls"] == [{"name": "get_weather", "args": {}}]
    assert after["spec"]["dataset"]["inline"]["defaultThreshold"] == 0.8
    assert after["spec"]["trigger"]["concurrencyPolicy"] == "Allow"
    assert run_cli("validate", str(path)).exit_code == 0


def test_json_span_reader_matches_the_json_readers_values() -> None:
    text = ' {"a": {"b": [1, "x\\u00e9", null]}, "c":true}{"z": 1}'
    tree = json_span_tree(text, 1)
    assert tree is not None and text[tree.start:tree.end] == text[1:text.index("{\"z")]
    found = find(tree, ("a", "b", 1))
    assert found is not None and found[2].value == "xé" and text[found[2].start:found[2].end] == '"x\\u00e9"'
    assert json_span_tree('{"a": 1', 0) is None  # not one complete value


def test_migrate_refuses_json_with_a_reason() -> None:
    doc = _experiment(llmAsAJudgeModel="gemini-2.5-flash-lite")
    text = json.dumps(doc, indent=2)
    outcome = fix_text(text, "old.json", FixOptions(migrate=True))
    assert outcome.after == text
    assert [n.message for n in outcome.notes] == [
        "cannot migrate this Experiment: it is JSON, which is not edited line by line: migrate it by hand"]
