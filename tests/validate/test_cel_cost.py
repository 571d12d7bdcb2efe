"""The API server's CEL cost budget: refused at CRD creation, bounded at evaluation.

Constants and messages: apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
(StaticEstimatedCostLimit, StaticEstimatedCRDCostLimit, getCostErrorMessage), k8s.io/apiserver
pkg/apis/cel/config.go (PerCallLimit, RuntimeCELCostBudget), apiextensions-apiserver
pkg/apiserver/schema/cel/validation.go (the runtime messages).
"""

from __future__ import annotations

from typing import Any

from kubectl_testbench.validate.cel import cost as cel_cost
from kubectl_testbench.validate.cel.cost import Meter, check_schema, cost_error_message
from kubectl_testbench.validate.cel.environment import environment
from kubectl_testbench.validate.cel.evaluate import compiled
from kubectl_testbench.validate.cel.syntax import rewrite
from kubectl_testbench.validate.crdschema import open_api_schema, refused_in
from kubectl_testbench.validate.engine import run_cel
from kubectl_testbench.validate.schema import SchemaValidator

SERVER_MESSAGE = ("Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying "
                  "the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are "
                  "declared)")


def compile_rule(rule: str) -> Any:
    return environment().compile(rewrite(rule))


def schema_with(rule: str, items: dict[str, Any] | None = None, **bounds: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": [{"rule": rule, "message": "m"}],
        "properties": {"list": {"type": "array", "items": items or {"type": "integer"}, **bounds}}}}}


def test_the_server_constants() -> None:
    assert (cel_cost.STATIC_ESTIMATED_COST_LIMIT, cel_cost.STATIC_ESTIMATED_CRD_COST_LIMIT) == (10_000_000, 100_000_000)
    assert (cel_cost.PER_CALL_LIMIT, cel_cost.RUNTIME_CEL_COST_BUDGET) == (1_000_000, 10_000_000)


def test_cost_error_message_formats_the_factor_like_get_cost_error_message() -> None:
    assert cost_error_message("estimated rule cost", 2_000_000_000, 10_000_000).endswith(
        "factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength "
        "where arrays, maps, and strings are declared)")
    assert "factor of 2.5x (" in cost_error_message("estimated rule cost", 25_000_000, 10_000_000)
    assert "factor of 1.200000x (" in cost_error_message("estimated rule cost", 12_000_000, 10_000_000)


def test_a_quadratic_rule_over_an_unbounded_list_is_refused_with_the_servers_message() -> None:
    schema = schema_with("self.list.all(x, self.list.all(y, x <= y || x > y))")
    findings = check_schema(schema, compile_rule)
    rule = [f for f in findings if f.path.endswith(".rule")]
    assert [(f.path, f.message) for f in rule] == [
        ("spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule", SERVER_MESSAGE)]
    assert any(f.path == "spec.validation.openAPIV3Schema" and "estimated rule cost total for entire OpenAPIv3 "
               "schema exceeds budget" in f.message for f in findings)


def test_cubic_rules_are_refused_too_but_bounded_lists_make_them_acceptable() -> None:
    cubic = "self.list.all(x, self.list.all(y, self.list.all(z, x + y + z > 0)))"
    assert check_schema(schema_with(cubic), compile_rule)
    assert check_schema(schema_with(cubic, maxItems=10), compile_rule) == []


def test_a_linear_rule_over_an_unbounded_list_of_ints_is_accepted_as_by_the_server() -> None:
    assert check_schema(schema_with("self.list.all(x, x > 0)"), compile_rule) == []


def test_string_functions_over_unbounded_strings_in_unbounded_lists_are_refused() -> None:
    schema = schema_with("self.list.all(x, x.startsWith('a'))", items={"type": "string"})
    assert check_schema(schema, compile_rule)
    bounded = schema_with("self.list.all(x, x.startsWith('a'))", items={"type": "string", "maxLength": 63},
                          maxItems=25)
    assert check_schema(bounded, compile_rule) == []


def test_our_crd_is_within_the_budget() -> None:
    assert check_schema(open_api_schema(), compile_rule) == []


def test_a_refused_rule_is_reported_and_not_evaluated() -> None:
    schema = schema_with("self.list.all(x, self.list.all(y, x != y))")
    _, targets = SchemaValidator(schema).validate({"spec": {"list": [1, 1]}})
    found: list[tuple[str, tuple[Any, ...], str]] = []
    run_cel(targets, lambda rule, path, message, hint="": found.append((rule, path, message)), refused_in(schema))
    assert found == [("cel/cost", ("spec",), "the API server refuses this CRD: spec.validation.openAPIV3Schema."
                      "properties[spec].x-kubernetes-validations[0].rule: " + SERVER_MESSAGE)]


def test_evaluation_stops_at_the_offline_limit_and_is_reported_as_not_evaluated() -> None:
    schema = {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "integer"}}}}
    rule = compiled({"rule": "self.list.all(x, self.list.all(y, self.list.all(z, x + y + z > 0)))"})
    meter = Meter()
    outcome = rule._run({"list": list(range(1, 200))}, schema, meter)
    assert outcome.passed and outcome.skipped and outcome.stopped == "offline"
    assert meter.spent == cel_cost.OFFLINE_COST_LIMIT + 1, "the counter stops evaluation at the limit"


def test_a_huge_value_stops_while_it_is_converted() -> None:
    schema = {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "integer"}}}}
    meter = Meter()
    outcome = compiled({"rule": "self.list.size() > 0"})._run({"list": list(range(500_000))}, schema, meter)
    assert outcome.stopped == "offline" and meter.spent == cel_cost.OFFLINE_COST_LIMIT + 1


def test_the_per_call_limit_gives_the_servers_runtime_message() -> None:
    schema = {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "integer"}}}}
    rule = compiled({"rule": "self.list.all(x, x > 0)", "message": "positive"})
    outcome = rule._run({"list": list(range(1, 50))}, schema, Meter(per_call=20))
    assert (outcome.passed, outcome.stopped) == (False, "call")
    assert outcome.error == ("'operation cancelled: actual cost limit exceeded': no further validation rules will "
                             "be run due to call cost exceeds limit for rule: positive")


def test_the_object_budget_gives_the_servers_message() -> None:
    schema = {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "integer"}}}}
    outcome = compiled({"rule": "self.list.all(x, x > 0)"})._run({"list": [1, 2, 3]}, schema, Meter(budget=5))
    assert outcome.error == ("validation failed due to running out of cost budget, no further validation rules will "
                             "be run")


def test_a_rule_that_does_not_compile_costs_nothing_and_the_rules_after_it_are_still_estimated() -> None:
    """The API server refuses such a rule for its compile error, not its cost; the cost check must not fail on it
    (it used to raise Lark's UnexpectedToken out of refused_in)."""
    from kubectl_testbench.validate.crdschema import refused_in

    schema = schema_with("self.list.all(x, self.list.all(y, x <= y || x > y))")
    schema["properties"]["spec"]["x-kubernetes-validations"].insert(0, {"rule": "has(self.list) && "})
    refused = refused_in(schema)
    assert sorted(refused) == [(("spec",), 0), (("spec",), 1)]
    assert refused[(("spec",), 1)].message == SERVER_MESSAGE
    assert refused[(("spec",), 0)].path == "spec.validation.openAPIV3Schema", "only the CRD total refuses rule 0"
