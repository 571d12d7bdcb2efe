"""What every importer shares: the result model, the scenario/step builders and reading inputs with positions.

An importer reads its format into :class:`Collected` (scenarios of steps, plus the warnings about everything
it could not carry over) and :func:`build_experiment` turns that into one Experiment with an inline dataset.
Library code never prints or exits: problems with the input itself raise :class:`ImportInputError`.
"""

from __future__ import annotations

import ast
import bisect
import fnmatch
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.positions import Mark, PathSegment, PosDict, PosList, field_path
from kubectl_testbench.model.constants import API_VERSION, DEFAULT_JUDGE_MODEL, KIND
from kubectl_testbench.validate.metrics import NEEDS, OLD_NAMES, PHASE_PACKAGE, UNSCORABLE
from kubectl_testbench.words import plural

STDIN = "-"
ANNOTATION_PREFIX = "import.testbench.agentic-layer.ai"
ANNOTATION_FORMAT = f"{ANNOTATION_PREFIX}/format"
ANNOTATION_DESCRIPTION = f"{ANNOTATION_PREFIX}/description"

# The metric chosen for each kind of reference data a step carries (when the source names no metric).
RESPONSE_METRIC = "AgentGoalAccuracyWithReference"
NO_REFERENCE_METRIC = "AgentGoalAccuracyWithoutReference"
TOOL_METRIC = "ToolCallAccuracy"
TOPIC_METRIC = "TopicAdherence"
JUDGE_METRIC = "AspectCritic"
"""An LLM judge with a free-text criterion: ``parameters: {name, definition}``. The formats' criteria map to it,
but the phase package cannot score it (not in ragas.metrics.collections), so build_experiment drops it with a
warning, as every metric that would never score; see :func:`never_scores`."""


# --- results and errors ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportWarning:
    """Something in the source that could not be carried over (or was changed), and where it is."""

    file: str
    line: int
    col: int
    field: str
    message: str

    @property
    def location(self) -> str:
        """``file:line:col``, ``file:line`` or ``file`` as far as the position is known."""
        if self.line and self.col:
            return f"{self.file}:{self.line}:{self.col}"
        if self.line:
            return f"{self.file}:{self.line}"
        return self.file

    def text(self) -> str:
        """One line for stderr: ``file:line:col: warning: message (field)``."""
        where = f" ({self.field})" if self.field else ""
        return f"{self.location}: warning: {self.message}{where}"


CARRIED = "carried"
CHANGED = "carried with changes"
DROPPED = "dropped"


@dataclass(frozen=True, slots=True)
class CaseReport:
    """What became of one case of the source: carried, carried with changes (the warnings say what) or dropped
    (they say why). A case is a test, eval case, sample or table scenario, from its line to the next case's."""

    file: str
    line: int
    name: str
    steps: int
    warnings: tuple[ImportWarning, ...]

    @property
    def status(self) -> str:
        if not self.steps:
            return DROPPED
        return CHANGED if self.warnings else CARRIED


@dataclass(slots=True)
class ImportResult:
    """One Experiment (plain data, camelCase as on the wire) and the warnings about its sources."""

    experiment: dict[str, Any]
    warnings: list[ImportWarning]
    sources: list[str] = field(default_factory=list)
    cases: list[CaseReport] = field(default_factory=list)
    """The fidelity report, one entry per source case in reading order."""
    general: list[ImportWarning] = field(default_factory=list)
    """Warnings about no single case (suite settings, config files): they concern every case of their file."""
    detected: list[tuple[str, str, str]] = field(default_factory=list)
    """With ``--from auto``: (file, format, why) for every input file."""

    @property
    def inline(self) -> dict[str, Any]:
        """``spec.dataset.inline`` of the Experiment."""
        inline: dict[str, Any] = self.experiment["spec"]["dataset"]["inline"]
        return inline

    @property
    def scenario_count(self) -> int:
        return len(self.inline["scenarios"])

    @property
    def step_count(self) -> int:
        return sum(len(s["steps"]) for s in self.inline["scenarios"])


class ImportInputError(Exception):
    """The input cannot be read or is not the format it claims to be (the CLI exits with code 2)."""

    def __init__(self, file: str, message: str, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.file = file
        self.message = message
        self.line = line
        self.col = col

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}" + (f":{self.col}" if self.col else "")
        return f"{where}: {self.message}" if where else self.message


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """A metric for a step: a RAGAS class name, an optional threshold and constructor parameters.

    ``source`` names what the source called it (``response_match_score``), ``origin`` where it was defined (a
    rubric in a config file): both only for warnings, never written.
    """

    name: str
    threshold: float | None = None
    parameters: dict[str, Any] | None = None
    source: str = field(default="", compare=False)
    origin: Origin | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        return f"{self.name} (from {self.source})" if self.source else self.name

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"metricName": self.name}
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.parameters is not None:
            out["parameters"] = self.parameters
        return out


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """Everything the Experiment needs beyond the dataset: names, references and metric choices."""

    name: str
    agent: str
    agent_namespace: str | None = None
    namespace: str | None = None
    gateway: str | None = None
    gateway_namespace: str | None = None
    judge_model: str | None = None
    default_threshold: float | None = None
    metrics: tuple[MetricSpec, ...] = ()
    """When given, every step gets exactly these metrics instead of the ones derived from the source."""
    config: str | None = None
    """An evaluation config named on the command line (ADK: the file of ``adk eval --config_file_path``)."""
    limits: Limits = DEFAULT_LIMITS


# --- the format-neutral dataset -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a scenario or step came from, for warnings found after reading (names, metrics)."""

    file: str
    line: int = 0
    col: int = 0
    field: str = ""


@dataclass(slots=True)
class StepSpec:
    """One user turn and the reference data to score the agent's answer against."""

    input: str
    origin: Origin
    response: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    topics: list[str] | None = None
    contexts: list[str] | None = None
    custom_values: dict[str, Any] | None = None
    metrics: list[MetricSpec] | None = None
    """None: choose metrics from the reference data (:func:`default_metrics`); a list: exactly these."""
    scored: bool = True
    """False for an earlier user turn of a multi-turn test, which the source does not score on its own."""

    def reference(self) -> dict[str, Any] | None:
        ref: dict[str, Any] = {}
        if self.response:
            ref["response"] = self.response
        if self.tool_calls:
            ref["toolCalls"] = [{"name": tc["name"], "args": tc.get("args") if tc.get("args") is not None else {}}
                                for tc in self.tool_calls]
        if self.topics:
            ref["topics"] = list(self.topics)
        if self.contexts:
            ref["retrievedContexts"] = list(self.contexts)
        return ref or None


@dataclass(slots=True)
class ScenarioSpec:
    name: str
    origin: Origin
    steps: list[StepSpec] = field(default_factory=list)


class Warnings:
    """Collects :class:`ImportWarning` in a stable order: input files as given, then line and column.

    A warning found again (a suite-level assertion read once per test, a test read once per prompt) is kept once.
    """

    def __init__(self) -> None:
        self.items: list[ImportWarning] = []
        self._rank: dict[str, int] = {}
        self._seen: set[ImportWarning] = set()

    def file_seen(self, file: str) -> None:
        self._rank.setdefault(file, len(self._rank))

    def add(self, file: str, mark: Mark | None, path: Sequence[PathSegment] | str, message: str) -> None:
        line, col = mark if mark else (0, 0)
        where = path if isinstance(path, str) else field_path(path)
        self._keep(ImportWarning(file, line, col, where, message))

    def at(self, origin: Origin, message: str) -> None:
        self._keep(ImportWarning(origin.file, origin.line, origin.col, origin.field, message))

    def extend(self, other: Warnings) -> None:
        """Another collection's warnings and files, after these (their order kept)."""
        for file in other._rank:
            self.file_seen(file)
        for warning in other.items:
            self._keep(warning)

    def _keep(self, warning: ImportWarning) -> None:
        self.file_seen(warning.file)
        if warning not in self._seen:
            self._seen.add(warning)
            self.items.append(warning)

    def sorted(self) -> list[ImportWarning]:
        rank = self._rank
        return sorted(self.items, key=lambda w: (rank.get(w.file, len(rank)), w.line, w.col))


@dataclass(slots=True)
class Collected:
    """What a format reader hands to :func:`build_experiment`."""

    format: str
    warnings: Warnings = field(default_factory=Warnings)
    scenarios: list[ScenarioSpec] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    judge_model: str | None = None
    default_threshold: float | None = None
    description: str | None = None
    cases: list[tuple[str, Origin]] = field(default_factory=list)
    """Source cases that became no scenario (skipped), by name and position, for the fidelity report."""
    concerns: list[tuple[ImportWarning, list[Origin]]] = field(default_factory=list)
    """A warning counted over several steps (reported once) and the steps it concerns, for the fidelity report."""

    def tallied(self, where: Origin, message: str, steps: list[Origin]) -> None:
        """One warning for several steps: at ``where``, and in the fidelity report at each of ``steps``' cases."""
        self.warnings.at(where, message)
        self.concerns.append((ImportWarning(where.file, where.line, where.col, where.field, message), steps))

    def merge(self, other: Collected) -> None:
        """Add what another reader found (``--from auto`` over several formats): first judge and threshold win."""
        self.warnings.extend(other.warnings)
        self.scenarios.extend(other.scenarios)
        self.sources.extend(other.sources)
        self.cases.extend(other.cases)
        self.concerns.extend(other.concerns)
        if other.judge_model is not None:
            self.set_judge_model(other.judge_model, other.scenarios[0].origin if other.scenarios else Origin(""))
        if other.default_threshold is not None:
            self.set_default_threshold(other.default_threshold,
                                       other.scenarios[0].origin if other.scenarios else Origin(""))
        if other.description:
            self.add_description(other.description)

    def skip(self, name: str, where: Origin, message: str) -> None:
        """A case that is not carried over: warned at its position and listed in the fidelity report."""
        self.warnings.at(where, message)
        self.cases.append((name, where))

    def set_judge_model(self, model: str, origin: Origin) -> None:
        """The first judge model wins; a different one later is reported (an Experiment has one judge)."""
        if self.judge_model is None:
            self.judge_model = model
        elif model != self.judge_model:
            self.warnings.at(origin, f'judge model "{model}" differs from "{self.judge_model}" used before: an '
                                     "Experiment has one llmAsAJudgeModel, the first one is kept")

    def set_default_threshold(self, value: float, origin: Origin) -> None:
        if self.default_threshold is None:
            self.default_threshold = value
        elif value != self.default_threshold:
            self.warnings.at(origin, f"threshold {value} differs from {self.default_threshold} used before: an "
                                     "Experiment has one defaultThreshold, the first one is kept")

    def add_description(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        self.description = text if self.description is None else f"{self.description}\n{text}"


# --- building the Experiment -----------------------------------------------------------------------------


def default_metrics(step: StepSpec) -> list[MetricSpec]:
    """One metric per kind of reference data the step carries; a reference-free judge when it has none.
    retrievedContexts get none: no metric that reads them scores with the phase package (they are kept)."""
    out: list[MetricSpec] = []
    if step.response:
        out.append(MetricSpec(RESPONSE_METRIC))
    if step.tool_calls:
        out.append(MetricSpec(TOOL_METRIC))
    if step.topics:
        out.append(MetricSpec(TOPIC_METRIC))
    if not out:
        out.append(MetricSpec(NO_REFERENCE_METRIC))
    return out


def replacement_metric(step: StepSpec) -> MetricSpec:
    """The one metric for a step whose source metrics cannot score: the agent's goal, against the reference
    response when the step has one. Never a tool or topic metric the source did not ask for."""
    return MetricSpec(RESPONSE_METRIC if step.response else NO_REFERENCE_METRIC)


RUBRICS_KEY = "rubrics"
"""``customValues`` key for criteria texts no scorable metric can judge: ``[{id, text}]``, kept verbatim."""
RUBRIC_METRICS = (JUDGE_METRIC, "InstanceSpecificRubrics")
"""Metrics that judge a free-text criterion; a rubric becomes the first one the phase package scores, if any."""


def rubric_metric() -> str | None:
    """The metric a free-text rubric becomes, or None when the phase package scores none of them."""
    return next((m for m in RUBRIC_METRICS if never_scores(m) is None), None)


@dataclass(slots=True)
class _Tally:
    """Warnings counted over steps, reported once at the first step (or at the definition) they concern; every
    step counted is remembered, so the fidelity report marks each of their cases."""

    items: dict[tuple[str, Origin | None], tuple[int, Origin]] = field(default_factory=dict)
    steps: dict[tuple[str, Origin | None], list[Origin]] = field(default_factory=dict)

    def count(self, key: str, where: Origin, at: Origin | None = None) -> None:
        count, first = self.items.get((key, at), (0, where))
        self.items[(key, at)] = (count + 1, first)
        self.steps.setdefault((key, at), []).append(where)


def build_experiment(collected: Collected, options: ImportOptions) -> ImportResult:
    """The Experiment for ``collected``: unique scenario names, metrics chosen, fields in reading order."""
    warnings = collected.warnings
    if not collected.scenarios:
        raise ImportInputError(", ".join(collected.sources), "no test cases found in the input")
    scenarios: list[dict[str, Any]] = []
    used: set[str] = set()
    lacking: dict[tuple[str, str], tuple[int, Origin]] = {}
    dropped = _Tally()
    rubrics = _Tally()
    replaced = _Tally()
    for index, scenario in enumerate(collected.scenarios):
        name = _unique_name(scenario, index, used, warnings)
        steps = []
        for step in scenario.steps:
            if options.metrics:
                metrics = list(options.metrics)
                for metric, need in _missing_needs(step, metrics):
                    count, first = lacking.get((metric, need), (0, step.origin))
                    lacking[(metric, need)] = (count + 1, first)
            else:
                metrics = default_metrics(step) if step.metrics is None else _scorable(step, step.metrics, dropped,
                                                                                        rubrics)
                if not metrics and step.scored:
                    metrics = [replacement_metric(step)]
                    lost = ", ".join(dict.fromkeys(m.label for m in step.metrics or ()))
                    replaced.count(f"{metrics[0].name}|{lost}", step.origin)
                for metric, need in _missing_needs(step, metrics):
                    warnings.at(step.origin, f"{metric} needs reference.{need}, which this step does not have")
            steps.append(_step(step, metrics))
        scenarios.append({"name": name, "steps": steps})
    for (label, at), (count, first) in dropped.items.items():
        collected.tallied(at or first, dropped_message(label, count), dropped.steps[(label, at)])
    for (label, at), (count, first) in rubrics.items.items():
        collected.tallied(at or first, kept_rubric_message(label, count), rubrics.steps[(label, at)])
    for (key, at), (count, first) in replaced.items.items():
        metric, _, lost = key.partition("|")
        collected.tallied(first, replaced_message(count, metric, lost), replaced.steps[(key, at)])
    for (metric, need), (count, first) in lacking.items():
        warnings.at(first, f"--metric {metric} needs reference.{need}, which {count} step"
                           f"{' lacks' if count == 1 else 's lack'} (this is the first)")

    inline: dict[str, Any] = {"llmAsAJudgeModel": options.judge_model or collected.judge_model or DEFAULT_JUDGE_MODEL}
    threshold = options.default_threshold if options.default_threshold is not None else collected.default_threshold
    if threshold is not None:
        inline["defaultThreshold"] = threshold
    inline["scenarios"] = scenarios

    metadata: dict[str, Any] = {"name": options.name}
    if options.namespace:
        metadata["namespace"] = options.namespace
    annotations = {ANNOTATION_FORMAT: collected.format}
    if collected.description:
        annotations[ANNOTATION_DESCRIPTION] = collected.description
    metadata["annotations"] = annotations
    spec: dict[str, Any] = {"agentRef": {"name": options.agent}}
    if options.agent_namespace:
        spec["agentRef"]["namespace"] = options.agent_namespace
    if options.gateway:
        spec["aiGatewayRef"] = {"name": options.gateway}
        if options.gateway_namespace:
            spec["aiGatewayRef"]["namespace"] = options.gateway_namespace
    spec["dataset"] = {"inline": inline}
    experiment = {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": spec}
    ordered = warnings.sorted()
    cases, general = fidelity(collected, ordered)
    return ImportResult(experiment, ordered, list(collected.sources), cases, general)


def fidelity(collected: Collected, warnings: list[ImportWarning]) -> tuple[list[CaseReport], list[ImportWarning]]:
    """Each source case with its steps and the warnings inside it (from its line to the next case's), and the
    warnings that fall in no case. Cases are the scenarios' origins plus the cases that were skipped."""
    found: dict[tuple[str, int], tuple[str, int]] = {}
    fields: dict[tuple[str, int], str] = {}
    for _, where in collected.cases:
        fields.setdefault((where.file, where.line), where.field)
    for scenario in collected.scenarios:
        key = (scenario.origin.file, scenario.origin.line)
        fields.setdefault(key, scenario.origin.field)
        name, steps = found.get(key, (scenario.name, 0))
        found[key] = (name, steps + len(scenario.steps))
    for name, where in collected.cases:
        found.setdefault((where.file, where.line), (name, 0))
    by_file: dict[str, list[int]] = {}
    for file, line in sorted(found):
        by_file.setdefault(file, []).append(line)
    inside: dict[tuple[str, int], list[ImportWarning]] = {key: [] for key in found}
    general: list[ImportWarning] = []

    def case_of(file: str, line: int, where: str = "") -> tuple[str, int] | None:
        """The case whose lines hold ``line``, unless the warning's field lies outside the list of cases (a
        setting after the last case, another YAML document)."""
        lines = by_file.get(file, [])
        at = bisect.bisect_right(lines, line) - 1 if line else -1
        if at < 0:
            return None
        key = (file, lines[at])
        container = fields.get(key, "").partition("[")[0]
        return None if container and where and not where.startswith(container) else key

    concerns = {warning: steps for warning, steps in collected.concerns}
    for warning in warnings:
        keys = list(dict.fromkeys(k for k in (case_of(o.file, o.line) for o in concerns[warning]) if k is not None)) \
            if warning in concerns else []
        if not keys:
            own = case_of(warning.file, warning.line, warning.field)
            keys = [own] if own is not None else []
        if not keys:
            general.append(warning)
        for key in keys:
            inside[key].append(warning)
    rank = {file: i for i, file in enumerate(dict.fromkeys([*collected.sources, *(w.file for w in warnings)]))}
    order = sorted(found, key=lambda k: (rank.get(k[0], len(rank)), k[1]))
    reports = [CaseReport(file, line, found[(file, line)][0], found[(file, line)][1], tuple(inside[(file, line)]))
               for file, line in order]
    return reports, general


def never_scores(name: str) -> str | None:
    """Why the evaluate phase would never score this metric, or None when it can."""
    if name in NEEDS:
        return None
    if name in UNSCORABLE:
        return f"it never scores with {PHASE_PACKAGE}: {UNSCORABLE[name]}"
    if name in OLD_NAMES:
        return f"it is the old name of {OLD_NAMES[name]}, which ragas.metrics.collections no longer has by that name"
    return f"{PHASE_PACKAGE} has no metric of that name in ragas.metrics.collections"


def kept_rubric_message(label: str, steps: int) -> str:
    """The warning for a criterion text kept in customValues.rubrics because no metric can judge it."""
    return (f"{label} is kept verbatim in customValues.{RUBRICS_KEY} but not scored ({plural(steps, 'step')}): "
            f"{PHASE_PACKAGE} scores no metric that judges a free-text criterion ({', '.join(RUBRIC_METRICS)} "
            "cannot score)")


def replaced_message(steps: int, metric: str, lost: str = "") -> str:
    """The warning for steps whose source metrics cannot score (or that the source enables none for)."""
    why = f"the source's {lost} cannot score" if lost else "the source enables no metric that applies"
    return f"{plural(steps, 'step')} (the first here): {why}; scored with {metric} instead"


def dropped_message(metric: str, steps: int) -> str:
    """The warning for a metric left out because it would never score (once per metric, at its first step)."""
    return (f"{metric} is not carried over ({plural(steps, 'step')}, the first here): "
            f"{PHASE_PACKAGE} cannot score it (kubectl testbench explain metrics says why and lists those that do)")


def _scorable(step: StepSpec, metrics: list[MetricSpec], dropped: _Tally, rubrics: _Tally) -> list[MetricSpec]:
    """The metrics that can score. A free-text judge that cannot becomes the metric that judges rubrics, or is
    kept verbatim in ``customValues.rubrics``; every other one is counted in ``dropped``."""
    kept: list[MetricSpec] = []
    carrier = rubric_metric()
    for metric in metrics:
        if never_scores(metric.name) is None:
            kept.append(metric)
        elif metric.name in RUBRIC_METRICS and isinstance(metric.parameters, dict) \
                and is_text(metric.parameters.get("definition")):
            rid = str(metric.parameters.get("name") or f"rubric-{len(kept) + 1}")
            text = str(metric.parameters["definition"])
            if carrier is not None:
                kept.append(MetricSpec(carrier, metric.threshold, {"name": rid, "definition": text}))
                continue
            custom = step.custom_values if step.custom_values is not None else {}
            custom.setdefault(RUBRICS_KEY, []).append({"id": rid, "text": text})
            step.custom_values = custom
            rubrics.count(f'rubric "{rid}"', step.origin, metric.origin)
        else:
            dropped.count(metric.label, step.origin, metric.origin)
    return kept


_REFERENCE_FIELDS = {"response": "response", "toolCalls": "tool_calls", "topics": "topics",
                     "retrievedContexts": "contexts"}


def _missing_needs(step: StepSpec, metrics: list[MetricSpec]) -> list[tuple[str, str]]:
    """(metric, reference field) pairs where a metric needs reference data the step does not carry."""
    out = []
    for metric in metrics:
        for need in NEEDS.get(metric.name, ()):
            if not getattr(step, _REFERENCE_FIELDS[need]):
                out.append((metric.name, need))
    return out


def _unique_name(scenario: ScenarioSpec, index: int, used: set[str], warnings: Warnings) -> str:
    base = " ".join(scenario.name.split()) or f"scenario-{index + 1}"
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base} ({n})"
    if name != base:
        warnings.at(scenario.origin, f'scenario name "{base}" is already used: renamed to "{name}" (results are '
                                     "keyed on the scenario name)")
    used.add(name)
    return name


def _step(step: StepSpec, metrics: list[MetricSpec]) -> dict[str, Any]:
    out: dict[str, Any] = {"input": step.input}
    ref = step.reference()
    if ref is not None:
        out["reference"] = ref
    if step.custom_values:
        out["customValues"] = step.custom_values
    if metrics:
        out["metrics"] = [m.wire() for m in metrics]
    return out


def external_experiment(experiment: dict[str, Any], *, bucket: str | None = None, key: str | None = None,
                        url: str | None = None) -> dict[str, Any]:
    """A copy of ``experiment`` whose dataset is read from S3 (``bucket``/``key``) or ``url`` instead of inline."""
    out = json.loads(json.dumps(experiment))
    if url is not None:
        out["spec"]["dataset"] = {"url": url}
    elif bucket is not None and key is not None:
        out["spec"]["dataset"] = {"s3": {"bucket": bucket, "key": key}}
    else:
        raise ValueError("give bucket and key, or url")
    return out  # type: ignore[no-any-return]


def parse_metric_option(text: str) -> MetricSpec:
    """``NAME`` or ``NAME=THRESHOLD`` (``--metric``); raises ValueError with a one-line reason."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not name:
        raise ValueError(f'"{text}": give a RAGAS metric class name, e.g. AnswerAccuracy or AnswerAccuracy=0.7')
    reason = never_scores(name)
    if reason is not None:
        raise ValueError(f'"{name}" cannot be used: {reason} (kubectl testbench explain metrics lists those that '
                         "score)")
    if not sep:
        return MetricSpec(name)
    try:
        threshold = float(value)
    except ValueError:
        raise ValueError(f'"{text}": the threshold must be a number between 0 and 1') from None
    if not 0 <= threshold <= 1:
        raise ValueError(f'"{text}": the threshold must be between 0 and 1')
    return MetricSpec(name, threshold)


# --- reading inputs ---------------------------------------------------------------------------------------


def expand_inputs(paths: Iterable[str], patterns: Sequence[str], what: str) -> list[str]:
    """Files in a stable order: arguments as given, directories searched recursively for ``patterns``.

    Dot-files and dot-directories are skipped, as are symlinked directories (no loops). A directory
    without a matching file is an error: importing nothing from it is never what was meant.
    """
    out: list[str] = []
    for path in paths:
        if path == STDIN:
            out.append(STDIN)
            continue
        if os.path.isdir(path):
            found = list(_scan(path, patterns))
            if not found:
                raise ImportInputError(path, f"no {what} under this directory (looked for "
                                             f"{', '.join(patterns)})")
            out.extend(found)
        elif os.path.exists(path):
            out.append(path)
        else:
            raise ImportInputError(path, "no such file or directory")
    return out


def _scan(directory: str, patterns: Sequence[str]) -> Iterator[str]:
    from kubectl_testbench.load.sources import scan_tree

    for path, err in scan_tree(directory, lambda name: any(fnmatch.fnmatchcase(name, p) for p in patterns)):
        if err is not None:
            raise ImportInputError(path, err.strerror or str(err))
        yield path


def read_input_bytes(path: str, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The bytes of a file or of stdin (``-``), within the size limit."""
    from kubectl_testbench.load.sources import Source, SourceError, read_bytes

    if path != STDIN and not os.path.isfile(path):
        raise ImportInputError(path, "not a regular file" if os.path.exists(path) else "no such file or directory")
    try:
        return read_bytes(Source(path), limits)
    except SourceError as err:
        raise ImportInputError(path, err.message) from None


def read_input_text(path: str, limits: Limits = DEFAULT_LIMITS) -> str:
    """The text of a file or stdin: UTF-8 (BOM allowed) or UTF-16/32 with a BOM."""
    from kubectl_testbench.load.decode import DecodeError, decode

    data = read_input_bytes(path, limits)
    try:
        return decode(data)
    except DecodeError as err:
        raise ImportInputError(path, err.message, *err.mark) from None


def display_name(path: str) -> str:
    return "<stdin>" if path == STDIN else path


@dataclass(slots=True)
class Document:
    """One YAML/JSON document: its data (PosDict/PosList with positions) and the 1-based line it starts on."""

    data: Any
    line: int


def load_documents(path: str, warnings: Warnings, limits: Limits = DEFAULT_LIMITS,
                   multi: bool = False) -> list[Document]:
    """The document(s) of a YAML or JSON file, keeping the position of every key, value and item.

    Duplicate keys and YAML 1.1 surprises become warnings; a syntax error is an :class:`ImportInputError`.
    With ``multi`` every ``---`` separated document is returned, else only the first (more is an error).
    """
    from kubectl_testbench.load.builder import build
    from kubectl_testbench.load.split import split_documents

    file = display_name(path)
    warnings.file_seen(file)
    text = read_input_text(path, limits)
    pieces = [(c.text, c.start_line) for c in split_documents(text)] if multi else [(text, 0)]
    out: list[Document] = []
    for chunk_text, start in pieces:
        built = build(chunk_text, start, limits)
        if built.error is not None:
            line, col = built.error.mark
            raise ImportInputError(file, f"cannot be read: {built.error.message}", line, col)
        for remark in built.remarks:
            warnings.add(file, remark.mark, remark.path, remark.message)
        if not multi and built.extra_documents:
            raise ImportInputError(file, "holds more than one YAML document; this format expects one")
        if not built.empty:
            out.append(Document(built.data, start + 1))
    if not out:
        raise ImportInputError(file, "is empty")
    return out


# --- positions and values ----------------------------------------------------------------------------------


def mark_of(container: Any, key: str | int | None = None) -> Mark:
    """Position of ``container[key]`` (a key's position for mappings), else of the container itself."""
    if key is not None:
        if isinstance(container, PosDict) and isinstance(key, str):
            found = container.key_marks.get(key)
            if found:
                return found
        elif isinstance(container, PosList) and isinstance(key, int) and 0 <= key < len(container.item_marks):
            return container.item_marks[key]
    mark: Mark = getattr(container, "mark", (0, 0))
    return mark


def value_mark(container: Any, key: str) -> Mark:
    """Position of the value of ``container[key]`` (where its text starts)."""
    if isinstance(container, PosDict):
        found = container.value_marks.get(key) or container.key_marks.get(key)
        if found:
            return found
    return mark_of(container)


def origin(file: str, container: Any, key: str | int | None, path: Sequence[PathSegment]) -> Origin:
    line, col = mark_of(container, key)
    return Origin(file, line, col, field_path(path))


def is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def scalar_text(value: Any) -> str | None:
    """A scalar as text (numbers and booleans as JSON writes them), None for null/empty/containers."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    return text if text.strip() else None


def json_text(value: Any) -> str:
    """Structured data as compact, deterministic JSON text (sorted keys) for a text field."""
    return json.dumps(plain(value), sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def plain(value: Any) -> Any:
    """Plain dicts and lists (positions dropped), e.g. for customValues and tool-call args."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def parse_list_cell(text: str) -> tuple[list[Any] | None, str | None]:
    """A list written into one text cell: JSON (``["a", "b"]``) or Python (``['a', 'b']``, as pandas writes).

    Returns (list, None), or (None, reason) when the text looks like a list but is not one. Text that does
    not start with ``[`` is not a list: (None, None).
    """
    stripped = text.strip()
    if not stripped.startswith("["):
        return None, None
    try:
        value = json.loads(stripped)
    except ValueError:
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None, "looks like a list but is neither JSON nor a Python literal"
    if not isinstance(value, list):
        return None, "looks like a list but is not one"
    return value, None


def tool_call(name: Any, args: Any) -> dict[str, Any] | None:
    """A reference tool call, or None when ``name`` is not a non-empty string."""
    if not is_text(name):
        return None
    return {"name": str(name).strip(), "args": plain(args) if isinstance(args, dict) else ({} if args is None
                                                                                          else plain(args))}


def camel(snake: str) -> str:
    """``user_content`` → ``userContent`` (pydantic's to_camel, as ADK's models alias their fields)."""
    head, *rest = snake.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """``userContent`` → ``user_content``; snake_case stays as it is."""
    out: list[str] = []
    for ch in name:
        if ch.isupper():
            out.append("_" + ch.lower())
        else:
            out.append(ch)
    return "".join(out).lstrip("_")


def unknown_keys(mapping: dict[str, Any], known: Iterable[str], ignored: Iterable[str] = (),
                 either_case: bool = True) -> list[str]:
    """Keys of ``mapping`` that are neither known nor deliberately ignored, in file order."""
    allowed = set(known) | set(ignored)
    out = []
    for key in mapping:
        name = snake(key) if either_case else key
        if key not in allowed and name not in allowed:
            out.append(key)
    return out


def get(mapping: Any, name: str, *aliases: str, either_case: bool = True) -> tuple[str, Any]:
    """``(key, value)`` of the first present of ``name`` and ``aliases`` (snake or camelCase).

    When none is present the value is None and the key is ``name`` (so paths in warnings still read well).
    """
    if isinstance(mapping, dict):
        for candidate in (name, *aliases):
            if candidate in mapping:
                return candidate, mapping[candidate]
            if either_case:
                alt = camel(candidate)
                if alt in mapping:
                    return alt, mapping[alt]
    return name, None


def has(mapping: Any, name: str, *aliases: str) -> bool:
    """Whether ``mapping`` has ``name`` or an alias, in snake or camelCase (even with a null value)."""
    return isinstance(mapping, dict) and any(k in mapping or camel(k) in mapping for k in (name, *aliases))
