"""Issue 32: real, published suites (tests/importers/real, attributed in its SOURCES file) imported faithfully.

Each test names the defect of the issue it pins; each failed on the code before the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from importer_helpers import cli, metric_names, run, scenarios, steps

REAL = Path(__file__).resolve().parent / "real"
AGENTV = REAL / "agentv" / "examples" / "features"
AGENTV_OLD = REAL / "agentv-1c2988be" / "examples" / "features"
ADK = REAL / "adk-python" / "tests" / "integration" / "fixture"
STARTER = REAL / "agent-starter-pack" / "agent_starter_pack" / "agents" / "adk" / "tests" / "eval"


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line containing ``needle``."""
    found = [n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in text]
    return found[occurrence - 1]


def all_steps(result: Any) -> list[dict[str, Any]]:
    return [step for scenario in scenarios(result) for step in scenario["steps"]]


def messages(result: Any) -> list[str]:
    return [w.message for w in result.warnings]


# --- defect 1: a message list in vars.input under prompts: "{{ input }}" -----------------------------------


def test_d1_prompts_message_list_becomes_user_turns() -> None:
    suite = AGENTV / "multi-turn-conversation" / "evals" / "suite.yaml"
    result = run("agentv", str(suite))
    assert [s["name"] for s in scenarios(result)] == ["support-context-retention", "support-troubleshooting-flow"]
    first = steps(result, 0)
    assert len(first) == 3 and len(steps(result, 1)) == 3
    assert first[0]["input"].startswith("Hi, my name is Sarah.")
    assert first[2]["input"] == "The express shipping sounds great. Also, can you add gift wrapping?"
    assert not any(s["input"].lstrip().startswith("[") for s in all_steps(result))
    system = line_of(suite, "- role: system")
    assistant = line_of(suite, "- role: assistant")
    located = {(w.line, w.message.split(":")[0]) for w in result.warnings}
    assert (system, "system message is not carried over") in located
    assert (assistant, "scripted assistant turn is not replayed") in located


# --- defect 2: tool-trajectory without args, args_match ignore, subset and superset --------------------------


def test_d2_trajectory_without_args_is_not_args_must_be_empty() -> None:
    suite = AGENTV_OLD / "tool-trajectory-simple" / "evals" / "suite.yaml"
    result = run("agentv", str(suite))
    by_id = {s["name"]: s["steps"][-1] for s in scenarios(result)}
    for step in by_id.values():  # ToolCallAccuracy only where every expected call has its arguments
        if "ToolCallAccuracy" in metric_names(step):
            assert all(call["args"] for call in step["reference"]["toolCalls"])
    for name in ("in-order-pass", "mixed-args-match", "superset-mode", "subset-mode", "skip-args-validation"):
        assert "ToolCallAccuracy" not in metric_names(by_id[name]), name
        assert by_id[name]["customValues"]["toolTrajectory"][0]["expected"], name
    assert "ToolCallAccuracy" in metric_names(by_id["exact-args-match"])
    where = {w.line: w.message for w in result.warnings}
    assert "arguments are not checked" in where[line_of(suite, "- tool: fetchData")]
    assert "mode superset" in where[line_of(suite, "mode: superset")]
    assert "mode subset" in where[line_of(suite, "mode: subset")]
    assert "args_match ignore" in where[line_of(suite, "args_match: ignore")]


# --- defect 3: conversation_id groups results, it does not chain tests ---------------------------------------


def test_d3_conversation_id_keeps_tests_independent() -> None:
    suite = AGENTV / "document-extraction" / "evals" / "field-accuracy.eval.yaml"
    result = run("agentv", str(suite))
    names = [s["name"] for s in scenarios(result)]
    assert names == ["invoice-001", "invoice-002", "invoice-003", "invoice-004", "invoice-005", "invoice-006"]
    assert all(len(s["steps"]) == 1 for s in scenarios(result))
    assert all(s["steps"][0]["customValues"]["conversation_id"] == "document-extraction" for s in scenarios(result))
    assert '"invoice_number": "INV-2025-001234"' in steps(result, 0)[0]["reference"]["response"]


# --- defect 4: file references searched from the eval file's directory up to the repository root -------------


def test_d4_file_reference_found_in_an_ancestor_directory() -> None:
    suite = AGENTV / "basic-jsonl" / "evals" / "suite.yaml"
    result = run("agentv", str(suite))
    first = steps(result, 0)[0]["input"]
    assert '<file path="../basic/evals/javascript.instructions.md">' in first
    assert (AGENTV / "basic" / "evals" / "javascript.instructions.md").read_text().strip()[:40] in first
    rows = (AGENTV / "basic-jsonl" / "evals" / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(scenarios(result)) == len(rows) == 7


def test_d4_missing_file_is_one_error_line(tmp_path: Path) -> None:
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "suite.yaml").write_text('prompts:\n  - "{{ input }}"\ntests:\n  - id: t\n    vars:\n      input:\n'
                                      "        - role: user\n          content:\n            - type: file\n"
                                      "              value: ../nowhere.md\n", encoding="utf-8")
    result = cli("import", "--name", "x", "--agent", "a", "--from", "agentv", str(evals / "suite.yaml"))
    assert result.exit_code == 2
    assert len([line for line in result.stderr.splitlines() if "nowhere.md" in line]) == 1


# --- defect 5: suite.yaml found in directories ---------------------------------------------------------------


def test_d5_directory_import_finds_suite_yaml() -> None:
    result = run("agentv", str(AGENTV / "multi-turn-conversation"))
    assert [Path(s).name for s in result.sources] == ["suite.yaml"]
    assert len(scenarios(result)) == 2


# --- defect 6: default_test: file://... ----------------------------------------------------------------------


def test_d6_default_test_file_is_read() -> None:
    suite = AGENTV / "readme-quickstart" / "evals" / "my-eval.eval.yaml"
    result = run("agentv", str(suite))
    assert result.inline["defaultThreshold"] == 0.8
    default = AGENTV / "readme-quickstart" / "evals" / "default-test.yaml"
    assert any(w.file.endswith("default-test.yaml") and w.line == line_of(default, "rubric_prompt")
               and "rubric_prompt" in w.message for w in result.warnings)


# --- defect 7: ADK rubrics in an eval config named on the command line ---------------------------------------


def test_d7_adk_config_rubrics_are_carried() -> None:
    evalset = STARTER / "evalsets" / "basic.evalset.json"
    config = STARTER / "eval_config.json"
    result = run("adk", str(evalset), config=str(config))
    for step in all_steps(result):
        rubrics = step["customValues"]["rubrics"]
        assert [r["id"] for r in rubrics] == ["relevance", "helpfulness"]
        assert rubrics[0]["text"] == "The response directly addresses the user's query."
        assert metric_names(step)  # still scored by something
    rubric_line = line_of(config, '"rubricId": "relevance"') - 1  # the rubric object opens the line before
    assert any(w.file == str(config) and w.line == rubric_line and "not scored" in w.message
               for w in result.warnings)
    assert result.inline["llmAsAJudgeModel"] == "gemini-3-flash-preview"
    assert not any("test_config.json" in m for m in messages(result))


def test_d7_config_option_on_the_command_line() -> None:
    result = cli("import", "--name", "x", "--agent", "a", "--from", "adk", "--config",
                 str(STARTER / "eval_config.json"), str(STARTER / "evalsets" / "basic.evalset.json"))
    assert result.exit_code == 0, result.stderr
    assert "The response directly addresses the user's query." in result.stdout


# --- defect 8: a step without a metric the source enabled --------------------------------------------------


def test_d8_no_tool_metric_the_source_never_enabled() -> None:
    result = run("adk", str(ADK / "trip_planner_agent" / "trip_inquiry.test.json"))
    for step in all_steps(result):
        assert "ToolCallAccuracy" not in metric_names(step)
        assert metric_names(step) == ["AgentGoalAccuracyWithReference"]
    assert any("response_match_score" in m and "AgentGoalAccuracyWithReference" in m for m in messages(result))


def test_d8_every_step_is_scored_and_says_how() -> None:
    result = run("adk", str(STARTER / "evalsets" / "basic.evalset.json"))
    for step in all_steps(result):
        assert metric_names(step) == ["AgentGoalAccuracyWithoutReference"]
    assert any("AgentGoalAccuracyWithoutReference" in m for m in messages(result))


# --- done when: every case of every collected suite carried faithfully, or reported with location and reason -----


SUITES = [
    ("agentv", AGENTV, {}, 4, 16),
    ("agentv", AGENTV_OLD, {}, 1, 11),
    ("adk", REAL / "adk-python", {}, 1, 1),
    ("adk", REAL / "agent-starter-pack", {"config": str(STARTER / "eval_config.json")}, 1, 2),
]


def test_every_case_of_the_real_suites_is_accounted_for() -> None:
    from kubectl_testbench.integrations.importers.common import CARRIED

    for fmt, root, options, files, cases in SUITES:
        result = run(fmt, str(root), **options)
        assert (len(result.sources), len(result.cases)) == (files, cases), root
        for case in result.cases:
            assert case.line > 0 and Path(case.file).is_file(), case
            if case.status == CARRIED:
                assert case.warnings == ()
            else:  # changed or dropped: every reason is located in the source
                assert case.warnings and all(w.line > 0 and w.message for w in case.warnings), case
        steps_in_cases = sum(case.steps for case in result.cases)
        assert steps_in_cases == result.step_count, root
