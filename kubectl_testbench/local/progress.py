"""Progress while the phases run: their own log lines, turned into one short line per scenario, step and metric.

The phases log with ``logging.basicConfig`` (``LEVEL:logger:message``): the run phase a line per scenario and
per step, the evaluate phase a line per scenario and per metric. Those messages are matched here; anything
else stays in the step's log file only. Text from the dataset (scenario names, inputs) is shown with control
characters escaped, so it cannot forge terminal or CI log commands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kubectl_testbench.safe_text import escape_controls

_PREFIX = re.compile(r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:")
_PATTERNS: dict[str | None, list[tuple[re.Pattern[str], str]]] = {
    "run": [(re.compile(r"^Scenario '(?P<name>.*)' started \(id="), "scenario"),
            (re.compile(r"^  Step: (?P<text>.*)$"), "step"),
            (re.compile(r"^Error querying agent for step '(?P<text>.*?)': (?P<why>.*)$"), "agent-error")],
    "evaluate": [(re.compile(r"^Evaluating scenario '(?P<name>.*)'$"), "scenario"),
                 (re.compile(r"^  Metric '(?P<metric>.*)': score=(?P<score>\S+) threshold=(?P<threshold>\S+) "
                             r"\S+ (?P<result>pass|fail)$"), "metric"),
                 (re.compile(r"^  Metric '(?P<metric>.*)' errored"), "metric-error")],
    "publish": [(re.compile(r"^Metrics successfully pushed via OTLP"), "published")],
}
WIDTH = 70


@dataclass
class Tracker:
    """Turns one step's log lines into progress lines (``say``); knows the dataset's size when given it."""

    phase: str | None
    say: Callable[[str], None]
    shape: Callable[[], list[int]] = list
    """Steps per scenario of the dataset, read at the first scenario (empty: unknown, counts are left out)."""
    _scenarios: list[int] | None = None
    _scenario: int = -1
    _step: int = -1

    @property
    def scenarios(self) -> list[int]:
        if self._scenarios is None:
            self._scenarios = self.shape()
        return self._scenarios

    def line(self, raw: str) -> None:
        message = _PREFIX.sub("", raw)  # anchored at the start: one prefix at most
        for pattern, kind in _PATTERNS.get(self.phase, []):
            match = pattern.match(message)
            if match is not None:
                self._event(kind, match.groupdict())
                return

    def _event(self, kind: str, found: dict[str, str]) -> None:
        if kind == "scenario":
            self._scenario += 1
            self._step = -1
            total = f"/{len(self.scenarios)}" if self.scenarios else ""
            self.say(f"  scenario {self._scenario + 1}{total}: {_show(found['name'])}")
        elif kind == "step":
            self._step += 1
            steps = self.scenarios[self._scenario] if 0 <= self._scenario < len(self.scenarios) else 0
            total = f"/{steps}" if steps else ""
            self.say(f"    step {self._step + 1}{total}: {_show(found['text'])}")
        elif kind == "agent-error":
            self.say(f"    agent error: {_show(found['why'])}")
        elif kind == "metric":
            self.say(f"    {_show(found['metric'])}: {_show(found['score'])} (threshold {_show(found['threshold'])}) "
                     f"{found['result']}")
        elif kind == "metric-error":
            self.say(f"    {_show(found['metric'])}: errored (see the step's log)")
        elif kind == "published":
            self.say("  scores pushed via OTLP")


def _show(text: str) -> str:
    shown = escape_controls(text)
    return shown if len(shown) <= WIDTH else shown[: WIDTH - 1] + "…"
