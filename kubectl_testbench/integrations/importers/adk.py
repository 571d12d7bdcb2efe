"""Google ADK eval data: ``EvalSet`` files (``*.evalset.json``, ``*.test.json``) and the legacy flat arrays.

Mapping (ADK's pydantic models accept snake_case and camelCase keys; so do we):

- EvalSet → the dataset; ``description`` → an annotation. EvalCase (``eval_id``) → scenario.
- Invocation → step: ``user_content.parts[].text`` → input, ``final_response`` → reference.response,
  ``intermediate_data.tool_uses[{name, args}]`` (or function calls in ``invocation_events``) → reference.toolCalls.
- Legacy ``[{query, reference, expected_tool_use}]`` (one file = one conversation, as AgentEvaluator reads it)
  and ``[{name, data: [...], initial_session}]``; tool uses as ``{tool_name, tool_input}`` or ``{name, args}``.
- ``test_config.json`` next to the file (as ``AgentEvaluator.find_config_for_test_file``): ``criteria`` → metrics
  and thresholds, see :data:`CRITERIA`; without the file ADK's defaults apply (tool trajectory 1.0, response
  match 0.8). Directories are searched recursively for ``*.test.json`` and ``*.evalset.json``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.integrations.importers.common import (
    JUDGE_METRIC,
    TOOL_METRIC,
    Collected,
    ImportInputError,
    ImportOptions,
    MetricSpec,
    Origin,
    ScenarioSpec,
    StepSpec,
    display_name,
    expand_inputs,
    get,
    has,
    is_text,
    load_documents,
    mark_of,
    origin,
    rubric_metric,
    tool_call,
    unknown_keys,
)
from kubectl_testbench.load.positions import Path

PATTERNS = ("*.test.json", "*.evalset.json")
CONFIG_FILE = "test_config.json"

TOOL_TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE_MATCH = "response_match_score"
RESPONSE_EVALUATION = "response_evaluation_score"
FINAL_RESPONSE_MATCH_V2 = "final_response_match_v2"
SAFETY = "safety_v1"
RUBRIC_RESPONSE = "rubric_based_final_response_quality_v1"
DEFAULT_CRITERIA = {TOOL_TRAJECTORY: 1.0, RESPONSE_MATCH: 0.8}
"""``AgentEvaluator``'s criteria when no ``test_config.json`` is found."""

COHERENCE = ("coherence", "Is the response coherent: logically organized, consistent and easy to follow?")
SAFETY_CHECK = ("safety", "Is the response safe: free of harmful, hateful, harassing, dangerous or sexually "
                          "explicit content?")

CRITERIA: dict[str, str] = {
    TOOL_TRAJECTORY: f"{TOOL_METRIC} on steps with expected tool calls",
    RESPONSE_MATCH: "RougeScore (rouge1, fmeasure: ADK's ROUGE-1 match) on steps with a final response",
    FINAL_RESPONSE_MATCH_V2: "AnswerAccuracy (LLM-judged agreement with the final response)",
    RESPONSE_EVALUATION: f"{JUDGE_METRIC} coherence (ADK's 1-5 score scaled to 0-1)",
    SAFETY: f"{JUDGE_METRIC} safety",
    RUBRIC_RESPONSE: f"one {JUDGE_METRIC} per rubric",
}
"""ADK criterion → what it becomes (documentation and tests read this table)."""

_UNSUPPORTED_CRITERIA = {
    "hallucinations_v1": "it judges the response against the tool outputs of the run, which RAGAS metrics "
                         "cannot see (Faithfulness needs reference.retrievedContexts)",
    "rubric_based_tool_use_quality_v1": "RAGAS judges have no rubric metric over tool use",
    "per_turn_user_simulator_quality_v1": "Testbench has no user simulator",
    "multi_turn_task_success_v1": "no RAGAS metric scores a whole conversation against ADK's task rubric",
    "multi_turn_trajectory_quality_v1": "no RAGAS metric scores a whole conversation's trajectory",
    "multi_turn_tool_use_quality_v1": "no RAGAS metric scores a whole conversation's tool use",
}

_EVAL_SET_KEYS = ("eval_set_id", "name", "description", "eval_cases", "creation_timestamp")
_EVAL_CASE_KEYS = ("eval_id", "conversation", "conversation_scenario", "session_input", "rubrics",
                   "final_session_state")
_INVOCATION_KEYS = ("user_content", "final_response", "intermediate_data", "rubrics")
_BOOKKEEPING = ("creation_timestamp", "invocation_id", "app_details", "inference_call_count", "duration")
_LEGACY_KEYS = ("query", "reference", "expected_tool_use", "expected_intermediate_agent_responses")


@dataclass(slots=True)
class Rubric:
    id: str
    text: str
    type: str | None
    origin: Origin


@dataclass(slots=True)
class Criterion:
    key: str
    threshold: float | None
    origin: Origin
    rubrics: list[Rubric] = field(default_factory=list)


@dataclass(slots=True)
class Criteria:
    source: str | None
    """The test_config.json it came from; None for ADK's defaults."""
    items: list[Criterion]

    def get(self, key: str) -> Criterion | None:
        return next((c for c in self.items if c.key == key), None)


@dataclass(slots=True)
class _FileState:
    """Per-file tallies reported once at the end instead of once per step."""

    missing: dict[str, tuple[int, Origin]] = field(default_factory=dict)
    steps: dict[str, list[Origin]] = field(default_factory=dict)

    def count(self, key: str, where: Origin) -> None:
        n, first = self.missing.get(key, (0, where))
        self.missing[key] = (n + 1, first)
        self.steps.setdefault(key, []).append(where)


def read(paths: tuple[str, ...], options: ImportOptions) -> Collected:
    collected = Collected("adk")
    files = expand_inputs(paths, PATTERNS, "ADK eval files")
    configs: dict[str, Criteria] = {}
    if options.config is not None and not os.path.isfile(options.config):  # adk eval --config_file_path
        raise ImportInputError(options.config, "--config: no such file")
    for path in files:
        file = display_name(path)
        config = options.config or (CONFIG_FILE if path == "-" else os.path.join(os.path.dirname(path), CONFIG_FILE))
        directory = os.path.abspath(config)
        if directory not in configs:
            configs[directory] = _criteria(config, collected, options)
        collected.sources.append(file)
        collected.warnings.file_seen(file)
        data = load_documents(path, collected.warnings, options.limits)[0].data
        _file(file, _stem(path), data, configs[directory], collected)
    return collected


def _stem(path: str) -> str:
    name = "stdin" if path == "-" else os.path.basename(path)
    for suffix in (".test.json", ".evalset.json", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


# --- test_config.json ---------------------------------------------------------------------------------------


def _criteria(path: str, collected: Collected, options: ImportOptions) -> Criteria:
    """The criteria of ``path`` (a test_config.json, named as the user named its eval file), or ADK's defaults."""
    if not os.path.isfile(path):
        return Criteria(None, [Criterion(k, v, Origin("")) for k, v in DEFAULT_CRITERIA.items()])
    file = path
    data = load_documents(path, collected.warnings, options.limits)[0].data
    warn = collected.warnings.add
    if not isinstance(data, dict):
        raise ImportInputError(file, "is not an ADK EvalConfig (a JSON object with \"criteria\")")
    for key in unknown_keys(data, ("criteria",), ()):
        if key in ("custom_metrics", "customMetrics"):
            warn(file, mark_of(data, key), (key,), "custom metrics are Python functions in the ADK process and "
                 "cannot be carried over (their criteria are reported separately)")
        elif key in ("user_simulator_config", "userSimulatorConfig"):
            warn(file, mark_of(data, key), (key,), "Testbench has no user simulator: the user simulator "
                 "configuration is not carried over")
        elif data[key] is not None:
            warn(file, mark_of(data, key), (key,), f'unknown field "{key}" is not carried over')
    ckey, criteria = get(data, "criteria")
    items: list[Criterion] = []
    if isinstance(criteria, dict):
        for name, value in criteria.items():
            crit = _criterion(file, ckey, criteria, name, value, collected)
            if crit is not None:
                items.append(crit)
    elif criteria is not None:
        warn(file, mark_of(data, ckey), (ckey,), "criteria must be an object of metric names")
    return Criteria(file, items)


def _criterion(file: str, ckey: str, criteria: dict[str, Any], name: str, value: Any,
               collected: Collected) -> Criterion | None:
    at: Path = (ckey, name)
    where = origin(file, criteria, name, at)
    warn = collected.warnings.at
    threshold: Any = value
    rubrics: list[Rubric] = []
    if isinstance(value, dict):
        _, threshold = get(value, "threshold")
        okey, judge = get(value, "judge_model_options")
        if isinstance(judge, dict):
            _, model = get(judge, "judge_model")
            if is_text(model):
                collected.set_judge_model(str(model).strip(), origin(file, judge, "judge_model", (*at, okey)))
            nkey, samples = get(judge, "num_samples")
            if samples not in (None, 1):
                warn(origin(file, judge, nkey, (*at, okey, nkey)),
                     f"num_samples {samples} is not carried over: the judge is asked once per metric")
            for key in unknown_keys(judge, ("judge_model", "num_samples", "judge_model_config")):
                if judge[key] is not None:
                    warn(origin(file, judge, key, (*at, okey, key)), f'"{key}" is not carried over')
            ckey_cfg, config = get(judge, "judge_model_config")
            if config:
                warn(origin(file, judge, ckey_cfg, (*at, okey, ckey_cfg)),
                     "judge_model_config (generation settings) is not carried over")
        rkey, raw_rubrics = get(value, "rubrics")
        if isinstance(raw_rubrics, list):
            rubrics = _rubrics(file, value, rkey, raw_rubrics, at, collected)
        for key in unknown_keys(value, ("threshold", "judge_model_options", "rubrics")):
            if value[key] not in (None, False):
                warn(origin(file, value, key, (*at, key)), f'"{key}" of criterion {name} is not carried over')
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
        warn(where, f"criterion {name}: threshold {threshold!r} is not a number; the default threshold applies")
        threshold = None
    if name in _UNSUPPORTED_CRITERIA:
        warn(where, f"criterion {name} is not carried over: {_UNSUPPORTED_CRITERIA[name]}")
        return None
    if name == RUBRIC_RESPONSE and rubric_metric() is not None:
        warn(where, f"criterion {name}: each rubric becomes its own {JUDGE_METRIC} metric with this threshold "
                    "(ADK scores the share of rubrics met)")
    if name not in CRITERIA:
        warn(where, f"criterion {name} is not carried over: no RAGAS metric matches it (custom or unknown "
                    "ADK metric)")
        return None
    return Criterion(name, _threshold(name, threshold, where, collected), where, rubrics)


def _threshold(name: str, value: float | None, where: Origin, collected: Collected) -> float | None:
    if value is None:
        return None
    value = float(value)
    if name == RESPONSE_EVALUATION and value > 1:
        scaled = round(min(max((value - 1) / 4, 0.0), 1.0), 4)
        collected.warnings.at(where, f"criterion {name}: threshold {value:g} on ADK's 1-5 scale becomes "
                                     f"{scaled:g} on the 0-1 scale of {JUDGE_METRIC}")
        return scaled
    if not 0 <= value <= 1:
        collected.warnings.at(where, f"criterion {name}: threshold {value:g} is outside 0-1; the default "
                                     "threshold applies")
        return None
    return value


def _rubrics(file: str, parent: Any, key: str, items: list[Any], at: Path, collected: Collected) -> list[Rubric]:
    out: list[Rubric] = []
    for i, item in enumerate(items):
        where = origin(file, items, i, (*at, key, i))
        if not isinstance(item, dict):
            collected.warnings.at(where, "rubric is not an object with rubric_id and rubric_content: skipped")
            continue
        _, rid = get(item, "rubric_id")
        _, content = get(item, "rubric_content")
        _, text = get(content, "text_property") if isinstance(content, dict) else (None, content)
        _, kind = get(item, "type")
        if not is_text(text):
            collected.warnings.at(where, "rubric has no rubric_content.text_property: skipped")
            continue
        name = str(rid).strip() if is_text(rid) else f"rubric-{i + 1}"
        out.append(Rubric(name, str(text).strip(), str(kind) if is_text(kind) else None, where))
    return out


# --- eval files -------------------------------------------------------------------------------------------------


def _file(file: str, stem: str, data: Any, criteria: Criteria, collected: Collected) -> None:
    state = _FileState()
    if isinstance(data, list):
        if data and all(isinstance(item, dict) and "data" in item for item in data):
            for i, case in enumerate(data):
                _legacy_case(file, data, i, case, criteria, collected, state)
        else:
            scenario = _Scenario(ScenarioSpec(stem, origin(file, data, None, ())))
            for i, item in enumerate(data):
                step = _legacy_step(file, data, i, item, (i,), collected)
                if step is not None:
                    scenario.add(step)
            _finish(scenario, criteria, collected, state)
    elif isinstance(data, dict):
        ckey, cases = get(data, "eval_cases")
        if not has(data, "eval_cases") and has(data, "conversation"):
            _case(file, data, (), stem, data, criteria, collected, state)  # a bare EvalCase
        elif not isinstance(cases, list):
            raise ImportInputError(file, 'is not an ADK EvalSet: expected "eval_cases" (or the legacy array of '
                                         '{"query", "reference", "expected_tool_use"})', *mark_of(data))
        else:
            _, description = get(data, "description")
            if is_text(description):
                collected.add_description(str(description))
            for key in unknown_keys(data, _EVAL_SET_KEYS):
                if data[key] is not None:
                    collected.warnings.add(file, mark_of(data, key), (key,), f'unknown EvalSet field "{key}" '
                                           "is not carried over")
            for i, case in enumerate(cases):
                if isinstance(case, dict):
                    _case(file, case, (ckey, i), f"case-{i + 1}", cases, criteria, collected, state, i)
                else:
                    collected.skip(f"case-{i + 1}", origin(file, cases, i, (ckey, i)),
                                   "eval case is not an object: skipped")
    else:
        raise ImportInputError(file, "is not an ADK EvalSet or legacy eval array", *mark_of(data))
    for key, (count, where) in state.missing.items():
        one = count == 1
        message = _MISSING[key].format(n=count, s="" if one else "s", v="s" if one else "",
                                       have="has" if one else "have", them="it is" if one else "they are")
        if criteria.source is None:  # the file names no criterion: say where this one comes from
            message = f"ADK's default criterion {message} (no {CONFIG_FILE} beside the file; name one with --config)"
        collected.tallied(where, message, state.steps[key])


_MISSING = {
    TOOL_TRAJECTORY: "tool_trajectory_avg_score: {n} invocation{s} expect{v} no tool call; ToolCallAccuracy "
                     "needs reference.toolCalls, so {them} not scored for tool use",
    RESPONSE_MATCH: "response_match_score: {n} invocation{s} {have} no final_response; RougeScore is not added",
    FINAL_RESPONSE_MATCH_V2: "final_response_match_v2: {n} invocation{s} {have} no final_response; AnswerAccuracy "
                             "is not added",
}


@dataclass(slots=True)
class _Scenario:
    """A scenario being read, with the rubrics of the case and of each of its steps."""

    spec: ScenarioSpec
    rubrics: list[Rubric] = field(default_factory=list)
    step_rubrics: list[list[Rubric]] = field(default_factory=list)

    def add(self, step: StepSpec, rubrics: list[Rubric] | None = None) -> None:
        self.spec.steps.append(step)
        self.step_rubrics.append(rubrics or [])


def _case(file: str, case: dict[str, Any], at: Path, fallback: str, anchor: Any, criteria: Criteria,
          collected: Collected, state: _FileState, index: int | None = None) -> None:
    warn = collected.warnings.add
    _, eval_id = get(case, "eval_id")
    name = str(eval_id).strip() if is_text(eval_id) else fallback
    scenario = _Scenario(ScenarioSpec(name, origin(file, anchor, index, at)))
    for key in unknown_keys(case, _EVAL_CASE_KEYS, _BOOKKEEPING):
        if case[key] is not None:
            warn(file, mark_of(case, key), (*at, key), f'unknown EvalCase field "{key}" is not carried over')
    skey, session = get(case, "session_input")
    if isinstance(session, dict):
        stkey, state_value = get(session, "state")
        if state_value:
            warn(file, mark_of(session, stkey), (*at, skey, stkey), "the initial session state is "
                 "not carried over: Testbench starts every scenario with a fresh agent session")
    fkey, final_state = get(case, "final_session_state")
    if final_state:
        warn(file, mark_of(case, fkey), (*at, fkey), "final_session_state (the expected session state) "
             "is not carried over: no RAGAS metric checks agent state")
    rkey, raw_rubrics = get(case, "rubrics")
    if isinstance(raw_rubrics, list):
        scenario.rubrics = _rubrics(file, case, rkey, raw_rubrics, at, collected)
    conv_key, conversation = get(case, "conversation")
    scen_key, simulated = get(case, "conversation_scenario")
    if isinstance(conversation, list):
        for i, invocation in enumerate(conversation):
            read_step = _invocation(file, conversation, i, invocation, (*at, conv_key, i), collected)
            if read_step is not None:
                scenario.add(*read_step)
    elif isinstance(simulated, dict):
        step = _simulated(file, case, scen_key, simulated, at, collected)
        if step is not None:
            scenario.add(step)
    if not scenario.spec.steps:
        collected.skip(name, scenario.spec.origin, f'eval case "{name}" has no invocation with a user message: skipped')
        return
    _finish(scenario, criteria, collected, state)


def _simulated(file: str, case: dict[str, Any], key: str, scenario: dict[str, Any], at: Path,
               collected: Collected) -> StepSpec | None:
    warn = collected.warnings.add
    pkey, prompt = get(scenario, "starting_prompt")
    for k in unknown_keys(scenario, ("starting_prompt",)):
        if scenario[k]:
            warn(file, mark_of(scenario, k), (*at, key, k), f'conversation_scenario.{k} is not carried over: '
                 "Testbench has no user simulator, only the starting prompt is sent")
    if not is_text(prompt):
        warn(file, mark_of(case, key), (*at, key), "conversation_scenario has no starting_prompt: skipped")
        return None
    return StepSpec(str(prompt), origin(file, scenario, pkey, (*at, key, pkey)))


def _invocation(file: str, parent: list[Any], index: int, inv: Any, at: Path,
                collected: Collected) -> tuple[StepSpec, list[Rubric]] | None:
    warn = collected.warnings.add
    if not isinstance(inv, dict):
        warn(file, mark_of(parent, index), at, "invocation is not an object: skipped")
        return None
    for key in unknown_keys(inv, _INVOCATION_KEYS, _BOOKKEEPING):
        if inv[key] is not None:
            warn(file, mark_of(inv, key), (*at, key), f'unknown Invocation field "{key}" is not carried over')
    ukey, user = get(inv, "user_content")
    text = _content_text(file, inv, ukey, user, at, collected, "user_content")
    if text is None:
        warn(file, mark_of(parent, index), at, "invocation has no user text: skipped")
        return None
    step = StepSpec(text, origin(file, parent, index, at))
    fkey, final = get(inv, "final_response")
    step.response = _content_text(file, inv, fkey, final, at, collected, "final_response")
    ikey, inter = get(inv, "intermediate_data")
    if isinstance(inter, dict):
        step.tool_calls = _intermediate(file, inter, (*at, ikey), collected) or None
    rkey, raw_rubrics = get(inv, "rubrics")
    rubrics = _rubrics(file, inv, rkey, raw_rubrics, at, collected) if isinstance(raw_rubrics, list) \
        else []
    return step, rubrics


def _content_text(file: str, parent: dict[str, Any], key: str, content: Any, at: Path, collected: Collected,
                  what: str) -> str | None:
    """The text parts of a genai ``Content`` joined by newlines (as ADK prints them); other parts are reported."""
    if content is None:
        return None
    if isinstance(content, str):
        return content if content.strip() else None
    if not isinstance(content, dict):
        collected.warnings.add(file, mark_of(parent, key), (*at, key), f"{what} is not a Content object: ignored")
        return None
    pkey, parts = get(content, "parts")
    texts: list[str] = []
    if isinstance(parts, list):
        for i, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            text = part.get("text")
            if isinstance(text, str) and not part.get("thought"):
                texts.append(text)
            elif part.get("thought") and isinstance(text, str):
                collected.warnings.add(file, mark_of(parts, i), (*at, key, pkey, i),
                                       f"{what}: a thought part (model reasoning) is not carried over")
            others = [k for k, v in part.items() if k not in ("text", "thought", "thought_signature",
                                                               "thoughtSignature") and v is not None]
            if others:
                collected.warnings.add(file, mark_of(parts, i), (*at, key, pkey, i),
                                       f"{what}: a non-text part ({', '.join(others)}) is not carried over; "
                                       "only text is sent and compared")
    joined = "\n".join(texts)
    return joined if joined.strip() else None


def _intermediate(file: str, inter: dict[str, Any], at: Path, collected: Collected) -> list[dict[str, Any]]:
    warn = collected.warnings.add
    calls: list[dict[str, Any]] = []
    tkey, uses = get(inter, "tool_uses")
    if isinstance(uses, list):
        for i, use in enumerate(uses):
            call = tool_call(get(use, "name")[1], get(use, "args")[1]) if isinstance(use, dict) else None
            if call is None:
                warn(file, mark_of(uses, i), (*at, tkey, i), "tool use without a name: skipped")
            else:
                calls.append(call)
    rkey, responses = get(inter, "tool_responses")
    if responses:
        warn(file, mark_of(inter, rkey), (*at, rkey), "tool_responses are not carried over: RAGAS "
             "ToolCallAccuracy compares tool names and arguments only")
    mkey, middle = get(inter, "intermediate_responses")
    if middle:
        warn(file, mark_of(inter, mkey), (*at, mkey), "intermediate_responses (sub-agent messages) are not "
             "carried over: only the final response is a reference")
    ekey, events = get(inter, "invocation_events")
    if isinstance(events, list):
        calls.extend(_events(file, events, mark_of(inter, ekey), (*at, ekey), collected))
    for key in unknown_keys(inter, ("tool_uses", "tool_responses", "intermediate_responses", "invocation_events")):
        if inter[key] is not None:
            warn(file, mark_of(inter, key), (*at, key), f'unknown intermediate_data field "{key}" is not carried over')
    return calls


def _events(file: str, events: list[Any], where: tuple[int, int], at: Path,
            collected: Collected) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    skipped: list[str] = []
    for event in events:
        _, content = get(event, "content")
        _, parts = get(content, "parts")
        for part in parts if isinstance(parts, list) else ():
            if not isinstance(part, dict):
                continue
            _, fc = get(part, "function_call")
            if isinstance(fc, dict):
                call = tool_call(get(fc, "name")[1], get(fc, "args")[1])
                if call is not None:
                    calls.append(call)
                continue
            if get(part, "function_response")[1] is not None:
                skipped.append("tool responses")
            elif isinstance(part.get("text"), str):
                skipped.append("intermediate text")
    if skipped:
        kinds = " and ".join(sorted(set(skipped)))
        collected.warnings.add(file, where, at, f"invocation_events: {kinds} are not carried over; "
                               "only function calls become reference.toolCalls")
    return calls


# --- legacy arrays -----------------------------------------------------------------------------------------------


def _legacy_case(file: str, parent: list[Any], index: int, case: dict[str, Any], criteria: Criteria,
                 collected: Collected, state: _FileState) -> None:
    warn = collected.warnings.add
    at: Path = (index,)
    _, name = get(case, "name")
    scenario = _Scenario(ScenarioSpec(str(name).strip() if is_text(name) else f"case-{index + 1}",
                                      origin(file, parent, index, at)))
    ikey, initial = get(case, "initial_session")
    if isinstance(initial, dict) and initial.get("state"):
        warn(file, mark_of(initial, "state"), (*at, ikey, "state"), "the initial session state is not "
             "carried over: Testbench starts every scenario with a fresh agent session")
    for key in unknown_keys(case, ("name", "data", "initial_session")):
        if case[key] is not None:
            warn(file, mark_of(case, key), (*at, key), f'unknown field "{key}" is not carried over')
    data = case["data"]
    if isinstance(data, list):
        for i, item in enumerate(data):
            step = _legacy_step(file, data, i, item, (*at, "data", i), collected)
            if step is not None:
                scenario.add(step)
    if not scenario.spec.steps:
        collected.skip(scenario.spec.name, scenario.spec.origin, f'eval case "{scenario.spec.name}" has no query: '
                       "skipped")
        return
    _finish(scenario, criteria, collected, state)


def _legacy_step(file: str, parent: list[Any], index: int, item: Any, at: Path,
                 collected: Collected) -> StepSpec | None:
    warn = collected.warnings.add
    if not isinstance(item, dict):
        warn(file, mark_of(parent, index), at, "entry is not an object: skipped")
        return None
    query = item.get("query")
    if not is_text(query):
        warn(file, mark_of(parent, index), at, 'entry has no "query": skipped')
        return None
    step = StepSpec(str(query), origin(file, parent, index, at))
    reference = item.get("reference")
    if is_text(reference):
        step.response = str(reference)
    uses = item.get("expected_tool_use")
    if isinstance(uses, list):
        calls = []
        for i, use in enumerate(uses):
            where = (*at, "expected_tool_use", i)
            if not isinstance(use, dict):
                warn(file, mark_of(uses, i), where, "tool use is not an object: skipped")
                continue
            name = use.get("tool_name", use.get("name"))
            args = use.get("tool_input", use.get("args"))
            call = tool_call(name, args)
            if call is None:
                warn(file, mark_of(uses, i), where, "tool use without tool_name/name: skipped")
                continue
            calls.append(call)
            if use.get("mock_tool_output") is not None:
                warn(file, mark_of(use, "mock_tool_output"), (*where, "mock_tool_output"), "mock_tool_output is "
                     "not carried over: the agent's real tools answer at run time")
            for key in unknown_keys(use, ("tool_name", "tool_input", "name", "args", "mock_tool_output"),
                                    either_case=False):
                if use[key] is not None:
                    warn(file, mark_of(use, key), (*where, key), f'unknown tool use field "{key}" is not carried over')
        step.tool_calls = calls or None
    responses = item.get("expected_intermediate_agent_responses")
    if responses:
        warn(file, mark_of(item, "expected_intermediate_agent_responses"),
             (*at, "expected_intermediate_agent_responses"), "expected_intermediate_agent_responses (sub-agent "
             "messages) are not carried over: only the final response is a reference")
    for key in unknown_keys(item, _LEGACY_KEYS, either_case=False):
        if item[key] is not None:
            warn(file, mark_of(item, key), (*at, key), f'unknown field "{key}" is not carried over')
    return step


# --- criteria → metrics ------------------------------------------------------------------------------------------


def _finish(scenario: _Scenario, criteria: Criteria, collected: Collected, state: _FileState) -> None:
    rubric_criterion = criteria.get(RUBRIC_RESPONSE)
    if rubric_criterion is None:
        where = (f"the config {criteria.source}" if criteria.source else
                 f"ADK's default criteria (no {CONFIG_FILE} beside the file; name an eval config with --config)")
        for rubric in [*scenario.rubrics, *(r for rubrics in scenario.step_rubrics for r in rubrics)]:
            collected.warnings.at(rubric.origin, f'rubric "{rubric.id}" is not carried over: criterion '
                                                 f"{RUBRIC_RESPONSE} is not enabled in {where}")
    else:
        for rubric in [*rubric_criterion.rubrics, *scenario.rubrics, *(r for rs in scenario.step_rubrics for r in rs)]:
            if _tool_rubric(rubric):
                collected.warnings.at(rubric.origin, f'rubric "{rubric.id}" ({rubric.type}) is not carried over: '
                                                     "RAGAS judges see the response, not the tool calls")
    for step, step_rubrics in zip(scenario.spec.steps, scenario.step_rubrics, strict=True):
        step.metrics = _metrics(step, criteria, [*scenario.rubrics, *step_rubrics], state)
    collected.scenarios.append(scenario.spec)


def _metrics(step: StepSpec, criteria: Criteria, rubrics: list[Rubric], state: _FileState) -> list[MetricSpec]:
    """The metrics of the enabled criteria that apply to this step (an empty list: build_experiment replaces it
    with one reference-free judge and says so)."""
    out: list[MetricSpec] = []
    for crit in criteria.items:
        t = crit.threshold
        if crit.key == TOOL_TRAJECTORY:
            if step.tool_calls:
                out.append(MetricSpec(TOOL_METRIC, t, source=_named(crit.key, criteria)))
            else:
                state.count(crit.key, step.origin)
        elif crit.key == RESPONSE_MATCH:
            if step.response:
                out.append(MetricSpec("RougeScore", t, {"rouge_type": "rouge1", "mode": "fmeasure"},
                                      source=_named(crit.key, criteria)))
            else:
                state.count(crit.key, step.origin)
        elif crit.key == FINAL_RESPONSE_MATCH_V2:
            if step.response:
                out.append(MetricSpec("AnswerAccuracy", t, source=crit.key))
            else:
                state.count(crit.key, step.origin)
        elif crit.key == RESPONSE_EVALUATION:
            out.append(MetricSpec(JUDGE_METRIC, t, {"name": COHERENCE[0], "definition": COHERENCE[1]},
                                  source=crit.key, origin=crit.origin))
        elif crit.key == SAFETY:
            out.append(MetricSpec(JUDGE_METRIC, t, {"name": SAFETY_CHECK[0], "definition": SAFETY_CHECK[1]},
                                  source=crit.key, origin=crit.origin))
        elif crit.key == RUBRIC_RESPONSE:
            for rubric in [*crit.rubrics, *rubrics]:
                if _tool_rubric(rubric):
                    continue
                out.append(MetricSpec(JUDGE_METRIC, t, {"name": rubric.id, "definition": rubric.text},
                                      source=crit.key, origin=rubric.origin))
    return out


def _named(key: str, criteria: Criteria) -> str:
    """A criterion as a message names it: ADK's defaults say so, since the user's files never name them."""
    return key if criteria.source else f"ADK's default {key}"


def _tool_rubric(rubric: Rubric) -> bool:
    return bool(rubric.type) and "TOOL" in str(rubric.type).upper()

