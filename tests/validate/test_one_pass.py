"""Every finding in one pass (issue 33): the support-bot walkthrough, findings in the rest of a document that has
schema errors, and the fixes for mistakes that have one meaning.

The walkthrough is the issue's: a misspelled field, a threshold of 90, a six-field cron, ``enabled: yes``, a metric
in the wrong case, no judge model, a duplicate key and ``Europe/Berlim``. One ``validate`` run reports them all;
``fix`` repairs each one that has a single meaning and leaves the decisions (which judge, which gateway) to the user.
"""

from __future__ import annotations

from pathlib import Path

from kubectl_testbench.validate.engine import validate_text
from tests.conftest import run_cli
from tests.validate.helpers import VALID

SUPPORT_BOT = """\
apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata:
  name: support-bot
  namespace: support
spec:
  agentRef:
    name: support-bot
  aiGatewayRef:
    name: ai-gateway
    namespace: ai-gateway
  dataset:
    inline:
      defaultThresold: 0.8
      scenarios:
        - name: Refund
          steps:
            - input: "I want a refund"
              reference:
                response: "Sure, here is how"
              metrics:
                - metricName: AnswerAccuracy
                  threshold: 90
                - metricName: answerAccuracy
  schedule:
    cron: "0 0 2 * * *"
    timezone: Europe/Berlim
  trigger:
    enabled: yes
    enabled: true
"""


def _found(text: str) -> list[tuple[str, str, int]]:
    return [(d.rule, d.path, d.line) for d in validate_text(text, "bot.yaml").diagnostics]


def test_one_validate_run_reports_every_mistake() -> None:
    inline = "spec.dataset.inline"
    metrics = f"{inline}.scenarios[0].steps[0].metrics"
    assert _found(SUPPORT_BOT) == [
        ("semantic/no-judge-model", inline, 13),  # hidden by the schema errors under spec.dataset before
        ("schema/unknown-field", f"{inline}.defaultThresold", 14),
        ("schema/maximum", f"{metrics}[0].threshold", 23),
        ("semantic/unknown-metric", f"{metrics}[1].metricName", 24),  # hidden too
        ("schema/pattern", "spec.schedule.cron", 26),
        ("semantic/timezone", "spec.schedule.timezone", 27),
        ("yaml/yaml11-boolean", "spec.trigger.enabled", 29),  # where `yes` is, not at the later copy
        ("yaml/duplicate-key", "spec.trigger.enabled", 30)]


def test_fix_repairs_every_mistake_with_one_meaning(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(SUPPORT_BOT)
    result = run_cli("fix", str(path))
    fixed = path.read_text()
    assert fixed == (SUPPORT_BOT.replace("defaultThresold", "defaultThreshold")
                     .replace("threshold: 90", "threshold: 0.9")
                     .replace("answerAccuracy", "AnswerAccuracy").replace('"0 0 2 * * *"', '"0 2 * * *"')
                     .replace("Europe/Berlim", "Europe/Berlin").replace("    enabled: yes\n", "")), result.output
    assert _found(fixed) == [("semantic/no-judge-model", "spec.dataset.inline", 13)]  # which judge: the user's call


def test_a_percentage_threshold_gets_the_fraction_as_hint_and_fix() -> None:
    [d] = validate_text(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 85"), "t.yaml").diagnostics
    assert (d.rule, d.hint) == ("schema/maximum", "thresholds are fractions of 1 (a score from 0 to 1): 85 reads as "
                                "a percentage: write 0.85")
    assert d.fix is not None and [e.text for e in d.fix.edits] == ["0.85"]
    [over] = validate_text(VALID.replace("defaultThreshold: 0.8", "defaultThreshold: 850"), "t.yaml").diagnostics
    assert over.fix is None, "above 100 is no percentage: no guess"


def test_a_six_field_cron_loses_its_seconds_only_when_they_are_zero() -> None:
    def fix_of(cron: str) -> list[str]:
        text = VALID + f'  schedule:\n    cron: "{cron}"\n'
        [d] = [d for d in validate_text(text, "t.yaml").diagnostics if d.rule == "schema/pattern"]
        return [e.text for e in d.fix.edits] if d.fix else []

    assert fix_of("0 30 2 * * 1") == ['"30 2 * * 1"']
    assert fix_of("15 30 2 * * 1") == [], "seconds at 15: no five-field cron runs then"


def test_a_timezone_one_slip_away_is_fixed_and_an_ambiguous_one_is_not() -> None:
    def fix_of(zone: str) -> str | None:
        text = VALID + f'  schedule:\n    cron: "0 2 * * *"\n    timezone: {zone}\n'
        [d] = validate_text(text, "t.yaml").diagnostics
        return d.fix.edits[0].text if d.fix and d.fix.edits else None

    assert fix_of("Europe/Berlim") == "Europe/Berlin"
    assert fix_of("europe/berlin") == "Europe/Berlin"
    assert fix_of("Mars/Olympus") is None


def test_a_duplicate_key_names_its_first_copy_and_loses_it_in_fix() -> None:
    text = VALID.replace("    name: weather-agent\n", "    name: old-agent\n    name: weather-agent\n", 1)
    [d] = validate_text(text, "t.yaml").diagnostics
    assert d.message == 'duplicate key "name" (first at line 8, column 5): the later value wins'
    assert d.fix is not None and [(text[e.start:e.end], e.text) for e in d.fix.edits] == [("    name: old-agent\n", "")]
    thrice = VALID.replace("    name: weather-agent\n", "    name: a\n    name: b\n    name: weather-agent\n", 1)
    assert not any(d.fix and d.fix.edits for d in validate_text(thrice, "t.yaml").diagnostics)


def test_a_structural_error_in_one_step_keeps_the_findings_of_the_others() -> None:
    """The broken step is left out; the other step is checked, and no 'no metrics' is concluded from the gap."""
    two_steps = VALID.replace("          steps:\n", "          steps:\n            - input: [not, text]\n"
                              "              metrics:\n                - metricName: AnswerAccuracy\n", 1)
    text = two_steps.replace("AgentGoalAccuracyWithReference", "agentGoalAccuracyWithReference")
    rules = [(r, p) for r, p, _ in _found(text)]
    assert ("schema/type", "spec.dataset.inline.scenarios[0].steps[0].input") in rules
    assert ("semantic/unknown-metric", "spec.dataset.inline.scenarios[0].steps[1].metrics[0].metricName") in rules
    assert not [r for r, p in rules if p.startswith("spec.dataset.inline.scenarios[0].steps[0].metrics")]
    assert "semantic/no-metrics" not in [r for r, _ in rules]


def test_a_tab_indented_key_with_children_is_fixed(tmp_path: Path) -> None:
    """The tab stops the YAML reader, so its finding comes alone; fix repairs it, children or not."""
    path = tmp_path / "tab.yaml"
    path.write_text(VALID.replace("  agentRef:\n", "\tagentRef:\n", 1))
    assert [d.rule for d in validate_text(path.read_text(), "t.yaml").diagnostics] == ["yaml/syntax"]
    result = run_cli("fix", str(path))
    assert path.read_text() == VALID, result.output
    nested = VALID.replace("  agentRef:\n", "\tagentRef:\n", 1).replace("    name: weather-agent\n",
                                                                      "\t\tname: weather-agent\n", 1)
    path.write_text(nested)
    run_cli("fix", str(path))
    assert path.read_text() == VALID


def test_a_quote_left_open_is_reported_where_it_opened() -> None:
    """The value runs on to the next quote lines later, where libyaml fails; the finding points at the quote."""
    text = VALID.replace("name: weather-eval", 'name: "weather-eval', 1) + '  schedule:\n    cron: "0 2 * * *"\n'
    [d] = validate_text(text, "t.yaml").diagnostics
    assert (d.rule, d.line, d.col) == ("yaml/syntax", 4, 9)
    assert d.hint == ('the " opened here is not closed on its line, so the value runs on to the next ", at line '
                      f'{text.count(chr(10))}: close it on line 4: "weather-eval"')
    closed = VALID.replace("name: weather-eval", 'name: "weather-eval" x', 1)
    [other] = validate_text(closed, "t.yaml").diagnostics
    assert other.line == 4 and "opened here" not in other.hint, "a quote closed on its own line is no runaway"


def test_a_threshold_is_read_as_a_percentage_only_where_nothing_else_is_likely() -> None:
    from kubectl_testbench.validate.hints import percent_fraction

    assert [percent_fraction(v) for v in (90, 100, 12.5, 10, 8, 2, 1.5, 1, 0.5, 101, True, "90")] == [
        0.9, 1.0, 0.125, None, None, None, None, None, None, None, None, None]
