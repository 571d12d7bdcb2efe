"""Each rule's fix, named after the rule id: the exact text it writes, and the cases where it must not offer one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kubectl_testbench.fix.apply import FixOptions, fix_text
from kubectl_testbench.validate.diagnostics import Edit
from kubectl_testbench.validate.engine import validate_text
from tests.validate.helpers import VALID


def fixed(text: str) -> str:
    outcome = fix_text(text, "t.yaml", FixOptions())
    assert outcome.after is not None
    return outcome.after


def offered(text: str) -> list[tuple[str, str, str]]:
    """(rule, field path, replacement texts) of every fix validation offers."""
    return [(d.rule, d.path, "|".join(e.text for e in d.fix.edits))
            for d in validate_text(text, "t.yaml").diagnostics if d.fix is not None and d.fix.edits]


def blocked(text: str) -> list[tuple[str, str]]:
    return [(d.rule, d.fix.blocked) for d in validate_text(text, "t.yaml").diagnostics
            if d.fix is not None and d.fix.blocked]


STEP = "            - input: Will it rain in Berlin tomorrow?\n"
TRIGGER = "  trigger:\n    enabled: true\n    concurrencyPolicy: Forbid\n"


# --- schema/type -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("written", ["yes", "n", "No", "off", "42", "1.10", "0777", "0x1F"])
def test_schema_type_quotes_a_plain_scalar_in_a_string_field_as_written(written: str) -> None:
    text = VALID.replace(STEP, f"            - input: {written}  # kept\n")
    assert fixed(text) == VALID.replace(STEP, f'            - input: "{written}"  # kept\n')


def test_schema_type_quotes_s3_key_legacy_octal_and_scenario_name() -> None:
    s3 = "  dataset:\n    s3:\n      bucket: b\n      key: 0777\n    inline:"
    text = VALID.replace("  dataset:\n    inline:", s3)
    assert ("schema/type", "spec.dataset.s3.key", '"0777"') in offered(text)
    named = VALID.replace("- name: Forecast", "- name: n")
    assert fixed(named) == VALID.replace("- name: Forecast", '- name: "n"')


def test_schema_type_unquotes_a_number_written_as_a_string_in_a_number_field() -> None:
    for quoted, number in (('"0.8"', "0.8"), ("'0.5'", "0.5"), ('"1"', "1"), ('"0"', "0")):
        text = VALID.replace("defaultThreshold: 0.8", f"defaultThreshold: {quoted}")
        assert fixed(text) == VALID.replace("defaultThreshold: 0.8", f"defaultThreshold: {number}")


def test_schema_type_never_quotes_in_numeric_or_free_form_fields_and_never_guesses_a_number() -> None:
    assert offered(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: yes")) == []
    assert offered(VALID.replace("defaultThreshold: 0.8", 'defaultThreshold: "high"')) == []
    assert ("schema/type", '"high" is not a number as JSON writes it') in blocked(
        VALID.replace("defaultThreshold: 0.8", 'defaultThreshold: "high"'))
    assert offered(VALID.replace("defaultThreshold: 0.8", 'defaultThreshold: " 0.8"')) == []
    free = VALID.replace(STEP, STEP + "              customValues:\n                followUp: no\n")
    assert offered(free) == []


def test_schema_type_leaves_a_multi_line_or_tagged_or_anchored_value() -> None:
    tagged = VALID.replace(STEP, "            - input: !!int 42\n")
    assert offered(tagged) == []
    assert blocked(tagged) == [("schema/type", "the value has an explicit tag (tag:yaml.org,2002:int)")]
    anchored = VALID.replace(STEP, "            - input: &a yes\n")
    assert blocked(anchored) == [("schema/type", "the node carries an anchor: aliases elsewhere would change with it")]


# --- schema/enum -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("written", "expected"), [("allow", "Allow"), ("REPLACE", "Replace"), ('"forbid"', '"Forbid"'),
                                                   ("'allow'", "'Allow'")])
def test_schema_enum_corrects_the_case_keeping_the_quoting_style(written: str, expected: str) -> None:
    text = VALID + TRIGGER.replace("Forbid", written)
    assert fixed(text) == VALID + TRIGGER.replace("Forbid", expected)


def test_schema_enum_without_a_case_insensitive_match_has_no_fix() -> None:
    text = VALID + TRIGGER.replace("Forbid", "Queue")
    assert offered(text) == []
    assert blocked(text) == [("schema/enum", "no allowed value matches it ignoring case")]


# --- schema/unknown-field ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("typo", "field"), [("datset", "dataset"), ("agentref", "agentRef"), ("Dataset", "dataset"),
                                             ("trigerr", "trigger")])
def test_schema_unknown_field_renames_a_slip_of_one_known_field(typo: str, field: str) -> None:
    text = (VALID + TRIGGER).replace(f"  {field}:", f"  {typo}:")
    assert fixed(text) == VALID + TRIGGER


def test_schema_unknown_field_renames_a_quoted_key_keeping_its_quotes() -> None:
    text = VALID.replace("  dataset:", '  "datset":')
    assert fixed(text) == VALID.replace("  dataset:", '  "dataset":')


def test_schema_unknown_field_is_not_renamed_when_the_target_is_set_or_ambiguous_or_far() -> None:
    both = VALID + "  datset: {}\n"
    assert offered(both) == []
    assert blocked(both) == [("schema/unknown-field", '"dataset" is set already: keep one of the two')]
    far = VALID.replace(STEP, STEP + "              expectedOutput: rain\n")
    assert blocked(far) == [("schema/unknown-field", "no known field is within two edits of it")]


# --- metadata ------------------------------------------------------------------------------------------------


def test_metadata_unknown_field_renames_lables() -> None:
    text = VALID.replace("  namespace: agents\n", "  namespace: agents\n  lables:\n    team: weather\n")
    assert fixed(text) == VALID.replace("  namespace: agents\n", "  namespace: agents\n  labels:\n    team: weather\n")


def test_metadata_type_quotes_a_yaml11_namespace_and_label_value() -> None:
    text = VALID.replace("  namespace: agents\n", "  namespace: no\n  labels:\n    canary: yes\n")
    assert fixed(text) == VALID.replace("  namespace: agents\n", '  namespace: "no"\n  labels:\n    canary: "yes"\n')


def test_metadata_null_field_removes_the_line_with_its_comment() -> None:
    text = VALID.replace("  namespace: agents\n", "  namespace: agents\n  creationTimestamp: null  # dry-run\n")
    assert [d.rule for d in validate_text(text, "t.yaml").diagnostics if d.fix] == \
        [d.rule for d in validate_text(text, "t.yaml").diagnostics if d.rule == "metadata/null-field"]
    assert fixed(text) == VALID
    flow = VALID.replace("metadata:\n  name: weather-eval\n  namespace: agents\n",
                         "metadata: {name: weather-eval, creationTimestamp: null, namespace: agents}\n")
    assert fixed(flow) == VALID.replace("metadata:\n  name: weather-eval\n  namespace: agents\n",
                                        "metadata: {name: weather-eval, namespace: agents}\n")


def test_metadata_null_field_that_is_the_only_field_is_not_removed() -> None:
    text = VALID.replace("metadata:\n  name: weather-eval\n  namespace: agents\n", "metadata:\n  labels: null\n")
    assert ("metadata/null-field", "it is the only entry: its mapping would become null") in blocked(text)


def test_metadata_nulls_are_accepted_as_the_server_does_and_only_noted_with_a_fix() -> None:
    """Issue 16: null ObjectMeta fields are unset, not type errors; issue 18's info finding removes them."""
    nulls = "  namespace: agents\n  labels: null\n  creationTimestamp: null\n  ownerReferences: null\n"
    text = VALID.replace("  namespace: agents\n", nulls)
    found = [(d.rule, d.severity.value, d.path) for d in validate_text(text, "t.yaml").diagnostics]
    assert found == [("metadata/null-field", "info", "metadata.labels"),
                     ("metadata/null-field", "info", "metadata.creationTimestamp"),
                     ("metadata/null-field", "info", "metadata.ownerReferences")]
    assert fixed(text) == VALID


def test_metadata_unknown_field_in_an_owner_reference_is_renamed_keeping_the_servers_rule_and_hint() -> None:
    owner = ("  ownerReferences:\n    - apiversion: v1\n      kind: ConfigMap\n      name: anchor\n"
             "      uid: 0c3e5c6e-1111-2222-3333-444455556666\n")
    text = VALID.replace("  namespace: agents\n", "  namespace: agents\n" + owner)
    (d,) = [d for d in validate_text(text, "t.yaml").diagnostics if d.rule == "metadata/unknown-field"]
    assert (d.path, d.message, d.hint) == ("metadata.ownerReferences[0].apiversion",
                                           'unknown field "metadata.ownerReferences[0].apiversion"',
                                           'did you mean "apiVersion"? Field names are case-sensitive')
    assert fixed(text) == VALID.replace("  namespace: agents\n",
                                        "  namespace: agents\n" + owner.replace("apiversion", "apiVersion"))


def test_metadata_type_quotes_a_finalizer_and_an_owner_reference_name() -> None:
    written = "  namespace: agents\n  finalizers:\n    - 1234\n"
    text = VALID.replace("  namespace: agents\n", written)
    assert offered(text) == [("metadata/type", "metadata.finalizers[0]", '"1234"')]
    assert fixed(text) == VALID.replace("  namespace: agents\n", written.replace("1234", '"1234"'))


def test_metadata_timestamp_is_never_quoted_into_another_invalid_value() -> None:
    text = VALID.replace("  namespace: agents\n", "  namespace: agents\n  creationTimestamp: 12:30\n")
    rules = {d.rule: d.fix for d in validate_text(text, "t.yaml").diagnostics}
    assert "metadata/timestamp" in rules and all(fix is None for fix in rules.values())


# --- semantic ------------------------------------------------------------------------------------------------


def test_semantic_status_ignored_removes_status_and_the_comments_inside_it_only() -> None:
    text = VALID + "# written by kubectl get\nstatus:  # observed\n  # conditions follow\n  conditions: []\n# end\n"
    assert fixed(text) == VALID + "# written by kubectl get\n# end\n"


TOOL = "              reference:\n                response: It will rain in Berlin tomorrow.\n"


@pytest.mark.parametrize(("written", "expected"), [
    ("                toolCalls:\n                  - name: get_weather\n",
     "                toolCalls:\n                  - name: get_weather\n                    args: {}\n"),
    ("                toolCalls:\n                  - name: get_weather  # c\n                    # after\n",
     "                toolCalls:\n                  - name: get_weather  # c\n                    args: {}\n"
     "                    # after\n"),
    ("                toolCalls: [{name: get_weather}]\n",
     "                toolCalls: [{name: get_weather, args: {}}]\n"),
    ("                toolCalls:\n                  - name: get_weather\n                    args:\n",
     "                toolCalls:\n                  - name: get_weather\n                    args: {}\n"),
    ("                toolCalls:\n                  - name: get_weather\n                    args: null\n",
     "                toolCalls:\n                  - name: get_weather\n                    args: {}\n"),
])
def test_semantic_tool_call_args_adds_empty_args(written: str, expected: str) -> None:
    text = VALID.replace(TOOL, TOOL + written)
    assert fixed(text) == VALID.replace(TOOL, TOOL + expected)


def test_semantic_tool_call_args_at_the_end_of_a_file_without_a_final_line_break() -> None:
    gateway = "  aiGatewayRef:\n    name: ai-gateway\n    namespace: ai-gateway\n"
    judge = "      llmAsAJudgeModel: gpt-4o-mini\n"
    steps_last = (VALID.replace(gateway, "").replace("spec:\n", "spec:\n" + gateway)
                  .replace(judge, "").replace("    inline:\n", "    inline:\n" + judge))  # the step ends the file
    text = steps_last.rstrip("\n").replace(TOOL, "") + "\n              reference:\n                toolCalls:\n" \
        "                  - name: get_weather"
    assert fixed(text).endswith("                  - name: get_weather\n                    args: {}")


@pytest.mark.parametrize(("written", "expected"), [
    ("toolcallaccuracy", "ToolCallAccuracy"), ('"TOOLCALLACCURACY"', '"ToolCallAccuracy"'),
    ("'toolCallAccuracy'", "'ToolCallAccuracy'"),
])
def test_semantic_unknown_metric_case_slip_of_one_scorable_metric_is_corrected(written: str, expected: str) -> None:
    metric = "                - metricName: AgentGoalAccuracyWithReference\n"
    calls = "                toolCalls:\n                  - name: get_weather\n                    args: {}\n"
    base = VALID.replace(TOOL, TOOL + calls)
    text = base.replace(metric, f"                - metricName: {written}  # kept\n")
    assert offered(text) == [("semantic/unknown-metric",
                              "spec.dataset.inline.scenarios[0].steps[0].metrics[0].metricName", expected)]
    after = fixed(text)
    assert after == base.replace(metric, f"                - metricName: {expected}  # kept\n")
    assert validate_text(after, "t.yaml").diagnostics == []


def test_semantic_unknown_metric_without_a_scorable_case_match_has_no_fix() -> None:
    from kubectl_testbench.validate.metrics import NEEDS, UNSCORABLE

    assert "Faithfulness" in UNSCORABLE and "ToolCallAccuracy" in NEEDS  # the generated table this relies on
    metric = "metricName: AgentGoalAccuracyWithReference"
    unscorable = VALID.replace(metric, "metricName: faithfulness")
    assert offered(unscorable) == []
    assert blocked(unscorable) == [("semantic/unknown-metric", "Faithfulness never scores with "
                                    "agentic-layer-testbench 0.10.0")]
    assert offered(VALID.replace(metric, "metricName: ToolCallAcuracy")) == []  # a typo: a hint, never a guess
    assert offered(VALID.replace(metric, "metricName: TopicAdherenceScore")) == []  # an old name: a hint


# --- yaml ----------------------------------------------------------------------------------------------------


def test_yaml_yaml11_boolean_in_a_boolean_field_becomes_what_kubernetes_reads() -> None:
    for word, value in (("yes", "true"), ("on", "true"), ("Off", "false"), ("N", "false")):
        text = VALID + f"  trigger:\n    enabled: {word}\n"
        assert fixed(text) == VALID + f"  trigger:\n    enabled: {value}\n"


def test_yaml_sexagesimal_in_a_string_field_is_quoted_but_not_in_free_form_fields() -> None:
    text = VALID.replace(STEP, "            - input: 1:20\n")
    assert fixed(text) == VALID.replace(STEP, '            - input: "1:20"\n')
    free = VALID.replace(STEP, STEP + "              customValues:\n                at: 1:20\n")
    assert offered(free) == []
    cron = VALID + "  schedule:\n    cron: 1:30\n"
    assert ("yaml/sexagesimal", "spec.schedule.cron", '"1:30"') in offered(cron)


def test_yaml_document_separator_moves_the_content_to_its_own_line() -> None:
    text = VALID + "--- {kind: ConfigMap, apiVersion: v1, metadata: {name: x}}  # other\n"
    assert fixed(text) == VALID + "---\n{kind: ConfigMap, apiVersion: v1, metadata: {name: x}}  # other\n"
    crlf = text.replace("\n", "\r\n")
    assert fixed(crlf) == fixed(text).replace("\n", "\r\n")
    glued = VALID + "---{kind: ConfigMap}\n"
    assert offered(glued) == []


def test_yaml_syntax_tab_indentation_under_a_block_opener_is_reindented() -> None:
    text = VALID.replace("                response: It will", "\t\tresponse: It will")
    assert offered(text) == [("yaml/syntax", "", " " * 16)]
    assert fixed(text) == VALID
    whole = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n\tlabels:\n\t\ta: b\ndata:\n\tk: v\n"
    assert fixed(whole) == "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: b\ndata:\n  k: v\n"


def test_yaml_syntax_tabs_with_an_uncertain_level_are_left_alone() -> None:
    after_value = VALID.replace("    name: weather-agent\n", "    name: weather-agent\n\tnamespace: agents\n")
    assert offered(after_value) == []
    mixed = VALID.replace("                response: It will", "  \t              response: It will")
    assert offered(mixed) == []
    still_inside = VALID.replace("                response: It will rain in Berlin tomorrow.\n",
                                 "\tresponse: x\n                  extra: y\n")
    assert offered(still_inside) == []


# --- formats and containers ---------------------------------------------------------------------------------


def test_a_json_file_stays_json() -> None:
    import json

    from tests.fix.helpers import CORPUS

    after = fixed((CORPUS / "json-experiment.json").read_text())
    doc = json.loads(after)
    assert doc["spec"]["trigger"]["concurrencyPolicy"] == "Allow" and "creationTimestamp" not in doc["metadata"]
    step = doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][0]
    assert step["input"] == "42" and step["reference"]["toolCalls"] == [{"name": "get_weather", "args": {}}]
    assert '"args": {}' in after


def test_items_of_a_list_are_fixed_where_they_are_written() -> None:
    """kubectl flattens lists (issue 16): a finding is about the item, its fix edits the item inside the list."""
    item = "\n".join("    " + line for line in (VALID + TRIGGER.replace("Forbid", "forbid")).splitlines())
    text = "apiVersion: v1\nkind: List\nitems:\n  -\n" + item + "\n"
    assert offered(text) == [("schema/enum", "spec.trigger.concurrencyPolicy", "Forbid")]
    assert fixed(text) == text.replace("concurrencyPolicy: forbid", "concurrencyPolicy: Forbid")
    # an ExperimentList whose items inherit kind and apiVersion; the fix lands in the second item only
    body = VALID.split("kind: Experiment\n", 1)[1]
    first = "  - " + "\n    ".join(body.splitlines())
    second = "  - " + "\n    ".join((body + TRIGGER.replace("Forbid", "forbid")).splitlines())
    listed = ("apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: ExperimentList\nitems:\n"
              f"{first}\n{second}\n")
    assert fixed(listed) == listed.replace("concurrencyPolicy: forbid", "concurrencyPolicy: Forbid")


def test_items_of_a_json_list_are_fixed_and_the_file_stays_json() -> None:
    import json

    doc = {"apiVersion": "v1", "kind": "List", "items": [json.loads(json.dumps(_as_json(VALID)))]}
    doc["items"][0]["spec"]["trigger"] = {"enabled": True, "concurrencyPolicy": "replace"}
    doc["items"][0]["metadata"]["creationTimestamp"] = None
    text = json.dumps(doc, indent=2)
    after = fixed(text)
    assert json.loads(after)["items"][0]["spec"]["trigger"]["concurrencyPolicy"] == "Replace"
    assert "creationTimestamp" not in json.loads(after)["items"][0]["metadata"]
    assert validate_text(after, "t.json").diagnostics == []


def _as_json(text: str) -> object:
    import yaml

    return yaml.safe_load(text)


# --- application ---------------------------------------------------------------------------------------------


def test_overlapping_fixes_leave_the_file_alone_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_testbench.fix import apply
    from kubectl_testbench.validate.diagnostics import Edit, Fix, FixKind

    real = apply.validate_text
    text = VALID + TRIGGER.replace("Forbid", "forbid")

    def clashing(*args: object, **kwargs: object) -> apply.FileResult:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        (enum,) = [d for d in result.diagnostics if d.fix and d.fix.edits]
        edit = enum.fix.edits[0]  # type: ignore[union-attr]
        other = Fix(FixKind.REPLACE, ("spec", "trigger"), None, "x", (Edit(edit.start - 3, edit.end, "zzz"),))
        result.diagnostics.append(type(enum)("schema/type", enum.severity, "m", "t.yaml", 1, 1, "spec.trigger",
                                             fix=other))
        return result

    monkeypatch.setattr(apply, "validate_text", clashing)
    outcome = fix_text(text, "t.yaml", FixOptions())
    assert outcome.after == text and outcome.applied == []
    assert [str(n) for n in outcome.notes] == [
        "t.yaml:1: the fixes for schema/type at spec.trigger and schema/enum at spec.trigger.concurrencyPolicy "
        "overlap: file left unchanged"]


def _patch_first_edit(monkeypatch: pytest.MonkeyPatch, change: Callable[[Edit], Edit]) -> None:
    """Make validation offer a fix whose edit is ``change``d: what a buggy placement would produce."""
    import dataclasses

    from kubectl_testbench.fix import apply

    real = apply.validate_text

    def patched(*args: object, **kwargs: object) -> apply.FileResult:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        result.diagnostics = [dataclasses.replace(d, fix=dataclasses.replace(d.fix, edits=(change(d.fix.edits[0]),)))
                              if d.fix and d.fix.edits else d for d in result.diagnostics]
        return result

    monkeypatch.setattr(apply, "validate_text", patched)


def test_a_fix_that_does_not_read_back_as_promised_is_not_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    text = VALID + TRIGGER.replace("Forbid", "forbid")
    # the edit writes "Replace" where the fix promises "Forbid"
    _patch_first_edit(monkeypatch, lambda e: dataclasses.replace(e, text="Replace"))
    outcome = fix_text(text, "t.yaml", FixOptions())
    assert outcome.after == text and outcome.applied == []
    assert "did not read back as promised" in str(outcome.notes[0])


def test_a_fix_that_would_swallow_a_comment_is_not_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    text = VALID + TRIGGER.replace("Forbid", "forbid  # keep me")
    # same meaning, but the comment after the value goes too
    _patch_first_edit(monkeypatch, lambda e: dataclasses.replace(e, end=e.end + len("  # keep me")))
    outcome = fix_text(text, "t.yaml", FixOptions())
    assert outcome.after == text and outcome.applied == []
    assert "did not read back as promised" in str(outcome.notes[0])
