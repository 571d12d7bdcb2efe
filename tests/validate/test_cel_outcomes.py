"""What one CEL rule reports, branch by branch, as the API server does (apiextensions-apiserver
pkg/apiserver/schema/cel/validation.go): the message a failure carries (message, messageExpression and each
of its fallbacks, ruleMessageOrDefault), reason and fieldPath, the not-evaluated and limit texts, the typed
values ``self`` sees, and the projection outcomes are remembered by."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.validate.cel import cost as cel_cost
from kubectl_testbench.validate.cel.cost import Meter
from kubectl_testbench.validate.cel.evaluate import (
    REASONS,
    CelOutcome,
    CompiledRule,
    analysis_key,
    compiled,
    evaluate_rule,
    one_line,
    outcome_from_saved,
    project,
    saved_outcome,
    to_cel,
)

OBJECT = {"type": "object", "properties": {
    "a": {"type": "integer"}, "d": {"type": "number"}, "e": {"type": "string"},
    "m": {"type": "object", "additionalProperties": {"type": "string"}},
    "l": {"type": "array", "items": {"type": "integer"}}, "ios": {"x-kubernetes-int-or-string": True},
    "free": {"type": "object"}}}


def _fail(spec: dict[str, Any], value: dict[str, Any] | None = None) -> CelOutcome:
    outcome = compiled(spec)._run(value if value is not None else {"a": 4, "e": "x"}, OBJECT)
    assert not outcome.passed and not outcome.error, outcome
    return outcome


def test_without_a_message_the_failure_names_the_trimmed_rule() -> None:
    assert _fail({"rule": "  self.a < 3\n"}).message == "failed rule: self.a < 3"
    assert _fail({"rule": "self.a < 3", "message": "   "}).message == "failed rule: self.a < 3"


def test_the_message_is_trimmed() -> None:
    assert _fail({"rule": "self.a < 3", "message": "  a too big \n"}).message == "a too big"


@pytest.mark.parametrize(("expression", "message"), [
    ("'a is ' + string(self.a)", "a is 4"),
    ("'  a is ' + string(self.a) + '  '", "a is 4"),
    ("'x' * 1", "a too big"),  # an error
    ("self.a", "a too big"),  # not a string
    ("'   '", "a too big"),  # empty once trimmed
    ("'two\\nlines'", "a too big"),
    ("'a' + ", "a too big"),  # does not compile
    ("'" + "x" * 5120 + "'", "x" * 5120),  # the longest allowed
    ("'" + "x" * 5121 + "'", "a too big"),
    ("'" + "é" * 2560 + "'", "é" * 2560),  # bytes, not characters
    ("'" + "é" * 2561 + "'", "a too big"),
])
def test_a_message_expression_is_used_unless_the_api_server_would_fall_back(expression: str, message: str) -> None:
    spec = {"rule": "self.a < 3", "message": "a too big", "messageExpression": expression}
    assert _fail(spec).message == message


def test_a_message_expression_falls_back_to_the_rule_without_a_message() -> None:
    assert _fail({"rule": "self.a < 3", "messageExpression": "self.a"}).message == "failed rule: self.a < 3"


@pytest.mark.parametrize("reason", REASONS)
def test_each_reason_is_kept(reason: str) -> None:
    assert _fail({"rule": "self.a < 3", "reason": reason}).reason == reason


@pytest.mark.parametrize("reason", [None, "", "FieldValueTooLong", "fieldValueRequired"])
def test_other_reasons_are_field_value_invalid(reason: str | None) -> None:
    assert _fail({"rule": "self.a < 3", "reason": reason}).reason == "FieldValueInvalid"


@pytest.mark.parametrize(("field_path", "parsed"), [
    ("", ()),
    (".a", ("a",)),
    (".m['x.y'].z", ("m", "x.y", "z")),
    (".l[2]", ("l", 2)),
    (".a_1.B2", ("a_1", "B2")),
])
def test_field_path_points_below_the_rules_node(field_path: str, parsed: tuple[Any, ...]) -> None:
    assert _fail({"rule": "self.a < 3", "fieldPath": field_path}).field_path == parsed


def test_a_passing_rule_has_no_message_or_error() -> None:
    assert compiled({"rule": "self.a < 3", "message": "m"})._run({"a": 1}, OBJECT) == CelOutcome(True)


@pytest.mark.parametrize(("rule", "error"), [
    ("9223372036854775807 + self.a > 0", "integer overflow"),
    ("self.m['nope'] == ''", "no such key: nope"),
])
def test_evaluation_errors_read_as_cel_go_words_them(rule: str, error: str) -> None:
    outcome = compiled({"rule": rule}).evaluate({"a": 1, "d": 2.0, "e": "x", "m": {"k": "v"}}, OBJECT)
    assert (outcome.passed, outcome.error) == (False, f"{error} evaluating rule: {rule}")


@pytest.mark.parametrize(("rule", "error"), [
    # cel-go refuses these when it compiles the rule against the schema's types (tests/oracle/test_cel_oracle.py
    # compares them with cel-go itself); celpy only found them while evaluating, in its own words
    ("undeclared(self.a)", "ERROR: <input>:1:11: undeclared reference to 'undeclared' (in container '')"),
    ("self.e + self.a == ''", "ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(string, int)'"),
    ("self.a - self.e == 1", "ERROR: <input>:1:8: found no matching overload for '_-_' applied to '(int, string)'"),
    ("self.a * self.e == 1", "ERROR: <input>:1:8: found no matching overload for '_*_' applied to '(int, string)'"),
    ("self.e > self.a", "ERROR: <input>:1:8: found no matching overload for '_>_' applied to '(string, int)'"),
    ("self.a < self.e", "ERROR: <input>:1:8: found no matching overload for '_<_' applied to '(int, string)'"),
    ("self.a == self.d", "ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(int, double)'"),
])
def test_type_errors_are_compile_errors_as_cel_go_words_them(rule: str, error: str) -> None:
    outcome = compiled({"rule": rule}).evaluate({"a": 1, "d": 2.0, "e": "x", "m": {"k": "v"}}, OBJECT)
    assert (outcome.passed, outcome.error) == (False, f"rule compile error: compilation failed: {error}")


def test_operands_of_no_declared_type_meet_at_evaluation_in_cel_gos_words() -> None:
    """Values of no declared type (int-or-string, dyn()) pass the checker; cel-go then finds no overload."""
    outcome = compiled({"rule": "dyn(self.e) < self.a"}).evaluate({"a": 1, "e": "x"}, OBJECT)
    assert outcome.error == ("'no such overload': call arguments did not match a supported operator, function or "
                             "macro signature for rule: dyn(self.e) < self.a")


def test_an_evaluation_error_names_the_message_instead_of_the_rule() -> None:
    outcome = compiled({"rule": "self.m['nope'] == ''", "message": "m needs nope"})._run({"m": {}}, OBJECT)
    assert outcome.error == "no such key: nope evaluating rule: m needs nope"


def test_a_rule_that_does_not_compile_reports_it_every_time() -> None:
    rule = compiled({"rule": "self.a +* 2"})
    assert rule.compile_error
    for value in ({"a": 1}, {}):
        outcome = rule._run(value, OBJECT)
        assert (outcome.passed, outcome.error) == (False, f"rule compile error: {rule.compile_error}")


def test_the_offline_limit_says_how_many_units_were_allowed() -> None:
    rule = compiled({"rule": "self.l.all(x, self.l.all(y, x != y || x == y))"})
    outcome = rule._run({"l": list(range(200))}, OBJECT, Meter(offline=50))
    assert outcome == CelOutcome(True, skipped=True, stopped="offline", message=(
        "not evaluated: it needs more than 50 cost units on this document, more than kubectl-testbench evaluates "
        "offline (the API server allows 1000000 per rule)"))


def test_an_outcome_stopped_by_a_limit_is_not_remembered() -> None:
    rule = CompiledRule({"rule": "self.l.all(x, x > 0)"})  # its own memo, whatever ran before
    stopped = rule.evaluate({"l": [1, 2, 3]}, OBJECT, Meter(per_call=2))
    assert stopped.stopped == "call" and rule.memo == {}
    assert rule.evaluate({"l": [1, 2, 3]}, OBJECT) == CelOutcome(True) and len(rule.memo) == 1


def test_transition_rules_are_skipped_before_anything_is_evaluated() -> None:
    spec = {"rule": "self.a == oldSelf.a"}
    assert compiled(spec)._run({"a": 1}, OBJECT) == CelOutcome(True, skipped=True)
    assert evaluate_rule(spec, {"a": 1}, OBJECT) == CelOutcome(True, skipped=True)
    optional = {"rule": "!oldSelf.hasValue() && self.a == 1", "optionalOldSelf": True}
    assert evaluate_rule(optional, {"a": 1}, OBJECT) == CelOutcome(True)
    assert not evaluate_rule(optional, {"a": 2}, OBJECT).passed


@pytest.mark.parametrize(("rule", "value"), [
    ("self.a == 2 && type(self.a) == int", {"a": 2.0}),
    ("self.d == 2.0 && type(self.d) == double", {"d": 2}),
    ("self.ios == 5 && type(self.ios) == int", {"ios": 5}),
    ("self.ios == '5%'", {"ios": "5%"}),
    ("self.free.z[0] == 1 && self.free.y == 'w'", {"free": {"z": [1], "y": "w"}}),
    ("self.l == [1, 2] && type(self.l[0]) == int", {"l": [1, 2]}),
    ("self.m == {'k': 'v'}", {"m": {"k": "v"}}),
    ("self.e == 'x'", {"e": "x"}),
])
def test_self_is_typed_by_the_schema(rule: str, value: dict[str, Any]) -> None:
    assert compiled({"rule": rule})._run(value, OBJECT) == CelOutcome(True)


def test_a_boolean_in_an_integer_field_stays_a_boolean() -> None:
    assert compiled({"rule": "type(self.a) == bool"})._run({"a": True}, OBJECT) == CelOutcome(True)
    assert compiled({"rule": "type(self.d) == bool"})._run({"d": False}, OBJECT) == CelOutcome(True)


def test_converting_self_costs_a_unit_per_value() -> None:
    """Free-form values too: their root was counted twice (one unit too many against the offline limit)."""
    meter = Meter()
    meter.start_call()
    to_cel({"l": [1, 2], "free": {"x": {"y": [1]}}, "e": "s"}, OBJECT, meter)
    assert meter.spent == 1 + (1 + 2) + (1 + 1 + 1 + 1) + 1
    meter = Meter()
    to_cel({"free": [[1], {"k": 2}]}, {"type": "object", "properties": {"free": {}}}, meter)
    assert meter.spent == 1 + 1 + 1 + 1 + 1 + 1


@pytest.mark.parametrize(("value", "presence", "values", "projected"), [
    ({"a": 1, "b": {"c": 2, "x": 3}, "z": 9}, [("a",)], [("b", "c")], {"a": True, "b": {"c": 2}}),
    ({"a": 1, "b": 5}, [("b", "c")], [("a", "x")], {"a": 1, "b": 5}),
    ({"b": {"c": {"d": 1, "e": 2}}}, [("b", "c", "d")], [], {"b": {"c": {"d": True}}}),
    ({"b": {"c": 1, "d": 2}}, [("b", "c")], [("b", "d")], {"b": {"c": True, "d": 2}}),
    ({"b": {"c": 1}}, [("b",)], [("b", "c")], {"b": {"c": 1}}),
    ({"b": {"c": 1}}, [], [("b",), ("b", "c")], {"b": {"c": 1}}),
    ({"a": 1}, [("b",)], [], {}),
    ({"a": 1}, [], [()], {"a": 1}),
    ([1, 2], [("a",)], [], [1, 2]),
])
def test_the_projection_keeps_exactly_what_the_rule_observes(value: Any, presence: list[tuple[str, ...]],
                                                              values: list[tuple[str, ...]], projected: Any) -> None:
    assert project(value, presence, values) == projected


def test_saved_outcomes_round_trip_and_old_ones_are_field_value_invalid() -> None:
    outcome = CelOutcome(False, "m", "", ("a", 1), reason="FieldValueRequired")
    assert saved_outcome(outcome) == [False, "m", "", ["a", 1], "FieldValueRequired"]
    assert outcome_from_saved(saved_outcome(outcome)) == outcome
    assert outcome_from_saved([0, "m", "", ["a"]]) == CelOutcome(False, "m", "", ("a",), reason="FieldValueInvalid")


def test_rules_are_analysed_by_their_text_and_message_expression() -> None:
    assert analysis_key({"rule": "r", "message": "m"}) == "r"
    assert analysis_key({"rule": "r", "messageExpression": ""}) == "r"
    assert analysis_key({"rule": "r", "messageExpression": "e"}) == "r\0e"


def test_one_line_drops_celpy_activation_details() -> None:
    assert one_line("\n  first line (in activation foo)\nsecond") == "first line"
    assert one_line("  ") == ""


def test_the_cost_constants_the_messages_quote() -> None:
    assert cel_cost.MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES == 5120


@pytest.mark.parametrize(("rule", "type_name"), [("self.a", "IntType"), ("self.e", "StringType"),
                                                 ("self.l", "ListType")])
def test_a_rule_that_does_not_give_a_bool_fails_with_what_it_gave(rule: str, type_name: str) -> None:
    outcome = compiled({"rule": rule, "message": "m"})._run({"a": 1, "e": "x", "l": [1]}, OBJECT)
    assert outcome == CelOutcome(False, error=f"rule must evaluate to a bool, got {type_name}: m")


def test_a_value_nested_too_deeply_to_convert_fails_the_rule_instead_of_crashing() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(3000):
        node["x"] = {}
        node = node["x"]
    outcome = compiled({"rule": "has(self.free)"})._run({"free": deep}, OBJECT)
    assert outcome == CelOutcome(False, error="expression nested too deeply evaluating rule: has(self.free)")


@pytest.mark.parametrize(("raised", "error"), [
    (TypeError("unsupported operand"), "'no such overload': call arguments did not match a supported operator, "
                                       "function or macro signature for rule: r"),
    (AttributeError("no attribute x"), "'no such overload': call arguments did not match a supported operator, "
                                       "function or macro signature for rule: r"),
    (ValueError("bad value\n  at line 2"), "bad value evaluating rule: r"),
    (KeyError(), "KeyError evaluating rule: r"),
])
def test_other_exceptions_from_celpy_fail_the_rule_with_cel_gos_words(monkeypatch: pytest.MonkeyPatch,
                                                                     raised: Exception, error: str) -> None:
    rule = CompiledRule({"rule": "self.a == 1", "message": "r"})

    class Raising:
        def evaluate(self, activation: Any) -> Any:
            raise raised

    monkeypatch.setattr(rule, "program", Raising())
    assert rule._run({"a": 1}, OBJECT) == CelOutcome(False, error=error)


def test_running_out_of_the_objects_budget_stops_every_rule_after() -> None:
    rule = CompiledRule({"rule": "self.l.all(x, x > 0)"})
    outcome = rule.evaluate({"l": [1, 2, 3]}, OBJECT, Meter(budget=3))
    assert outcome == CelOutcome(False, stopped="budget", error=(
        "validation failed due to running out of cost budget, no further validation rules will be run"))
    assert rule.memo == {}


def test_outcomes_are_remembered_per_projection_and_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_testbench.validate.cel import evaluate as cel

    rule = CompiledRule({"rule": "self.a > 0"})
    runs: list[Any] = []
    real = rule._run
    monkeypatch.setattr(rule, "_run",
                        lambda value, schema, meter=None: runs.append(value) or real(value, schema, meter))
    assert rule.evaluate({"a": 1, "e": "x"}, OBJECT) == CelOutcome(True)
    assert rule.evaluate({"e": "y", "a": 1}, OBJECT) == CelOutcome(True), "the same projection: {a: 1}"
    assert runs == [{"a": 1}] and list(rule.memo.values()) == [CelOutcome(True)]
    monkeypatch.setattr(cel, "_MEMO_LIMIT", 2)
    assert rule.evaluate({"a": -2}, OBJECT).passed is False and len(rule.memo) == 2
    assert rule.evaluate({"a": 3}, OBJECT) == CelOutcome(True) and len(rule.memo) == 1, "full: forgotten, then kept"


def test_a_spec_is_compiled_once_whatever_the_order_of_its_keys() -> None:
    spec = {"rule": "self.a > 0", "message": "positive", "reason": "FieldValueRequired"}
    assert compiled(spec) is compiled(dict(reversed(list(spec.items()))))
    assert compiled(spec) is not compiled({**spec, "message": "other"})


def test_a_message_expression_adds_the_paths_it_reads_to_the_rules() -> None:
    rule = compiled({"rule": "self.a > 3 && has(self.m)",
                     "messageExpression": "has(self.e) ? self.e : 'a ' + string(self.a)"})
    assert rule.analysis() == {"presence": [["m"], ["e"]], "values": [["a"], ["e"]], "transition": False}


def test_a_rule_that_does_not_compile_reads_as_a_cel_go_syntax_error() -> None:
    # celpy's place (the last token it took) and no list of expected tokens: see DIFFERENCES in test_cel_oracle
    assert compiled({"rule": "self.a +* 2"}).compile_error == (
        "compilation failed: ERROR: <input>:1:9: Syntax error: the rule does not parse here")


def _celpy_error(*args: Any) -> Any:
    from celpy.evaluation import CELEvalError

    return CELEvalError(*args)


@pytest.mark.parametrize(("args", "text"), [
    (("no such key", KeyError, ("nope",)), "no such key: nope"),
    (("no such member", AttributeError, "field"), "no such member: field"),
    (("no such key", KeyError, ()), "no such key"),
    (("no such key", KeyError), "no such key"),
    (("no such key",), "no such key"),
    (("undeclared reference to 'x' (in container 'a (b)')",), "undeclared reference to 'x'"),
    (("found no matching overload for 'relation_gt' applied to '(<class 'celpy.celtypes.MessageType'>, "
      "<class 'builtins.NoneType'>)'",), "found no matching overload for '_>_' applied to '(message, null_type)'"),
    (("return error for overflow",), "integer overflow"),
    ((), ""),
    ((ValueError("v"),), "v"),
])
def test_celpy_errors_in_cel_gos_words(args: tuple[Any, ...], text: str) -> None:
    from kubectl_testbench.validate.cel.evaluate import eval_error_text

    assert eval_error_text(_celpy_error(*args)) == text


NUMBERS = {"type": "object", "properties": {
    "n": {"type": "object", "additionalProperties": {"type": "number"}},
    "ln": {"type": "array", "items": {"type": "number"}},
    "ios": {"x-kubernetes-int-or-string": True}}}


@pytest.mark.parametrize(("rule", "value"), [
    ("type(self.n.k) == double && self.n.k == 1.0", {"n": {"k": 1}}),  # a map's values typed by additionalProperties
    ("type(self.ln[0]) == double && self.ln == [1.0, 2.5]", {"ln": [1, 2.5]}),  # a list's by items
    ("type(self.ios) == int && self.ios == 5", {"ios": 5.0}),  # an integral number in int-or-string is an int
])
def test_numbers_inside_maps_lists_and_int_or_string_are_typed_by_the_schema(rule: str, value: Any) -> None:
    assert compiled({"rule": rule})._run(value, NUMBERS) == CelOutcome(True)


class _NoCompile:
    def __call__(self, spec: Any) -> Any:
        raise AssertionError(f"compiled {spec['rule']!r}: the answer was remembered")


@pytest.mark.usefixtures("nothing_remembered")
def test_a_remembered_outcome_is_answered_without_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_testbench.validate.cel import evaluate as cel
    from kubectl_testbench.validate.crdschema import experiment_crd

    spec = {"rule": "self.a > 0 && has(self.e)", "message": "needs e"}
    first = evaluate_rule(spec, {"a": 1}, OBJECT)
    assert first == CelOutcome(False, "needs e")
    monkeypatch.setattr(cel, "compiled", _NoCompile())  # from now on only the store can answer
    assert evaluate_rule(spec, {"a": 1, "d": 5.0}, OBJECT) == first, "the same projection, from the store"
    # the packaged CRD's rules are answered from the table shipped in the package
    dataset = experiment_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"]["dataset"]
    [rule] = dataset["x-kubernetes-validations"]
    assert evaluate_rule(rule, {"url": "https://x"}, dataset).passed is True
    assert evaluate_rule(rule, {}, dataset).passed is False


@pytest.mark.usefixtures("nothing_remembered")
def test_a_transition_rule_is_skipped_every_time_and_never_remembered_as_run() -> None:
    spec = {"rule": "self.a == oldSelf.a", "message": "immutable"}
    assert evaluate_rule(spec, {"a": 1}, OBJECT) == CelOutcome(True, skipped=True)
    assert evaluate_rule(spec, {"a": 1}, OBJECT) == CelOutcome(True, skipped=True)


@pytest.fixture
def nothing_remembered(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No outcome remembered by an earlier test (or an earlier session in this process, as under mutmut)."""
    from kubectl_testbench.validate.cel import evaluate as cel
    from kubectl_testbench.validate.cel import store as cel_store

    monkeypatch.setattr(cel, "_RULES", {})
    monkeypatch.setattr(cel_store, "_STORE", cel_store.Store(tmp_path))


@pytest.mark.usefixtures("nothing_remembered")
def test_the_objects_meter_is_the_one_the_rule_spends() -> None:
    spec = {"rule": "self.l.all(x, x > 0) && size(self.l) == 3"}
    outcome = evaluate_rule(spec, {"l": [1, 2, 3]}, OBJECT, Meter(per_call=2))
    assert outcome.stopped == "call"
    assert evaluate_rule(spec, {"l": [1, 2, 3]}, OBJECT) == CelOutcome(True), "a stop is not remembered"
