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
