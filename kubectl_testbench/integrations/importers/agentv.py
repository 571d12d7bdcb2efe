"""AgentV eval suites (``EVAL.yaml``, ``*.eval.yaml``, JSONL case files), all three schema generations.

- ``evalcases`` with ``expected_outcome``, ``input_messages``, ``expected_messages``, ``execution.evaluators``;
- ``tests`` with ``criteria``, ``input``, ``expected_output``, ``rubrics``, ``assertions``/``assert``;
- the Promptfoo-style shape: top-level ``prompts``/``providers``, ``default_test`` and ``tests[].vars``
  (prompts are rendered with the vars; providers are not carried over: the Experiment evaluates ``--agent``).

Each user message becomes a step (system messages and scripted assistant turns cannot be replayed and are
reported); tests sharing a ``conversation_id`` become the steps of one scenario. ``criteria`` and every rubric
become an LLM judge (``AspectCritic`` with the text as its definition), ``expected_output`` becomes
reference.response, assertions are mapped where a RAGAS metric fits (:data:`ASSERTIONS`) and reported otherwise.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from kubectl_testbench.integrations.importers.common import (
    JUDGE_METRIC,
    NO_REFERENCE_METRIC,
    RESPONSE_METRIC,
    STDIN,
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
    is_text,
    json_text,
    load_documents,
    mark_of,
    origin,
    plain,
    read_input_text,
    scalar_text,
    tool_call,
)
from kubectl_testbench.load.positions import Path, PosList

PATTERNS = ("suite.yaml", "suite.yml", "*.eval.yaml", "*.eval.yml", "eval.yaml", "eval.yml", "EVAL.yaml", "EVAL.yml",
            "*.EVAL.yaml", "*.EVAL.yml")
"""AgentV's directory discovery (apps/cli/src/commands/eval/shared.ts ``resolveEvalPaths``), and the EVAL.yaml
names of its earlier generations."""

ASSERTIONS: dict[str, str] = {
    "llm-rubric / llm-grader / llm_judge / rubric (with a value or rubrics)": f"one {JUDGE_METRIC} per criterion",
    "plain string": f"{JUDGE_METRIC} with the string as its definition",
    "equals": "ExactMatch, the value becomes reference.response",
    "contains": "StringPresence, the value becomes reference.response (only when no other expected output)",
    "tool-trajectory / tool_trajectory (in_order, exact)": f"{TOOL_METRIC}, expected tools become reference.toolCalls",
}
"""Assertion/evaluator types carried over and what they become; every other type is reported."""

_LLM_GRADERS = frozenset({"llm-rubric", "llm_rubric", "llm-grader", "llm_grader", "llm-judge", "llm_judge",
                          "rubric", "rubrics", "model-graded-closedqa", "g-eval"})
_TRAJECTORY = frozenset({"tool-trajectory", "tool_trajectory", "trajectory:tool-sequence", "trajectory:tool-used"})

_SUITE_KEYS = frozenset({"tests", "evalcases", "description", "threshold", "assert", "assertions", "execution",
                         "prompts", "providers", "default_test", "target", "experiment"})
_SUITE_METADATA = frozenset({"$schema", "name", "version", "author", "tags", "license", "requires", "category",
                             "suite"})
_TEST_KEYS = frozenset({"id", "criteria", "expected_outcome", "input", "input_messages", "expected_output",
                        "expected_messages", "rubrics", "conversation_id", "metadata", "execution", "assert",
                        "assertions", "vars", "threshold", "description"})
_TEMPLATE = re.compile(r"\{\{\s*(?:vars\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_ANY_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)


@dataclass(slots=True)
class _Turn:
    text: str
    origin: Origin


@dataclass(slots=True)
class _Case:
    """One test, ready to become the steps of a scenario."""

    id: str
    origin: Origin
    conversation: str | None
    turns: list[_Turn] = field(default_factory=list)
    response: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    metrics: list[MetricSpec] = field(default_factory=list)
    custom: dict[str, Any] | None = None
    threshold: float | None = None
    response_metric: bool = False
    """A metric that scores reference.response was added by an assertion (no default one needed)."""
    rubric_count: int = 0
    trajectories: list[Any] = field(default_factory=list)
    """Tool checks kept verbatim (customValues.toolTrajectory) because no RAGAS metric scores them as AgentV does."""

    def next_rubric(self) -> str:
        self.rubric_count += 1
        return f"rubric-{self.rubric_count}"


@dataclass(slots=True)
class _Suite:
    """Suite-level context while reading one file."""

    file: str
    directory: str
    collected: Collected
    options: ImportOptions
    graders: list[tuple[Any, Any, Path]] = field(default_factory=list)
    """Suite-level assertions as (container, index, path), appended to every test."""
    prompts: list[tuple[str, Any, Origin]] = field(default_factory=list)
    """Promptfoo-style prompt templates: (id, template: str or messages, origin)."""
    default_vars: dict[str, Any] = field(default_factory=dict)
    promptfoo: bool = False
    test: str = ""
    """The id of the test being read, for warnings about suite-level parts rendered per test."""

    def warn(self, container: Any, key: str | int | None, path: Path, message: str) -> None:
        self.collected.warnings.add(self.file, mark_of(container, key), path, message)


def read(paths: tuple[str, ...], options: ImportOptions) -> Collected:
    collected = Collected("agentv")
    seen_configs: set[str] = set()
    for path in expand_inputs(paths, PATTERNS, "AgentV eval files (EVAL.yaml, *.eval.yaml)"):
        file = display_name(path)
        collected.sources.append(file)
        directory = os.getcwd() if path == STDIN else os.path.dirname(os.path.abspath(path))
        suite = _Suite(file, directory, collected, options)
        _project_config(suite, seen_configs)
        cases = _read_suite(path, suite)
        _scenarios(cases, suite)
    return collected


def _project_config(suite: _Suite, seen: set[str]) -> None:
    """AgentV's project config (``.agentv/config.yaml``, core/loaders/config-loader.ts) is found like a file
    reference; it can name the grader provider (the judge) and test defaults, which are not read: say so once."""
    for root in search_roots(suite.directory):
        config = os.path.join(root, ".agentv", "config.yaml")
        if os.path.isfile(config):
            shown = display_name(os.path.relpath(config))
            if shown not in seen:
                seen.add(shown)
                suite.collected.warnings.add(shown, None, "", "AgentV project config is not read: its defaults "
                                             "(grader provider, tests, eval_patterns) can change how AgentV scores; "
                                             "set the judge with --judge-model")
            return


def _read_suite(path: str, suite: _Suite) -> list[_Case]:
    if path.endswith(".jsonl"):
        rows = _jsonl(path, suite)
        return [_case(item, rows, i, (i,), suite) for i, item in enumerate(rows)]
    data = load_documents(path, suite.collected.warnings, suite.options.limits)[0].data
    if isinstance(data, list):  # a raw case file
        return _cases(data, (), suite)
    if not isinstance(data, dict):
        raise ImportInputError(suite.file, "is not an AgentV eval suite (a mapping with tests)", *mark_of(data))
    return _suite(data, suite)


def _jsonl(path: str, suite: _Suite) -> PosList:
    from kubectl_testbench.load.builder import build

    rows: PosList = PosList((1, 1))
    for number, line in enumerate(read_input_text(path, suite.options.limits).splitlines(), start=1):
        if not line.strip():
            continue
        built = build(line, number - 1, suite.options.limits)
        if built.error is not None:
            raise ImportInputError(suite.file, f"line is not JSON: {built.error.message}", *built.error.mark)
        rows.append(built.data)
        rows.item_marks.append((number, 1))
    return rows


# --- the suite ---------------------------------------------------------------------------------------------------


def _suite(data: dict[str, Any], suite: _Suite) -> list[_Case]:
    c = suite.collected
    description = data.get("description")
    if is_text(description):
        c.add_description(str(description))
    threshold = data.get("threshold")
    limit = _threshold(threshold)
    if limit is not None:
        c.set_default_threshold(limit, origin(suite.file, data, "threshold", ("threshold",)))
    elif threshold is not None:
        suite.warn(data, "threshold", ("threshold",), f"threshold {threshold!r} is not a number between 0 and 1: "
                   "not carried over")
    for key in ("target", "experiment"):
        if data.get(key) is not None:
            suite.warn(data, key, (key,), f"{key} is not carried over: the Experiment evaluates the agent given "
                       "with --agent")
    execution = data.get("execution")
    if isinstance(execution, dict):
        _execution_defaults(execution, ("execution",), suite)
    for key in ("assert", "assertions"):
        graders = data.get(key)
        if isinstance(graders, list):
            suite.graders.extend((graders, i, (key, i)) for i in range(len(graders)))
    _promptfoo(data, suite)
    for key, value in data.items():
        if key in _SUITE_KEYS or key in _SUITE_METADATA or value is None:
            continue
        suite.warn(data, key, (key,), f'"{key}" is not carried over: {_UNSUPPORTED_SUITE.get(key, "unknown field")}')

    if "tests" not in data and "evalcases" not in data:
        raise ImportInputError(suite.file, "is not an AgentV eval suite: it has no tests (or evalcases)",
                               *mark_of(data))
    key = "tests" if "tests" in data else "evalcases"
    tests = data[key]
    if isinstance(tests, str):
        return _referenced_cases(tests, data, key, (key,), suite)
    if not isinstance(tests, list):
        raise ImportInputError(suite.file, f"{key} must be a list of tests", *mark_of(data, key))
    return _cases(tests, (key,), suite)


_UNSUPPORTED_SUITE = {
    "workspace": "Testbench runs the agent as deployed, without a prepared workspace",
    "environment": "Testbench runs the agent as deployed, without a prepared environment",
    "extensions": "lifecycle hooks do not exist in Testbench",
    "env": "set environment variables with spec.env of the Experiment",
    "evaluate_options": "repeats, budgets and concurrency are AgentV run controls",
    "timeout_seconds": "Testbench has no per-case timeout",
    "scenarios": "Promptfoo-style scenario matrices are not supported; list the tests instead",
}


def _execution_defaults(execution: dict[str, Any], at: Path, suite: _Suite) -> None:
    evaluators = execution.get("evaluators")
    if isinstance(evaluators, list):
        suite.graders.extend((evaluators, i, (*at, "evaluators", i)) for i in range(len(evaluators)))
    for key, value in execution.items():
        if key in ("evaluators", "skip_defaults") or value is None:
            continue
        reason = ("the Experiment evaluates the agent given with --agent" if key == "target"
                  else "AgentV run control")
        suite.warn(execution, key, (*at, key), f"execution.{key} is not carried over: {reason}")


def _referenced_cases(ref: str, parent: Any, key: str | int, at: Path, suite: _Suite) -> list[_Case]:
    """``tests: file://cases.yaml`` (or a plain path): YAML, JSON or JSONL case files next to the suite."""
    target = ref[len("file://"):] if ref.startswith("file://") else ref
    if any(ch in target for ch in "*?[") or not target.endswith((".yaml", ".yml", ".json", ".jsonl")):
        suite.warn(parent, key, at, f'case reference "{ref}" is not carried over: only YAML, JSON and JSONL case '
                   "files are read (no globs, CSV or scripts)")
        return []
    found = resolve_reference(target, suite.directory)
    if found is None:
        raise ImportInputError(suite.file, f'case file "{target}" not found (searched as AgentV does: the eval '
                               "file's directory and its parents up to the repository root, then the working "
                               "directory)", *mark_of(parent, key))
    path = os.path.abspath(found)
    inner = _Suite(display_name(os.path.relpath(path)), os.path.dirname(path), suite.collected, suite.options,
                   suite.graders, suite.prompts, suite.default_vars, suite.promptfoo)
    if path.endswith(".jsonl"):
        rows = _jsonl(path, inner)
        return [_case(item, rows, i, (i,), inner) for i, item in enumerate(rows)]
    data = load_documents(path, suite.collected.warnings, suite.options.limits)[0].data
    items = data if isinstance(data, list) else data.get("tests") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ImportInputError(inner.file, "is not a list of AgentV cases", *mark_of(data))
    return _cases(items, (), inner)


def _cases(items: list[Any], at: Path, suite: _Suite) -> list[_Case]:
    out: list[_Case] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            out.extend(_referenced_cases(item, items, i, (*at, i), suite))
        elif isinstance(item, dict):
            out.extend(_expand(item, items, i, (*at, i), suite))
        else:
            suite.collected.skip(f"test-{i + 1}", origin(suite.file, items, i, (*at, i)), "test is not a mapping: "
                                 "skipped")
    return out


# --- Promptfoo-style prompts and vars ---------------------------------------------------------------------------


def _promptfoo(data: dict[str, Any], suite: _Suite) -> None:
    prompts = data.get("prompts")
    providers = data.get("providers")
    default_test = data.get("default_test")
    if prompts is None and providers is None and default_test is None:
        return
    suite.promptfoo = True
    suite.warn(data, None, (), "Promptfoo-style AgentV suite (prompts/providers/vars): prompts are rendered with "
               "each test's vars into the step input; providers, file:// prompts and template filters are not "
               "supported")
    if providers is not None:
        suite.warn(data, "providers", ("providers",), "providers are not carried over: the Experiment evaluates the "
                   "agent given with --agent")
    if isinstance(prompts, str):
        prompts = [prompts]
        container: Any = data
    else:
        container = prompts
    if isinstance(prompts, list):
        for i, prompt in enumerate(prompts):
            at: Path = ("prompts", i)
            where = origin(suite.file, container, i if container is prompts else "prompts", at)
            pid = f"prompt-{i + 1}"
            template: Any = prompt
            if isinstance(prompt, dict):
                pid = str(prompt.get("id") or prompt.get("label") or pid)
                template = prompt.get("prompt", prompt.get("raw", prompt.get("content")))
            if isinstance(template, str) and template.startswith("file://"):
                suite.warn(container, i, at, f'prompt "{template}" is not carried over: file:// prompts are not read')
                continue
            if isinstance(template, (str, list)):
                suite.prompts.append((pid, template, where))
            else:
                suite.warn(container, i, at, "prompt is neither text nor a list of messages: skipped")
    _default_test(data, default_test, suite)


def _default_test(data: dict[str, Any], default_test: Any, suite: _Suite) -> None:
    """``default_test``: inline, or ``file://...`` found as every reference (yaml-parser.ts ``loadDefaultTestFile``).

    Its vars and assertions apply to every test; its ``threshold`` is the pass mark of every test
    (``EvalDefaultTestDefaults``), which is the dataset's defaultThreshold.
    """
    holder: _Suite = suite
    at: Path = ("default_test",)
    if isinstance(default_test, str):
        ref = default_test[len("file://"):] if default_test.startswith("file://") else default_test
        if not default_test.startswith("file://"):
            suite.warn(data, "default_test", at, f'default_test "{default_test}" is not carried over: only '
                       "file:// references are read (ref:// names come from AgentV's config.yaml)")
            return
        found = resolve_reference(ref, suite.directory)
        if found is None:
            raise ImportInputError(suite.file, f'default_test file "{ref}" not found (searched as AgentV does: the '
                                   "eval file's directory and its parents up to the repository root, then the "
                                   "working directory)", *mark_of(data, "default_test"))
        holder = _Suite(display_name(os.path.relpath(found)), os.path.dirname(os.path.abspath(found)),
                        suite.collected, suite.options)
        default_test = load_documents(found, suite.collected.warnings, suite.options.limits)[0].data
        at = ()
        if not isinstance(default_test, dict):
            raise ImportInputError(holder.file, "default_test file must hold a mapping", *mark_of(default_test))
    if not isinstance(default_test, dict):
        return
    dvars = default_test.get("vars")
    if isinstance(dvars, dict):
        suite.default_vars = dict(dvars)
    graders = default_test.get("assert")
    if isinstance(graders, list):
        if holder is suite:
            suite.graders.extend((graders, i, (*at, "assert", i)) for i in range(len(graders)))
        else:
            holder.warn(default_test, "assert", ("assert",), "assertions in a default_test file are not carried over "
                        "yet: move them to the suite's assert")
    threshold = default_test.get("threshold")
    limit = _threshold(threshold)
    if limit is not None:
        suite.collected.set_default_threshold(limit, origin(holder.file, default_test, "threshold", (*at, "threshold")))
    elif threshold is not None:
        holder.warn(default_test, "threshold", (*at, "threshold"), f"threshold {threshold!r} is not a number between "
                    "0 and 1: not carried over")
    options = default_test.get("options")
    if isinstance(options, dict):
        for key, value in options.items():
            if value is None:
                continue
            reason = ("the built-in RAGAS judge prompt is used" if key == "rubric_prompt"
                      else "AgentV run option")
            holder.warn(options, key, (*at, "options", key), f"default_test.options.{key} is not carried over: "
                        f"{reason}")
    for key, value in default_test.items():
        if key not in ("vars", "assert", "threshold", "options") and value is not None:
            holder.warn(default_test, key, (*at, key), f"default_test.{key} is not carried over")


def _expand(test: dict[str, Any], parent: Any, index: int, at: Path, suite: _Suite) -> list[_Case]:
    """A test, once per prompt when the suite has Promptfoo-style prompts."""
    if not suite.prompts or _has_input(test):
        return [_case(test, parent, index, at, suite)]
    out = []
    for pid, template, _ in suite.prompts:
        case = _case(test, parent, index, at, suite, (pid, template))
        if len(suite.prompts) > 1:
            case.id = f"{case.id} [{pid}]"
        out.append(case)
    return out


def _var_holder(test: dict[str, Any], name: str, at: Path, suite: _Suite) -> tuple[Any, str, Path]:
    """Where variable ``name`` is written: the test's vars, else default_test's (for warning positions)."""
    own = test.get("vars")
    if isinstance(own, dict) and name in own:
        return own, name, (*at, "vars", name)
    return suite.default_vars, name, ("default_test", "vars", name)


def _has_input(test: dict[str, Any]) -> bool:
    return any(test.get(k) is not None for k in ("input", "input_messages"))


def _render(text: str, variables: dict[str, Any], used: set[str], where: tuple[Any, Any, Path],
            suite: _Suite) -> str:
    missing: list[str] = []

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            missing.append(name)
            return match.group(0)
        used.add(name)
        value = variables[name]
        if isinstance(value, (dict, list)):
            structured.append(name)
        return value if isinstance(value, str) else scalar_text(value) or json_text(value)

    structured: list[str] = []
    out = _TEMPLATE.sub(sub, text)
    container, key, path = where
    if structured:
        suite.warn(container, key, path, f"structured variable(s) {', '.join(sorted(set(structured)))} inside text "
                   "are written as JSON text (AgentV's template engine would print them its own way)")
    if missing:
        suite.warn(container, key, path, f"template variable(s) {', '.join(sorted(set(missing)))} not defined in "
                   f'the vars of test "{suite.test}": left as written')
    leftover = [m for m in _ANY_TEMPLATE.findall(out) if not _TEMPLATE.fullmatch(m)]
    if leftover:
        suite.warn(container, key, path, f"template expression {leftover[0]} is not rendered (only {{{{ name }}}} "
                   "placeholders are): left as written")
    return out


# --- one test ------------------------------------------------------------------------------------------------------


def _case(test: Any, parent: Any, index: int | None, at: Path, suite: _Suite,
          prompt: tuple[str, Any] | None = None) -> _Case:
    if not isinstance(test, dict):
        raise ImportInputError(suite.file, "test is not a mapping", *mark_of(parent, index))
    tid = scalar_text(test.get("id")) or f"test-{(index or 0) + 1}"
    conversation = scalar_text(test.get("conversation_id"))
    case = _Case(tid, origin(suite.file, parent, index, at), conversation)
    suite.test = tid
    own_vars = test.get("vars")
    variables = {**suite.default_vars, **(own_vars if isinstance(own_vars, dict) else {})}
    used: set[str] = set()

    # input
    if prompt is not None:
        _pid, template = prompt
        whole = _TEMPLATE.fullmatch(template.strip()) if isinstance(template, str) else None
        name = whole.group(1) if whole else ""
        if whole and name in variables and not isinstance(variables[name], str):
            # interpolation.ts interpolateTemplateVars: a template that is one variable is replaced by the value
            # itself, so a message list in vars stays a message list
            used.add(name)
            value = variables[name]
            holder, vkey, vat = _var_holder(test, name, at, suite)
            if isinstance(value, list):
                _messages(value, holder, vkey, vat, case, suite, variables, used, render=False)
            elif value is not None:
                case.turns.append(_Turn(json_text(value), origin(suite.file, holder, vkey, vat)))
                suite.warn(holder, vkey, vat, f'vars.{name} is structured data, not text or messages: sent as '
                           "JSON text")
        elif isinstance(template, str):
            rendered = _render(template, variables, used, (test, "vars", (*at, "vars")), suite)
            case.turns.append(_Turn(rendered, case.origin))
        else:
            _messages(template, template, None, ("prompts",), case, suite, variables, used)
    else:
        key = "input" if test.get("input") is not None else "input_messages"
        value = test.get(key)
        if value is None and "input" in variables:
            value, key = variables["input"], "vars"
            used.add("input")
        if isinstance(value, str):
            text = _render(value, variables, used, (test, key, (*at, key)), suite) if suite.promptfoo else value
            case.turns.append(_Turn(text, origin(suite.file, test, key, (*at, key))))
        elif isinstance(value, list):
            _messages(value, test, key, (*at, key), case, suite, variables, used)
        elif value is not None:
            case.turns.append(_Turn(json_text(value), origin(suite.file, test, key, (*at, key))))
    if not case.turns:
        suite.collected.skip(tid, case.origin, f'test "{tid}" has no user input: skipped')
        return case

    # expected output
    expected_key = "expected_output" if test.get("expected_output") is not None else "expected_messages"
    expected = test.get(expected_key)
    if expected is None and "expected_output" in variables:
        expected, expected_key = variables["expected_output"], "vars"
        used.add("expected_output")
    if expected is not None:
        _expected(expected, test, expected_key, (*at, expected_key), case, suite)

    # criteria, rubrics, threshold
    criteria = test.get("criteria", test.get("expected_outcome"))
    if is_text(criteria):
        ckey = "criteria" if "criteria" in test else "expected_outcome"
        case.metrics.append(_judge("criteria", str(criteria), None, origin(suite.file, test, ckey, (*at, ckey))))
    threshold = test.get("threshold")
    case.threshold = _threshold(threshold)
    if case.threshold is None and threshold is not None:
        suite.warn(test, "threshold", (*at, "threshold"), f"threshold {threshold!r} is not a number between 0 and 1: "
                   "not carried over")
    rubrics = test.get("rubrics")
    if isinstance(rubrics, list):
        _rubric_items(rubrics, (*at, "rubrics"), case, suite)

    # graders: the test's own, then the suite's unless skip_defaults
    execution = test.get("execution")
    skip_defaults = isinstance(execution, dict) and execution.get("skip_defaults") is True
    for key in ("assertions", "assert"):
        graders = test.get(key)
        if isinstance(graders, list):
            for i in range(len(graders)):
                _grader(graders, i, (*at, key, i), case, suite, variables, used)
    if isinstance(execution, dict):
        evaluators = execution.get("evaluators")
        if isinstance(evaluators, list):
            for i in range(len(evaluators)):
                _grader(evaluators, i, (*at, "execution", "evaluators", i), case, suite, variables, used)
        for key, value in execution.items():
            if key not in ("evaluators", "skip_defaults") and value is not None:
                reason = ("the Experiment evaluates the agent given with --agent" if key == "target"
                          else "AgentV run control")
                suite.warn(execution, key, (*at, "execution", key), f"execution.{key} is not carried over: {reason}")
    if not skip_defaults:
        for container, i, path in suite.graders:
            _grader(container, i, path, case, suite, variables, used)

    # metadata and unused vars are carried in customValues
    custom: dict[str, Any] = {}
    if conversation is not None:
        custom["conversation_id"] = conversation
    if is_text(test.get("description")):
        custom["description"] = str(test["description"])
    metadata = test.get("metadata")
    if isinstance(metadata, dict):
        custom.update(plain(metadata))
    elif metadata is not None:
        custom["metadata"] = plain(metadata)
    if case.trajectories:
        custom[TRAJECTORY_KEY] = case.trajectories
    unused = {k: plain(v) for k, v in variables.items() if k not in used}
    if unused:
        custom["vars"] = unused
    case.custom = custom or None

    for key, value in test.items():
        if key not in _TEST_KEYS and value is not None:
            suite.warn(test, key, (*at, key), f'unknown test field "{key}" is not carried over')
    return case


def _messages(messages: list[Any], parent: Any, key: str | None, at: Path, case: _Case, suite: _Suite,
              variables: dict[str, Any], used: set[str], render: bool = True) -> None:
    for i, message in enumerate(messages):
        where = (*at, i)
        if isinstance(message, str):
            message = {"role": "user", "content": message}
        if not isinstance(message, dict):
            suite.warn(messages, i, where, "message is not a mapping: skipped")
            continue
        role = str(message.get("role") or "user")
        text = _content(message.get("content"), message, "content", (*where, "content"), suite)
        if text is None:
            suite.warn(messages, i, where, f"{role} message without content: skipped")
            continue
        if suite.promptfoo and render:
            text = _render(text, variables, used, (messages, i, where), suite)
        if role == "user":
            case.turns.append(_Turn(text, origin(suite.file, messages, i, where)))
        elif role == "system":
            suite.warn(messages, i, where, "system message is not carried over: a Testbench step sends user input "
                       "only; the agent's own instructions apply")
        elif role == "assistant":
            suite.warn(messages, i, where, "scripted assistant turn is not replayed: the agent answers each user "
                       "turn itself")
        else:
            suite.warn(messages, i, where, f"{role} message is not carried over: only user messages are sent")


def _content(content: Any, parent: Any, key: str, at: Path, suite: _Suite, wrap: bool = True) -> str | None:
    """Message content as text: a string, content blocks (text and files, in order) or structured data.

    Files in an input are sent wrapped in ``<file path="...">`` so the agent sees which file it is; files in
    an expected output are the reference text itself (``wrap`` false).
    """
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) and "type" in b for b in content):
        parts: list[str] = []
        for i, block in enumerate(content):
            kind, value = block.get("type"), block.get("value", block.get("text"))
            if kind == "text" and isinstance(value, str):
                parts.append(value)
            elif kind == "file" and is_text(value):
                parts.append(_file_block(str(value), content, i, (*at, i), suite, wrap))
            else:
                suite.warn(content, i, (*at, i), f'content block of type "{kind}" is not carried over: only text and '
                           "files become the input")
        return "\n\n".join(parts) if parts else None
    return json_text(content)


def _file_block(ref: str, parent: Any, index: int, at: Path, suite: _Suite, wrap: bool) -> str:
    """A ``type: file`` block: the file's text, found as AgentV finds it (:func:`resolve_reference`)."""
    path = resolve_reference(ref, suite.directory)
    if path is None:
        raise ImportInputError(suite.file, f'file "{ref}" referenced by the input was not found (searched as AgentV '
                               "does: the eval file's directory and its parents up to the repository root, then "
                               "the working directory)", *mark_of(parent, index))
    text = read_input_text(path, suite.options.limits).rstrip("\n")
    return f'<file path="{ref}">\n{text}\n</file>' if wrap else text


def search_roots(directory: str) -> list[str]:
    """Where AgentV looks for a referenced file (packages/core/src/evaluation/loaders/file-resolver.ts
    ``buildSearchRoots``): the eval file's directory and each parent up to the repository root (the git
    checkout holding the working directory, apps/cli ``findRepoRoot``), the repository root, the working directory."""
    cwd = os.getcwd()
    repo = _repo_root(cwd) or cwd
    roots: list[str] = []
    current = os.path.abspath(directory)
    while True:
        roots.append(current)
        parent = os.path.dirname(current)
        if current == repo or parent == current:
            break
        current = parent
    for extra in (repo, cwd):
        if extra not in roots:
            roots.append(extra)
    return roots


def resolve_reference(ref: str, directory: str) -> str | None:
    """The file ``ref`` names (``file-resolver.ts`` ``resolveFileReference``): an absolute path as it is, then
    the reference without its leading ``/`` under each search root; None when none exists."""
    candidates = [ref] if os.path.isabs(ref) else []
    relative = ref.lstrip("/\\") or ref
    candidates.extend(os.path.join(root, relative) for root in search_roots(directory))
    return next((c for c in candidates if os.path.isfile(c)), None)


def _repo_root(directory: str) -> str | None:
    current = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _expected(expected: Any, parent: Any, key: str, at: Path, case: _Case, suite: _Suite) -> None:
    if isinstance(expected, str):
        case.response = expected if expected.strip() else None
        return
    if isinstance(expected, list) and all(isinstance(m, dict) and "role" in m for m in expected):
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        for i, message in enumerate(expected):
            where = (*at, i)
            role = message.get("role")
            text = _content(message.get("content"), message, "content", (*where, "content"), suite, wrap=False)
            if role == "assistant":
                if text:
                    texts.append(text)
                calls.extend(_expected_calls(message, where, suite))
            elif text or message.get("tool_calls"):
                suite.warn(expected, i, where, f"expected {role} message is not carried over: only the assistant's "
                           "answer and tool calls are references")
        if len(texts) > 1:
            suite.warn(parent, key, at, "several expected assistant messages: the last one is the reference response")
        case.response = texts[-1] if texts else None
        case.tool_calls = calls or None
        return
    case.response = json_text(expected)


def _expected_calls(message: dict[str, Any], at: Path, suite: _Suite) -> list[dict[str, Any]]:
    calls = message.get("tool_calls")
    out: list[dict[str, Any]] = []
    if not isinstance(calls, list):
        return out
    for i, item in enumerate(calls):
        where = (*at, "tool_calls", i)
        if not isinstance(item, dict):
            continue
        call = tool_call(item.get("tool", item.get("name")), item.get("input", item.get("args",
                                                                                        item.get("arguments"))))
        if call is None:
            suite.warn(calls, i, where, "expected tool call without a tool name: skipped")
            continue
        out.append(call)
        if item.get("output") is not None:
            suite.warn(item, "output", (*where, "output"), "expected tool output is not carried over: the agent's "
                       "real tools answer at run time")
    return out


def _rubric_items(items: list[Any], at: Path, case: _Case, suite: _Suite, threshold: float | None = None) -> None:
    for i, item in enumerate(items):
        where = (*at, i)
        default_name = case.next_rubric()
        if isinstance(item, str):
            if item.strip():
                case.metrics.append(_judge(default_name, item, threshold, origin(suite.file, items, i, where)))
            continue
        if not isinstance(item, dict):
            suite.warn(items, i, where, "rubric is neither text nor a mapping: skipped")
            continue
        text = next((item[k] for k in ("outcome", "description", "criteria", "expected_outcome", "value", "text")
                     if is_text(item.get(k))), None)
        if text is None:
            suite.warn(items, i, where, "rubric without an outcome or description: skipped")
            continue
        rid = scalar_text(item.get("id")) or default_name
        min_score = _threshold(item.get("min_score"))
        case.metrics.append(_judge(rid, str(text), min_score if min_score is not None else threshold,
                                   origin(suite.file, items, i, where)))
        weight = item.get("weight")
        if weight is not None and weight != 1 and weight != 1.0:
            suite.warn(item, "weight", (*where, "weight"), f"rubric weight {weight} is not carried over: rubrics are "
                       "not weighted")
        for key in ("score_ranges", "operator"):
            if item.get(key) is not None:
                suite.warn(item, key, (*where, key), f"rubric {key} is not carried over: a rubric is a yes/no "
                           "criterion")
        if item.get("required") is False:
            suite.warn(item, "required", (*where, "required"), "required: false is not carried over: every rubric "
                       "counts")


def _judge(name: str, definition: str, threshold: float | None, where: Origin | None = None) -> MetricSpec:
    """A free-text criterion; build_experiment scores it with a rubric metric or keeps it in customValues."""
    return MetricSpec(JUDGE_METRIC, threshold, {"name": name, "definition": definition.strip()}, origin=where)


def _grader(container: Any, index: int, at: Path, case: _Case, suite: _Suite, variables: dict[str, Any],
            used: set[str]) -> None:
    """One assertion (``assert``/``assertions``) or evaluator (``execution.evaluators``)."""
    item = container[index]
    if isinstance(item, str):
        text = _render(item, variables, used, (container, index, at), suite) if suite.promptfoo else item
        case.metrics.append(_judge(case.next_rubric(), text, None, origin(suite.file, container, index, at)))
        return
    if not isinstance(item, dict):
        suite.warn(container, index, at, "assertion is neither text nor a mapping: skipped")
        return
    kind = str(item.get("type") or "").strip()
    name = scalar_text(item.get("name"))
    limit = _threshold(item.get("threshold"))
    if item.get("negate") is True or kind.startswith("not-"):
        suite.warn(container, index, at, f'negated assertion "{kind}" is not carried over: RAGAS metrics cannot be '
                   "inverted")
        return
    weight = item.get("weight")
    if weight is not None and weight not in (1, 1.0):
        suite.warn(item, "weight", (*at, "weight"), f"assertion weight {weight} is not carried over: every metric "
                   "must pass on its own")
    value = item.get("value", item.get("criteria"))
    if isinstance(value, str) and suite.promptfoo:
        value = _render(value, variables, used, (item, "value", (*at, "value")), suite)
    if kind in _LLM_GRADERS:
        model = item.get("model")
        if is_text(model):
            suite.collected.set_judge_model(str(model).strip(), origin(suite.file, item, "model", (*at, "model")))
        rubrics = item.get("rubrics", value if isinstance(value, list) else None)
        if isinstance(rubrics, list):
            _rubric_items(rubrics, (*at, "rubrics" if "rubrics" in item else "value"), case, suite, limit)
        elif is_text(value):
            default_name = case.next_rubric()
            case.metrics.append(_judge(name or default_name, str(value), limit, origin(suite.file, container, index,
                                                                                       at)))
        elif item.get("prompt") is not None:
            suite.warn(container, index, at, f'{kind} grader "{name or kind}" with a custom prompt is not carried '
                       f"over: {JUDGE_METRIC} needs the criterion as text (use criteria or value)")
        else:
            suite.warn(container, index, at, f'{kind} grader "{name or kind}" has no criterion text: not carried over')
        if is_text(value) and item.get("prompt") is not None:
            suite.warn(item, "prompt", (*at, "prompt"), "custom grader prompt is not carried over: the built-in "
                       f"{JUDGE_METRIC} prompt judges the criterion")
        return
    if kind in ("equals", "contains"):
        expected_text = scalar_text(value)
        metric = "ExactMatch" if kind == "equals" else "StringPresence"
        if expected_text is None:
            suite.warn(container, index, at, f"{kind} assertion without a value: not carried over")
        elif case.response is None or case.response == expected_text:
            case.response = expected_text
            case.metrics.append(MetricSpec(metric, limit))
            case.response_metric = True
        else:
            suite.warn(container, index, at, f'{kind} assertion "{expected_text}" is not carried over: {metric} '
                       "compares with reference.response, which already holds the expected output")
        return
    if kind in _TRAJECTORY:
        _trajectory(item, container, index, at, case, suite, limit)
        return
    label = f'"{kind}"' if kind else "without a type"
    suite.warn(container, index, at, f"assertion {label} is not carried over: no RAGAS metric does what it checks")


TRAJECTORY_KEY = "toolTrajectory"
"""``customValues`` key for tool checks no RAGAS metric can score as AgentV does: the assertions, verbatim."""


def _trajectory(item: dict[str, Any], container: Any, index: int, at: Path, case: _Case, suite: _Suite,
                limit: float | None) -> None:
    """A tool trajectory (packages/core/src/evaluation/graders/tool-trajectory.ts) → ToolCallAccuracy where it
    means the same, else kept verbatim in ``customValues.toolTrajectory`` and reported.

    AgentV: an expected call without ``args`` (or ``args: any``, ``args_match: ignore``) matches any arguments;
    RAGAS ToolCallAccuracy scores 0 when the reference has no arguments and the agent passed some. ``subset``
    and ``superset`` check membership, which no RAGAS metric does.
    """
    kind = str(item.get("type") or "")
    body: Any = item.get("value") if kind.startswith("trajectory:") else item
    if not isinstance(body, dict):
        suite.warn(container, index, at, f'{kind} without a value is not carried over')
        return
    body_at: Path = (*at, "value") if body is not item else at
    mode = str(body.get("mode") or "in_order")
    key = "steps" if "steps" in body else "expected"
    expected = body.get(key)
    if kind == "trajectory:tool-used" or not isinstance(expected, list) or not expected:
        detail = ("tool-used minimums" if kind == "trajectory:tool-used" or body.get("minimums") is not None
                  else "no expected tool list")
        suite.warn(container, index, at, f"tool trajectory with {detail} is kept in customValues.{TRAJECTORY_KEY} "
                   f"but not scored: {TOOL_METRIC} needs the expected calls")
        case.trajectories.append(plain(item))
        return
    level_match = body.get("args_match")
    calls: list[dict[str, Any]] = []
    unchecked: tuple[Any, Any, Path, str] | None = None
    if level_match is not None and level_match not in ("exact", "superset"):
        what = "args_match ignore" if level_match == "ignore" else f"args_match {json_text(level_match)}"
        unchecked = (body, "args_match", (*body_at, "args_match"), what)
    for i, entry in enumerate(expected):
        where = (*body_at, key, i)
        if isinstance(entry, str):
            entry_name: Any = entry
            args: Any = None
            entry_match: Any = None
        elif isinstance(entry, dict):
            entry_name, args, entry_match = entry.get("tool", entry.get("name")), entry.get("args"), \
                entry.get("args_match")
        else:
            continue
        call = tool_call(entry_name, args if isinstance(args, dict) else None)
        if call is None:
            suite.warn(expected, i, where, "expected tool without a name: skipped")
            continue
        calls.append(call)
        if unchecked is None:
            if args is None or args == "any":
                unchecked = (expected, i, where, "no args given" if args is None else "args: any")
            elif entry_match is not None and entry_match not in ("exact", "superset"):
                what = "args_match ignore" if entry_match == "ignore" else f"args_match {json_text(entry_match)}"
                unchecked = (entry, "args_match", (*where, "args_match"), what)
        if isinstance(entry, dict) and entry.get("max_duration_ms") is not None:
            suite.warn(entry, "max_duration_ms", (*where, "max_duration_ms"), "tool latency limits are not carried "
                       "over: RAGAS metrics do not see timings")
    if mode in ("subset", "superset"):
        check = ("only tools from this list are called" if mode == "subset" else
                 "every listed tool is called, others allowed")
        suite.warn(body, "mode", (*body_at, "mode"), f"tool trajectory mode {mode} ({check}) is kept in "
                   f"customValues.{TRAJECTORY_KEY} but not scored: no RAGAS metric checks that")
        case.trajectories.append(plain(item))
        return
    if unchecked is not None:
        parent, pkey, ppath, what = unchecked
        suite.warn(parent, pkey, ppath, f"arguments are not checked here in AgentV ({what}); {TOOL_METRIC} would "
                   "require the agent to pass no arguments: the trajectory is kept in customValues."
                   f"{TRAJECTORY_KEY} but not scored")
        case.trajectories.append(plain(item))
        return
    if mode == "in_order":
        suite.warn(body, "mode" if "mode" in body else None, (*body_at, "mode"), f"mode in_order allows other tool "
                   f"calls between the expected ones; {TOOL_METRIC} expects exactly these calls in this order")
    elif mode == "any_order":
        suite.warn(body, "mode", (*body_at, "mode"), f"mode any_order allows other tool calls; {TOOL_METRIC} "
                   "(strict_order: false) expects exactly these calls, in any order")
    elif mode != "exact":
        suite.warn(body, "mode", (*body_at, "mode"), f'unknown trajectory mode "{mode}": not carried over')
        return
    if case.tool_calls and case.tool_calls != calls:
        suite.warn(container, index, at, "tool trajectory differs from the expected tool calls already given: the "
                   "trajectory's calls are the reference")
    case.tool_calls = calls
    if not any(m.name == TOOL_METRIC for m in case.metrics):
        case.metrics.append(MetricSpec(TOOL_METRIC, limit, {"strict_order": False} if mode == "any_order" else None))


def _threshold(value: Any) -> float | None:
    """``value`` as a threshold when it is a number in 0..1, else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return None


# --- tests → scenarios --------------------------------------------------------------------------------------------


def _scenarios(cases: list[_Case], suite: _Suite) -> None:
    """One scenario per test. ``conversation_id`` only groups AgentV's traces and result rows (orchestrator.ts
    passes it through as ``conversationId``); every test runs in its own session, so it stays its own scenario
    and the id is kept in ``customValues.conversation_id``."""
    for case in cases:
        if not case.turns:
            continue
        scenario = ScenarioSpec(case.id, case.origin)
        suite.collected.scenarios.append(scenario)
        for turn in case.turns[:-1]:
            scenario.steps.append(StepSpec(turn.text, turn.origin, metrics=[], scored=False))
        scenario.steps.append(_last_step(case, case.turns[-1]))


def _last_step(case: _Case, turn: _Turn) -> StepSpec:
    """The step that carries the test's references and metrics."""
    metrics = list(case.metrics)
    if case.response and not case.response_metric:
        metrics.append(MetricSpec(RESPONSE_METRIC))
    if case.tool_calls and not any(m.name == TOOL_METRIC for m in metrics):
        metrics.append(MetricSpec(TOOL_METRIC))
    if not metrics:
        metrics.append(MetricSpec(NO_REFERENCE_METRIC))
    if case.threshold is not None:
        metrics = [m if m.threshold is not None else MetricSpec(m.name, case.threshold, m.parameters) for m in metrics]
    return StepSpec(turn.text, turn.origin, response=case.response, tool_calls=case.tool_calls,
                    custom_values=case.custom, metrics=metrics)

