"""Orloj ``EvalDataset`` manifests (``orloj.dev/v1``), optionally with the ``EvalRun`` that scores them.

Every sample becomes a scenario with one step. Orloj's code (``resources/eval_types.go``) and its docs do not
agree on every field name, so each field is accepted in the spellings either uses (snake_case and camelCase
everywhere; the alternatives are listed in :data:`VARIANTS`).

- ``input`` (a map of strings): the ``prompt`` entry (or the only entry) is the step input; other entries
  are kept in customValues. A plain string input is accepted too.
- ``expected``: ``equals`` → reference.response + ExactMatch, ``output_contains``/``contains`` →
  reference.response + StringPresence, an expected answer (``output``) → reference.response +
  AgentGoalAccuracyWithReference; negations, regexes, JSON paths and comparisons have no RAGAS metric.
- ``scoring``: ``exact_match`` uses the expected values above; ``llm_judge`` adds an ``AspectCritic`` with the
  rubric; ``manual`` and ``custom`` cannot be carried over. A sample without scoring uses the dataset's, then
  the scoring of an ``EvalRun`` given with it, then exact_match (Orloj's default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_testbench.integrations.importers.common import (
    JUDGE_METRIC,
    RESPONSE_METRIC,
    Collected,
    ImportInputError,
    ImportOptions,
    MetricSpec,
    ScenarioSpec,
    StepSpec,
    display_name,
    expand_inputs,
    get,
    is_text,
    json_text,
    load_documents,
    mark_of,
    origin,
    plain,
    scalar_text,
    snake,
)
from kubectl_testbench.load.positions import Path

PATTERNS = ("*.yaml", "*.yml", "*.json")
API_VERSION = "orloj.dev/v1"

VARIANTS: dict[str, tuple[str, ...]] = {
    "sample name": ("name", "id", "sample_name"),
    "sample input text (in the input map)": ("prompt", "message", "query", "question", "input", "task", "text"),
    "expected answer": ("output", "expected_output", "answer", "response"),
    "contains": ("output_contains", "contains"),
    "scoring strategy": ("strategy", "type"),
    "scoring rubric": ("rubric", "criteria"),
    "judge model": ("model_ref", "model"),
    "EvalRun dataset": ("dataset_ref", "dataset"),
}
"""Accepted spellings (each also in camelCase): Orloj's Go types, its guides and its reference pages differ."""

_PROMPT_KEYS = VARIANTS["sample input text (in the input map)"]
_ANSWER_KEYS = VARIANTS["expected answer"]
_CONTAINS_KEYS = VARIANTS["contains"]
_NO_METRIC = {
    "output_not_contains": "no RAGAS metric checks that a text is absent",
    "not_equals": "no RAGAS metric checks inequality",
    "output_matches": "no RAGAS metric matches a regular expression",
    "output_json_path": "no RAGAS metric reads JSON paths",
    "greater_than": "no RAGAS metric compares numbers",
    "less_than": "no RAGAS metric compares numbers",
}
_STRATEGIES = {"exact_match": "exact_match", "exactmatch": "exact_match", "exact": "exact_match",
               "llm_judge": "llm_judge", "llmjudge": "llm_judge", "llm": "llm_judge", "manual": "manual",
               "custom": "custom"}


@dataclass(frozen=True, slots=True)
class _Scoring:
    strategy: str
    rubric: str | None
    source: str
    """Where it came from, for messages: "sample", "dataset", "EvalRun <name>" or "default"."""


_DEFAULT_SCORING = _Scoring("exact_match", None, "default")


def read(paths: tuple[str, ...], options: ImportOptions) -> Collected:
    collected = Collected("orloj")
    datasets: list[tuple[str, dict[str, Any]]] = []
    runs: list[tuple[str, dict[str, Any]]] = []
    for path in expand_inputs(paths, PATTERNS, "Orloj manifests (*.yaml, *.yml, *.json)"):
        file = display_name(path)
        collected.sources.append(file)
        for doc in load_documents(path, collected.warnings, options.limits, multi=True):
            data = doc.data
            kind = str(data.get("kind") or "") if isinstance(data, dict) else ""
            if not isinstance(data, dict):
                collected.warnings.add(file, mark_of(data), (), "document is not a mapping: skipped")
            elif kind.lower() == "evaldataset" or (not kind and _samples(data)[1] is not None):
                datasets.append((file, data))
            elif kind.lower() == "evalrun":
                runs.append((file, data))
            else:
                collected.warnings.add(file, mark_of(data, "kind"), ("kind",), f'document of kind "{kind}" is not an '
                                       "EvalDataset: skipped")
    if not datasets:
        raise ImportInputError(", ".join(collected.sources), "no Orloj EvalDataset in the input")
    run_scoring = _runs(runs, {_name(d) for _, d in datasets}, collected)
    for file, data in datasets:
        _dataset(file, data, run_scoring.get(_name(data)), collected)
    return collected


def _name(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, dict) else ""


def _samples(doc: dict[str, Any]) -> tuple[Path, Any]:
    spec = doc.get("spec")
    if isinstance(spec, dict) and "samples" in spec:
        return ("spec", "samples"), spec["samples"]
    if "samples" in doc:  # spec-less variant
        return ("samples",), doc["samples"]
    return ("spec", "samples"), None


# --- EvalRun ------------------------------------------------------------------------------------------------------


def _runs(runs: list[tuple[str, dict[str, Any]]], datasets: set[str], collected: Collected) -> dict[str, _Scoring]:
    out: dict[str, _Scoring] = {}
    for file, run in runs:
        spec = run.get("spec") if isinstance(run.get("spec"), dict) else {}
        assert isinstance(spec, dict)
        name = _name(run) or "EvalRun"
        key, dataset = get(spec, "dataset_ref", "dataset")
        at: Path = ("spec", key)
        if not is_text(dataset) or str(dataset) not in datasets:
            collected.warnings.add(file, mark_of(spec, key) if dataset is not None else mark_of(run), at,
                                   f'EvalRun "{name}" refers to dataset "{dataset}", which is not among the inputs: '
                                   "its scoring is not used")
            continue
        skey, scoring = get(spec, "scoring")
        if isinstance(scoring, dict):
            parsed = _scoring(file, scoring, ("spec", skey), f'EvalRun "{name}"', collected)
            if str(dataset) in out:
                collected.warnings.add(file, mark_of(spec, skey), ("spec", skey), f'EvalRun "{name}" also scores '
                                       f'dataset "{dataset}": the scoring of {out[str(dataset)].source} is kept')
            else:
                out[str(dataset)] = parsed
        for field_name, value in spec.items():
            if snake(field_name) in ("dataset_ref", "dataset", "scoring") or value is None:
                continue
            reason = ("the Experiment evaluates the agent given with --agent" if snake(field_name) == "system"
                      else "not an Experiment setting")
            collected.warnings.add(file, mark_of(spec, field_name), ("spec", field_name),
                                   f'EvalRun "{name}": {field_name} is not carried over ({reason})')
    return out


def _scoring(file: str, scoring: dict[str, Any], at: Path, source: str, collected: Collected) -> _Scoring:
    warn = collected.warnings.add
    skey, strategy = get(scoring, "strategy", "type")
    _, rubric = get(scoring, "rubric", "criteria")
    mkey, model = get(scoring, "model_ref", "model")
    tkey, tool = get(scoring, "tool_ref")
    kind = _STRATEGIES.get(str(strategy or "").strip().lower().replace("-", "_"))
    if kind is None:
        warn(file, mark_of(scoring, skey), (*at, skey), f'{source}: scoring strategy "{strategy}" is unknown '
             "(expected exact_match, llm_judge, manual or custom): scored as exact_match")
        kind = "exact_match"
    if model is not None:
        warn(file, mark_of(scoring, mkey), (*at, mkey), f'{source}: {mkey} "{model}" names an Orloj ModelEndpoint, '
             "not a model: set the judge model with --judge-model")
    if kind == "manual":
        warn(file, mark_of(scoring, skey), (*at, skey), f"{source}: manual scoring (human review) is not carried "
             "over: the expected values (or a reference-free judge) are scored instead")
    if kind == "custom":
        warn(file, mark_of(scoring, tkey if tool is not None else skey), (*at, tkey), f"{source}: custom scoring "
             f'with tool "{tool}" is not carried over: the expected values are scored instead')
    if kind != "llm_judge" and is_text(rubric):
        warn(file, mark_of(scoring, "rubric"), (*at, "rubric"), f"{source}: the rubric is used by llm_judge "
             f"scoring only; with {kind} it is not carried over")
    for key, value in scoring.items():
        if snake(key) not in ("strategy", "type", "rubric", "criteria", "model_ref", "model", "tool_ref") \
                and value is not None:
            warn(file, mark_of(scoring, key), (*at, key), f'unknown scoring field "{key}" is not carried over')
    return _Scoring(kind, str(rubric).strip() if kind == "llm_judge" and is_text(rubric) else None, source)


# --- EvalDataset --------------------------------------------------------------------------------------------------


def _dataset(file: str, doc: dict[str, Any], run_scoring: _Scoring | None, collected: Collected) -> None:
    warn = collected.warnings.add
    api = doc.get("apiVersion")
    if api is not None and api != API_VERSION:
        warn(file, mark_of(doc, "apiVersion"), ("apiVersion",), f'apiVersion "{api}" is not {API_VERSION}: read as '
             f"{API_VERSION}")
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else doc
    assert isinstance(spec, dict)
    spec_path: Path = ("spec",) if spec is not doc else ()
    if spec is not doc:
        for key, value in doc.items():
            if key not in ("apiVersion", "kind", "metadata", "spec", "status") and value is not None:
                warn(file, mark_of(doc, key), (key,), f'unknown top-level field "{key}" is not carried over')
    _, description = get(spec, "description")
    if is_text(description):
        collected.add_description(str(description))
    dataset_scoring = None
    skey, scoring = get(spec, "scoring")
    if isinstance(scoring, dict):
        dataset_scoring = _scoring(file, scoring, (*spec_path, skey), "dataset", collected)
    at, samples = _samples(doc)
    if not isinstance(samples, list):
        raise ImportInputError(file, f'EvalDataset "{_name(doc)}" has no samples list', *mark_of(spec))
    for key, value in spec.items():
        if spec is not doc and snake(key) not in ("description", "samples", "scoring") and value is not None:
            warn(file, mark_of(spec, key), (*spec_path, key), f'unknown EvalDataset field "{key}" is not carried over')
    default = dataset_scoring or run_scoring or _DEFAULT_SCORING
    for i, sample in enumerate(samples):
        if not isinstance(sample, dict):
            collected.skip(f"sample-{i + 1}", origin(file, samples, i, (*at, i)), "sample is not a mapping: skipped")
            continue
        _sample(file, samples, i, sample, (*at, i), default, collected)


def _sample(file: str, samples: list[Any], index: int, sample: dict[str, Any], at: Path, default: _Scoring,
            collected: Collected) -> None:
    warn = collected.warnings.add
    _, name = get(sample, *VARIANTS["sample name"])
    scenario_name = scalar_text(name) or f"sample-{index + 1}"
    where = origin(file, samples, index, at)
    ikey, raw_input = get(sample, "input")
    text, custom = _input(file, sample, ikey, raw_input, (*at, ikey), collected)
    if text is None:
        collected.skip(scenario_name, where, f'sample "{scenario_name}" has no input text: skipped')
        return
    step = StepSpec(text, where, custom_values=custom)
    metrics: list[MetricSpec] = []
    ekey, expected = get(sample, "expected")
    if isinstance(expected, dict):
        metrics.extend(_expected(file, expected, (*at, ekey), step, collected))
    elif expected is not None and scalar_text(expected) is not None:
        step.response = scalar_text(expected)
        metrics.append(MetricSpec(RESPONSE_METRIC))
    skey, own = get(sample, "scoring")
    scoring = _scoring(file, own, (*at, skey), f'sample "{scenario_name}"', collected) if isinstance(own, dict) \
        else default
    if scoring.rubric:
        metrics.insert(0, MetricSpec(JUDGE_METRIC, None, {"name": "rubric", "definition": scoring.rubric}))
    elif scoring.strategy == "llm_judge" and step.response and not any(m.name == RESPONSE_METRIC for m in metrics):
        metrics.append(MetricSpec(RESPONSE_METRIC))
    step.metrics = metrics or None
    for key, value in sample.items():
        if snake(key) not in (*VARIANTS["sample name"], "input", "expected", "scoring") and value is not None:
            warn(file, mark_of(sample, key), (*at, key), f'unknown sample field "{key}" is not carried over')
    collected.scenarios.append(ScenarioSpec(scenario_name, where, [step]))


def _input(file: str, sample: dict[str, Any], key: str, value: Any, at: Path,
           collected: Collected) -> tuple[str | None, dict[str, Any] | None]:
    if isinstance(value, str):
        return (value if value.strip() else None), None
    if not isinstance(value, dict) or not value:
        return scalar_text(value), None
    prompt_key = next((k for k in value if snake(k) in _PROMPT_KEYS and is_text(value[k])), None)
    if prompt_key is None and len(value) == 1:
        prompt_key = next(iter(value))
    if prompt_key is None:
        collected.warnings.add(file, mark_of(sample, key), at, "the input map has no prompt entry: it is sent as JSON "
                               "text")
        return json_text(value), None
    text = scalar_text(value[prompt_key]) or json_text(value[prompt_key])
    rest = {k: plain(v) for k, v in value.items() if k != prompt_key}
    if rest:
        collected.warnings.add(file, mark_of(value, next(iter(rest))), (*at, next(iter(rest))),
                               f"input entries {', '.join(rest)} are kept in customValues but not sent to the agent: "
                               "a Testbench step sends one message")
    return text, rest or None


def _expected(file: str, expected: dict[str, Any], at: Path, step: StepSpec, collected: Collected) -> list[MetricSpec]:
    warn = collected.warnings.add
    metrics: list[MetricSpec] = []
    seen: set[str] = set()

    def reference(value: Any, metric: str, key: str) -> None:
        text = scalar_text(value)
        if text is None:
            return
        if step.response is None or step.response == text:
            step.response = text
            metrics.append(MetricSpec(metric))
        else:
            warn(file, mark_of(expected, key), (*at, key), f'expected.{key} "{text}" is not carried over: {metric} '
                 "compares with reference.response, which already holds another expected value")

    ordered = sorted(expected, key=lambda k: (0 if snake(k) == "equals" else 1 if snake(k) in _ANSWER_KEYS else 2))
    for key in ordered:
        value = expected[key]
        name = snake(key)
        if value is None or value == "":
            continue
        seen.add(name)
        if name == "equals":
            reference(value, "ExactMatch", key)
        elif name in _ANSWER_KEYS:
            reference(value, RESPONSE_METRIC, key)
        elif name in _CONTAINS_KEYS:
            reference(value, "StringPresence", key)
        elif name in _NO_METRIC:
            warn(file, mark_of(expected, key), (*at, key), f"expected.{key} is not carried over: {_NO_METRIC[name]}")
        else:
            warn(file, mark_of(expected, key), (*at, key), f'unknown expected field "{key}" is not carried over')
    return metrics

