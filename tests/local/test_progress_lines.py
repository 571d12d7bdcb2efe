"""Progress lines from the phases' own log lines: every kind of line verbatim, the counts at their edges, the
width limit, and lines that are not progress."""

from __future__ import annotations

import pytest

from kubectl_testbench.local.progress import WIDTH, Tracker


def said(phase: str | None, lines: list[str], shape: list[int] | None = None) -> list[str]:
    out: list[str] = []
    tracker = Tracker(phase, out.append, (lambda: list(shape)) if shape is not None else list)
    for line in lines:
        tracker.line(line)
    return out


@pytest.mark.parametrize("prefix", ["", "INFO:testbench.run:", "DEBUG:x:", "WARNING:a.b.c:", "ERROR:r:",
                                    "CRITICAL:testbench.run:"])
def test_every_log_level_prefix_or_none(prefix: str) -> None:
    assert said("run", [prefix + "Scenario 'S' started (id=1)"]) == ["  scenario 1: S"]


def test_only_the_first_prefix_is_removed() -> None:
    assert said("run", ["INFO:a:INFO:b:Scenario 'S' started (id=1)"]) == []


def test_scenarios_and_steps_count_against_the_datasets_shape() -> None:
    lines = ["INFO:testbench.run:  Step: before any scenario",
             "INFO:testbench.run:Scenario 'One' started (id=1)",
             "INFO:testbench.run:  Step: a",
             "INFO:testbench.run:  Step: b",
             "INFO:testbench.run:Scenario 'Two' started (id=2)",
             "INFO:testbench.run:  Step: c",
             "INFO:testbench.run:Scenario 'Three' started (id=3)",
             "INFO:testbench.run:  Step: d"]
    assert said("run", lines, [2, 0]) == [
        "    step 1: before any scenario",
        "  scenario 1/2: One", "    step 1/2: a", "    step 2/2: b",
        "  scenario 2/2: Two", "    step 1: c",  # no step count known for it
        "  scenario 3/2: Three", "    step 1: d"]  # more scenarios than the dataset said: no count
    assert said("run", lines[1:3]) == ["  scenario 1: One", "    step 1: a"]


def test_the_datasets_shape_is_read_once() -> None:
    calls: list[int] = []

    def shape() -> list[int]:
        calls.append(1)
        return [1, 1]

    tracker = Tracker("run", lambda _: None, shape)
    for line in ["Scenario 'a' started (id=1)", "  Step: x", "Scenario 'b' started (id=2)", "  Step: y"]:
        tracker.line(line)
    assert calls == [1]


def test_agent_errors_metrics_and_publishing() -> None:
    assert said("run", ["ERROR:testbench.schema.a2a_client:Error querying agent for step 'a': b': c"]) == [
        "    agent error: b': c"]
    assert said("evaluate", ["INFO:testbench.evaluate:Evaluating scenario 'S'",
                             "INFO:testbench.evaluate:  Metric 'M': score=0.5 threshold=0.9 → fail",
                             "INFO:testbench.evaluate:  Metric 'M': score=1 threshold=0.9 ok pass",
                             "INFO:testbench.evaluate:  Metric 'M': score=1 threshold=0.9 → passed",
                             "INFO:testbench.evaluate:  Metric 'N' errored — recording as fail"]) == [
        "  scenario 1: S", "    M: 0.5 (threshold 0.9) fail", "    M: 1 (threshold 0.9) pass",
        "    N: errored (see the step's log)"]
    assert said("publish", ["INFO:testbench.publish:Metrics successfully pushed via OTLP to http://x"]) == [
        "  scores pushed via OTLP"]


def test_lines_of_another_phase_or_no_phase_are_not_progress() -> None:
    assert said("evaluate", ["Scenario 'S' started (id=1)", "  Step: x", "Metrics successfully pushed via OTLP"]) == []
    assert said(None, ["Scenario 'S' started (id=1)", "Evaluating scenario 'S'"]) == []
    assert said("visualize", ["Evaluating scenario 'S'"]) == []


def test_dataset_text_is_escaped_and_cut_to_the_width() -> None:
    exact = "x" * WIDTH
    longer = "y" * (WIDTH + 1)
    assert said("run", [f"Scenario '{exact}' started (id=1)", f"  Step: {longer}"]) == [
        f"  scenario 1: {exact}", "    step 1: " + "y" * (WIDTH - 1) + "…"]
    assert said("evaluate", ["  Metric '\x1b]0;x\x07' errored"]) == ["    \\x1b]0;x\\x07: errored (see the step's log)"]


def test_scores_and_thresholds_are_escaped_like_names() -> None:
    """Every part of a phase's line that is not ours is escaped: ``\\S+`` matches ``##[error]x`` too."""
    assert said("evaluate", ["  Metric '##[group]M': score=##[error]x threshold=##[warning]y → pass"]) == [
        "    ##\\x5bgroup]M: ##\\x5berror]x (threshold ##\\x5bwarning]y) pass"]
