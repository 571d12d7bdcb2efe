"""semantic: what the API server cannot check but the evaluation run depends on.

Most are checks registered in ``validate/semantic.py`` (each with the rule ids it reports); the defaults file's
URL templates and references are checked by ``render/defaults_file.py``, duplicates across files by
``validate/duplicates.py``.
"""

from __future__ import annotations

from kubectl_testbench.model.constants import DEFAULT_JUDGE_MODEL
from kubectl_testbench.rules.rule import Rule, Severity

_CHECKS = "kubectl_testbench.validate.semantic"

SEMANTIC_SPEC_MISSING = Rule(
    "semantic/spec-missing", Severity.ERROR,
    "The Experiment has no spec: the API server accepts it, but there is nothing to run.",
    "The CRD, like upstream's, does not require spec, so an Experiment without one is created without complaint. "
    "It names no agent and no dataset, so the operator has nothing to evaluate.",
    hint="add spec.agentRef and spec.dataset (kubectl testbench init writes a starter)",
    check=f"{_CHECKS}:spec_present",
)
SEMANTIC_CRON = Rule(
    "semantic/cron", Severity.ERROR,
    "The cron expression does not parse (5 fields: minute hour day-of-month month day-of-week).",
    "The schema's pattern only checks that the schedule has five fields; each field must also be a valid cron "
    "field (minute 0-59, hour 0-23, names like MON or JAN...). An invalid expression is accepted by the API server "
    "and fails only when Testkube reads it, so the Experiment would not run on schedule.",
    hint='write five fields: "0 3 * * *" runs daily at 03:00',
    check=f"{_CHECKS}:schedule",
)
SEMANTIC_TIMEZONE = Rule(
    "semantic/timezone", Severity.ERROR, "The timezone is not an IANA zone; Testkube would silently ignore it.",
    "The schedule's timezone must be an IANA zone name (Europe/Berlin, UTC). Testkube ignores one it does not "
    "know without a word, and the schedule runs in another zone than the one meant, hours off.",
    hint='use a zone name like "Europe/Berlin" or "UTC" (zone names are case-sensitive)',
    fix="writes the one zone name the value is a slip of (the same ignoring case, or one or two edits away), when "
        "exactly one is",
    check=f"{_CHECKS}:schedule",
    fixer=f"{_CHECKS}:timezone_fix",
)
SEMANTIC_DATASET_FORMAT = Rule(
    "semantic/dataset-format", Severity.ERROR,
    "The s3 key or url does not name a dataset file the setup phase reads.",
    "The setup phase reads .json experiment files. A key or URL path that does not end in .json names a file it "
    "cannot read: the run fails at setup, after the workflow was scheduled.",
    hint="point at a .json experiment file (kubectl testbench import converts csv/parquet)",
    check=f"{_CHECKS}:dataset_source",
)
SEMANTIC_DATASET_FORMAT_CONVERTED = Rule(
    "semantic/dataset-format-converted", Severity.ERROR,
    "A .csv/.parquet dataset: the setup phase reads only .json (convert it with kubectl testbench import).",
    "The current setup phase reads only .json experiment files, so a .csv or .parquet dataset fails the run at "
    "setup. The data is not lost: kubectl testbench import converts it.",
    hint="convert it with: kubectl testbench import --from csv|parquet FILE --dataset-out experiment.json",
    check=f"{_CHECKS}:dataset_source",
)
SEMANTIC_URL = Rule(
    "semantic/url", Severity.ERROR, "The dataset url is not an absolute http(s) URL.",
    "The setup phase downloads spec.dataset.url with an HTTP client. A relative path, another scheme (s3://, "
    "file://) or a malformed URL (an unclosed IPv6 bracket, a port out of range) cannot be downloaded.",
    hint="write an absolute http(s) URL; for S3 or MinIO objects use spec.dataset.s3 {bucket, key}",
    check=f"{_CHECKS}:dataset_source",
)
SEMANTIC_S3_BUCKET = Rule(
    "semantic/s3-bucket", Severity.WARNING, "The S3 bucket name breaks S3 naming rules.",
    "S3 bucket names are 3-63 lower-case letters, digits, dots and hyphens. Some S3-compatible stores accept "
    "other names, so this is a warning; on AWS such a bucket cannot exist.",
    hint="check the bucket name",
    check=f"{_CHECKS}:dataset_source",
)
SEMANTIC_LABEL_VALUE = Rule(
    "semantic/label-value", Severity.ERROR,
    "A value that becomes a label on generated resources is not a valid label value.",
    "Render puts the Experiment's name on every generated resource as a label value, which is at most 63 "
    "characters. metadata.name may be up to 253, so a long name passes the API server's checks of the "
    "Experiment and fails when its resources are created.",
    hint="shorten the name to 63 characters or fewer",
    check=f"{_CHECKS}:generated_names",
)
SEMANTIC_RESOURCE_NAME = Rule(
    "semantic/resource-name", Severity.ERROR, "A generated resource name is not a valid Kubernetes name.",
    "Render names the dataset ConfigMap, the TestWorkflow and the TestTrigger after the Experiment, with a "
    "suffix. A name that is valid for the Experiment can be too long for them once the suffix is added, and "
    "their creation would fail.",
    hint="shorten the Experiment name",
    check=f"{_CHECKS}:generated_names",
)
SEMANTIC_URL_PLACEHOLDER = Rule(
    "semantic/url-placeholder", Severity.ERROR,
    "An agent or gateway URL template (annotation, defaults file) has a placeholder other than {name}, "
    "{namespace}, {port}: it would stay in the URL as written.",
    "The agent and gateway URL templates fill {name}, {namespace} and {port}. Anything else in braces (a "
    "misspelt {nme}) is left in the URL as written, and every request of the run goes to a host that does not "
    "exist.",
    hint="use only {name}, {namespace} and {port}",
    check=f"{_CHECKS}:url_templates",
)
SEMANTIC_DNS_LABEL = Rule(
    "semantic/dns-label", Severity.ERROR,
    "An agent or gateway name/namespace is not a DNS-1123 label (it becomes a hostname).",
    "agentRef and aiGatewayRef name a Service by name and namespace, which become the hostname "
    "http://<name>.<namespace>. A name that is not a DNS-1123 label (or is empty) cannot be a hostname, so the "
    "run could not reach the agent or the gateway.",
    hint="use the Service's name and namespace: lower-case letters, digits and '-'",
    check=f"{_CHECKS}:references",
)
SEMANTIC_INLINE_SIZE = Rule(
    "semantic/inline-size", Severity.ERROR, "The inline dataset does not fit in a ConfigMap (1 MiB).",
    "An inline dataset is rendered to experiment.json in a ConfigMap, which holds at most 1 MiB. A larger one "
    "passes the Experiment's own checks and fails when its ConfigMap is created.",
    hint="move the dataset to S3 or a URL (spec.dataset.s3 / spec.dataset.url)",
    check=f"{_CHECKS}:inline_size",
)
SEMANTIC_INLINE_SIZE_NEAR = Rule(
    "semantic/inline-size-near", Severity.WARNING, "The inline dataset uses over 90% of a ConfigMap's 1 MiB.",
    "The inline dataset still fits in its ConfigMap, but a few more scenarios will not. The warning comes before "
    "the error so the move to S3 or a URL can be planned.",
    hint="consider moving the dataset to S3",
    check=f"{_CHECKS}:inline_size",
)
SEMANTIC_UNKNOWN_METRIC = Rule(
    "semantic/unknown-metric", Severity.ERROR, "The metric name is not a metric class the evaluate phase finds.",
    "metricName is the name of a RAGAS metric class, case-sensitive, looked up by the evaluate phase at run time. "
    "A name it does not find (a typo, a wrong case, the old name of a renamed metric) records no score, and the "
    "run still ends green.",
    hint="use a metric name from kubectl testbench explain metrics",
    fix="Corrects the case when exactly one metric that scores (the generated metric table) matches ignoring "
        "case (toolcallaccuracy -> ToolCallAccuracy).",
    check=f"{_CHECKS}:metrics",
    fixer=f"{_CHECKS}:_metric_case_fix",
)
SEMANTIC_UNSCORABLE_METRIC = Rule(
    "semantic/unscorable-metric", Severity.ERROR,
    "The evaluate phase finds the metric but can never score it (no number).",
    "Some metric classes exist in the evaluate phase's package but never produce a number there; the finding "
    "says why for each. Such a metric silently records nothing, and the run still ends green.",
    hint="use a metric that scores with the reference data the step has",
    check=f"{_CHECKS}:metrics",
)
SEMANTIC_NO_JUDGE_MODEL = Rule(
    "semantic/no-judge-model", Severity.ERROR,
    "Metrics but no llmAsAJudgeModel: the evaluate phase builds every metric with the judge model, and ragas "
    "refuses an empty one, so nothing scores.",
    "The evaluate phase builds every metric with the judge model, even metrics that never ask the judge, and "
    "ragas refuses an empty model. Without llmAsAJudgeModel no metric scores at all.",
    hint=f"set spec.dataset.inline.llmAsAJudgeModel to a model the AI gateway serves (e.g. {DEFAULT_JUDGE_MODEL})",
    check=f"{_CHECKS}:metrics",
)
SEMANTIC_METRIC_REFERENCE = Rule(
    "semantic/metric-reference", Severity.WARNING,
    "A metric needs reference data the step does not provide: it gets no score.",
    "Many metrics compare the agent's answer with reference data of the step (a reference answer, expected tool "
    "calls, topics). Without it the metric is skipped for that step and records no score.",
    hint="add the reference data the message names to the step, or use a metric that needs none",
    check=f"{_CHECKS}:metrics",
)
SEMANTIC_THRESHOLD_WITHOUT_METRICS = Rule(
    "semantic/threshold-without-metrics", Severity.WARNING,
    "A threshold is set but no step has metrics to apply it to.",
    "defaultThreshold decides which metric scores pass. With no metrics in any step it has nothing to apply to, "
    "which suggests the metrics were forgotten.",
    hint="add metrics to the steps (e.g. - metricName: AgentGoalAccuracyWithoutReference)",
    check=f"{_CHECKS}:metrics",
)
SEMANTIC_NO_METRICS = Rule(
    "semantic/no-metrics", Severity.WARNING, "A step has no metrics: it will be run but not scored.",
    "The dataset has scenarios but no step carries metrics: the agent is run, and nothing about its answers is "
    "scored, so the Experiment cannot fail.",
    hint="add metrics to the steps (e.g. - metricName: AgentGoalAccuracyWithoutReference)",
    check=f"{_CHECKS}:metrics",
)
SEMANTIC_TOOL_CALL_ARGS = Rule(
    "semantic/tool-call-args", Severity.INFO,
    "A tool call has no args; the operator omits them, the run phase requires them.",
    "The operator leaves a tool call's args out of experiment.json when they are not set, and the run phase's "
    "model requires them. Render writes args: {}, so this is information; the fix writes it into the file.",
    hint="write args: {} for a call without arguments",
    fix="Adds args: {}.",
    check=f"{_CHECKS}:tool_call_args",
)
SEMANTIC_OBJECT_REQUIRED = Rule(
    "semantic/object-required", Severity.ERROR,
    "args, parameters or customValues is not an object; the run phase's models reject the dataset.",
    "The CRD keeps args, parameters and customValues as free-form values, so any value passes the API server. The "
    "run phase types them as objects, and anything else (a string, a list) fails the whole dataset at run time.",
    hint="write the field as a mapping, e.g. args: {key: value}",
    check=f"{_CHECKS}:raw_objects",
)
SEMANTIC_NO_GATEWAY = Rule(
    "semantic/no-gateway", Severity.WARNING,
    "No AI gateway (aiGatewayRef or a defaults-file gateway): the judge gets no key and every metric is skipped.",
    "Without an AI gateway the judge is called at api.openai.com with no API key: every metric is skipped and the "
    "run still ends green. The finding is dropped when a RenderDefaults file names a default gateway, as the "
    "operator falls back to one.",
    hint="set spec.aiGatewayRef {name, namespace}, or name a default gateway in testbench-defaults.yaml",
    check=f"{_CHECKS}:gateway",
)
SEMANTIC_S3_DEFAULT_MINIO = Rule(
    "semantic/s3-default-minio", Severity.WARNING,
    "An S3 dataset with no MINIO_ENDPOINT, MINIO_ROOT_USER or MINIO_ROOT_PASSWORD: the in-cluster MinIO is assumed.",
    "The setup phase downloads spec.dataset.s3 with the settings MINIO_ENDPOINT, MINIO_ROOT_USER and "
    "MINIO_ROOT_PASSWORD; where none is set it falls back to http://testkube-minio-service-testkube.testkube:9000 "
    "with minio/minio123, Testkube's bundled MinIO with its default credentials. Anywhere else the download fails "
    "at setup (or reads another bucket than meant). The finding is dropped when the RenderDefaults file sets one "
    "of them in spec.env.",
    hint="set MINIO_ENDPOINT (and the credentials from a Secret) in spec.env or in testbench-defaults.yaml's spec.env",
    check=f"{_CHECKS}:s3_settings",
)
SEMANTIC_LITERAL_SECRET = Rule(
    "semantic/literal-secret", Severity.WARNING, "An env value looks like a secret; use valueFrom.secretKeyRef.",
    "An env value whose name says it is a secret (PASSWORD, TOKEN, API_KEY...) or whose text looks like a known "
    "key format is written in the Experiment, where everyone who can read it, and the Git history, sees it. The "
    "value is never shown in the finding.",
    hint="store it in a Secret and use valueFrom.secretKeyRef",
    check=f"{_CHECKS}:env",
)
SEMANTIC_ENV_VALUE_AND_FROM = Rule(
    "semantic/env-value-and-from", Severity.ERROR,
    "An env var sets both value and valueFrom, or valueFrom sets several sources.",
    "A container env var takes its value either literally or from exactly one source (secretKeyRef, "
    "configMapKeyRef, fieldRef...). The Experiment's schema allows any combination; the Pod is refused when "
    "Testkube creates it.",
    hint="keep only one of value and valueFrom, and one source in valueFrom",
    check=f"{_CHECKS}:env",
)
SEMANTIC_DUPLICATE_ENV = Rule(
    "semantic/duplicate-env", Severity.WARNING, "An env var name repeats; only the last one takes effect.",
    "Two env entries with the same name are accepted, and the container sees only the last one. The earlier "
    "value is silently lost.",
    hint="remove one of them",
    check=f"{_CHECKS}:env",
)
SEMANTIC_ENV_REFERENCE = Rule(
    "semantic/env-reference", Severity.ERROR, "A secretKeyRef/configMapKeyRef names no valid Secret/ConfigMap or key.",
    "The Experiment's schema takes any string as the Secret or ConfigMap name and key an env var reads. A name or "
    "key the API server would refuse only fails when Testkube creates the Pod, after the workflow was scheduled.",
    hint="use the name and key of the Secret or ConfigMap",
    check=f"{_CHECKS}:env_references",
)
SEMANTIC_DUPLICATE_EXPERIMENT = Rule(
    "semantic/duplicate-experiment", Severity.ERROR,
    "The same Experiment (namespace/name) is defined in several places of the input; applied together, one "
    "silently replaces the other.",
    "Each file validates on its own, so a copy of an Experiment in a second file passes every per-file check. "
    "Applied together, the later copy silently replaces the earlier one, and render generates the same objects "
    "twice. This check runs once over the whole input and reports every copy, the first one too, each naming "
    "another: either may be the one to rename or delete.",
    hint="keep one definition, or rename one of them",
    check="kubectl_testbench.validate.duplicates:find_clashes",
)
SEMANTIC_DUPLICATE_SCENARIO = Rule(
    "semantic/duplicate-scenario", Severity.WARNING, "Two scenarios share a name; results and metrics key on it.",
    "Results, metrics and reports are keyed on the scenario name: two scenarios with the same name mix their "
    "results, or one hides the other.",
    hint="make the scenario names unique",
    check=f"{_CHECKS}:metrics",
)
SEMANTIC_TRIGGER_INACTIVE = Rule(
    "semantic/trigger-inactive", Severity.WARNING, "trigger settings are given but trigger.enabled is not true.",
    "Trigger settings (a concurrencyPolicy) without enabled: true create no TestTrigger: the Experiment never "
    "runs on rollouts, which is likely a forgotten enabled: true.",
    hint="set trigger.enabled: true",
    check=f"{_CHECKS}:trigger",
)
SEMANTIC_STATUS_IGNORED = Rule(
    "semantic/status-ignored", Severity.WARNING, "status is set in the file; the API server discards it on create.",
    "status belongs to the operator and the cluster: the API server discards it on create, so a status in a "
    "manifest (usually copied from kubectl get -o yaml) only misleads its readers.",
    hint="remove the status section from the file",
    fix="Removes status.",
)
SEMANTIC_EXPRESSION_TEXT = Rule(
    "semantic/expression-text", Severity.INFO, "Text contains '{{', a Testkube expression opener; render escapes it.",
    "Values that end up in the TestWorkflow (env names and values, the dataset URL and S3 location) are read by "
    "Testkube as expressions where they contain '{{'. Render writes them escaped so they stay literal; this note "
    "says so, in case an expression was meant.",
    check=f"{_CHECKS}:expressions",
)
