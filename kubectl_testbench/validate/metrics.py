"""The RAGAS metrics the evaluate phase can score, and the reference data each needs: generated, not typed.

The table comes from the phase package itself (``python -m kubectl_testbench.generate --write metrics``
introspects agentic-layer-testbench in its phase environment; a test checks the committed file against it).
Metric names are class names in ``ragas.metrics.collections``. A class can be there and still never score in
this release (it needs embeddings or ``retrieved_contexts``, which the phase never passes, or a package the
image lacks): those are UNSCORABLE, with the reason.
"""

from __future__ import annotations

import json
from typing import Any

from kubectl_testbench.package_data import GENERATED_DIR

RESPONSE = "response"
TOOL_CALLS = "toolCalls"
TOPICS = "topics"


# a plain path, as crdschema reads the CRD: importlib.resources costs ~4 ms of imports on every start;
# JSON text is UTF-8, and json reads the bytes as such
GENERATED = GENERATED_DIR / "metrics.json"
TABLE: dict[str, Any] = json.loads(GENERATED.read_bytes())
PHASE_PACKAGE = f"{TABLE['package']} {TABLE['version']}"
"""Which release the table describes, for messages."""
NEEDS: dict[str, tuple[str, ...]] = {name: tuple(m["needs"]) for name, m in TABLE["scorable"].items()}
"""Scorable metric → the ``step.reference`` fields it needs (besides the step input and the agent's answer)."""
PARAMETERS: dict[str, tuple[str, ...]] = {name: tuple(m["parameters"]) for name, m in TABLE["scorable"].items()}
UNSCORABLE: dict[str, str] = dict(TABLE["unscorable"])
"""Metric class the phase finds but cannot score → why."""
OLD_NAMES = {"TopicAdherenceScore": "TopicAdherence", "ResponseRelevancy": "AnswerRelevancy"}
"""Names of earlier ragas releases (not in ragas.metrics.collections any more) → today's class."""

ALTERNATIVES = ((TOOL_CALLS, "ToolCallAccuracy"), (TOPICS, "TopicAdherence"), (RESPONSE, "AnswerAccuracy"))
"""Scorable metrics to suggest, by the reference data a step has; without any: the one that needs none."""
DEFAULT_ALTERNATIVE = "AgentGoalAccuracyWithoutReference"


def alternative(reference: dict[str, Any]) -> str:
    """A scorable metric that works with the reference data this step already has."""
    return next((metric for field, metric in ALTERNATIVES if reference.get(field) and metric in NEEDS),
                DEFAULT_ALTERNATIVE)
