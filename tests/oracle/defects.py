"""The ten defects of issue 16, one or more files each, with what the API server (the oracle) says of them.

Used twice: the differential test runs every case through the oracle and demands agreement and the
verdict given here; tests/validate/test_parity_defects.py asserts our exact rule id, field path and
line:col for the same files.
"""

from __future__ import annotations

from dataclasses import dataclass

HEAD = "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\n"
SPEC = "spec:\n  agentRef:\n    name: agent\n  dataset:\n    url: https://x.example.com/e.json\n"
OK = HEAD + "metadata:\n  name: exp\n" + SPEC


@dataclass(frozen=True)
class Case:
    defect: int
    name: str
    text: str
    oracle_invalid: bool
    """What the API server says: does it reject the file?"""


CASES = [
    Case(1, "null-creation-timestamp", HEAD + "metadata:\n  name: exp\n  creationTimestamp: null\n" + SPEC, False),
    Case(1, "null-system-fields", HEAD + "metadata:\n  name: exp\n  namespace: null\n  uid: null\n"
         "  resourceVersion: null\n  selfLink: null\n  labels: null\n" + SPEC, False),
    Case(2, "json-surrogate-pair", '{"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment", '
         '"metadata": {"name": "exp", "annotations": {"note": "\\ud83d\\ude00"}}, "spec": {"agentRef": '
         '{"name": "agent"}, "dataset": {"url": "https://x.example.com/e.json"}}}\n', False),
    Case(2, "json-stream-without-newlines",
         '{"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment", "metadata": {"name": "a"}, '
         '"spec": {"agentRef": {"name": "agent"}, "dataset": {"url": "https://x.example.com/e.json"}}}'
         '{"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment", "metadata": {"name": "b"}, '
         '"spec": {"agentRef": {"name": "agent"}, "dataset": {"url": "https://x.example.com/e.json"}, '
         '"bogus": 1}}\n', True),
    Case(3, "annotation-key-upper-case", HEAD + "metadata:\n  name: exp\n  annotations:\n"
         "    Example.COM/Owner: team-a\n" + SPEC, False),
    Case(3, "label-key-upper-case-prefix", HEAD + "metadata:\n  name: exp\n  labels:\n"
         "    Example.COM/owner: team-a\n" + SPEC, True),
    Case(4, "experiment-list", "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: ExperimentList\nitems:\n"
         "- metadata:\n    name: a\n  spec:\n    agentRef:\n      name: agent\n      name: again\n"
         "    dataset:\n      url: https://x.example.com/e.json\n    trigger:\n      enabled: yes\n", True),
    Case(4, "list-without-api-version", "kind: List\nitems:\n- " + OK.replace("\n", "\n  ").rstrip() + "\n"
         "  status:\n    bogus: 1\n", True),
    Case(5, "finalizer-name", HEAD + "metadata:\n  name: exp\n  finalizers:\n  - example.com/Clean Up\n" + SPEC, True),
    Case(5, "owner-reference-without-uid", HEAD + "metadata:\n  name: exp\n  ownerReferences:\n"
         "  - apiVersion: v1\n    kind: ConfigMap\n    name: owner\n" + SPEC, True),
    Case(5, "two-controllers", HEAD + "metadata:\n  name: exp\n  ownerReferences:\n"
         "  - {apiVersion: v1, kind: ConfigMap, name: a, uid: '1', controller: true}\n"
         "  - {apiVersion: v1, kind: ConfigMap, name: b, uid: '2', controller: true}\n" + SPEC, True),
    Case(5, "owner-reference-unknown-field", HEAD + "metadata:\n  name: exp\n  ownerReferences:\n"
         "  - {apiVersion: v1, kind: ConfigMap, name: a, uid: '1', owner: me}\n" + SPEC, True),
    Case(5, "generation-string", HEAD + "metadata:\n  name: exp\n  generation: '1'\n" + SPEC, True),
    Case(5, "timestamp-format", HEAD + "metadata:\n  name: exp\n  creationTimestamp: 2024-01-02\n" + SPEC, True),
    Case(5, "managed-fields-operation", HEAD + "metadata:\n  name: exp\n  managedFields:\n"
         "  - {manager: kubectl, operation: Patch, fieldsType: FieldsV1, fieldsV1: {}}\n" + SPEC, True),
    Case(6, "status-unknown-field", OK + "status:\n  conditions: []\n  phase: Done\n", True),
    Case(7, "merge-after-explicit-key", HEAD + "metadata:\n  name: exp\nspec:\n  agentRef:\n    name: agent\n"
         "    <<: {name: other, namespace: ns}\n  dataset:\n    url: https://x.example.com/e.json\n", True),
    Case(7, "binary-tag-decodes", HEAD + "metadata:\n  name: exp\n  namespace: !!binary dGVhbS1h\n" + SPEC, False),
    Case(7, "dot-underscore-stays-a-string", HEAD + "metadata:\n  name: exp\n  annotations:\n    note: ._5\n" + SPEC,
         False),
    Case(7, "content-after-document-end", OK + "...\n" + OK.replace("name: exp", "name: Dropped_Name"), False),
    Case(8, "scalar-document", "just some text\n", True),
    Case(8, "list-document", "- " + OK.replace("\n", "\n  ").rstrip() + "\n", True),
    Case(8, "mistyped-group", OK.replace("agentic-layer.ai", "agentic-layer.io"), False),
    Case(9, "empty-agent-name", OK.replace("name: agent", 'name: ""'), False),
    Case(9, "empty-gateway-name", OK.replace("  dataset:", '  aiGatewayRef:\n    name: ""\n  dataset:'), False),
    Case(10, "missing-metadata-second-document", OK + "---\n" + HEAD + SPEC, True),
    Case(10, "spec-null", HEAD + "metadata:\n  name: exp\nspec: null\n", False),
    Case(10, "infinite-threshold", HEAD + "metadata:\n  name: exp\nspec:\n  agentRef:\n    name: agent\n  dataset:\n"
         "    inline:\n      defaultThreshold: .inf\n      scenarios:\n      - name: s\n        steps:\n"
         "        - input: hi\n          metrics:\n          - metricName: AgentGoalAccuracyWithoutReference\n", True),
]
