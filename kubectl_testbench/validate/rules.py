"""Every rule id the validator can report, with its default severity and a one-line explanation.

Rule ids are stable: SARIF uploads, CI annotations and ``--ignore``-style tooling key on them.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubectl_testbench.validate.diagnostics import Severity

E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class RuleInfo:
    id: str
    severity: Severity
    summary: str
    fix: str = ""
    """What ``kubectl testbench fix`` does about it, and when (empty: no safe fix)."""


_TABLE: list[tuple[str, Severity, str]] = [
    # input: the file itself
    ("input/not-found", E, "The path does not exist."),
    ("input/unreadable", E, "The file or directory cannot be read (permissions, I/O error)."),
    ("input/not-a-file", E, "The path is a device, socket or FIFO, not a regular file."),
    ("input/too-large", E, "The file is larger than --max-file-size."),
    ("input/binary", E, "The file contains NUL bytes: it is not YAML or JSON."),
    ("input/encoding", E, "The file is not valid UTF-8 (or UTF-16/32 with a byte-order mark)."),
    ("input/empty", E, "A file named on the command line holds no YAML document."),
    ("input/template", N, "A Go/Helm template of an Experiment (--only-testbench-files): skipped, not YAML."),
    # yaml: reading the text
    ("yaml/syntax", E, "The document is not valid YAML."),
    ("yaml/document-separator", E, "A '---' line carries content after the marker, which kubectl rejects."),
    ("yaml/duplicate-key", E, "A mapping repeats a key; strict decoding rejects it (the later value would win)."),
    ("yaml/too-deep", E, "Nesting exceeds --max-depth."),
    ("yaml/alias", E, "An alias refers to an unknown anchor or to itself."),
    ("yaml/alias-limit", E, "Aliases expand to too many nodes, or to more text than --max-file-size."),
    ("yaml/too-many-nodes", E, "A file has more nodes than --max-nodes (each document counts as 100 at least)."),
    ("validate/too-many-findings", N, "A document has more findings than are reported; the rest are counted."),
    ("yaml/merge", E, "A merge key (<<) is given something other than mappings."),
    ("yaml/key-type", E, "A mapping key is null, a list or a mapping, which JSON cannot carry."),
    ("yaml/tag", E, "A scalar cannot be read as its explicit tag (e.g. !!int abc)."),
    ("yaml/unknown-tag", W, "A custom tag is ignored by Kubernetes."),
    ("yaml/yaml11-boolean", W, "yes/no/on/off/y/n are booleans for Kubernetes (YAML 1.1) but text for YAML 1.2 "
     "tools: write true/false in a boolean field, quote the word in a text field."),
    ("yaml/sexagesimal", W, "1:20-style values are strings for Kubernetes but numbers for YAML 1.1 tools."),
    ("yaml/legacy-octal", W, "0755-style values are octal for Kubernetes (YAML 1.1) but decimal for YAML 1.2."),
    ("yaml/non-finite", E, ".inf and .nan cannot be represented in JSON; Kubernetes rejects them."),
    ("yaml/after-document-end", W, "Content after '...' without a '---' line: kubectl silently drops it."),
    ("yaml/not-an-object", E, "The document is a scalar or a list, not a Kubernetes object."),
    # kind
    ("kind/api-version", E, "An Experiment with an apiVersion this CRD does not serve."),
    ("kind/group", E, "An apiVersion whose group is one slip away from testbench.agentic-layer.ai (did you mean?)."),
    ("kind/missing", E, "An object with apiVersion but no kind: kubectl rejects it."),
    # schema: the CRD's OpenAPI schema, as the API server applies it
    ("schema/required", E, "A required field is missing."),
    ("schema/unknown-field", E, "A field the schema does not know (strict field validation)."),
    ("schema/type", E, "A value has the wrong type."),
    ("schema/enum", E, "A value is not one of the allowed values."),
    ("schema/minimum", E, "A number is below its minimum."),
    ("schema/maximum", E, "A number is above its maximum."),
    ("schema/multiple-of", E, "A number is not a multiple of the required factor."),
    ("schema/pattern", E, "A string does not match the required pattern."),
    ("schema/format", E, "A string does not match its format (e.g. date-time)."),
    ("schema/min-length", E, "A string is shorter than allowed."),
    ("schema/max-length", E, "A string is longer than allowed."),
    ("schema/min-items", E, "A list has fewer items than required."),
    ("schema/max-items", E, "A list has more items than allowed."),
    ("schema/min-properties", E, "An object has fewer fields than required."),
    ("schema/max-properties", E, "An object has more fields than allowed."),
    ("schema/duplicate", E, "A list declared as a set or map repeats an item or key."),
    ("schema/any-of", E, "A value matches none of the alternatives (anyOf/oneOf)."),
    ("schema/not", E, "A value matches a schema it must not match."),
    # metadata: ObjectMeta, validated by the API server itself
    ("metadata/name-required", E, "metadata.name is missing (generateName cannot be used with GitOps or apply)."),
    ("metadata/name", E, "metadata.name is not a DNS-1123 subdomain."),
    ("metadata/namespace", E, "metadata.namespace is not a DNS-1123 label."),
    ("metadata/labels", E, "A label key or value is not valid."),
    ("metadata/annotations", E, "An annotation key is invalid or the annotations are too large."),
    ("metadata/unknown-field", E, "metadata holds a field ObjectMeta does not have."),
    ("metadata/type", E, "A metadata field has the wrong type."),
    ("metadata/null-field", N, "A metadata field is null (creationTimestamp: null); the API server drops it."),
    ("metadata/timestamp", E, "A metadata timestamp is not an RFC 3339 date-time; the server cannot decode it."),
    ("metadata/owner-references", E, "An owner reference lacks apiVersion, kind, name or uid, or several are "
     "controllers."),
    ("metadata/finalizers", E, "A finalizer is not a qualified name, or orphan and foregroundDeletion are both set."),
    ("metadata/managed-fields", E, "A managedFields entry has an invalid operation, fieldsType, manager or "
     "subresource."),
    ("metadata/resource-version", E, "metadata.resourceVersion is set: the server refuses to create the object."),
    # cel: x-kubernetes-validations read from the generated CRD
    # krm: the KRM function's own results
    ("krm/config", E, "The KRM function's functionConfig is not valid."),
    ("krm/defaults", E, "A RenderDefaults item passed to the KRM function is not valid."),
    ("krm/input", E, "An item of the ResourceList is not a Kubernetes object."),
    ("krm/summary", N, "What the KRM function did: Experiments rendered or validated."),
    # render: what only compiling many Experiments together reveals
    ("render/duplicate", E, "Two Experiments generate an object with the same name, or a rendered manifest in the "
     "input differs from what its Experiment renders."),
    ("render/manifest", E, "A rendered manifest given to apply, diff or prune lacks its name or namespace."),
    ("render/resolve", E, "A rendered TestWorkflow does not resolve against its TestWorkflowTemplates (render "
     "--resolve): unknown template, undeclared or missing config, an expression Testkube cannot evaluate."),
    ("cel/dataset-exactly-one", E, "spec.dataset must set exactly one of s3, url or inline."),
    ("cel/rule", E, "A CEL validation rule of the CRD failed."),
    ("cel/error", E, "A CEL validation rule could not be evaluated on this value."),
    ("cel/not-evaluated", N, "CEL rules were not checked: the object has blocking schema errors, or a rule needs "
     "more cost units on this document than are evaluated offline."),
    ("cel/cost", E, "A CEL rule exceeds the API server's cost budget: refused at CRD creation, or stopped at "
     "evaluation."),
    # semantic: what the API server cannot check but the run depends on
    ("semantic/spec-missing", E, "The Experiment has no spec: the API server accepts it, but there is nothing to run."),
    ("semantic/cron", E, "The cron expression does not parse (5 fields: minute hour day-of-month month day-of-week)."),
    ("semantic/timezone", E, "The timezone is not an IANA zone; Testkube would silently ignore it."),
    ("semantic/dataset-format", E, "The s3 key or url does not name a dataset file the setup phase reads."),
    ("semantic/dataset-format-converted", E, "A .csv/.parquet dataset: the setup phase reads only .json (convert it "
     "with kubectl testbench import)."),
    ("semantic/url", E, "The dataset url is not an absolute http(s) URL."),
    ("semantic/s3-bucket", W, "The S3 bucket name breaks S3 naming rules."),
    ("semantic/label-value", E, "A value that becomes a label on generated resources is not a valid label value."),
    ("semantic/resource-name", E, "A generated resource name is not a valid Kubernetes name."),
    ("semantic/url-placeholder", E, "An agent or gateway URL template (annotation, defaults file) has a placeholder "
     "other than {name}, {namespace}, {port}: it would stay in the URL as written."),
    ("semantic/dns-label", E, "An agent or gateway name/namespace is not a DNS-1123 label (it becomes a hostname)."),
    ("semantic/inline-size", E, "The inline dataset does not fit in a ConfigMap (1 MiB)."),
    ("semantic/inline-size-near", W, "The inline dataset uses over 90% of a ConfigMap's 1 MiB."),
    ("semantic/unknown-metric", E, "The metric name is not a metric class the evaluate phase finds."),
    ("semantic/unscorable-metric", E, "The evaluate phase finds the metric but can never score it (no number)."),
    ("semantic/no-judge-model", E, "Metrics but no llmAsAJudgeModel: the evaluate phase builds every metric with the "
     "judge model, and ragas refuses an empty one, so nothing scores."),
    ("semantic/metric-reference", W, "A metric needs reference data the step does not provide: it gets no score."),
    ("semantic/threshold-without-metrics", W, "A threshold is set but no step has metrics to apply it to."),
    ("semantic/no-metrics", W, "A step has no metrics: it will be run but not scored."),
    ("semantic/tool-call-args", N, "A tool call has no args; the operator omits them, the run phase requires them."),
    ("semantic/object-required", E, "args, parameters or customValues is not an object; the run phase's models "
     "reject the dataset."),
    ("semantic/no-gateway", W, "No AI gateway (aiGatewayRef or a defaults-file gateway): the judge gets no key and "
     "every metric is skipped."),
    ("semantic/literal-secret", W, "An env value looks like a secret; use valueFrom.secretKeyRef."),
    ("semantic/env-value-and-from", E, "An env var sets both value and valueFrom, or valueFrom sets several sources."),
    ("semantic/duplicate-env", W, "An env var name repeats; only the last one takes effect."),
    ("semantic/env-reference", E, "A secretKeyRef/configMapKeyRef names no valid Secret/ConfigMap or key."),
    ("semantic/duplicate-experiment", E, "The same Experiment (namespace/name) is defined in several places of the "
     "input; applied together, one silently replaces the other."),
    ("semantic/duplicate-scenario", W, "Two scenarios share a name; results and metrics key on it."),
    ("semantic/trigger-inactive", W, "trigger settings are given but trigger.enabled is not true."),
    ("semantic/status-ignored", W, "status is set in the file; the API server discards it on create."),
    ("semantic/expression-text", N, "Text contains '{{', a Testkube expression opener; render escapes it."),
]

FIXES: dict[str, str] = {
    "yaml/document-separator": "Moves the content after '---' to the next line.",
    "yaml/syntax": "Tab indentation: re-indents with spaces when the tabbed lines can only be children of the "
                   "line above them.",
    "yaml/yaml11-boolean": "In a boolean field, writes true/false for yes/no/on/off (what Kubernetes reads). In a "
                           "string field the finding is schema/type, whose fix quotes the word.",
    "yaml/sexagesimal": "In a string field, quotes the value as written (\"1:30\").",
    "schema/type": "A plain number or YAML 1.1 boolean/octal in a string field is quoted as written (yes, 0777, "
                   "n); a number written as a string in a number field is unquoted (\"0.8\" -> 0.8). "
                   "Never in free-form fields.",
    "schema/enum": "Corrects the case when exactly one allowed value matches ignoring case (allow -> Allow).",
    "schema/unknown-field": "Renames the key when exactly one known field matches it ignoring case or is 1-2 edits "
                            "away, and that field is not set already (datset -> dataset).",
    "metadata/unknown-field": "Renames the key when it is a slip of exactly one ObjectMeta field (or owner "
                              "reference / managedFields field) that is not set.",
    "metadata/type": "Quotes a plain number or boolean in a string field (namespace: no, a label value, a "
                     "finalizer).",
    "metadata/null-field": "Removes the null field.",
    "semantic/status-ignored": "Removes status.",
    "semantic/tool-call-args": "Adds args: {}.",
    "semantic/unknown-metric": "Corrects the case when exactly one metric that scores (the generated metric table) "
                               "matches ignoring case (toolcallaccuracy -> ToolCallAccuracy).",
}
"""Rules with a safe fix (``kubectl testbench fix``), and what it does. The fix itself sits next to the rule."""

RULES: dict[str, RuleInfo] = {rid: RuleInfo(rid, sev, summary, FIXES.get(rid, "")) for rid, sev, summary in _TABLE}


def severity(rule: str) -> Severity:
    """The default severity of a rule id (unknown ids are errors)."""
    info = RULES.get(rule)
    return info.severity if info else Severity.ERROR
