"""The cost model's numbers and bounds: the API server's factor wording at each threshold, the worst-case
sizes unbounded values take under the 3 MiB request limit, each kind of operation's cost, the limits on a
rule and on the CRD total (each bound and one past it), and the runtime counter's three limits."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.validate.cel import cost as cel_cost
from kubectl_testbench.validate.cel.cost import (
    CostExceeded,
    Meter,
    check_schema,
    cost_error_message,
    estimate,
    max_size,
    rule_locations,
)
from kubectl_testbench.validate.cel.environment import environment
from kubectl_testbench.validate.cel.syntax import rewrite

MIB3 = 3 * 1024 * 1024
HINT = ("(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
        "strings are declared)")


def compile_rule(rule: str) -> Any:
    return environment().compile(rewrite(rule))


@pytest.mark.parametrize(("cost", "factor"), [
    (1_000_000_001, "more than 100x"),
    (1_000_000_000, "100.0x"),
    (15_000_000, "1.5x"),
    (14_999_999, "1.500000x"),
    (10_000_001, "1.000000x"),
    (25_000_000, "2.5x"),
])
def test_the_factor_is_worded_as_the_api_server_words_it(cost: int, factor: str) -> None:
    assert cost_error_message("estimated rule cost", cost, 10_000_000) == (
        f"estimated rule cost exceeds budget by factor of {factor} {HINT}")


@pytest.mark.parametrize(("schema", "size"), [
    (None, 1),
    ({}, 1),
    ({"type": "integer"}, 1),
    ({"type": "object", "properties": {"a": {"type": "string"}}}, 1),
    ({"type": "string"}, MIB3),
    ({"type": "string", "maxLength": 63}, 63),
    ({"type": "array", "maxItems": 7, "items": {"type": "string"}}, 7),
    ({"type": "array"}, MIB3 // 2),
    ({"type": "array", "items": {"type": "integer"}}, MIB3 // 2),
    ({"type": "array", "items": {"type": "number"}}, MIB3 // 2),
    ({"type": "array", "items": {"type": "boolean"}}, MIB3 // 5),
    ({"type": "array", "items": {"type": "string"}}, MIB3 // 3),
    ({"type": "array", "items": {"type": "string", "minLength": 5}}, MIB3 // 8),
    ({"type": "array", "items": {"type": "object"}}, MIB3 // 3),
    ({"type": "array", "items": {"type": "array"}}, MIB3 // 3),
    ({"type": "object", "maxProperties": 9, "additionalProperties": {"type": "string"}}, 9),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, MIB3 // 5),
    ({"type": "object", "additionalProperties": {"type": "string", "minLength": 3}}, MIB3 // 9),
    ({"type": "object", "additionalProperties": {}}, MIB3 // 5),
])
def test_worst_case_sizes_under_the_request_limit(schema: dict[str, Any] | None, size: int) -> None:
    assert max_size(schema) == size


SCHEMA = {"type": "object", "properties": {
    "s": {"type": "string"}, "b": {"type": "string", "maxLength": 100}, "i": {"type": "integer"},
    "l": {"type": "array", "items": {"type": "string"}},
    "bl": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 10}},
    "m": {"type": "object", "maxProperties": 4, "additionalProperties": {"type": "integer"}},
    "o": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 20}}}}


@pytest.mark.parametrize(("rule", "cost"), [
    ("self", 1),
    ("true", 1),
    ("self.s", 2),
    ("self.i > 1", 5),
    ("!true", 3),
    ("1 + 2 * 3", 7),
    ("has(self.s)", 3),
    ("self.nope.x", 3),
    # string functions cost a tenth of the string's worst-case length (rounded up)
    ("self.b.startsWith('a')", 4 + 10),
    ("self.s.startsWith('a')", 4 + MIB3 // 10 + 1),
    ("self.b.size()", 3),
    ("self.o.x.contains('a')", 5 + 2),
    ("self.o['x'].contains('a')", 6 + 2),
    ("self.bl[0].contains('a')", 6 + 1),
    # list functions cost the list's worst-case size
    ("self.bl.isSorted()", 3 + 5),
    ("self.bl.size()", 3 + 5),
    ("size(self.bl)", 3),
    ("self.i.size()", 3),
    # comprehensions: the range's size times (body + 1); map and filter keep the element type
    ("self.bl.all(x, x.startsWith('a'))", 2 + 5 * (3 + 1 + 1)),
    ("self.bl.exists(x, x == 'a')", 2 + 5 * (4 + 1)),
    ("self.bl.map(x, x)", 2 + 5 * 2),
    ("self.bl.filter(x, true)", 2 + 5 * 2),
    ("self.bl.map(x, x).all(y, y == '')", 12 + 5 * (4 + 1)),
    ("self.m.all(k, k == 'a')", 2 + 4 * (4 + 1)),
    ("self.m.all(k, k.contains('a'))", 2 + 4 * (3 + MIB3 // 10 + 1 + 1)),
    ("self.l.all(x, self.l.all(y, x == y))", 2 + (MIB3 // 3) * (2 + (MIB3 // 3) * 5 + 1)),
])
def test_each_kind_of_operation_costs_as_the_model_says(rule: str, cost: int) -> None:
    assert estimate(compile_rule(rule), SCHEMA) == cost


def test_indexing_a_map_costs_by_its_values_not_its_keys() -> None:
    """``self.o['x']`` is a value of at most 20 characters, not a key of unknown length: a list of 100 such
    rules is well within the budget (it was estimated at 314579 each, 31 million in all, and refused)."""
    schema = {"type": "object", "properties": {"l": {"type": "array", "maxItems": 100, "items": {
        "type": "object", "x-kubernetes-validations": [{"rule": "self.o['x'].contains('a')"}],
        "properties": {"o": SCHEMA["properties"]["o"]}}}}}
    assert check_schema(schema, compile_rule) == []


def test_an_absurd_estimate_saturates_at_the_largest_uint64() -> None:
    nested = "self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, self.l.all(e, a == e)))))"
    assert estimate(compile_rule(nested), SCHEMA) == 2**64 - 1


def _rule_in_lists(*max_items: int, rule: str = "true") -> dict[str, Any]:
    """A rule on the innermost items of nested lists: it runs once per element of each."""
    node: dict[str, Any] = {"type": "object", "x-kubernetes-validations": [{"rule": rule}]}
    for count in reversed(max_items):
        node = {"type": "array", "maxItems": count, "items": node}
    return node


def test_a_rule_that_runs_up_to_the_limit_is_accepted_and_one_more_run_is_refused() -> None:
    accepted = {"type": "object", "properties": {"l": _rule_in_lists(10_000_000)}}
    assert check_schema(accepted, compile_rule) == []
    refused = {"type": "object", "properties": {"l": _rule_in_lists(10_000_001)}}
    [finding] = check_schema(refused, compile_rule)
    assert finding == cel_cost.CostFinding(
        "spec.validation.openAPIV3Schema.properties[l].items.x-kubernetes-validations[0].rule",
        f"Forbidden: estimated rule cost exceeds budget by factor of 1.000000x {HINT}", ("l",))


def test_cardinality_multiplies_through_nested_lists_and_maps() -> None:
    inner = _rule_in_lists(1000, 10_001)
    schema = {"type": "object", "properties": {"l": inner, "m": {
        "type": "object", "maxProperties": 2_000_000,
        "additionalProperties": {"type": "object", "x-kubernetes-validations": [
            {"rule": "true"}, {"rule": "[1, 2, 3, 4].size() == 4"}]}}}}
    findings = {f.path: f.message for f in check_schema(schema, compile_rule)}
    assert findings == {
        "spec.validation.openAPIV3Schema.properties[l].items.items.x-kubernetes-validations[0].rule":
            f"Forbidden: estimated rule cost exceeds budget by factor of 1.000100x {HINT}",
        "spec.validation.openAPIV3Schema.properties[m].additionalProperties.x-kubernetes-validations[1].rule":
            f"Forbidden: estimated rule cost exceeds budget by factor of 2.0x {HINT}"}


def test_the_crd_total_is_accepted_up_to_its_limit_and_refused_one_past_it() -> None:
    lists = {f"l{i}": _rule_in_lists(10_000_000) for i in range(10)}
    assert check_schema({"type": "object", "properties": lists}, compile_rule) == []
    over = {"type": "object", "properties": {**lists, "x": {"type": "object", "x-kubernetes-validations": [
        {"rule": "true"}]}}}
    assert check_schema(over, compile_rule) == [cel_cost.CostFinding(
        "spec.validation.openAPIV3Schema",
        "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget "
        f"by factor of 1.000000x {HINT}")]


def test_rule_locations_name_each_rule_by_its_document_path() -> None:
    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "true"}], "properties": {
        "a": {"type": "object", "x-kubernetes-validations": [{"rule": "true"}, {"rule": "true"}]},
        "l": {"type": "array", "items": {"type": "object", "x-kubernetes-validations": [{"rule": "true"}]}},
        "m": {"type": "object", "additionalProperties": {"type": "object", "x-kubernetes-validations": [
            {"rule": "true"}]}}}}
    assert rule_locations(schema) == [((), 0), (("a",), 0), (("a",), 1), (("l",), 0), (("m",), 0)]


def _charges_until_stopped(meter: Meter) -> CostExceeded:
    with pytest.raises(CostExceeded) as stopped:
        for _ in range(100):
            meter.charge()
    return stopped.value


@pytest.mark.parametrize(("limits", "which", "spent"), [
    ({"per_call": 3}, "call", 4),
    ({"offline": 3}, "offline", 4),
    ({"budget": 3}, "budget", 4),
    ({"per_call": 3, "offline": 3, "budget": 3}, "call", 4),
    ({"offline": 3, "budget": 3}, "offline", 4),
])
def test_the_counter_stops_one_unit_past_a_limit(limits: dict[str, int], which: str, spent: int) -> None:
    meter = Meter(**limits)
    meter.start_call()
    stop = _charges_until_stopped(meter)
    assert (stop.limit, stop.spent, meter.spent) == (which, spent, spent)


def test_each_call_has_its_own_limit_and_all_calls_share_the_budget() -> None:
    meter = Meter(budget=7, per_call=3, offline=10)
    for _ in range(3):
        meter.start_call()
        for _ in range(2):
            meter.charge()
    meter.start_call()
    meter.charge()
    stop = _charges_until_stopped(meter)
    assert (stop.limit, stop.spent) == ("budget", 8)


def test_the_default_limits_are_the_servers_and_the_offline_one() -> None:
    meter = Meter()
    assert (meter.budget, meter.per_call, meter.offline) == (10_000_000, 1_000_000, 10_000)
    assert meter.spent == meter.call_start == 0
