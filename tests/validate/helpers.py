"""A small valid Experiment to mutate in tests."""

from __future__ import annotations

VALID = """apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata:
  name: weather-eval
  namespace: agents
spec:
  agentRef:
    name: weather-agent
  dataset:
    inline:
      defaultThreshold: 0.8
      scenarios:
        - name: Forecast
          steps:
            - input: Will it rain in Berlin tomorrow?
              reference:
                response: It will rain in Berlin tomorrow.
              metrics:
                - metricName: AgentGoalAccuracyWithReference
      llmAsAJudgeModel: gpt-4o-mini
  aiGatewayRef:
    name: ai-gateway
    namespace: ai-gateway
"""


def keep(experiments: bool = False, manifests: bool = False) -> object:
    """What the engine returns besides the findings: the valid Experiments and (as for ``apply``) the objects
    render wrote earlier, as the pipeline asks for them."""
    from kubectl_testbench.validate.engine import Keep

    if not manifests:
        return Keep(experiments=experiments)
    from kubectl_testbench.render.manifests import is_rendered, manifest_problem

    return Keep(experiments=experiments, manifest=is_rendered, manifest_problem=manifest_problem)
