"""The pipeline around single Experiments: streams, kinds, order of checks, counts."""

from __future__ import annotations

from kubectl_testbench.validate.engine import Options, validate_text
from tests.validate.helpers import VALID, keep


def rules(text: str) -> list[str]:
    return [d.rule for d in validate_text(text, "t.yaml").diagnostics]


def test_valid_experiment_has_no_findings() -> None:
    result = validate_text(VALID, "t.yaml")
    assert result.diagnostics == [] and (result.counts.experiments, result.counts.valid) == (1, 1)


def test_other_kinds_are_skipped_and_counted_including_other_experiment_crds() -> None:
    katib = "apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nmetadata:\n  name: x\nspec: {}\n"
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
    result = validate_text(f"{katib}---\n{cm}---\n{VALID}", "t.yaml")
    assert (result.counts.skipped, result.counts.experiments, result.counts.valid) == (2, 1, 1)


def test_a_broken_document_does_not_hide_the_others() -> None:
    broken = VALID.replace("name: weather-agent", "name: [weather-agent")
    invalid = VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 2")
    result = validate_text(f"{broken}---\n{invalid}---\n{VALID}", "t.yaml")
    assert [d.rule for d in result.diagnostics] == ["yaml/syntax", "schema/maximum"]
    assert result.diagnostics[1].line == VALID.count("\n") * 1 + 1 + 11
    assert (result.counts.valid, result.counts.invalid, result.counts.malformed) == (1, 1, 1)


def test_v1_list_items_are_validated() -> None:
    item = "\n".join("    " + line for line in VALID.splitlines())
    text = "apiVersion: v1\nkind: List\nitems:\n  -\n" + item + "\n"
    result = validate_text(text.replace("defaultThreshold: 0.8", "defaultThreshold: 3"), "t.yaml")
    [d] = result.diagnostics
    assert (d.rule, d.path, d.line) == ("schema/maximum", "spec.dataset.inline.defaultThreshold", 15)


def test_with_blocking_errors_the_rules_whose_fields_are_intact_still_run() -> None:
    """The server runs no CEL rule once an error of the blocking kinds is found and says so once (issue 33: every
    finding in one pass): we run the rules whose field holds no blocking error and keep the server's note."""
    both = VALID.replace("    inline:", "    url: https://x/e.json\n    inline:")
    elsewhere = both.replace("name: weather-agent", "name: 5")  # a type error outside spec.dataset
    assert rules(elsewhere).count("cel/dataset-exactly-one") == 1 and "cel/not-evaluated" in rules(elsewhere)
    inside = VALID.replace("    inline:", "    url: [https://x/e.json]\n    inline:")  # the rule's own field
    assert "cel/dataset-exactly-one" not in rules(inside) and "cel/not-evaluated" in rules(inside)
    assert "schema/type" in rules(inside)


def test_blocking_metadata_errors_keep_the_servers_rules_from_running_too() -> None:
    """The server's hasBlockingErr looks at every error of the strategy, ObjectMeta's included (issue 29: found
    by the module-mode oracle): a missing name or a manager over 128 bytes blocks the rules, an invalid name does
    not, and a name generated from generateName is no missing name. The rule on spec.dataset still runs here: no
    blocking error is in its field."""
    both = VALID.replace("    inline:", "    url: https://x/e.json\n    inline:")
    no_name = both.replace("  name: weather-eval\n", "")
    assert "cel/dataset-exactly-one" in rules(no_name) and "cel/not-evaluated" in rules(no_name)
    long_manager = both.replace("  name: weather-eval\n", "  name: weather-eval\n  managedFields:\n"
                                "  - {manager: " + "m" * 129 + ", operation: Apply}\n")
    assert "cel/dataset-exactly-one" in rules(long_manager) and "cel/not-evaluated" in rules(long_manager)
    bad_name = both.replace("name: weather-eval", "name: Weather_Eval")
    assert "cel/dataset-exactly-one" in rules(bad_name) and "cel/not-evaluated" not in rules(bad_name)
    generated = both.replace("  name: weather-eval\n", "  generateName: weather-\n")
    assert "cel/dataset-exactly-one" in rules(generated) and "cel/not-evaluated" not in rules(generated)


def test_blocking_errors_without_a_rule_in_reach_still_say_rules_were_not_checked() -> None:
    """The server appends its note whenever the CRD has rules and an error blocks them, also where the rule's field
    is absent (issue 29: a null dataset, found by the module-mode oracle): one note at the object's root."""
    text = VALID.replace("  dataset:\n", "  dataset: null\n  x-dataset:\n")
    diagnostics = validate_text(text, "t.yaml").diagnostics
    notes = [(d.path, d.message) for d in diagnostics if d.rule == "cel/not-evaluated"]
    assert notes == [("", "some validation rules were not checked because the object was invalid; correct the "
                      "existing errors to complete validation")]
    assert ("schema/required", "spec.dataset") in [(d.rule, d.path) for d in diagnostics]


def test_cel_still_runs_with_non_blocking_errors() -> None:
    text = VALID.replace("    inline:", "    url: https://x/e.json\n    inline:").replace(
        "defaultThreshold: 0.8", "defaultThreshold: 1.8")
    assert {"schema/maximum", "cel/dataset-exactly-one"} <= set(rules(text))


def test_status_is_dropped_before_validation_but_strict_decoding_sees_its_unknown_fields() -> None:
    assert rules(VALID + "status:\n  conditions: wrong-type\n") == ["semantic/status-ignored"]
    unknown = validate_text(VALID + "status:\n  conditions: [{bogus: 1}]\n", "t.yaml").diagnostics
    assert sorted((d.rule, d.path, d.line) for d in unknown) == [
        ("schema/unknown-field", "status.conditions[0].bogus", 25), ("semantic/status-ignored", "status", 24)]


def test_strict_turns_warnings_into_failures() -> None:
    text = VALID + "  trigger:\n    concurrencyPolicy: Forbid\n"  # semantic/trigger-inactive, a warning
    assert rules(text) == ["semantic/trigger-inactive"]
    assert validate_text(text, "t.yaml").counts.valid == 1
    assert validate_text(text, "t.yaml", Options(strict=True)).counts.invalid == 1


def test_semantic_checks_skip_paths_with_schema_errors() -> None:
    text = VALID + "  schedule:\n    cron: \"0 3 * *\"\n"
    assert rules(text) == ["schema/pattern"], "no second semantic/cron finding for the same mistake"


def test_empty_input_is_an_error_but_a_comment_only_scanned_file_is_not() -> None:
    assert rules("# nothing\n") == ["input/empty"]
    assert validate_text("# nothing\n", "t.yaml", scanned=True).diagnostics == []


def test_validated_experiment_is_kept_for_render_with_nulls_pruned() -> None:
    text = VALID.replace("  agentRef:\n", "  trigger: null\n  agentRef:\n")
    result = validate_text(text, "t.yaml", Options(), keep=keep(experiments=True))
    [exp] = result.experiments
    assert "trigger" not in exp.data["spec"] and exp.line == 1 and type(exp.data) is dict


def test_an_experiment_without_api_version_is_an_error_not_skipped() -> None:
    text = VALID.replace("apiVersion: testbench.agentic-layer.ai/v1alpha1\n", "")
    result = validate_text(text, "t.yaml")
    assert [(d.rule, d.path, d.line) for d in result.diagnostics] == [("kind/api-version", "apiVersion", 1)]
    assert (result.counts.invalid, result.counts.skipped) == (1, 0)
