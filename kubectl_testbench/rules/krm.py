"""krm: the KRM function's own results (``kubectl testbench krm``, for kustomize and kpt).

Reported by ``integrations/krm.py``; findings about the Experiments it reads carry the validate rules.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

KRM_CONFIG = Rule(
    "krm/config", Severity.ERROR, "The KRM function's functionConfig is not valid.",
    "The function reads its settings from a ConfigMap, its own config kind or a RenderDefaults given as "
    "functionConfig. Another kind, data that is not a map of strings, or a setting with an unusable value is "
    "reported instead of being ignored, so that a mistyped setting does not silently change what is rendered.",
    hint="give a ConfigMap (v1) with data, or a RenderDefaults, as the function's config",
    check="kubectl_testbench.integrations.krm:parse_config",
)
KRM_DEFAULTS = Rule(
    "krm/defaults", Severity.ERROR, "A RenderDefaults item passed to the KRM function is not valid.",
    "A RenderDefaults among the items sets the defaults the Experiments are rendered with. A second one, when "
    "one is already in use (as functionConfig or an earlier item), is reported rather than one of them being "
    "chosen silently; problems inside a RenderDefaults carry their own rules.",
    hint="keep one RenderDefaults",
    check="kubectl_testbench.integrations.krm:transform",
)
KRM_INPUT = Rule(
    "krm/input", Severity.ERROR, "An item of the ResourceList is not a Kubernetes object.",
    "The function reads a ResourceList (config.kubernetes.io/v1) whose items are objects. An item that is not an "
    "object, or input that is not a ResourceList at all (a plain stream of manifests), cannot be transformed.",
    hint="run the function from kustomize or kpt, or use kubectl testbench render for plain manifests",
    check="kubectl_testbench.integrations.krm:transform",
)
KRM_SUMMARY = Rule(
    "krm/summary", Severity.INFO, "What the KRM function did: Experiments rendered or validated.",
    "One informational result says how many Experiments the function validated or rendered and into how many "
    "objects, so that a run that found nothing to do is visible in the orchestrator's output.",
    check="kubectl_testbench.integrations.krm:transform",
)
