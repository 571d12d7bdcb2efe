"""``fix --migrate`` case by case: which documents count as the earlier shape, every refusal with its line and
reason verbatim, and the exact text of each kind of edit (empty endpoints, an env that already has it, flow and
event-only triggers, indentation read from the file, CR line ends, several documents)."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.fix.migrate import earlier_shape, migrate_text
from kubectl_testbench.load.limits import Limits

HEAD = "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\nmetadata:\n  name: x\n"
SPEC = HEAD + "spec:\n  agentRef: {name: a}\n"  # spec's entries start at line 7
CANNOT = "cannot migrate this Experiment: "
API = "testbench.agentic-layer.ai/v1alpha1"


def _migrate(text: str) -> tuple[str, list[tuple[int, str]], int]:
    m = migrate_text(text, Limits())
    return m.text, m.notes, m.moved


@pytest.mark.parametrize(("data", "earlier"), [
    ({"apiVersion": API, "kind": "Experiment", "spec": {"otlpEndpoint": "x"}}, True),
    ({"apiVersion": API, "kind": "Experiment", "spec": {"llmAsAJudgeModel": "m"}}, True),
    ({"apiVersion": API, "kind": "Experiment", "spec": {"defaultThreshold": 0.5}}, True),
    ({"apiVersion": API, "kind": "Experiment", "spec": {"scenarios": []}}, True),
    ({"apiVersion": API, "kind": "Experiment", "spec": {"trigger": {"event": "modified"}}}, True),
    ({"apiVersion": API, "kind": "Experiment", "spec": {"trigger": {"enabled": True}}}, False),
    ({"apiVersion": API, "kind": "Experiment", "spec": {"trigger": "event"}}, False),
    ({"apiVersion": API, "kind": "Experiment", "spec": {"dataset": {"url": "u"}}}, False),
    ({"apiVersion": API, "kind": "Experiment", "spec": "scenarios"}, False),
    ({"apiVersion": "testbench.agentic-layer.ai.evil/v1", "kind": "Experiment", "spec": {"scenarios": []}}, False),
    ({"kind": "Experiment", "spec": {"scenarios": []}}, False),
    ({"apiVersion": API, "kind": "ConfigMap", "spec": {"scenarios": []}}, False),
    (["apiVersion", "kind"], False),
    (None, False),
])
def test_earlier_shape_is_an_experiment_of_this_group_with_an_earlier_field(data: Any, earlier: bool) -> None:
    assert earlier_shape(data) is earlier


@pytest.mark.parametrize(("text", "line", "reason"), [
    (SPEC + "  ? otlpEndpoint\n  : http://x\n", 7, '"otlpEndpoint" does not start its line: migrate it by hand'),
    (SPEC + "  otlpEndpoint: 4318\n", 7,
     "spec.otlpEndpoint is not a one-line string: move it to spec.env by hand"),
    (SPEC + "  otlpEndpoint: >-\n    http://x\n  trigger: {enabled: true}\n", 7,
     "spec.otlpEndpoint is not a one-line string: move it to spec.env by hand"),
    ((SPEC + '  otlpEndpoint: "http://a\n    b"\n').replace("\n", "\r"), 7,
     "spec.otlpEndpoint is not a one-line string: move it to spec.env by hand"),
    (HEAD + "  labels: &t {event: modified}\nspec:\n  agentRef: {name: a}\n  trigger: *t\n", 8,
     "spec.trigger.event could not be located in the text (an alias or merge key?)"),
    (HEAD + "  labels: &t {event: modified}\nspec:\n  trigger:\n    <<: *t\n", 7,
     "spec.trigger.event could not be located in the text (an alias or merge key?)"),
    ("x: &s {otlpEndpoint: a}\n" + HEAD + "spec: *s\n", 1,
     "spec could not be located in the text (an alias or merge key?)"),
    (SPEC + "  trigger: {enabled: true,  # c\n    event: modified}\n", 8,
     "spec.trigger is a flow mapping with comments: remove event by hand"),
    (SPEC + "  trigger:\n    event: 5\n", 8,
     "spec.trigger.event 5 has no counterpart: a TestTrigger now always fires when the agent's Deployment is "
     "modified"),
    (SPEC + "  env:\n  - name: OTEL_EXPORTER_OTLP_ENDPOINT\n    value: http://x\n    valueFrom: {secretKeyRef: "
     "{name: s, key: k}}\n  otlpEndpoint: http://x\n", 11,
     "spec.env already sets OTEL_EXPORTER_OTLP_ENDPOINT to something else than spec.otlpEndpoint: decide which "
     "one applies by hand"),
    (SPEC + "  env: [{name: A, value: b}]\n  otlpEndpoint: http://x\n", 8,
     "spec.env is not a block list: add OTEL_EXPORTER_OTLP_ENDPOINT to it by hand"),
    (SPEC + "  env: 5\n  otlpEndpoint: http://x\n", 8,
     "spec.env is not a block list: add OTEL_EXPORTER_OTLP_ENDPOINT to it by hand"),
    (SPEC + "  env: {A: b}\n  otlpEndpoint: http://x\n", 8,
     "spec.env is not a block list: add OTEL_EXPORTER_OTLP_ENDPOINT to it by hand"),
    (SPEC + "  llmAsAJudgeModel: m\n  dataset:\n    inline: {scenarios: []}\n", 7,
     "spec.llmAsAJudgeModel belongs to a dataset, and there is no spec.dataset.s3/url or spec.scenarios: move it "
     "into spec.dataset.inline by hand"),
    (SPEC + "  llmAsAJudgeModel:\n    m\n", 7,
     "spec.llmAsAJudgeModel belongs to a dataset, and there is no spec.dataset.s3/url or spec.scenarios: move it "
     "into spec.dataset.inline by hand"),
    (SPEC + "  llmAsAJudgeModel: m\n  dataset:\n    s3: {bucket: b, key: k}\n    inline: {scenarios: []}\n", 7,
     "spec.llmAsAJudgeModel and spec.dataset.inline are both set: merge them by hand"),
    (SPEC + "  dataset: {url: u}\n  scenarios: []\n", 8,
     "spec.scenarios and spec.dataset are both set (the earlier schema allowed only one): keep one by hand"),
    # the read-back check: the anchor goes with the commented-out line, the alias below is left dangling
    (SPEC + "  llmAsAJudgeModel: &m gpt\n  dataset:\n    s3: {bucket: b, key: *m}\n", 1,
     "the edited document did not read back as the migrated Experiment (anchors, aliases or an unusual layout?): "
     "migrate it by hand"),
    # the comment check: a comment below the endpoint, deeper than it, is not carried into spec.env
    (SPEC + "  otlpEndpoint: http://x\n    # below\n  trigger: {enabled: true}\n", 1,
     "the comment '# below' would not survive the edit: migrate it by hand"),
    (SPEC + "  env:\n  - name: A\n    value: b\n  otlpEndpoint: http://x\n    # below\n", 1,
     "the comment '# below' would not survive the edit: migrate it by hand"),
], ids=["explicit-key", "otlp-not-string", "otlp-folded", "otlp-cr-two-lines", "trigger-alias", "trigger-merge",
        "spec-alias", "flow-trigger-comment", "event-not-string", "env-valuefrom", "env-flow", "env-scalar",
        "env-map", "judge-beside-inline", "judge-alone", "judge-beside-s3-and-inline", "scenarios-and-dataset",
        "anchor-commented-out", "comment-below-new-env", "comment-below-env-item"])
def test_refusal_names_its_line_and_reason_and_leaves_the_text(text: str, line: int, reason: str) -> None:
    assert _migrate(text) == (text, [(line, CANNOT + reason)], 0)


@pytest.mark.parametrize("name", ["llmAsAJudgeModel", "dataset", "env", "trigger", "otlpEndpoint"])
def test_a_field_from_a_merge_key_is_refused_at_the_spec_line(name: str) -> None:
    text = f"x: &s {{{name}: {{}}}}\n" + HEAD + "spec:\n  <<: *s\n  agentRef: {name: a}\n  scenarios: []\n"
    if name == "llmAsAJudgeModel":
        text = text.replace("scenarios: []", "otlpEndpoint: http://x")
    reason = f"spec.{name} comes from a merge key or alias: migrate it by hand"
    assert _migrate(text) == (text, [(6, CANNOT + reason)], 0)


def test_refusal_lines_count_from_the_document_start_in_a_stream() -> None:
    refused = SPEC + "  otlpEndpoint: http://x\n    # below\n  trigger: {enabled: true}\n"
    text = "kind: ConfigMap\n---\n" + refused
    assert _migrate(text)[1] == [(3, CANNOT + "the comment '# below' would not survive the edit: migrate it by hand")]
    aliased = SPEC + "  llmAsAJudgeModel: &m gpt\n  dataset:\n    s3: {bucket: b, key: *m}\n"
    assert _migrate("kind: ConfigMap\n---\n" + aliased)[1][0][0] == 3


@pytest.mark.parametrize(("value", "written"), [("", "''"), (None, ""), (None, " ~")])
def test_an_empty_otlp_endpoint_is_commented_out(value: str | None, written: str) -> None:
    text = SPEC + f"  otlpEndpoint:{' ' + written if written.strip(' ~') else written}\n  trigger: {{enabled: true}}\n"
    after, notes, moved = _migrate(text)
    line = text.splitlines()[6]
    assert after == SPEC + ("  # kubectl testbench fix --migrate: an empty OTLP endpoint has no effect\n"
                            f"  # {line.strip()}\n  trigger: {{enabled: true}}\n")
    assert (notes, moved) == ([(7, "commented out spec.otlpEndpoint: it is empty")], 1)


def test_an_endpoint_spec_env_already_has_is_commented_out_not_duplicated() -> None:
    env = "  env:\n  - name: OTEL_EXPORTER_OTLP_ENDPOINT\n    value: http://x\n"
    after, notes, moved = _migrate(SPEC + env + "  otlpEndpoint: http://x  # c\n")
    assert after == SPEC + env + ("  # kubectl testbench fix --migrate: spec.env already sets "
                                  "OTEL_EXPORTER_OTLP_ENDPOINT to this value\n  # otlpEndpoint: http://x  # c\n")
    assert (notes, moved) == ([(10, "commented out spec.otlpEndpoint: spec.env already sets "
                                    "OTEL_EXPORTER_OTLP_ENDPOINT")], 1)


def test_endpoint_joins_env_at_its_dash_column_with_the_comments_above_it() -> None:
    text = SPEC + ("  env:\n      - name: LOG-LEVEL  # a-b\n        value: debug\n  # one\n  # two\n"
                   "  otlpEndpoint: 'http://x'   # kept  \n")
    after, notes, moved = _migrate(text)
    assert after == SPEC + ("  env:\n      - name: LOG-LEVEL  # a-b\n        value: debug\n      # one\n      # two\n"
                            "      - name: OTEL_EXPORTER_OTLP_ENDPOINT\n        value: 'http://x'   # kept  \n")
    assert (notes, moved) == ([(12, "migrated spec.otlpEndpoint to spec.env OTEL_EXPORTER_OTLP_ENDPOINT")], 1)


@pytest.mark.parametrize(("body", "env"), [
    # the first block list in spec sets how far lists sit under their key: here at the key's own column
    ("  agentRef:\n    name: a\n  tags: [x, y-z]\n  steps:\n  - a-b\n  - c\n",
     "  env:\n  - name: OTEL_EXPORTER_OTLP_ENDPOINT\n    value: http://x\n"),
    ("  agentRef:\n    name: a\n    list:\n        - one-two\n  steps:\n  - a\n",
     "  env:\n      - name: OTEL_EXPORTER_OTLP_ENDPOINT\n        value: http://x\n"),
    # no block list: the mapping step (4 here)
    ("    agentRef:\n        name: a\n", "    env:\n        - name: OTEL_EXPORTER_OTLP_ENDPOINT\n"
                                         "          value: http://x\n"),
])
def test_a_new_env_list_is_indented_the_way_the_file_indents_lists(body: str, env: str) -> None:
    column = " " * (len(body) - len(body.lstrip(" ")))
    text = HEAD + "spec:\n" + body + f"{column}otlpEndpoint: http://x\n"
    assert _migrate(text)[0] == HEAD + "spec:\n" + body + env


def test_an_indented_document_keeps_its_columns() -> None:
    text = (f"  apiVersion: {API}\n  kind: Experiment\n  spec:\n      agentRef: {{name: a}}\n"
            "      scenarios: []\n")
    after, notes, moved = _migrate(text)
    assert after == (f"  apiVersion: {API}\n  kind: Experiment\n  spec:\n      agentRef: {{name: a}}\n"
                     "      dataset:\n          inline:\n              defaultThreshold: 0.9  # the earlier CRD's "
                     "default, written out by kubectl testbench fix --migrate\n              scenarios: []\n")
    assert moved == 1 and len(notes) == 2


def test_cr_line_ends_are_kept() -> None:
    text = (SPEC + "  otlpEndpoint: http://x  # c\n").replace("\n", "\r")
    after, notes, moved = _migrate(text)
    assert after == (SPEC + "  env:\n    - name: OTEL_EXPORTER_OTLP_ENDPOINT\n      value: http://x  # c\n"
                     ).replace("\n", "\r")
    assert (notes, moved) == ([(7, "migrated spec.otlpEndpoint to spec.env OTEL_EXPORTER_OTLP_ENDPOINT")], 1)


def test_crlf_line_ends_are_kept_by_a_moved_endpoint() -> None:
    text = (SPEC + "  otlpEndpoint: http://x  # c\n").replace("\n", "\r\n")
    assert _migrate(text)[0] == (SPEC + "  env:\n    - name: OTEL_EXPORTER_OTLP_ENDPOINT\n"
                                 "      value: http://x  # c\n").replace("\n", "\r\n")


@pytest.mark.parametrize(("trigger", "after"), [
    ("  trigger: {enabled: true, event: modified}\n", "  trigger: {enabled: true}\n"),
    ("  trigger: {event: modified}\n", "  trigger: {}\n"),
    ("  trigger:\n    event: Modified\n", "  trigger:\n    # kubectl testbench fix --migrate: a TestTrigger now "
     "always fires on modified Deployments\n    # event: Modified\n"),
])
def test_a_modified_event_is_removed_from_flow_and_event_only_triggers(trigger: str, after: str) -> None:
    assert _migrate(SPEC + trigger) == (SPEC + after, [(7 + trigger.count("\n") - 1,
                                        "commented out spec.trigger.event: modified is the only event now")], 1)


def test_judge_beside_a_url_dataset_says_a_url() -> None:
    text = SPEC + "  llmAsAJudgeModel: m\n  dataset: {url: u}\n"
    after, notes, moved = _migrate(text)
    assert after == SPEC + ("  # kubectl testbench fix --migrate: with a url dataset the dataset file sets "
                            "llm_as_a_judge_model; the earlier operator ignored this field\n"
                            "  # llmAsAJudgeModel: m\n  dataset: {url: u}\n")
    assert notes == [(7, "commented out spec.llmAsAJudgeModel: with a url dataset the dataset file sets "
                         "llm_as_a_judge_model (the earlier operator did not use this field)")]
    assert moved == 1


def test_every_document_of_a_stream_is_looked_at_and_moved_fields_add_up() -> None:
    current = HEAD + "spec:\n  agentRef: {name: a}\n  trigger:\n    enabled: true\n"
    refused = SPEC + "  trigger:\n    event: deleted\n"
    older = SPEC + "  llmAsAJudgeModel: m\n  scenarios: []\n  otlpEndpoint: http://x\n"
    config_map = "apiVersion: v1\nkind: ConfigMap\nspec:\n  otlpEndpoint: x\n"
    bad = "--- x\n" + SPEC + "  otlpEndpoint: http://y\n"  # kubectl rejects this separator: left alone
    kept = "\n---\n".join([current, "- a list", refused, config_map]) + "\n" + bad + "---\n"
    after, notes, moved = _migrate(kept + older)
    alone, alone_notes, alone_moved = _migrate(older)
    assert after == kept + alone and alone != older
    assert moved == alone_moved == 3
    assert notes == [(20, CANNOT + "spec.trigger.event 'deleted' has no counterpart: a TestTrigger now always fires "
                          "when the agent's Deployment is modified")] + [(n + 36, m) for n, m in alone_notes]


def test_json_experiments_are_named_not_edited() -> None:
    exp = '{"apiVersion": "' + API + '", "kind": "Experiment", "spec": {"otlpEndpoint": "x"}}'
    text = exp + "\n\n" + exp.replace("Experiment", "ConfigMap") + "\n" + exp + "\n"
    note = CANNOT + "it is JSON, which is not edited line by line: migrate it by hand"
    assert _migrate(text) == (text, [(1, note), (4, note)], 0)
    broken = exp[:-1] + "\n"
    assert _migrate(broken) == (broken, [], 0)


def test_limits_apply_to_the_document_and_to_its_migrated_form() -> None:
    text = SPEC + "  scenarios:\n  - steps:\n    - input: a\n"
    assert migrate_text(text, Limits(max_depth=5)).notes == []  # the document itself is too deep
    # it fits, but spec.dataset.inline adds two levels
    assert migrate_text(text, Limits(max_depth=7)).notes == [(1, CANNOT + "the edited document did not "
                                                                        "read back as the migrated Experiment "
                                                                        "(anchors, aliases or an unusual layout?): "
                                                                        "migrate it by hand")]
    assert migrate_text(text, Limits(max_depth=8)).moved == 1
    exp = '{"apiVersion": "' + API + '", "kind": "Experiment", "spec": {"scenarios": [{"steps": [{"a": 1}]}]}}'
    assert migrate_text(exp, Limits(max_depth=3)).notes == []


def test_every_kind_of_move_counts_in_one_document_and_across_documents() -> None:
    one = SPEC + ("  llmAsAJudgeModel: m\n  defaultThreshold: 0.5\n  dataset: {s3: {bucket: b, key: k}}\n"
                  "  otlpEndpoint: http://x\n  trigger:\n    event: modified\n")
    assert _migrate(one)[2] == 4
    assert _migrate(one + "---\n" + one)[2] == 8


def test_the_scenarios_and_dataset_refusal_names_the_scenarios_key_line() -> None:
    text = SPEC + "  dataset: {url: u}\n  scenarios:\n  - name: a\n"
    assert _migrate(text)[1] == [(8, CANNOT + "spec.scenarios and spec.dataset are both set (the earlier schema "
                                  "allowed only one): keep one by hand")]


def test_multi_line_values_are_commented_out_and_moved_whole_blank_lines_included() -> None:
    judge = SPEC + "  llmAsAJudgeModel: [a,\n\n    ]\n  dataset: {url: u}\n"
    assert _migrate(judge)[0] == SPEC + (
        "  # kubectl testbench fix --migrate: with a url dataset the dataset file sets llm_as_a_judge_model; "
        "the earlier operator ignored this field\n  # llmAsAJudgeModel: [a,\n\n  #   ]\n  dataset: {url: u}\n")
    text = (f"spec:\n  # the judge\n  llmAsAJudgeModel: m\n  scenarios:\n  - name: a\n\n  - name: b\n"
            f"apiVersion: {API}\nkind: Experiment\n")
    assert _migrate(text)[0] == (
        "spec:\n  dataset:\n    inline:\n      # the judge\n      llmAsAJudgeModel: m\n      defaultThreshold: 0.9"
        "  # the earlier CRD's default, written out by kubectl testbench fix --migrate\n      scenarios:\n"
        "      - name: a\n\n      - name: b\n"
        f"apiVersion: {API}\nkind: Experiment\n")
