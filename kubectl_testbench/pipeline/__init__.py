"""From inputs to results, above ``validate`` and ``render``: the one path every command's files take.

inputs (expand, read, the worker pool) → per file: validate (``validate.engine``) with the RenderDefaults
that apply (defaults: the gateway question) → render the valid Experiments, pass rendered manifests through
(render) → across files: the clash policy and the ``--strict`` policy (policy) → the reporter (cli/validate),
the render sinks (cli/render), the Argo CD plugin (integrations/argocd_app) and the KRM function
(integrations/krm).
"""
