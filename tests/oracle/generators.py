"""Generated and mutated Experiments for the differential test, one generator per adversarial category.

Each generator takes a ``random.Random`` and returns the bytes of one input file. They are plain functions
(fast: tens of thousands per run) wrapped in a Hypothesis strategy (``batches``) that seeds them, so runs
are deterministic under ``derandomize=True`` and every category is exercised in every run.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from typing import Any

import hypothesis.strategies as st
import yaml

API_VERSION = "testbench.agentic-layer.ai/v1alpha1"
Generator = Callable[[random.Random], bytes]
GENERATORS: dict[str, Generator] = {}

METRICS = ["AgentGoalAccuracyWithoutReference", "AnswerAccuracy", "ToolCallAccuracy"]  # scorable (metrics.json)
WORDS = ["weather", "agent", "a", "x1", "team-a", "rag", "eval", "z"]


def generator(fn: Generator) -> Generator:
    GENERATORS[fn.__name__.removeprefix("gen_")] = fn
    return fn


# --- building blocks ---------------------------------------------------------------------------------------


def name(r: random.Random) -> str:
    return "-".join(r.choice(WORDS) for _ in range(r.randint(1, 3)))


def experiment(r: random.Random) -> dict[str, Any]:
    """A valid Experiment (as data) with a random shape."""
    mode = r.choice(["inline", "inline", "s3", "url"])
    if mode == "s3":
        dataset: dict[str, Any] = {"s3": {"bucket": "bucket-" + r.choice(WORDS), "key": f"{name(r)}/data.json"}}
    elif mode == "url":
        dataset = {"url": f"https://{name(r)}.example.com/{name(r)}.json"}
    else:
        steps = []
        for _ in range(r.randint(1, 2)):
            step: dict[str, Any] = {"input": r.choice(["Hello", "Will it rain?", "2+2", "ünïcode ✓"])}
            step["metrics"] = [{"metricName": r.choice(METRICS)}]
            if r.random() < 0.4:
                step["metrics"][0]["threshold"] = r.choice([0, 0.5, 1, 0.25])
            if r.random() < 0.3:
                step["customValues"] = {"k": r.choice([1, "v", True, None, [1, 2], {"n": 1}])}
            steps.append(step)
        inline: dict[str, Any] = {"scenarios": [{"name": "S" + str(i), "steps": steps} for i in range(r.randint(1, 2))]}
        if r.random() < 0.5:
            inline["defaultThreshold"] = r.choice([0, 0.8, 1])
        if r.random() < 0.3:
            inline["llmAsAJudgeModel"] = "gpt-4o-mini"
        dataset = {"inline": inline}
    spec: dict[str, Any] = {"agentRef": {"name": name(r)}, "dataset": dataset}
    if r.random() < 0.3:
        spec["agentRef"]["namespace"] = name(r)
    if r.random() < 0.3:
        spec["aiGatewayRef"] = {"name": name(r), "namespace": name(r)}
    if r.random() < 0.3:
        spec["env"] = [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel:4318"}]
    if r.random() < 0.3:
        spec["schedule"] = {"cron": r.choice(["0 3 * * *", "*/15 * * * *"])}
        if r.random() < 0.5:
            spec["schedule"]["timezone"] = "Europe/Berlin"
    if r.random() < 0.3:
        spec["trigger"] = {"enabled": True, "concurrencyPolicy": r.choice(["Allow", "Forbid", "Replace"])}
    meta: dict[str, Any] = {"name": name(r)}
    if r.random() < 0.7:
        meta["namespace"] = name(r)
    return {"apiVersion": API_VERSION, "kind": "Experiment", "metadata": meta, "spec": spec}


def dump(doc: Any) -> str:
    return yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``doc`` (objects and lists)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(paths(v, (*prefix, k)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(paths(v, (*prefix, i)))
    return out


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    for seg in path:
        doc = doc[seg]
    return doc


def put(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    get(doc, path[:-1])[path[-1]] = value


def with_placeholder(r: random.Random, doc: dict[str, Any], raw: str) -> str:
    """``doc`` as YAML with one scalar replaced by the raw YAML text ``raw`` (a tag, a YAML 1.1 word...)."""
    candidates = [p for p in paths(doc) if p and not isinstance(get(doc, p), (dict, list))]
    target = r.choice(candidates)
    put(doc, target, "__RAW__")
    return dump(doc).replace("__RAW__", raw, 1)


# --- categories --------------------------------------------------------------------------------------------


@generator
def gen_valid(r: random.Random) -> bytes:
    doc = experiment(r)
    return encode(dump(doc) if r.random() < 0.8 else json.dumps(doc, indent=r.choice([None, 2])))


NULLABLE_META = ["creationTimestamp", "namespace", "uid", "resourceVersion", "selfLink", "labels", "annotations",
                 "generateName", "finalizers", "ownerReferences", "deletionTimestamp", "generation"]


@generator
def gen_nulls(r: random.Random) -> bytes:
    doc = experiment(r)
    for _ in range(r.randint(1, 3)):
        choice = r.random()
        if choice < 0.35 and isinstance(doc.get("metadata"), dict):
            doc["metadata"][r.choice(NULLABLE_META)] = None
        elif choice < 0.45:
            doc[r.choice(["metadata", "spec", "status", "kind", "apiVersion"])] = None
        elif isinstance(doc.get("spec"), dict) and doc["spec"]:
            target = r.choice([p for p in paths(doc["spec"]) if p])
            put(doc["spec"], target, None)
    if r.random() < 0.2:
        return encode(json.dumps(doc))
    text = dump(doc)
    if r.random() < 0.3:
        text = text.replace("null", r.choice(["~", "", "Null", "NULL"]))
    return encode(text)


@generator
def gen_json(r: random.Random) -> bytes:
    docs = [experiment(r) for _ in range(r.choice([1, 1, 1, 2, 3]))]
    for doc in docs:
        if r.random() < 0.5:
            greeting = r.choice(["😀", "日本", "é", "\u2028"])
            doc["spec"].setdefault("env", []).append({"name": "GREETING", "value": greeting})
        if r.random() < 0.3:
            doc["metadata"]["annotations"] = {"note": r.choice(["😀 emoji", "tab\there", "quote\"d"])}
    style = r.random()
    parts = [json.dumps(d, ensure_ascii=r.random() < 0.7, indent=r.choice([None, 1, 2])) for d in docs]
    sep = r.choice(["\n", "", " ", "\n\n", "\r\n"])
    text = sep.join(parts)
    if style < 0.1:
        text = "  \n" + text  # whitespace before '{' still means JSON for kubectl
    elif style < 0.15:
        text = text.replace('"agentRef": {', '"agentRef": {"name": "dup", ', 1)  # a duplicate field in JSON
    elif style < 0.2:
        text = text.replace('"Hello"', '"\\ud800 lone"', 1)
    elif style < 0.25:
        text = text.replace(": 1,", ": 1.0,", 1).replace(": 0.5", ": 5e-1", 1)
    elif style < 0.3:
        text = "# a comment first makes it YAML\n" + text
    elif style < 0.33:
        text = "[" + text.replace(sep, ", ") + "]" if sep.strip() == "" else text
    elif style < 0.36:
        text = text[: r.randint(1, max(1, len(text) - 1))]  # truncated JSON
    elif style < 0.4:
        text = text.replace('"spec"', '"spec", "Spec"', 1) if '"spec"' in text else text
    return encode(text)


@generator
def gen_lists(r: random.Random) -> bytes:
    items: list[Any] = [experiment(r) for _ in range(r.randint(0, 3))]
    shape = r.random()
    if shape < 0.3:
        doc: dict[str, Any] = {"apiVersion": "v1", "kind": "List", "items": items}
    elif shape < 0.45:
        doc = {"kind": "List", "items": items}
    elif shape < 0.7:
        for item in items:
            for key in r.choice([("apiVersion", "kind"), ("kind",), ("apiVersion",), ()]):
                item.pop(key, None)
        doc = {"apiVersion": API_VERSION, "kind": "ExperimentList", "items": items}
    elif shape < 0.8:
        doc = {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "List", "items": items}]}
    elif shape < 0.85:
        doc = {"apiVersion": "v1", "kind": "List", "items": r.choice([None, [], "x", [1], [None]])}
    else:
        doc = {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}
    if items and r.random() < 0.4:
        item = r.choice(items)
        mutate(r, item)
    if r.random() < 0.25:
        return encode(json.dumps(doc))
    text = dump(doc)
    if items and r.random() < 0.2:
        text = text.replace("    agentRef:\n", "    agentRef:\n      name: dup\n", 1)  # duplicate inside an item
    if items and r.random() < 0.2:
        text = text.replace("enabled: true", "enabled: yes", 1)
    return encode(text)


FINALIZERS = ["example.com/cleanup", "Foo", "kubernetes", "a/b/c", "example.com/", "-bad", "orphan",
              "foregroundDeletion", "x" * 64]
TIMES = ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456Z", "2024-01-02T03:04:05+01:00", "2024-01-02",
         "2024-01-02 03:04:05", "2024-13-02T03:04:05Z", "yesterday", 5, None, "2024-01-02T03:04:05"]
LABEL_KEYS = ["app", "app.kubernetes.io/name", "Bad Key", "UPPER", "example.com/x", "-x", "x" * 64,
              "a/b/c", "EXAMPLE.com/x", "/x", "x/"]
LABEL_VALUES = ["v", "", "Has Space", "x" * 64, "ok-1.2_3", "-bad", 1, True, None]


@generator
def gen_metadata(r: random.Random) -> bytes:
    doc = experiment(r)
    meta = doc["metadata"]
    for _ in range(r.randint(1, 3)):
        what = r.randrange(14)
        if what == 0:
            meta["labels"] = {r.choice(LABEL_KEYS): r.choice(LABEL_VALUES) for _ in range(r.randint(1, 2))}
        elif what == 1:
            meta["annotations"] = {r.choice([*LABEL_KEYS, "Example.COM/Note", "Note"]): r.choice(["v", "", 5])}
        elif what == 2:
            meta["finalizers"] = r.sample(FINALIZERS, r.randint(1, 3))
        elif what == 3:
            ref: dict[str, Any] = {"apiVersion": r.choice(["v1", "apps/v1", "", "a/b/c"]),
                                   "kind": r.choice(["ConfigMap", ""]), "name": r.choice(["owner", ""])}
            if r.random() < 0.7:
                ref["uid"] = r.choice(["d9607e19-f88f-11e6-a518-42010a800195", "", 5])
            if r.random() < 0.5:
                ref["controller"] = r.choice([True, False, "yes"])
            if r.random() < 0.2:
                ref["bogus"] = 1
            meta["ownerReferences"] = [ref] + ([dict(ref, name="other")] if r.random() < 0.3 else [])
        elif what == 4:
            meta["generation"] = r.choice([1, -1, "1", 1.5, 0])
        elif what == 5:
            meta[r.choice(["creationTimestamp", "deletionTimestamp"])] = r.choice(TIMES)
        elif what == 6:
            meta["managedFields"] = [{"manager": r.choice(["kubectl", "x" * 129, "bad\tchar"]),
                                      "operation": r.choice(["Apply", "Update", "Bogus", ""]),
                                      "fieldsType": r.choice(["FieldsV1", "FieldsV2", ""]),
                                      "fieldsV1": {"f:spec": {}}, "time": r.choice(TIMES)}]
        elif what == 7:
            meta[r.choice(["bogus", "Name", "clusterName", "labelz"])] = "x"
        elif what == 8:
            meta["name"] = r.choice(["UPPER", "a_b", "ok.dotted", "", "x" * 254, "-x", "a" * 253])
        elif what == 9:
            meta.pop("name", None)
            if r.random() < 0.7:
                meta["generateName"] = r.choice(["exp-", "Bad-", "exp"])
        elif what == 10:
            meta["namespace"] = r.choice(["Team", "a.b", "", "x" * 64, "ok"])
        elif what == 11:
            meta["resourceVersion"] = r.choice(["123", "0", "abc", ""])
        elif what == 12:
            meta[r.choice(["uid", "selfLink"])] = r.choice(["x", 5])
        else:
            meta["deletionGracePeriodSeconds"] = r.choice([30, "30", -1])
    if r.random() < 0.2:
        return encode(json.dumps(doc))
    return encode(dump(doc))


@generator
def gen_merge_keys(r: random.Random) -> bytes:
    agent = name(r)
    shape = r.randrange(7)
    head = f"apiVersion: {API_VERSION}\nkind: Experiment\nmetadata:\n  name: {name(r)}\n"
    dataset = "  dataset:\n    url: https://x.example.com/e.json\n"
    if shape == 0:
        spec = f"spec:\n  agentRef:\n    <<: {{name: {agent}, namespace: ns}}\n{dataset}"
    elif shape == 1:
        spec = f"spec:\n  agentRef:\n    name: explicit\n    <<: {{name: {agent}}}\n{dataset}"
    elif shape == 2:
        spec = f"spec:\n  agentRef:\n    <<: {{name: {agent}}}\n    name: explicit\n{dataset}"
    elif shape == 3:
        spec = f"spec:\n  agentRef:\n    <<: [{{name: {agent}}}, {{name: second, namespace: ns}}]\n{dataset}"
    elif shape == 4:
        head = (f"apiVersion: {API_VERSION}\nkind: Experiment\nmetadata:\n  name: {name(r)}\n"
                "  labels: &labels {team: a, app: b}\n  annotations:\n    <<: *labels\n")
        spec = f"spec:\n  agentRef: {{name: {agent}}}\n{dataset}"
    elif shape == 5:
        spec = f"spec:\n  agentRef:\n    <<: {r.choice(['5', '[1]', 'x'])}\n    name: {agent}\n{dataset}"
    else:
        spec = (f"spec:\n  agentRef: &ref {{name: {agent}}}\n  aiGatewayRef:\n    <<: *ref\n"
                f"    {r.choice(['namespace: gw', 'name: gw', 'bogus: 1'])}\n{dataset}")
    return encode(head + spec)


BINARY = [base64.b64encode(b).decode() for b in (b"hello", "ünï".encode(), b"\xff\xfe bad utf-8", b"")]
TAGGED = ["!!str 10", "!!int '7'", "!!int 0x1F", "!!float 1", "!!float '2.5'", "!!null ''", "!!bool yes",
          "!!bool 'maybe'", "!!timestamp 2024-01-02", "!custom value", "!!str", "!!int abc", "!!float x",
          "!<tag:yaml.org,2002:str> 5", "!!map {}", "!!seq []"] + [f"!!binary {b}" for b in BINARY]


@generator
def gen_tags(r: random.Random) -> bytes:
    return encode(with_placeholder(r, experiment(r), r.choice(TAGGED)))


SCALARS = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "true", "False", "0755", "0o17", "0x1F", "1_000",
           "._5", ".5", "+.5", "-.5", "1e3", "1E3", "1:20", "2024-01-02", "1e400", ".inf", "-.Inf", ".nan", "~",
           "Null", "09", "-0", "0b101", "-0b11", "1.0", "12345678901234567890", "9223372036854775808",
           "0.1", "1_0.5", "+1", "0x_1F", "1__0", "_1"]


@generator
def gen_yaml11_scalars(r: random.Random) -> bytes:
    doc = experiment(r)
    if r.random() < 0.4:
        doc["spec"]["trigger"] = {"enabled": "__RAW__"}
        return encode(dump(doc).replace("__RAW__", r.choice(SCALARS)))
    return encode(with_placeholder(r, doc, r.choice(SCALARS)))


OTHER = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n"


@generator
def gen_streams(r: random.Random) -> bytes:
    parts: list[str] = []
    for _ in range(r.randint(1, 4)):
        choice = r.random()
        if choice < 0.5:
            doc = experiment(r)
            if r.random() < 0.3:
                mutate(r, doc)
            parts.append(dump(doc))
        elif choice < 0.6:
            parts.append(OTHER)
        elif choice < 0.7:
            parts.append("# only a comment\n")
        elif choice < 0.75:
            parts.append("")
        elif choice < 0.8:
            parts.append(r.choice(["just a string\n", "- a\n- b\n", "42\n", "null\n"]))
        else:
            parts.append(dump(experiment(r)) + "...\n" + r.choice(["", "# after\n", dump(experiment(r))]))
    seps = ["---\n", "--- # doc\n", "---  \n", "---\n\n"]
    text = ""
    for i, part in enumerate(parts):
        if i or r.random() < 0.3:
            text += r.choice(seps) if r.random() > 0.05 else "--- x: 1\n"
        text += part
    if r.random() < 0.2:
        text += r.choice(["---\n", "---\n...\n", "\n"])
    return encode(text)


STATUS = [{"conditions": []}, {"bogus": 1}, {"conditions": [{"type": "Ready", "status": "True", "bogus": 1}]},
          {"lastExecution": {"executionId": "x", "nope": 2}}, {"generatedResources": [{"kind": "A", "extra": 1}]},
          {"conditions": "not-a-list"}, None]


def mutate(r: random.Random, doc: dict[str, Any]) -> None:
    """One typical mistake somewhere in the document."""
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        doc["spec"] = spec = experiment(r)["spec"]
    what = r.randrange(16)
    all_paths = [p for p in paths(spec) if p]
    if what == 0 and all_paths:
        target = r.choice(all_paths)
        parent = get(spec, target[:-1])
        if isinstance(parent, dict):
            del parent[target[-1]]
    elif what == 1 and all_paths:
        put(spec, r.choice(all_paths), r.choice([5, "text", True, [], {}, 1.5, -1]))
    elif what == 2:
        objects = [p for p in paths(spec) if isinstance(get(spec, p), dict)]
        objects = objects or [()]
        get(spec, r.choice(objects))[r.choice(["bogus", "Name", "agentref", "metricname", "x-y"])] = 1
    elif what == 3:
        spec["trigger"] = {"enabled": True}
        spec["trigger"]["concurrencyPolicy"] = r.choice(["allow", "Sometimes", "", "FORBID"])
    elif what == 4 and isinstance(spec.get("dataset"), dict) and isinstance(spec["dataset"].get("inline"), dict):
        spec["dataset"]["inline"]["defaultThreshold"] = r.choice([1.5, -0.1, 1.0, 2, "0.5"])
    elif what == 5 and isinstance(spec.get("dataset"), dict) and isinstance(spec["dataset"].get("inline"), dict):
        spec["dataset"]["inline"]["scenarios"] = r.choice([[], {}, [{"name": "x", "steps": []}]])
    elif what == 6:
        doc["status"] = r.choice(STATUS)
    elif what == 7:
        spec["schedule"] = r.choice([{"cron": "0 3 * *"}, {"timezone": "UTC"}, {"cron": "0 3 * * * *"}, {}])
    elif what == 8:
        inline = {"scenarios": [{"name": "a", "steps": [{"input": "x"}]}]}
        spec["dataset"] = r.choice([{}, {"url": "u", "inline": inline}, {"s3": {"bucket": "b"}},
                                    {"s3": {"bucket": "b", "key": "k.json"}, "url": "u"}])
    elif what == 9:
        spec["agentRef"] = r.choice([{}, {"name": ""}, {"name": "Bad_Name"}, {"namespace": "x"}, "agent"])
    elif what == 10:
        divisor = r.choice(["1m", 1, "x", 1.5])
        spec["env"] = r.choice([[{"value": "x"}], [{"name": "A", "valueFrom": {"secretKeyRef": {"key": "k"}}}],
                                [{"name": "A", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu",
                                                                                   "divisor": divisor}}}],
                                [{"name": "A", "valueFrom": {"fieldRef": {}}}], {"name": "A"}])
    elif what == 11:
        doc["apiVersion"] = r.choice(["testbench.agentic-layer.ai/v1", "testbench.agentic-layer.ai/v1beta1",
                                      "testbench.agentic-layer.io/v1alpha1", "testbench.agentic.ai/v1alpha1",
                                      "v1", "", "kubeflow.org/v1beta1"])
    elif what == 12:
        doc["kind"] = r.choice(["Experiments", "experiment", "", "ConfigMap"])
    elif what == 13:
        doc.pop(r.choice(["apiVersion", "kind", "metadata", "spec"]), None)
    elif what == 14:
        spec["aiGatewayRef"] = r.choice([{}, {"name": ""}, {"namespace": "gw"}, {"name": "gw", "kind": "AiGateway"},
                                         {"name": "gw", "bogus": 1}])
    else:
        doc[r.choice(["extra", "Spec", "data"])] = {"a": 1}


@generator
def gen_mutated(r: random.Random) -> bytes:
    doc = experiment(r)
    for _ in range(r.choice([1, 1, 1, 2, 3])):
        mutate(r, doc)
    if r.random() < 0.2:
        return encode(json.dumps(doc))
    return encode(dump(doc))


@generator
def gen_not_objects(r: random.Random) -> bytes:
    return encode(r.choice(["hello\n", "- 1\n- 2\n", "42\n", "[]\n", "'quoted'\n", "true\n", "{}\n",
                            "kind: Experiment\n", "apiVersion: v1\n", "items: []\n", "[1, 2]", "\"text\"",
                            "- apiVersion: v1\n  kind: ConfigMap\n"]))


# --- the Hypothesis strategy --------------------------------------------------------------------------------

CATEGORIES = sorted(GENERATORS)


def generate(r: random.Random, index: int) -> tuple[str, bytes]:
    """The ``index``-th document of a batch: categories in turn, so each batch covers all of them."""
    category = CATEGORIES[index % len(CATEGORIES)]
    return category, GENERATORS[category](r)


@st.composite
def batches(draw: st.DrawFn, size: int = 50) -> list[tuple[str, bytes]]:
    """``size`` generated files, seeded by Hypothesis (deterministic under ``derandomize=True``)."""
    r = draw(st.randoms(use_true_random=False))
    return [generate(r, i) for i in range(size)]
