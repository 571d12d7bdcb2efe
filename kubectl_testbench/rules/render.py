"""render: what only compiling many Experiments together, or against their templates, reveals.

Reported by ``pipeline/render.py``, the Argo CD plugin, the KRM function and ``render --resolve``.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

RENDER_DUPLICATE = Rule(
    "render/duplicate", Severity.ERROR,
    "Two Experiments generate an object with the same name, or a rendered manifest in the input differs from "
    "what its Experiment renders.",
    "Generated object names are built from the Experiment's name and namespace, so two different Experiments "
    "can generate the same object (\"a-b\" in \"c\" and \"a\" in \"b-c\"); applied together, one would silently "
    "replace the other. A rendered manifest kept next to its Experiment that no longer matches what the "
    "Experiment renders is stale.",
    hint="rename one of the Experiments, or render the directory again",
    check="kubectl_testbench.pipeline.collisions:duplicate",
)
RENDER_MANIFEST = Rule(
    "render/manifest", Severity.ERROR,
    "A rendered manifest given to apply, diff or prune lacks its name or namespace.",
    "apply, diff and prune take rendered manifests too, and find the objects they act on by kind, namespace "
    "and name. A rendered manifest without them cannot be matched with the cluster.",
    hint="render the directory again",
)
RENDER_RESOLVE = Rule(
    "render/resolve", Severity.ERROR,
    "A rendered TestWorkflow does not resolve against its TestWorkflowTemplates (render --resolve): unknown "
    "template, undeclared or missing config, an expression Testkube cannot evaluate.",
    "render --resolve expands each TestWorkflow with the TestWorkflowTemplates it uses, as Testkube does when the "
    "run starts. A template that does not exist, a config value the template does not declare or does not get, "
    "or an expression Testkube cannot evaluate would fail the run in the cluster; here it fails before apply.",
    hint="install the Testbench templates of the version you render for, or correct the Experiment",
)
