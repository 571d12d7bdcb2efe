"""Run INSIDE the phase environment (``python introspect_metrics.py``): which metrics can the evaluate phase score?

Self-contained (stdlib + the phase package), so kubectl-testbench need not be installed there. It asks the
package's own code rather than re-reading it: ``RagasFrameworkAdapter`` discovers the classes and builds each
metric exactly as evaluate does (``create_callable(name, {}, model)``: a class needing embeddings fails here
as it does there), and ``RagasMetricCallable._build_ragas_params`` shows which ``ascore`` keyword each field of
``step.reference`` feeds. A metric is scorable when it builds and every required ``ascore`` parameter is fed; a
metric that needs no judge is also scored once offline (a missing optional dependency shows up there). No
network request is made: the judge client points at a closed port and is never called. Prints JSON to stdout.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import os
import sys
from typing import Any

os.environ["OPENAI_API_KEY"] = "introspection-only"
os.environ["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from importlib.metadata import version

from testbench.metrics.ragas.adapter import RagasFrameworkAdapter  # type: ignore[import-not-found]
from testbench.schema.models import ExecutedStep, Reference, ToolCall, Turn  # type: ignore[import-not-found]

CAMEL = {"response": "response", "tool_calls": "toolCalls", "topics": "topics",
         "retrieved_contexts": "retrievedContexts"}
"""The phase models' snake_case reference fields and the Experiment CRD's names for them."""
SAMPLE = {"response": "It is sunny in New York.", "tool_calls": [ToolCall(name="get_weather", args={"city": "NY"})],
          "topics": ["weather"], "retrieved_contexts": ["New York: sunny, 21 C."]}
NOT_PARAMETERS = {"self", "llm", "name", "kwargs", "base_kwargs"}


def step(**reference: Any) -> Any:
    turns = [Turn(type="human", content="What is the weather in New York?"),
             Turn(type="agent", content="", tool_calls=[ToolCall(name="get_weather", args={"city": "NY"})]),
             Turn(type="tool", content="sunny"), Turn(type="agent", content="It is sunny in New York.")]
    return ExecutedStep(input="What is the weather in New York?", id="stp_introspection", turns=turns,
                        reference=Reference(**reference) if reference else None)


def required(function: Any) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values()
            if p.default is inspect.Parameter.empty and p.name != "self"
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def main() -> None:
    adapter = RagasFrameworkAdapter()
    classes = adapter.discover_metrics()
    scorable: dict[str, Any] = {}
    unscorable: dict[str, str] = {}
    for name in sorted(classes):
        try:
            metric = adapter.create_callable(name, {}, "judge-model")
        except Exception as exc:  # the evaluate phase fails on exactly this and records score null
            unscorable[name] = "the evaluate phase cannot build it: " + str(exc).splitlines()[0]
            continue
        allowed = getattr(metric._metric, "allowed_values", (0.0, 1.0))
        if isinstance(allowed, tuple) and len(allowed) == 2 and not 0 <= allowed[0] <= allowed[1] <= 1:
            unscorable[name] = (f"it scores on a {allowed[0]:g}-{allowed[1]:g} scale and the phase accepts only "
                                "scores in [0, 1], so every answer above the bottom of the scale gets no score")
            continue
        base = set(metric._build_ragas_params(step()))
        feeds = {field: set(metric._build_ragas_params(step(**{field: SAMPLE[field]}))) - base
                 for field in Reference.model_fields if field in SAMPLE}
        needs: list[str] = []
        missing: list[str] = []
        for param in required(metric._metric.ascore):
            if param in base:
                continue
            fields = [CAMEL[f] for f, keys in feeds.items() if param in keys]
            (needs.extend(fields) if fields else missing.append(param))
        if missing:
            unscorable[name] = (f"its score needs {', '.join(missing)}, which the evaluate phase never passes")
            continue
        judge = "llm" in inspect.signature(classes[name].__init__).parameters
        if not judge:
            full = step(**{f: SAMPLE[f] for f in Reference.model_fields if f in SAMPLE})
            try:
                score = asyncio.run(metric(full)).score
            except Exception as exc:
                unscorable[name] = f"it fails in the phase environment: {type(exc).__name__}: {exc}".splitlines()[0]
                continue
            if not isinstance(score, (int, float)) or math.isnan(score) or not 0 <= score <= 1:
                unscorable[name] = f"it scores {score!r}, outside [0, 1]"
                continue
        parameters = sorted(p for p in inspect.signature(classes[name].__init__).parameters
                            if p not in NOT_PARAMETERS and not p.startswith("_"))
        scorable[name] = {"needs": sorted(set(needs)), "judge": judge, "parameters": parameters}
    json.dump({"package": "agentic-layer-testbench", "version": version("agentic-layer-testbench"),
               "ragas": version("ragas"), "scorable": scorable, "unscorable": unscorable},
              sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
