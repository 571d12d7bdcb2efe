"""The API server's CEL cost budget: a static estimate at CRD creation, a counter at evaluation.

Constants and messages are the API server's (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/
validation/validation.go: StaticEstimatedCostLimit, StaticEstimatedCRDCostLimit, getCostErrorMessage;
k8s.io/apiserver/pkg/apis/cel/config.go: PerCallLimit, RuntimeCELCostBudget; apiextensions-apiserver
pkg/apiserver/schema/cel/validation.go for the runtime messages).

The static estimate is simpler than cel-go's checker but follows the same model: every operation costs
one unit, a comprehension costs its range's worst-case size times its body, string functions cost a tenth
of the string's worst-case length, and collections without maxItems/maxProperties/maxLength take the
worst case the 3 MiB request limit allows. A rule is then multiplied by how many times it can run (the
sizes of the lists it sits in). A quadratic rule over an unbounded list exceeds the budget by far more
than 100x, as on the server.

At evaluation a counter charges one unit per evaluated operation. Besides the server's limits, an offline
limit bounds celpy (which is far slower than cel-go) so that any rule on any document ends well within a
second; a rule stopped by it is reported as not evaluated, never as failed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

STATIC_ESTIMATED_COST_LIMIT = 10_000_000
"""Largest estimated cost of one rule (times its cardinality) the API server accepts in a CRD."""
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000
"""Largest estimated total of all rules of one CRD."""
PER_CALL_LIMIT = 1_000_000
"""Runtime cost limit of one rule evaluation (celconfig.PerCallLimit, ~0.1 s in cel-go)."""
RUNTIME_CEL_COST_BUDGET = 10_000_000
"""Runtime cost budget of all rules on one object (celconfig.RuntimeCELCostBudget)."""
OFFLINE_COST_LIMIT = 10_000
"""Units celpy evaluates well within a second (about 45 µs each on a loaded 2-core machine); beyond it
a rule is reported as not evaluated."""
MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
"""The API server's request size limit, which bounds every unbounded list, map and string."""
MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024

RULE_PATH = "spec.validation.openAPIV3Schema"
COST_HINT = ("try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, "
             "and strings are declared")
CALL_LIMIT_ERROR = "operation cancelled: actual cost limit exceeded"


def cost_error_message(cost_name: str, cost: int, limit: int) -> str:
    """getCostErrorMessage, word for word."""
    factor = cost / limit
    if factor > 100.0:
        text = "more than 100x"
    elif factor < 1.5:
        text = f"{factor:f}x"
    else:
        text = f"{factor:.1f}x"
    return f"{cost_name} exceeds budget by factor of {text} ({COST_HINT})"


# --- static estimation -------------------------------------------------------------------------------------

_STRING_FUNCTIONS = frozenset(("contains", "startsWith", "endsWith", "matches", "find", "findAll", "split",
                               "replace", "lowerAscii", "upperAscii", "trim", "indexOf", "lastIndexOf",
                               "substring", "charAt", "reverse", "url", "isURL", "quantity", "isQuantity",
                               "validate"))
_LIST_FUNCTIONS = frozenset(("isSorted", "sum", "min", "max", "join", "indexOf", "lastIndexOf", "size"))
_MACROS = frozenset(("all", "exists", "exists_one", "map", "filter"))
_PASS = frozenset(("expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                   "unary", "member", "primary", "exprlist"))

Schema = dict[str, Any]


def min_serialized_size(schema: Schema | None) -> int:
    """The fewest bytes a value of this schema takes in JSON (as the server's MaxElements estimate)."""
    if not schema:
        return 1
    t = schema.get("type")
    if t == "string":
        return 2 + (schema.get("minLength") or 0)
    if t in ("integer", "number"):
        return 1
    if t == "boolean":
        return 4
    return 2  # {} or []


def max_size(schema: Schema | None) -> int:
    """Worst-case number of elements (lists, maps) or characters (strings) of a value of ``schema``."""
    if not schema:
        return 1
    t = schema.get("type")
    if t == "string":
        return int(schema.get("maxLength", MAX_REQUEST_SIZE_BYTES))
    if t == "array":
        if "maxItems" in schema:
            return int(schema["maxItems"])
        return MAX_REQUEST_SIZE_BYTES // (min_serialized_size(schema.get("items")) + 1)
    if t == "object" and isinstance(schema.get("additionalProperties"), dict):
        if "maxProperties" in schema:
            return int(schema["maxProperties"])
        value = min_serialized_size(schema["additionalProperties"])
        return MAX_REQUEST_SIZE_BYTES // (value + 4)
    return 1


def _element(schema: Schema | None) -> Schema | None:
    if not schema:
        return None
    if schema.get("type") == "array":
        items = schema.get("items")
        return items if isinstance(items, dict) else None
    if schema.get("type") == "object" and isinstance(schema.get("additionalProperties"), dict):
        return {"type": "string"}  # comprehensions over maps range over the keys
    return None


def _indexed(schema: Schema | None) -> Schema | None:
    """What ``x[i]`` gives: a list's element, a map's value (a comprehension over a map ranges over its keys)."""
    if schema and schema.get("type") == "object" and isinstance(schema.get("additionalProperties"), dict):
        return dict(schema["additionalProperties"])
    return _element(schema)


def _child(schema: Schema | None, name: str) -> Schema | None:
    if not schema:
        return None
    props = schema.get("properties") or {}
    if name in props:
        return dict(props[name])
    extra = schema.get("additionalProperties")
    return dict(extra) if isinstance(extra, dict) else None


def estimate(ast: Any, schema: Schema) -> int:
    """Worst-case cost of a compiled rule (celpy's Lark tree) with ``self`` of type ``schema``."""
    cost, _ = _cost(ast, {"self": schema})
    return cost


def _cost(tree: Any, scope: dict[str, Schema | None]) -> tuple[int, Schema | None]:
    from lark import Token, Tree

    if isinstance(tree, Token):
        return 0, None
    if not isinstance(tree, Tree):
        return 0, None
    data, children = tree.data, tree.children
    if data in _PASS and len(children) == 1:
        return _cost(children[0], scope)
    if data == "ident":
        return 1, scope.get(str(children[0]))
    if data == "member_dot":
        cost, schema = _cost(children[0], scope)
        return cost + 1, _child(schema, str(children[1]))
    if data == "member_index":
        target_cost, schema = _cost(children[0], scope)
        index_cost, _ = _cost(children[1], scope)
        return target_cost + index_cost + 1, _indexed(schema)
    if data == "member_dot_arg":
        return _method_cost(children, scope)
    if data == "ident_arg":
        name = str(children[0])
        args = [c for c in children[1:] if isinstance(c, Tree)]
        total, arg_schema = 1, None
        for arg in args:
            c, arg_schema = _cost(arg, scope)
            total += c
        if name in _STRING_FUNCTIONS and arg_schema is not None:
            total += math.ceil(0.1 * max_size(arg_schema))
        return total, None
    total = 1
    for child in children:
        c, _ = _cost(child, scope)
        total += c
    return total, None


def _method_cost(children: list[Any], scope: dict[str, Schema | None]) -> tuple[int, Schema | None]:
    from lark import Tree

    target, name = children[0], str(children[1])
    args = children[2].children if len(children) > 2 and isinstance(children[2], Tree) else []
    target_cost, schema = _cost(target, scope)
    if name in _MACROS and len(args) == 2:
        var = _ident_name(args[0])
        size = max_size(schema)
        body_cost, _ = _cost(args[1], {**scope, var: _element(schema)})
        result: Schema | None = schema if name in ("map", "filter") else None
        return _saturate(target_cost + size * (body_cost + 1)), result
    total = target_cost + 1
    for arg in args:
        c, _ = _cost(arg, scope)
        total += c
    if name in _STRING_FUNCTIONS and schema and schema.get("type") == "string":
        total += math.ceil(0.1 * max_size(schema))
    elif name in _LIST_FUNCTIONS and schema and schema.get("type") == "array":
        total += max_size(schema)
    return _saturate(total), None


def _ident_name(tree: Any) -> str:
    from lark import Token, Tree

    while isinstance(tree, Tree):
        tree = tree.children[0] if tree.children else None
    return str(tree) if isinstance(tree, Token) else ""


def _saturate(cost: int) -> int:
    return min(cost, 2**64 - 1)


@dataclass(frozen=True, slots=True)
class CostFinding:
    """A rule (or the whole CRD) the API server would refuse at CRD creation."""

    path: str
    """Where the server reports it (``spec.validation.openAPIV3Schema.properties[spec]...rule``)."""
    message: str
    schema_path: tuple[str, ...] = ()
    """The rule's node in the document (``spec``, ``dataset``), or () for the CRD total."""


def check_schema(schema: Schema, compile_rule: Any) -> list[CostFinding]:
    """What the API server says about the cost of every rule in ``schema`` (an openAPIV3Schema).

    ``compile_rule`` gives a rule's AST, or None for a rule that does not compile."""
    findings: list[CostFinding] = []
    total = 0

    def walk(node: Schema, server_path: str, doc_path: tuple[str, ...], cardinality: int) -> None:
        nonlocal total
        for i, spec in enumerate(node.get("x-kubernetes-validations", ())):
            ast = compile_rule(spec["rule"])
            if ast is None:  # a rule that does not compile is refused for that, and costs nothing
                continue
            raw = estimate(ast, node)
            cost = _saturate(raw * cardinality)
            where = f"{server_path}.x-kubernetes-validations[{i}].rule"
            if cost > STATIC_ESTIMATED_COST_LIMIT:
                findings.append(CostFinding(where, "Forbidden: " + cost_error_message(
                    "estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT), doc_path))
            total = _saturate(total + cost)
        for name, child in (node.get("properties") or {}).items():
            walk(child, f"{server_path}.properties[{name}]", (*doc_path, name), cardinality)
        items = node.get("items")
        if isinstance(items, dict):
            walk(items, f"{server_path}.items", doc_path, _saturate(cardinality * max_size(node)))
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            walk(extra, f"{server_path}.additionalProperties", doc_path, _saturate(cardinality * max_size(node)))

    walk(schema, RULE_PATH, (), 1)
    if total > STATIC_ESTIMATED_CRD_COST_LIMIT:
        findings.append(CostFinding(RULE_PATH, "Forbidden: " + cost_error_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total,
            STATIC_ESTIMATED_CRD_COST_LIMIT)))
    return findings


def rule_locations(schema: Schema, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], int]]:
    """Every rule of ``schema`` as (schema path, index)."""
    found = [(path, i) for i in range(len(schema.get("x-kubernetes-validations", ())))]
    for name, child in (schema.get("properties") or {}).items():
        found.extend(rule_locations(child, (*path, name)))
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found.extend(rule_locations(schema[key], path))
    return found


# --- runtime counting -----------------------------------------------------------------------------------------


class CostExceeded(BaseException):
    """Evaluation stopped: the per-call limit, the object's budget, or the offline limit was reached.

    A BaseException, so that celpy's ``except Exception`` handlers (which turn errors into CEL error values
    and go on evaluating) cannot swallow it.
    """

    def __init__(self, limit: str, spent: int) -> None:
        super().__init__(limit)
        self.limit = limit
        self.spent = spent


class Meter:
    """Cost units spent by the rules of one object, with the limits of one call."""

    __slots__ = ("budget", "call_start", "offline", "per_call", "spent")

    def __init__(self, budget: int = RUNTIME_CEL_COST_BUDGET, per_call: int = PER_CALL_LIMIT,
                 offline: int = OFFLINE_COST_LIMIT) -> None:
        self.budget, self.per_call, self.offline = budget, per_call, offline
        self.spent = 0
        self.call_start = 0

    def start_call(self) -> None:
        self.call_start = self.spent

    def charge(self) -> None:
        self.spent += 1
        used = self.spent - self.call_start
        if used > self.per_call:
            raise CostExceeded("call", used)
        if used > self.offline:
            raise CostExceeded("offline", used)
        if self.spent > self.budget:
            raise CostExceeded("budget", self.spent)


def metered_runner(environment: Any, ast: Any, functions: dict[str, Any], meter_of: Any) -> Any:
    """A celpy runner whose evaluator charges ``meter_of()`` one unit per evaluated operation."""
    import celpy
    from celpy.evaluation import Evaluator

    class MeteredEvaluator(Evaluator):
        def sub_evaluator(self, ast: Any) -> Any:
            return MeteredEvaluator(ast, activation=self.activation)

        def _visit_tree(self, tree: Any) -> Any:
            if tree.data not in _PASS or len(tree.children) != 1:
                meter_of().charge()
            return super()._visit_tree(tree)

        def macro_has_eval(self, exprlist: Any) -> Any:
            """``has(e.f)`` as cel-go tests it: an error when ``e`` itself cannot be evaluated (``has(self.o.c)``
            with ``o`` absent is "no such key: o"); celpy answers false for any error inside."""
            from celpy.evaluation import CELEvalError

            node = exprlist.children[0] if exprlist.children else None
            while node is not None and getattr(node, "data", "") != "member_dot" and len(node.children) == 1:
                node = node.children[0]
            if node is not None and getattr(node, "data", "") == "member_dot":
                target = self.visit(node.children[0])
                if isinstance(target, CELEvalError):
                    return target
            return super().macro_has_eval(exprlist)

    class MeteredRunner(celpy.InterpretedRunner):
        def evaluate(self, context: Any) -> Any:
            return MeteredEvaluator(ast=self.ast, activation=self.new_activation()).evaluate(context)

    return MeteredRunner(environment, ast, functions)
