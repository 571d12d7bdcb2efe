"""CEL validation rules (``x-kubernetes-validations``) evaluated as the API server does, offline.

``evaluate`` compiles a rule and evaluates it on the projection of ``self`` it observes, remembering
outcomes; ``syntax`` rewrites the CEL syntax celpy lacks, ``library`` adds the Kubernetes CEL libraries,
``cost`` meters evaluation and estimates cost as the server does; ``environment`` builds celpy's parser and
environment, from ``parser_tables`` (Lark tables generated with the package) when they fit; ``shipped``
loads the outcomes generated for the CRD we ship, ``store`` remembers the rest across runs.
"""
