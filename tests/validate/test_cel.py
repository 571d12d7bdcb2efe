"""CEL rules read from the generated CRD, evaluated with celpy as the API server evaluates them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from kubectl_testbench.validate.cel.evaluate import CompiledRule, compiled
from kubectl_testbench.validate.crdschema import open_api_schema

DATASET_SCHEMA = open_api_schema()["properties"]["spec"]["properties"]["dataset"]


def test_the_dataset_rule_comes_from_the_generated_crd() -> None:
    [rule] = DATASET_SCHEMA["x-kubernetes-validations"]
    assert rule == {"message": "exactly one of s3, url, or inline must be set",
                    "rule": "(has(self.s3) ? 1 : 0) + (has(self.url) ? 1 : 0) + (has(self.inline) ? 1 : 0) == 1"}


def test_dataset_rule_outcomes() -> None:
    rule = compiled(DATASET_SCHEMA["x-kubernetes-validations"][0])
    assert rule.evaluate({"url": "https://x/y.json"}, DATASET_SCHEMA).passed
    assert not rule.evaluate({}, DATASET_SCHEMA).passed
    failed = rule.evaluate({"url": "u", "s3": {"bucket": "b", "key": "k"}}, DATASET_SCHEMA)
    assert not failed.passed and failed.message == "exactly one of s3, url, or inline must be set"


def test_rule_paths_are_read_from_the_ast() -> None:
    rule = compiled({"rule": "has(self.a) && self.b.c > 1 && self.d.size() == 2", "message": "m"})
    assert rule.presence == [("a",)]
    assert sorted(rule.values) == [("b", "c"), ("d",)]


@pytest.mark.parametrize(("rule", "presence", "values"), [
    ("size(self) > 1", [], [()]),  # the whole of self is read: nothing can be projected away
    ("self['a'] == 1", [], [()]),
    ("self.l.all(x, x > self.a)", [], [("l",), ("a",)]),
    ("has(self.a) && self.m.k == 'v'", [("a",)], [("m", "k")]),
    ("self.l.exists(x, x == 1) && size(self.n) > 0", [], [("l",), ("n",)]),
])
def test_the_paths_a_rule_observes(rule: str, presence: list[tuple[str, ...]], values: list[tuple[str, ...]]) -> None:
    analysed = CompiledRule({"rule": rule})
    assert (analysed.presence, analysed.values) == (presence, values)


OBJECT = {"type": "object", "properties": {
    "a": {"type": "integer"}, "b": {"type": "object", "properties": {"c": {"type": "number"}}},
    "d": {"type": "array", "items": {"type": "string"}}, "e": {"type": "string"}}}

RULES = [
    "has(self.a) && self.b.c > 1.5",
    "(has(self.a) ? 1 : 0) + (has(self.e) ? 1 : 0) == 1",
    "!has(self.d) || self.d.size() < 2",
    "self.a == 3 || has(self.b)",
    "self.d.all(x, x.startsWith('k'))",
    "has(self.b) && has(self.b.c)",
]

values = st.fixed_dictionaries({}, optional={
    "a": st.integers(0, 5),
    "b": st.fixed_dictionaries({}, optional={"c": st.floats(0, 3, allow_nan=False)}),
    "d": st.lists(st.sampled_from(["k1", "x", "k2"]), max_size=3),
    "e": st.text(max_size=3),
})


@settings(max_examples=150, deadline=None)
@given(value=values, which=st.integers(0, len(RULES) - 1))
def test_memoised_projection_gives_the_same_result_as_evaluating_the_whole_object(value: dict[str, Any],
                                                                                  which: int) -> None:
    spec = {"rule": RULES[which], "message": "m"}
    memoised = compiled(spec).evaluate(value, OBJECT)
    direct = CompiledRule(spec)._run(value, OBJECT)
    assert (memoised.passed, bool(memoised.error)) == (direct.passed, bool(direct.error))


def test_number_fields_are_doubles_and_integer_fields_ints() -> None:
    rule = compiled({"rule": "self.b.c == 2.0 && self.a == 2", "message": "m"})
    assert rule.evaluate({"a": 2, "b": {"c": 2}}, OBJECT).passed


def test_transition_rules_do_not_run_on_create() -> None:
    outcome = compiled({"rule": "self.a == oldSelf.a", "message": "immutable"}).evaluate({"a": 1}, OBJECT)
    assert outcome.passed and outcome.skipped


def test_message_expression_and_field_path() -> None:
    spec = {"rule": "self.a < 3", "messageExpression": "'a is ' + string(self.a)", "fieldPath": ".a"}
    outcome = compiled(spec).evaluate({"a": 4}, OBJECT)
    assert (outcome.passed, outcome.message, outcome.field_path) == (False, "a is 4", ("a",))


def test_a_message_expression_reading_what_the_rule_does_not_still_sees_it(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Outcomes are remembered by the projection of self: it must keep what the message reads (e.g. a name)."""
    from kubectl_testbench.validate.cel import store as cel_store
    from kubectl_testbench.validate.cel.evaluate import evaluate_rule

    monkeypatch.setattr(cel_store, "_STORE", cel_store.Store(tmp_path))
    spec = {"rule": "has(self.a)", "message": "static", "messageExpression": "'e is ' + self.e"}
    assert compiled(spec).presence == [("a",)] and compiled(spec).values == [("e",)]
    assert evaluate_rule(spec, {"e": "first"}, OBJECT).message == "e is first"
    assert evaluate_rule(spec, {"e": "second"}, OBJECT).message == "e is second", "not the remembered first"


def test_kubernetes_string_library_shims() -> None:
    rule = compiled({"rule": "self.e.lowerAscii() == 'abc' && self.e.split('B').size() == 2", "message": "m"})
    assert rule.evaluate({"e": "aBc"}, OBJECT).passed


def test_evaluation_errors_are_reported_not_raised() -> None:
    outcome = compiled({"rule": "self.b.c > 1", "message": "m"}).evaluate({}, OBJECT)
    assert not outcome.passed and outcome.error


# --- the API server's rule semantics (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go) ---------


def test_message_expression_falls_back_to_message_like_eval_message_expression() -> None:
    for bad in ("'two\\nlines'", "''", "'   '", "5", "self.missing.field", "'x'.repeat(9000)"):
        spec = {"rule": "self.a < 3", "message": "  a too big  ", "messageExpression": bad}
        assert compiled(spec).evaluate({"a": 4}, OBJECT).message == "a too big", bad
    good = {"rule": "self.a < 3", "message": "m", "messageExpression": "'  a is ' + string(self.a) + '  '"}
    assert compiled(good).evaluate({"a": 4}, OBJECT).message == "a is 4"
    no_message = {"rule": " self.a < 3 ", "messageExpression": "'x\\ny'"}
    assert compiled(no_message).evaluate({"a": 4}, OBJECT).message == "failed rule: self.a < 3"


def test_reason_picks_the_kind_of_field_error() -> None:
    from kubectl_testbench.validate.engine import run_cel
    from kubectl_testbench.validate.schema import SchemaValidator

    found: list[tuple[str, tuple[Any, ...], str]] = []
    for reason in ("FieldValueRequired", "FieldValueForbidden", "FieldValueDuplicate", "FieldValueInvalid", None):
        spec: dict[str, Any] = {"rule": "has(self.e)", "message": "e please", "fieldPath": ".e"}
        if reason:
            spec["reason"] = reason
        schema = {**OBJECT, "x-kubernetes-validations": [spec]}
        _, targets = SchemaValidator(schema).validate({"a": 1})
        run_cel(targets, lambda rule, path, message, hint="": found.append((rule, path, message)), {})
    assert [m for _, _, m in found] == ["Required value: e please", "Forbidden: e please", 'Duplicate value',
                                        'Invalid value: e please', 'Invalid value: e please']
    assert {p for _, p, _ in found} == {("e",)}, "fieldPath points below the rule's node"


def test_optional_old_self_rules_run_on_create_with_old_self_unset() -> None:
    spec = {"rule": "!oldSelf.hasValue() || self.a >= oldSelf.value().a", "message": "no decrease",
            "optionalOldSelf": True}
    assert compiled(spec).evaluate({"a": 1}, OBJECT).passed and not compiled(spec).evaluate({"a": 1}, OBJECT).skipped
    failing = {"rule": "oldSelf.hasValue()", "message": "needs an old object", "optionalOldSelf": True}
    assert compiled(failing).evaluate({"a": 1}, OBJECT).message == "needs an old object"
    assert compiled({"rule": "self.a == oldSelf.a"}).evaluate({"a": 1}, OBJECT).skipped


def test_cel_errors_are_one_line_without_celpy_internals() -> None:
    for rule in ("self.b.c > 1", "undeclared(self.a)", "self.a / 0 == 1", "self.e.size() > 'x'", "self.a +* 2"):
        outcome = compiled({"rule": rule}).evaluate({"a": 1, "e": "x"}, OBJECT)
        assert not outcome.passed and outcome.error, rule
        assert "\n" not in outcome.error and "Activation" not in outcome.error and "Tree(" not in outcome.error
        assert "celpy" not in outcome.error and "Traceback" not in outcome.error
    assert compiled({"rule": "undeclared(self.a)"}).evaluate({"a": 1}, OBJECT).error == (
        "rule compile error: compilation failed: ERROR: <input>:1:11: undeclared reference to 'undeclared' "
        "(in container '')")
    assert compiled({"rule": "self.a +* 2"}).evaluate({"a": 1}, OBJECT).error.startswith("rule compile error: ")
