"""RAGAS metrics the evaluate phase resolves by class name, and the reference data each one needs."""

from __future__ import annotations

RESPONSE = "response"
TOOL_CALLS = "toolCalls"
TOPICS = "topics"
CONTEXTS = "retrievedContexts"

NEEDS: dict[str, tuple[str, ...]] = {
    "AgentGoalAccuracyWithoutReference": (),
    "AgentGoalAccuracyWithReference": (RESPONSE,),
    "AgentGoalAccuracy": (RESPONSE,),
    "ToolCallAccuracy": (TOOL_CALLS,),
    "ToolCallF1": (TOOL_CALLS,),
    "TopicAdherence": (TOPICS,),
    "TopicAdherenceScore": (TOPICS,),
    "Faithfulness": (CONTEXTS,),
    "ResponseGroundedness": (CONTEXTS,),
    "ContextRelevance": (CONTEXTS,),
    "ContextUtilization": (CONTEXTS,),
    "ContextPrecisionWithoutReference": (CONTEXTS,),
    "ContextRecall": (RESPONSE, CONTEXTS),
    "ContextPrecision": (RESPONSE, CONTEXTS),
    "ContextPrecisionWithReference": (RESPONSE, CONTEXTS),
    "ContextEntityRecall": (RESPONSE, CONTEXTS),
    "NoiseSensitivity": (RESPONSE, CONTEXTS),
    "FactualCorrectness": (RESPONSE,),
    "AnswerCorrectness": (RESPONSE,),
    "AnswerAccuracy": (RESPONSE,),
    "SemanticSimilarity": (RESPONSE,),
    "BleuScore": (RESPONSE,),
    "RougeScore": (RESPONSE,),
    "CHRFScore": (RESPONSE,),
    "ExactMatch": (RESPONSE,),
    "StringPresence": (RESPONSE,),
    "NonLLMStringSimilarity": (RESPONSE,),
    "AnswerRelevancy": (),
    "ResponseRelevancy": (),
    "AspectCritic": (),
    "SimpleCriteriaScore": (),
}

OLD_NAMES = {"TopicAdherenceScore": "TopicAdherence", "ResponseRelevancy": "AnswerRelevancy"}
