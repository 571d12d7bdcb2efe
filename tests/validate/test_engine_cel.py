"""How the engine runs CEL rules on one object: one cost meter for all of its rules, what each way of stopping
reports (the API server's words: apiextensions-apiserver pkg/apiserver/schema/cel/validation.go), and the notes
for rules that blocking errors kept from running."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.validate.cel import cost as cel_cost
from kubectl_testbench.validate.cel import evaluate as cel
from kubectl_testbench.validate.cel import store as cel_store
from kubectl_testbench.validate.diagnostics import Diagnostic, Severity
from kubectl_testbench.validate.engine import _not_evaluated, run_cel
from kubectl_testbench.validate.schema import CelTarget

LIST = {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "integer"}}}}
EVERY = {"rule": "self.list.all(x, x >= 0)", "message": "no negatives"}
LONGER = {"rule": "self.list.size() > 100", "message": "a longer list"}
VALUE = {"list": list(range(20))}  # 21 values to convert: more than the tight limits below


@pytest.fixture()
def fresh_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No remembered outcomes: every rule here is evaluated (and charged) afresh."""
    monkeypatch.setattr(cel, "_RULES", {})
    monkeypatch.setattr(cel_store, "_STORE", cel_store.Store(tmp_path))


def tight_meter(monkeypatch: pytest.MonkeyPatch, **limits: int) -> list[cel_cost.Meter]:
    """Meters with small limits, as run_cel makes them; returns the meters it made."""
    made: list[cel_cost.Meter] = []

    class Tight(cel_cost.Meter):
        def __init__(self) -> None:
            super().__init__(**limits)
            made.append(self)

    monkeypatch.setattr(cel_cost, "Meter", Tight)
    return made


def collect(targets: list[CelTarget], refused: dict[Any, Any] | None = None) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = []

    def add(rule: str, path: Any, message: str, hint: str, key: bool = False, fix: Any = None) -> None:
        found.append((rule, path, message, hint))

    run_cel(targets, add, {} if refused is None else refused)
    return found


def rules(*specs: dict[str, Any], schema: dict[str, Any] = LIST) -> dict[str, Any]:
    return {**schema, "x-kubernetes-validations": list(specs)}


@pytest.mark.usefixtures("fresh_rules")
def test_a_rule_over_the_offline_limit_is_not_evaluated_and_the_next_rule_still_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    made = tight_meter(monkeypatch, offline=5)
    second = CelTarget(("spec", "other"), 1, {"type": "integer", "x-kubernetes-validations": [
        {"rule": "self > 1", "message": "over one"}]})
    found = collect([CelTarget(("spec",), VALUE, rules(EVERY, LONGER)), second])
    note = ("not evaluated: it needs more than 5 cost units on this document, more than kubectl-testbench evaluates "
            "offline (the API server allows 1000000 per rule)")
    assert found == [
        ("cel/not-evaluated", ("spec",), f"rule 'self.list.all(x, x >= 0)' {note}", ""),
        ("cel/not-evaluated", ("spec",), f"rule 'self.list.size() > 100' {note}", ""),
        ("cel/rule", ("spec", "other"), "Invalid value: 1: over one", "")]
    assert len(made) == 1, "one meter for all the rules of the object"


@pytest.mark.usefixtures("fresh_rules")
def test_the_per_call_limit_stops_every_further_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    tight_meter(monkeypatch, per_call=5)
    later = CelTarget(("spec", "other"), 1, {"type": "integer", "x-kubernetes-validations": [
        {"rule": "self > 1", "message": "over one"}]})
    assert collect([CelTarget(("spec",), VALUE, rules(EVERY, LONGER)), later]) == [
        ("cel/cost", ("spec",), "Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no "
         "further validation rules will be run due to call cost exceeds limit for rule: no negatives", "")]


@pytest.mark.usefixtures("fresh_rules")
def test_the_objects_budget_is_shared_by_its_rules_and_stops_them(monkeypatch: pytest.MonkeyPatch) -> None:
    tight_meter(monkeypatch, budget=30)  # the first rule fits (21 values and the comparisons), the second not
    cheap = {"rule": "self.list.size() > 1", "message": "some"}
    found = collect([CelTarget(("spec",), VALUE, rules(cheap, EVERY, LONGER))])
    assert found == [("cel/cost", ("spec",), 'Invalid value: "object": validation failed due to running out of cost '
                      "budget, no further validation rules will be run", "")]


@pytest.mark.usefixtures("fresh_rules")
def test_a_refused_rule_is_skipped_and_the_others_are_evaluated() -> None:
    class Refusal:
        path = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
        message = "too costly"

    found = collect([CelTarget(("spec",), VALUE, rules(EVERY, LONGER))], refused={(("spec",), 0): Refusal()})
    assert found == [
        ("cel/cost", ("spec",), f"the API server refuses this CRD: {Refusal.path}: too costly",
         "the rule was not evaluated; bound the lists and strings it iterates over"),
        ("cel/rule", ("spec",), 'Invalid value: a longer list', "")]


@pytest.mark.usefixtures("fresh_rules")
def test_rules_see_the_value_typed_by_its_schema() -> None:
    """A number field holds a CEL double even when written as 1: ``self > 0.5`` compares doubles."""
    number = {"type": "number", "x-kubernetes-validations": [{"rule": "self > 0.5", "message": "over a half"}]}
    assert collect([CelTarget(("spec", "n"), 1, number)]) == []
    assert collect([CelTarget(("spec", "n"), 0, number)]) == [
        ("cel/rule", ("spec", "n"), 'Invalid value: 0: over a half', "")]


@pytest.mark.usefixtures("fresh_rules")
def test_a_failed_rule_shows_the_value_and_an_error_the_structural_type() -> None:
    """A failed rule carries the value (apimachinery's ErrorBody prints it: 80); an error evaluating one names
    the structural type, which an int-or-string node does not have (the server prints "")."""
    int_or_string = {"x-kubernetes-int-or-string": True, "x-kubernetes-validations": [
        {"rule": "type(self) == string", "message": "a name, not a number"}]}
    integer = {"type": "integer", "x-kubernetes-validations": [{"rule": "1 / (self - self) > 0"}]}
    assert collect([CelTarget(("spec", "port"), 80, int_or_string), CelTarget(("spec", "n"), 3, integer)]) == [
        ("cel/rule", ("spec", "port"), 'Invalid value: 80: a name, not a number', ""),
        ("cel/error", ("spec", "n"), 'Invalid value: "integer": division by zero evaluating rule: '
         "1 / (self - self) > 0", "")]


def test_the_not_evaluated_note_is_the_servers_one_after_the_last_error() -> None:
    """One note per object in the server's words (hasBlockingErr's ``field.Invalid(nil, ...)``), whatever rules the
    object has, sorted after the last error; warnings do not count."""
    found = [Diagnostic("schema/type", Severity.ERROR, "m", "f.yaml", 3, 4),
             Diagnostic("schema/type", Severity.ERROR, "m", "f.yaml", 2, 9),
             Diagnostic("semantic/no-gateway", Severity.WARNING, "m", "f.yaml", 7, 1)]
    notes = _not_evaluated({"a": 1}, "f.yaml", "Experiment x", found)
    assert [(d.rule, d.file, d.line, d.col, d.path, d.message, d.hint, d.object, d.follows) for d in notes] == [
        ("cel/not-evaluated", "f.yaml", 0, 0, "", "some validation rules were not checked because the object was "
         "invalid; correct the existing errors to complete validation", "", "Experiment x", (3, 4))]

