"""kind: which objects are Experiments, and whether this CRD serves their apiVersion.

Reported by ``validate/engine.py`` before an object is checked against the schema.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

KIND_API_VERSION = Rule(
    "kind/api-version", Severity.ERROR, "An Experiment with an apiVersion this CRD does not serve.",
    "The CRD serves one kind, Experiment, at the versions of the testbench.agentic-layer.ai group it lists. An "
    "Experiment with no API group or with a version the CRD does not serve, and an object of that group with "
    "another kind, would be refused by the API server (no matches for kind).",
    hint="use the apiVersion and kind the CRD serves (kubectl testbench crd prints them)",
)
KIND_GROUP = Rule(
    "kind/group", Severity.ERROR,
    "An apiVersion whose group is one slip away from testbench.agentic-layer.ai (did you mean?).",
    "An object of kind Experiment whose API group is a typo of testbench.agentic-layer.ai would otherwise be "
    "skipped as some other product's Experiment, and the file would pass validation having checked nothing. "
    "A group within a slip or two of ours is reported as the mistake it most likely is.",
    hint="correct the group to testbench.agentic-layer.ai",
)
KIND_MISSING = Rule(
    "kind/missing", Severity.ERROR, "An object with apiVersion but no kind: kubectl rejects it.",
    "kubectl needs both apiVersion and kind to find the resource an object belongs to. With the kind missing "
    "the object cannot be applied, and which checks apply to it cannot be known.",
    hint="add kind: Experiment (or the object's kind)",
)
