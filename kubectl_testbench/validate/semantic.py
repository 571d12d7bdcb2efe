"""Checks the API server cannot make but the evaluation run depends on.

Each check is a small function registered with its rule ids; it receives the (schema-pruned)
Experiment and reports through a callback. Checks tolerate wrong types: schema errors are reported
elsewhere, and findings under a path with a schema error are dropped by the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import SplitResult, urlsplit

from kubectl_testbench.k8snames import dns1123_label_error, dns1123_subdomain_error, label_value_error
from kubectl_testbench.load.positions import Path
from kubectl_testbench.model import naming
from kubectl_testbench.model.constants import DEFAULT_NAMESPACE
from kubectl_testbench.rules.semantic import (
    SEMANTIC_CRON,
    SEMANTIC_DATASET_FORMAT,
    SEMANTIC_DATASET_FORMAT_CONVERTED,
    SEMANTIC_DNS_LABEL,
    SEMANTIC_DUPLICATE_ENV,
    SEMANTIC_DUPLICATE_SCENARIO,
    SEMANTIC_ENV_REFERENCE,
    SEMANTIC_ENV_VALUE_AND_FROM,
    SEMANTIC_EXPRESSION_TEXT,
    SEMANTIC_INLINE_SIZE,
    SEMANTIC_INLINE_SIZE_NEAR,
    SEMANTIC_LABEL_VALUE,
    SEMANTIC_LITERAL_SECRET,
    SEMANTIC_METRIC_REFERENCE,
    SEMANTIC_NO_GATEWAY,
    SEMANTIC_NO_JUDGE_MODEL,
    SEMANTIC_NO_METRICS,
    SEMANTIC_OBJECT_REQUIRED,
    SEMANTIC_RESOURCE_NAME,
    SEMANTIC_S3_BUCKET,
    SEMANTIC_S3_DEFAULT_MINIO,
    SEMANTIC_SPEC_MISSING,
    SEMANTIC_THRESHOLD_WITHOUT_METRICS,
    SEMANTIC_TIMEZONE,
    SEMANTIC_TOOL_CALL_ARGS,
    SEMANTIC_TRIGGER_INACTIVE,
    SEMANTIC_UNKNOWN_METRIC,
    SEMANTIC_UNSCORABLE_METRIC,
    SEMANTIC_URL,
    SEMANTIC_URL_PLACEHOLDER,
)
from kubectl_testbench.validate.cron import cron_error
from kubectl_testbench.validate.diagnostics import Fix, FixKind
from kubectl_testbench.validate.metrics import NEEDS, OLD_NAMES, PHASE_PACKAGE, UNSCORABLE, alternative
from kubectl_testbench.validate.schema import show

Report = Callable[..., None]
"""report(rule, path, message, hint, fix=None)."""
Check = Callable[[dict[str, Any], Report], None]

CONFIGMAP_LIMIT = 1024 * 1024
CHECKS: list[tuple[tuple[str, ...], Check]] = []


def check(*rules: str) -> Callable[[Check], Check]:
    """Register a check and the rule ids it may report. On a document with schema errors the checks run over what
    the errors leave intact (validate/valid_parts.py), so no check is skipped for an error elsewhere."""

    def register(fn: Check) -> Check:
        CHECKS.append((rules, fn))
        return fn

    return register


CLAIMS_ABSENCE: dict[str, Path] = {
    SEMANTIC_THRESHOLD_WITHOUT_METRICS.id: ("spec", "dataset", "inline"),
    SEMANTIC_NO_METRICS.id: ("spec", "dataset", "inline"),
}
"""Rules whose finding says something is missing in a subtree: where a schema error blanked a part of that subtree
(validate/valid_parts.py), the part may hold what is missing, so the finding is not made."""


def run_checks(doc: dict[str, Any], report: Report, tolerant: bool = False) -> None:
    """Run every check over ``doc``. ``tolerant``: ``doc`` is what is left of a document with schema errors
    (validate/valid_parts.py), where a check may still meet a value of the wrong type and is then skipped; on a
    schema-valid document such an exception is a bug and propagates."""
    for _, fn in CHECKS:
        try:
            fn(doc, report)
        except (TypeError, AttributeError, KeyError, ValueError):
            if not tolerant:
                raise


def _spec(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc.get("spec")
    return spec if isinstance(spec, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@check(SEMANTIC_SPEC_MISSING.id)
def spec_present(doc: dict[str, Any], report: Report) -> None:
    """The CRD (like upstream's) does not require spec, but an Experiment without one cannot run."""
    if not isinstance(doc.get("spec"), dict):
        report(SEMANTIC_SPEC_MISSING.id, ("spec",), "the Experiment has no spec: there is no agent and no dataset to "
               "evaluate", "add spec.agentRef and spec.dataset (kubectl testbench init writes a starter)")


# --- schedule --------------------------------------------------------------------------------------


@check(SEMANTIC_CRON.id, SEMANTIC_TIMEZONE.id)
def schedule(doc: dict[str, Any], report: Report) -> None:
    """cron fields parse; timezone is an IANA zone (Testkube skips an invalid one silently)."""
    sched = _dict(_spec(doc).get("schedule"))
    base: Path = ("spec", "schedule")
    cron = _str(sched.get("cron"))
    if cron is not None:
        err = cron_error(cron)
        if err:
            report(SEMANTIC_CRON.id, (*base, "cron"), f'Invalid value: "{cron}": {err}',
                   'e.g. "0 3 * * *" runs daily at 03:00')
    tz = _str(sched.get("timezone"))
    if tz:
        err_tz = timezone_error(tz)
        if err_tz:
            report(SEMANTIC_TIMEZONE.id, (*base, "timezone"), f'Invalid value: "{tz}": {err_tz}',
                   _timezone_hint(tz), fix=timezone_fix((*base, "timezone"), tz))


def timezone_error(tz: str) -> str | None:
    import zoneinfo

    if tz == "Local":
        return None
    if tz.startswith("/") or ".." in tz.split("/") or "\\" in tz:
        return "not an IANA timezone name"
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return "not an IANA timezone name; Testkube would ignore it and run on cluster time"
    return None


def timezone_fix(path: Path, tz: str) -> Fix:
    """The one zone ``tz`` is a slip of (equal ignoring case, or one or two edits away), or why there is none."""
    import zoneinfo

    from kubectl_testbench.validate.fix_choices import near

    close = near(tz, sorted(zoneinfo.available_timezones()))
    if len(close) != 1:
        why = "several zones are close: " + ", ".join(close) if close else "no zone is within two edits of it"
        return Fix(FixKind.REPLACE, path, None, blocked=why)
    return Fix(FixKind.REPLACE, path, close[0], f'write "{close[0]}"')


def _timezone_hint(tz: str) -> str:
    import zoneinfo

    zones = zoneinfo.available_timezones()
    lower = {z.lower(): z for z in zones}
    if tz.lower() in lower:
        return f'did you mean "{lower[tz.lower()]}"? Zone names are case-sensitive'
    import difflib

    close = difflib.get_close_matches(tz, sorted(zones))  # best first
    return f'did you mean "{close[0]}"?' if close else 'use a name like "Europe/Berlin" or "UTC"'


# --- dataset ---------------------------------------------------------------------------------------

SUPPORTED_FORMATS = (".json",)
CONVERTIBLE_FORMATS = (".csv", ".parquet")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


@check(SEMANTIC_URL.id, SEMANTIC_DATASET_FORMAT.id, SEMANTIC_DATASET_FORMAT_CONVERTED.id, SEMANTIC_S3_BUCKET.id)
def dataset_source(doc: dict[str, Any], report: Report) -> None:
    """url is absolute http(s); s3 key / url path names a file type the setup phase reads."""
    dataset = _dict(_spec(doc).get("dataset"))
    base: Path = ("spec", "dataset")
    url = _str(dataset.get("url"))
    if url is not None:
        parts = _split_url(url)
        if isinstance(parts, str):
            report(SEMANTIC_URL.id, (*base, "url"), f"Invalid value: {show(url)}: not a URL ({parts})",
                   "write an absolute http(s) URL; an IPv6 host goes in brackets: http://[::1]:8080/experiment.json")
        elif parts.scheme not in ("http", "https") or not parts.netloc:
            report(SEMANTIC_URL.id, (*base, "url"), f"Invalid value: {show(url)}: must be an absolute http(s) URL",
                   "for S3 or MinIO objects use spec.dataset.s3 {bucket, key}" if parts.scheme == "s3" else "")
        else:
            _format(parts.path, (*base, "url"), report)
    s3 = _dict(dataset.get("s3"))
    key = _str(s3.get("key"))
    if key is not None:
        _format(key, (*base, "s3", "key"), report)
    bucket = _str(s3.get("bucket"))
    if bucket is not None and (not _BUCKET.fullmatch(bucket) or ".." in bucket):
        report(SEMANTIC_S3_BUCKET.id, (*base, "s3", "bucket"),
               f'Invalid value: "{bucket}": S3 bucket names are 3-63 lowercase letters, digits, dots and hyphens',
               "")



@check(SEMANTIC_S3_DEFAULT_MINIO.id)
def s3_settings(doc: dict[str, Any], report: Report) -> None:
    """An S3 dataset whose Experiment sets none of the setup phase's MinIO settings: it would read Testkube's
    bundled MinIO with the default credentials. Dropped by the engine when the RenderDefaults file sets one (its
    spec.env goes into every workflow), as ``semantic/no-gateway`` is dropped for a default gateway."""
    from kubectl_testbench.layout import MINIO_DEFAULT, MINIO_SETTINGS

    spec = _spec(doc)
    s3 = _dict(spec.get("dataset")).get("s3")
    if not isinstance(s3, dict) or not isinstance(s3.get("bucket"), str):
        return  # no S3 source, or one the schema reports
    env = spec.get("env")
    if env is not None and not isinstance(env, list):
        return  # the schema reports it; what it sets cannot be told
    if any(_dict(item).get("name") in MINIO_SETTINGS for item in env or ()):
        return
    report(SEMANTIC_S3_DEFAULT_MINIO.id, ("spec", "dataset", "s3"),
           f"none of {', '.join(MINIO_SETTINGS)} is set: the setup phase downloads the dataset from {MINIO_DEFAULT} "
           "with the default credentials minio/minio123",
           "set MINIO_ENDPOINT (and MINIO_ROOT_USER/MINIO_ROOT_PASSWORD from a Secret) in spec.env, or in "
           "testbench-defaults.yaml's spec.env")

def _split_url(url: str) -> SplitResult | str:
    """The URL's parts, or why it is not one: an unclosed IPv6 bracket ("http://[x/…") or a port that is not a
    number from 0 to 65535 makes urlsplit (or its port) raise."""
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError as err:
        return str(err)
    return parts


def _format(path: str, at: Path, report: Report) -> None:
    lower = path.lower()
    if lower.endswith(SUPPORTED_FORMATS):
        return
    if lower.endswith(CONVERTIBLE_FORMATS):
        report(SEMANTIC_DATASET_FORMAT_CONVERTED.id, at,
               f'"{path}" is {lower.rsplit(".", 1)[1]}: the current setup image reads only .json experiment files',
               "convert it with: kubectl testbench import --from csv|parquet FILE --dataset-out experiment.json")
        return
    report(SEMANTIC_DATASET_FORMAT.id, at, f'"{path}" does not name a .json experiment file',
           "the setup phase reads .json experiment files (kubectl testbench import converts csv/parquet)")


@check(SEMANTIC_INLINE_SIZE.id, SEMANTIC_INLINE_SIZE_NEAR.id)
def inline_size(doc: dict[str, Any], report: Report) -> None:
    """The inline dataset must fit in one ConfigMap (1 MiB including the key)."""
    from kubectl_testbench.model.experiment_json import CONFIGMAP_KEY, experiment_json_size

    inline = _dataset_inline(doc)
    if inline is None:
        return
    try:
        size = experiment_json_size(inline) + len(CONFIGMAP_KEY)
    except (TypeError, ValueError):
        return
    at: Path = ("spec", "dataset", "inline")
    if size > CONFIGMAP_LIMIT:
        report(SEMANTIC_INLINE_SIZE.id, at, f"the rendered experiment.json is {size} bytes; a ConfigMap holds at most "
               f"{CONFIGMAP_LIMIT} bytes", "move the dataset to S3 or a URL (spec.dataset.s3 / spec.dataset.url)")
    elif size > CONFIGMAP_LIMIT * 0.9:
        report(SEMANTIC_INLINE_SIZE_NEAR.id, at, f"the rendered experiment.json is {size} bytes, over 90% of the "
               f"{CONFIGMAP_LIMIT}-byte ConfigMap limit", "consider moving the dataset to S3")


def _dataset_inline(doc: dict[str, Any]) -> dict[str, Any] | None:
    inline = _dict(_spec(doc).get("dataset")).get("inline")
    return inline if isinstance(inline, dict) else None


@check(SEMANTIC_UNKNOWN_METRIC.id, SEMANTIC_UNSCORABLE_METRIC.id, SEMANTIC_METRIC_REFERENCE.id,
       SEMANTIC_THRESHOLD_WITHOUT_METRICS.id, SEMANTIC_NO_JUDGE_MODEL.id,
       SEMANTIC_NO_METRICS.id, SEMANTIC_DUPLICATE_SCENARIO.id)
def metrics(doc: dict[str, Any], report: Report) -> None:
    """Every metric is one the evaluate phase can score, and each step carries the reference data it needs."""
    inline = _dataset_inline(doc)
    if inline is None:
        return
    base: Path = ("spec", "dataset", "inline")
    any_metrics = False
    seen: dict[str, int] = {}
    for si, scenario in enumerate(_list(inline.get("scenarios"))):
        scenario = _dict(scenario)
        name = _str(scenario.get("name"))
        if name is not None:
            if name in seen:
                report(SEMANTIC_DUPLICATE_SCENARIO.id, (*base, "scenarios", si, "name"),
                       f'scenario name "{name}" is also used by scenarios[{seen[name]}]',
                       "results, metrics and reports key on the scenario name: make it unique")
            else:
                seen[name] = si
        for ti, step in enumerate(_list(scenario.get("steps"))):
            step = _dict(step)
            reference = _dict(step.get("reference"))
            for mi, metric in enumerate(_list(step.get("metrics"))):
                any_metrics = True
                metric_name = _str(_dict(metric).get("metricName"))
                if metric_name is None:
                    continue
                at: Path = (*base, "scenarios", si, "steps", ti, "metrics", mi, "metricName")
                _metric(metric_name, reference, at, (*base, "scenarios", si, "steps", ti), report)
    if any_metrics and not _str(inline.get("llmAsAJudgeModel")):
        report(SEMANTIC_NO_JUDGE_MODEL.id, base, "the dataset has metrics but no llmAsAJudgeModel: the evaluate phase "
               "builds every metric with the judge model (llm_factory, even for metrics that never ask the judge) "
               "and ragas refuses an empty model, so no metric scores",
               SEMANTIC_NO_JUDGE_MODEL.hint)
    if not any_metrics and _list(inline.get("scenarios")):
        if inline.get("defaultThreshold") is not None:
            report(SEMANTIC_THRESHOLD_WITHOUT_METRICS.id, (*base, "defaultThreshold"),
                   "defaultThreshold is set but no step has metrics to apply it to",
                   "add metrics to the steps (e.g. - metricName: AgentGoalAccuracyWithoutReference)")
        else:
            report(SEMANTIC_NO_METRICS.id, (*base, "scenarios"), "no step has metrics: the agent will be run but "
                   "nothing will be scored",
                   "add metrics to the steps (e.g. - metricName: AgentGoalAccuracyWithoutReference)")


def _metric(name: str, reference: dict[str, Any], at: Path, step_path: Path, report: Report) -> None:
    if name in OLD_NAMES:
        new = OLD_NAMES[name]
        hint = f'use "{new}"' if new in NEEDS else f'"{new}" cannot be scored either: use "{alternative(reference)}"'
        report(SEMANTIC_UNKNOWN_METRIC.id, at, f'"{name}" is the old name of {new}; ragas.metrics.collections '
               f"has no {name}, so the evaluate phase records no score", hint)
        return
    if name in UNSCORABLE:
        report(SEMANTIC_UNSCORABLE_METRIC.id, at, f"{name} never scores with {PHASE_PACKAGE}: {UNSCORABLE[name]}",
               f'use "{alternative(reference)}", which scores with the reference data this step has')
        return
    if name not in NEEDS:
        lower = {k.lower(): k for k in NEEDS}
        if name.lower() in lower:
            hint = f'did you mean "{lower[name.lower()]}"? Metric names are RAGAS class names, case-sensitive'
        else:
            import difflib

            close = difflib.get_close_matches(name, list(NEEDS))  # best first
            hint = (f'did you mean "{close[0]}"?' if close else
                    f'use "{alternative(reference)}"; kubectl testbench explain metrics lists the others')
        report(SEMANTIC_UNKNOWN_METRIC.id, at, f'"{name}" is not a metric the evaluate phase knows', hint,
               _metric_case_fix(name, at))
        return
    missing = [field for field in NEEDS[name] if not reference.get(field)]
    if missing:
        wanted = " and ".join(f"reference.{m}" for m in missing)
        report(SEMANTIC_METRIC_REFERENCE.id, at, f"{name} needs {wanted}, which this step does not provide, so it "
               "gets no score", f'add {wanted} to the step, or use "{alternative(reference)}"')


def _metric_case_fix(name: str, at: Path) -> Fix | None:
    """``toolcallaccuracy`` -> ``ToolCallAccuracy``: a case slip of exactly one metric the generated table says
    scores. A case match with a metric that never scores is no fix (the finding would only change rule)."""
    scorable = [metric for metric in NEEDS if metric.lower() == name.lower()]
    if len(scorable) == 1:
        return Fix(FixKind.REPLACE, at, scorable[0], f'write "{scorable[0]}"')
    if scorable:
        return Fix(FixKind.REPLACE, at, blocked=f"several metrics match ignoring case: {', '.join(scorable)}")
    unscorable = [metric for metric in UNSCORABLE if metric.lower() == name.lower()]
    if unscorable:
        return Fix(FixKind.REPLACE, at, blocked=f"{unscorable[0]} never scores with {PHASE_PACKAGE}")
    return None


# --- what the run phase's models accept ----------------------------------------------------------------------


@check(SEMANTIC_OBJECT_REQUIRED.id)
def raw_objects(doc: dict[str, Any], report: Report) -> None:
    """``args``, ``parameters`` and ``customValues`` pass the CRD (preserve-unknown-fields) whatever they are,
    but the run phase's models type them as objects (``dict[str, Any]``): anything else fails the whole run."""
    inline = _dataset_inline(doc)
    if inline is None:
        return
    base: Path = ("spec", "dataset", "inline")
    for si, scenario in enumerate(_list(inline.get("scenarios"))):
        for ti, step in enumerate(_list(_dict(scenario).get("steps"))):
            step = _dict(step)
            at: Path = (*base, "scenarios", si, "steps", ti)
            _object(step, "customValues", at, "custom_values", report)
            for ci, call in enumerate(_list(_dict(step.get("reference")).get("toolCalls"))):
                _object(_dict(call), "args", (*at, "reference", "toolCalls", ci), "tool_calls[].args", report)
            for mi, metric in enumerate(_list(step.get("metrics"))):
                _object(_dict(metric), "parameters", (*at, "metrics", mi), "metrics[].parameters", report)


def _object(parent: dict[str, Any], field: str, at: Path, model_field: str, report: Report) -> None:
    if field not in parent or parent[field] is None or isinstance(parent[field], dict):
        return
    report(SEMANTIC_OBJECT_REQUIRED.id, (*at, field), f"{field} is {_json_kind(parent[field])}; the run phase "
           f"reads {model_field} as an object and rejects the whole dataset",
           f"write {field} as a mapping, e.g. {field}: {{key: value}}")


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "a string"


@check(SEMANTIC_TOOL_CALL_ARGS.id)
def tool_call_args(doc: dict[str, Any], report: Report) -> None:
    """A tool call without args: upstream's operator leaves them out of experiment.json, where the run phase
    requires them (render writes ``args: {}``)."""
    inline = _dataset_inline(doc)
    if inline is None:
        return
    for si, scenario in enumerate(_list(inline.get("scenarios"))):
        for ti, step in enumerate(_list(_dict(scenario).get("steps"))):
            calls = _dict(_dict(step).get("reference")).get("toolCalls")
            for ci, call in enumerate(_list(calls)):
                if isinstance(call, dict) and call and "args" not in call:
                    at: Path = ("spec", "dataset", "inline", "scenarios", si, "steps", ti, "reference", "toolCalls", ci)
                    report(SEMANTIC_TOOL_CALL_ARGS.id, at, "the tool call has no args: the operator leaves them out "
                           "of experiment.json and the run phase requires them", "write args: {} for a call "
                           "without arguments", Fix(FixKind.INSERT, (*at, "args"), {}, "add args: {}"))


# --- env -------------------------------------------------------------------------------------------

_SECRET_NAME = re.compile(r"(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH)",
                          re.IGNORECASE)
_SECRET_VALUE = re.compile(
    r"^(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{10,}|"
    r"AIza[0-9A-Za-z_-]{30,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\..*|-----BEGIN [A-Z ]*PRIVATE KEY-----.*)",
    re.DOTALL,
)
_ENV_SOURCES = ("configMapKeyRef", "fieldRef", "fileKeyRef", "resourceFieldRef", "secretKeyRef")


@check(SEMANTIC_LITERAL_SECRET.id, SEMANTIC_DUPLICATE_ENV.id, SEMANTIC_ENV_VALUE_AND_FROM.id)
def env(doc: dict[str, Any], report: Report) -> None:
    """Literal secrets, duplicate names, and value/valueFrom combinations a Pod would reject."""
    names: dict[str, int] = {}
    for i, item in enumerate(_list(_spec(doc).get("env"))):
        item = _dict(item)
        at: Path = ("spec", "env", i)
        name = _str(item.get("name")) or ""
        if name in names:
            report(SEMANTIC_DUPLICATE_ENV.id, (*at, "name"), f'env "{name}" is also set by env[{names[name]}]; '
                   "only the last one takes effect", "remove one of them")
        names[name] = i
        value = item.get("value")
        source = item.get("valueFrom")
        if isinstance(value, str) and value and isinstance(source, dict):
            report(SEMANTIC_ENV_VALUE_AND_FROM.id, at,
                   f'env "{name}" sets both value and valueFrom; the Pod is rejected', "keep only one of them")
        if isinstance(source, dict):
            given = [k for k in _ENV_SOURCES if k in source]
            if len(given) != 1:
                report(SEMANTIC_ENV_VALUE_AND_FROM.id, (*at, "valueFrom"),
                       f'env "{name}": valueFrom must set exactly one of {", ".join(_ENV_SOURCES)}'
                       + (f" (found {', '.join(given)})" if given else ""), "")
        if isinstance(value, str) and value and not value.startswith("$(") and (
            (_SECRET_NAME.search(name) and len(value) >= 8) or _SECRET_VALUE.match(value)
        ):
            report(SEMANTIC_LITERAL_SECRET.id, (*at, "value"),
                   f'env "{name}" has a literal value that looks like a secret (value not shown)',
                   "store it in a Secret and use valueFrom.secretKeyRef")


_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
"""A ConfigMap or Secret key (apimachinery's IsConfigMapKey)."""


@check(SEMANTIC_ENV_REFERENCE.id)
def env_references(doc: dict[str, Any], report: Report) -> None:
    """Secret and ConfigMap references the API server refuses when Testkube creates the Pod: the Experiment's
    schema takes any string, so a bad name only fails at run time, after the workflow was scheduled."""
    for i, item in enumerate(_list(_spec(doc).get("env"))):
        source = _dict(_dict(item).get("valueFrom"))
        for kind in ("secretKeyRef", "configMapKeyRef"):
            ref = _dict(source.get(kind))
            at: Path = ("spec", "env", i, "valueFrom", kind)
            name, key = ref.get("name"), ref.get("key")
            what = "Secret" if kind == "secretKeyRef" else "ConfigMap"
            problem = dns1123_subdomain_error(name) if isinstance(name, str) and name else None
            if problem:
                report(SEMANTIC_ENV_REFERENCE.id, (*at, "name"), f"{show(name)} is not a {what} name: {problem}",
                       f"name an existing {what} (kubectl get {what.lower()}s)")
            if isinstance(key, str) and (len(key) > 253 or not _CONFIG_KEY.fullmatch(key)):
                report(SEMANTIC_ENV_REFERENCE.id, (*at, "key"), f"{show(key)} is not a {what} key: a key consists "
                       "of alphanumeric characters, '-', '_' or '.' (at most 253)", f"use a key of the {what}")


# --- the judge ------------------------------------------------------------------------------------------


@check(SEMANTIC_NO_GATEWAY.id)
def gateway(doc: dict[str, Any], report: Report) -> None:
    """Without an AI gateway the judge goes to api.openai.com with no key: every metric is skipped, the run green.

    Dropped by the engine when a RenderDefaults file names a default gateway (``spec.aiGateway.name``), the way
    the operator falls back to the first AiGateway in namespace ai-gateway.
    """
    from kubectl_testbench.model.constants import ANNOTATION_GATEWAY_URL

    spec = _spec(doc)
    if spec.get("aiGatewayRef") is not None or not spec:
        return
    annotations = _dict(_dict(doc.get("metadata")).get("annotations"))
    if annotations.get(ANNOTATION_GATEWAY_URL):
        return
    report(SEMANTIC_NO_GATEWAY.id, ("spec",), "no AI gateway for the judge: the evaluate phase would call "
           "api.openai.com without an API key, skip every metric and still end green",
           "set spec.aiGatewayRef {name, namespace}, or name a default gateway in testbench-defaults.yaml "
           "(spec.aiGateway.name) as the operator finds one in namespace ai-gateway")


@check(SEMANTIC_URL_PLACEHOLDER.id)
def url_templates(doc: dict[str, Any], report: Report) -> None:
    """The agent/gateway URL annotations fill {name}, {namespace} and {port}; anything else in braces would be
    left in the URL as written (a misspelt {nme})."""
    from kubectl_testbench.load.positions import MapKey
    from kubectl_testbench.model.constants import ANNOTATION_AGENT_URL, ANNOTATION_GATEWAY_URL

    annotations = _dict(_dict(doc.get("metadata")).get("annotations"))
    for key in (ANNOTATION_AGENT_URL, ANNOTATION_GATEWAY_URL):
        template = _str(annotations.get(key))
        if not template:
            continue
        # only a file with the annotation pays
        from kubectl_testbench.model.url_templates import PLACEHOLDER_HINT, template_problem

        problem = template_problem(template)
        if problem is not None:
            report(SEMANTIC_URL_PLACEHOLDER.id, ("metadata", "annotations", MapKey(key)),
                   f'Invalid value: "{template}": {problem}', PLACEHOLDER_HINT)


# --- references, names and labels --------------------------------------------------------------------


@check(SEMANTIC_DNS_LABEL.id)
def references(doc: dict[str, Any], report: Report) -> None:
    """agentRef/aiGatewayRef names and namespaces become hostnames and label values: DNS-1123 labels."""
    spec = _spec(doc)
    for field in ("agentRef", "aiGatewayRef"):
        ref = spec.get(field)
        if not isinstance(ref, dict):
            continue
        if not ref.get("name"):  # agentRef.name is required but may be "": as useless as a missing gateway name
            what = "the agent" if field == "agentRef" else "the gateway"
            report(SEMANTIC_DNS_LABEL.id, ("spec", field, "name") if "name" in ref else ("spec", field),
                   f"{field} needs a name to reach {what}", f"set {field}.name"
                   + (", or remove aiGatewayRef" if field == "aiGatewayRef" else ""))
        for key in ("name", "namespace"):
            value = _str(ref.get(key))
            if value:
                err = dns1123_label_error(value)
                if err:
                    report(SEMANTIC_DNS_LABEL.id, ("spec", field, key), f'Invalid value: "{value}": {err}',
                           f"{field}.{key} becomes part of the service hostname http://<name>.<namespace>")


@check(SEMANTIC_LABEL_VALUE.id, SEMANTIC_RESOURCE_NAME.id)
def generated_names(doc: dict[str, Any], report: Report) -> None:
    """Generated resource names are valid, and the values that become labels fit the 63-character limit."""
    meta = _dict(doc.get("metadata"))
    name = _str(meta.get("name"))
    namespace = _str(meta.get("namespace")) or DEFAULT_NAMESPACE
    if not name or dns1123_subdomain_error(name) or dns1123_label_error(namespace):
        return  # metadata checks already report it
    err = label_value_error(name)
    if err:
        report(SEMANTIC_LABEL_VALUE.id, ("metadata", "name"), f"the name becomes the label "
               f"{naming.LABEL_NAME} on generated resources: {err}", "shorten the name to 63 characters or fewer")
    for suffix in (naming.SUFFIX_DATASET, naming.SUFFIX_WORKFLOW, naming.SUFFIX_TRIGGER):
        generated = naming.resource_name(name, namespace, suffix)
        err = dns1123_subdomain_error(generated)
        if err:
            report(SEMANTIC_RESOURCE_NAME.id, ("metadata", "name"), f'generated name "{generated}" is invalid: {err}',
                   "shorten the Experiment name")


@check(SEMANTIC_TRIGGER_INACTIVE.id)
def trigger(doc: dict[str, Any], report: Report) -> None:
    """A trigger with settings but not enabled never fires: likely a forgotten ``enabled: true``."""
    trig = _spec(doc).get("trigger")
    if isinstance(trig, dict) and trig.get("enabled") is not True and "concurrencyPolicy" in trig:
        report(SEMANTIC_TRIGGER_INACTIVE.id, ("spec", "trigger"), "trigger.concurrencyPolicy is set but "
               "trigger.enabled is not true: no TestTrigger will be created", "set trigger.enabled: true")


def _strings(value: Any, at: Path) -> list[tuple[Path, str]]:
    """Every string inside ``value`` with its path (env entries: name, value and every field of valueFrom)."""
    if isinstance(value, str):
        return [(at, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _strings(item, (*at, key))]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _strings(item, (*at, index))]
    return []


@check(SEMANTIC_EXPRESSION_TEXT.id)
def expressions(doc: dict[str, Any], report: Report) -> None:
    """``{{`` in values that land in the TestWorkflow would be Testkube expressions; render escapes them."""
    spec = _spec(doc)
    for i, item in enumerate(_list(spec.get("env"))):
        for at, text in _strings(_dict(item), ("spec", "env", i)):
            if "{{" in text:
                what = "name" if at == ("spec", "env", i, "name") else "value"
                report(SEMANTIC_EXPRESSION_TEXT.id, at, f"the {what} contains '{{{{', which Testkube reads as an "
                       "expression; render writes it escaped so it stays literal", "")
    dataset = _dict(spec.get("dataset"))
    for at, value in ((("spec", "dataset", "url"), dataset.get("url")),
                      (("spec", "dataset", "s3", "key"), _dict(dataset.get("s3")).get("key")),
                      (("spec", "dataset", "s3", "bucket"), _dict(dataset.get("s3")).get("bucket"))):
        if isinstance(value, str) and "{{" in value:
            report(SEMANTIC_EXPRESSION_TEXT.id, at, "the value contains '{{', which Testkube reads as an "
                   "expression; render writes it escaped so it stays literal", "")
