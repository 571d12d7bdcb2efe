"""cel: the CRD's x-kubernetes-validations rules, evaluated offline as the API server evaluates them.

Reported by ``validate/engine.py`` (``run_cel``) with the CEL evaluator of ``validate/cel*``; each rule the
models attach to the CRD (``model/cel_rules.py``) has an id of its own, any other rule reports ``cel/rule``.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

CEL_DATASET_EXACTLY_ONE = Rule(
    "cel/dataset-exactly-one", Severity.ERROR, "spec.dataset must set exactly one of s3, url or inline.",
    "A dataset comes from exactly one place: an S3 object, a URL, or inline in the Experiment. The CRD enforces "
    "this with a CEL rule, which the API server evaluates on create and update; with none or several set, the "
    "setup phase would not know what to read.",
    hint="keep one of spec.dataset.inline, spec.dataset.s3 and spec.dataset.url",
)
CEL_RULE = Rule(
    "cel/rule", Severity.ERROR, "A CEL validation rule of the CRD failed.",
    "The CRD carries CEL rules (x-kubernetes-validations) that the API server evaluates on every create and "
    "update. A rule without an id of its own reports its message under this id; the object would be refused.",
    hint="change the value so the rule's message holds",
)
CEL_ERROR = Rule(
    "cel/error", Severity.ERROR, "A CEL validation rule could not be evaluated on this value.",
    "Evaluating a CEL rule on this value failed (a missing field the rule reads, a division by zero, an "
    "overflow). The API server reports such a failure as an invalid value and refuses the object.",
    hint="check the value the rule reads; the message gives the evaluation error",
)
CEL_NOT_EVALUATED = Rule(
    "cel/not-evaluated", Severity.INFO,
    "CEL rules were not checked: the object has blocking schema errors, or a rule needs more cost units on this "
    "document than are evaluated offline.",
    "As the API server does, CEL rules are not evaluated while the object has errors that block them (a missing "
    "required field, a wrong type...): a rule could not rely on the shape it checks. The note says that the "
    "object is not yet known to pass them. A rule whose cost on this document exceeds what is evaluated offline "
    "is left to the server with the same note.",
    hint="correct the other errors and validate again",
)
CEL_COST = Rule(
    "cel/cost", Severity.ERROR,
    "A CEL rule exceeds the API server's cost budget: refused at CRD creation, or stopped at evaluation.",
    "The API server bounds what CEL rules may cost: a rule whose estimated cost is too high makes the CRD itself "
    "be refused, and an evaluation that exceeds the per-call or per-object budget is stopped and the object "
    "refused. Bounding the lists and strings a rule iterates over (maxItems, maxLength) lowers its cost.",
    hint="bound the lists and strings the rule iterates over (maxItems, maxLength), or simplify the rule",
)
