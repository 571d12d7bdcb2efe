"""The compile-time checks cel-go makes and celpy does not: a rule's types, checked against the schema.

celpy evaluates CEL dynamically: ``[1,2].isSorted() == 1`` is simply true for it (Python's ``True == 1``),
``self.m.exists(k, k)`` returns a string, ``duration(1)`` is a duration. The API server compiles every rule
with cel-go's type checker first, against types declared by the schema (apiextensions-apiserver's
``SchemaDeclType``), and refuses these as "rule compile error" before any value is seen. This module runs
the subset of those checks that decides verdicts for rules a CRD can hold, on celpy's parse tree:

- the rule must be a bool ("cel expression must evaluate to a bool");
- operators need operands of one type: ``_==_``, ``_!=_``, ``@in``, ``_+_`` … ("found no matching overload
  for '_==_' applied to '(bool, int)'"); ordering compares any two numbers, as Kubernetes enables
  cross-type numeric comparisons;
- ``&&``, ``||``, ``!``, ternary conditions and the predicates of ``all``/``exists`` need a bool, and
  ``exists_one``/``filter`` predicates are reported as cel-go reports its expansion of them;
- fields of an object are declared ("undefined field 'nope'"; an object that keeps unknown fields still
  declares only its properties); list literals are homogeneous;
- literal arguments are checked as cel-go's validators and constant folding check them: ``duration('x')``,
  ``timestamp('x')``, ``matches('[')``, ``int('x')``. Validators (these, and homogeneous literals) run only on a
  rule the type checker accepted, and each reports its refusals in the order of their places, as cel-go does.

Everything the checker cannot type is ``dyn`` and passes: a missing check lets celpy evaluate (and, where it
must, fail at evaluation), it never refuses a rule cel-go accepts. Messages are cel-go's first line, with its
``<input>:line:column`` (its source picture is dropped: findings are one line). The differential test
``tests/oracle/test_cel_oracle.py`` compares them with cel-go itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Schema = dict[str, Any]


@dataclass(frozen=True)
class CelType:
    """A checked type: a primitive name, ``list``/``map`` with parameters, an object with its fields, or dyn."""

    name: str
    params: tuple[CelType, ...] = ()
    fields: Mapping[str, Schema] | None = field(default=None, compare=False, hash=False)
    declared: str = field(default="", compare=False)
    """An object's type name as cel-go shows it: ``selfType<N>.<path>`` (N differs per compile; tests drop it)."""

    def __str__(self) -> str:
        if self.name == "object":
            return self.declared
        if self.name == "list":
            return f"list({self.params[0]})"
        if self.name == "map":
            return f"map({self.params[0]}, {self.params[1]})"
        if self.name == "optional":
            return f"optional_type({self.params[0]})"
        return self.name


DYN = CelType("dyn")
BOOL, INT, UINT, DOUBLE = CelType("bool"), CelType("int"), CelType("uint"), CelType("double")
STRING, BYTES, NULL = CelType("string"), CelType("bytes"), CelType("null")
DURATION, TIMESTAMP = CelType("duration"), CelType("timestamp")
ERROR = CelType("!error!")
_ORDERED = frozenset(("dyn", "int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp", "null",
                      "!error!"))
"""The type of an arithmetic expression cel-go refused: an ordering over it is refused again (a comparison for
equality, or anything over a refused relation, is not)."""
NUMBERS = (INT, UINT, DOUBLE)
_FORMATS = {"duration": DURATION, "date-time": TIMESTAMP, "date": TIMESTAMP, "byte": BYTES}
_CONVERSIONS = {"int": INT, "uint": UINT, "double": DOUBLE, "string": STRING, "bool": BOOL, "bytes": BYTES,
                "duration": DURATION, "timestamp": TIMESTAMP}
_RELATIONS = {"relation_lt": ("<", "_<_"), "relation_le": ("<=", "_<=_"), "relation_gt": (">", "_>_"),
              "relation_ge": (">=", "_>=_"), "relation_eq": ("==", "_==_"), "relation_ne": ("!=", "_!=_"),
              "relation_in": ("in", "@in")}
_ARITHMETIC = {"addition_add": ("+", "_+_"), "addition_sub": ("-", "_-_"), "multiplication_mul": ("*", "_*_"),
               "multiplication_div": ("/", "_/_"), "multiplication_mod": ("%", "_%_")}
_DYN_OPERANDS = {"bool": set(), "string": {"_+_"}, "bytes": {"_+_"}, "list": {"_+_"},
                 "duration": {"_+_", "_-_"}, "timestamp": {"_+_", "_-_"}}
"""The arithmetic operators with an overload for a type, beside an operand of type dyn (the other types: any)."""
_MACROS = frozenset(("has", "all", "exists", "exists_one", "map", "filter", "dyn"))
_KUBERNETES_ONLY = frozenset((
    # declared by the API server's CEL libraries (ip, cidr, semver, strings, two-variable comprehensions,
    # authorizer) but not evaluated here: a call to them is no compile error, whatever celpy makes of it
    "ip", "isIP", "cidr", "isCIDR", "semver", "isSemver", "family", "isUnspecified", "isLoopback",
    "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast", "containsIP", "containsCIDR", "prefixLength",
    "masked", "major", "minor", "patch", "compareTo", "isLessThan", "isGreaterThan", "format", "quote",
    "transformList", "transformMap", "transformMapEntry", "existsOne", "path", "group", "resource", "check",
    "allowed", "reason", "errored", "error", "subresource", "namespace", "name", "serviceAccount",
    "fieldSelector", "labelSelector", "min", "escapeKey"))
QUANTITY = CelType("kubernetes.Quantity")
_STRING_METHODS: dict[str, tuple[tuple[tuple[CelType, ...], ...], CelType]] = {
    # method: (the argument lists it is declared for, its result) on a string receiver (cel-go ext.Strings v2,
    # regex.go); ``reverse`` is not declared for strings in the CRD environment
    "startsWith": (((STRING,),), BOOL), "endsWith": (((STRING,),), BOOL), "contains": (((STRING,),), BOOL),
    "matches": (((STRING,),), BOOL), "lowerAscii": (((),), STRING), "upperAscii": (((),), STRING),
    "trim": (((),), STRING), "charAt": (((INT,),), STRING), "indexOf": (((STRING,), (STRING, INT)), INT),
    "lastIndexOf": (((STRING,), (STRING, INT)), INT), "replace": (((STRING, STRING), (STRING, STRING, INT)), STRING),
    "split": (((STRING,), (STRING, INT)), CelType("list", (STRING,))), "substring": (((INT,), (INT, INT)), STRING),
    "find": (((STRING,),), STRING), "findAll": (((STRING,), (STRING, INT)), CelType("list", (STRING,))),
    "size": (((),), INT),
}
_QUANTITY_METHODS: dict[str, tuple[tuple[tuple[CelType, ...], ...], CelType]] = {
    # quantity.go; ``sign`` is not declared in the CRD environment
    "isGreaterThan": (((QUANTITY,),), BOOL), "isLessThan": (((QUANTITY,),), BOOL),
    "compareTo": (((QUANTITY,),), INT), "isInteger": (((),), BOOL), "asInteger": (((),), INT),
    "asApproximateFloat": (((),), DOUBLE), "add": (((QUANTITY,), (INT,)), QUANTITY),
    "sub": (((QUANTITY,), (INT,)), QUANTITY),
}
_INT_TEXT = {"int": re.compile(r"[+-]?[0-9]+"), "uint": re.compile(r"[0-9]+")}
_DURATION_TEXT = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+|[+-]?0")
_TIMESTAMP_TEXT = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})")


class CheckError(Exception):
    """What cel-go refuses, worded as it words it (one line)."""


def schema_type(schema: Schema, declared: str = "selfType") -> CelType:
    """SchemaDeclType: the CEL type a structural schema node declares (``declared``: its object type name)."""
    if schema.get("x-kubernetes-int-or-string") or schema.get("x-kubernetes-embedded-resource"):
        return DYN
    kind = schema.get("type")
    if kind == "string":
        return _FORMATS.get(str(schema.get("format")), STRING)
    if kind in ("integer", "number", "boolean"):
        return {"integer": INT, "number": DOUBLE, "boolean": BOOL}[kind]
    if kind == "array":
        items = schema.get("items")
        return CelType("list", (schema_type(items, f"{declared}.@idx") if isinstance(items, dict) else DYN,))
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            return CelType("map", (STRING, schema_type(extra, f"{declared}.@elem")))
        props = schema.get("properties")
        return CelType("object", fields=props if isinstance(props, dict) else {}, declared=declared)
    return DYN


def check(source: str, tree: Any, schema: Schema, original: str | None = None) -> None:
    """Raise CheckError where cel-go's compiler refuses ``source`` (parsed by celpy into ``tree``).

    ``original``: the rule as written, when ``source`` is our rewrite of it (:mod:`syntax`): places are
    reported in the text the user wrote."""
    checker, result = _typed(source, tree, schema, original)
    errors = checker.errors or checker.invalid
    if errors:
        raise CheckError("compilation failed: " + " ".join(text for _, text in sorted(errors, key=lambda e: e[0])))
    if checker.folding:
        raise CheckError(checker.folding)
    if result not in (BOOL, DYN):
        raise CheckError("cel expression must evaluate to a bool")


def expression_type(source: str, tree: Any, schema: Schema) -> CelType | None:
    """The type of an expression at a schema node, or None where cel-go refuses it (for messageExpression)."""
    checker, result = _typed(source, tree, schema)
    return None if checker.errors or checker.invalid or checker.folding else result


def _typed(source: str, tree: Any, schema: Schema, original: str | None = None) -> tuple[_Checker, CelType]:
    _place_tokens(source, tree)
    checker = _Checker(source, schema_type(schema), original=original or source)
    return checker, checker.type_of(tree, {})


@dataclass
class _Checker:
    source: str
    self_type: CelType
    original: str = ""
    errors: list[tuple[tuple[int, int], str]] = field(default_factory=list)
    """The type checker's refusals, with their (line, column): cel-go lists them in that order."""
    invalid: list[tuple[tuple[int, int], str]] = field(default_factory=list)
    """What cel-go's validators refuse (constant arguments, mixed literals): they run only on a rule that checked."""
    folding: str = ""
    """Constant folding's first refusal ("program instantiation failed: …"): reported after type errors."""

    def no_overload(self, offset: int, name: str, *types: CelType) -> CelType:
        shown = ", ".join(str(t) for t in types)
        return self.report(offset, f"found no matching overload for '{name}' applied to '({shown})'")

    def report(self, offset: int, message: str, validator: bool = False) -> CelType:
        text = self.original or self.source
        if text != self.source:
            offset = _original_offset(self.source, text, offset)
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        (self.invalid if validator else self.errors).append(
            ((line, column), f"ERROR: <input>:{line}:{column}: {message}"))
        return DYN

    def type_of(self, node: Any, scope: dict[str, CelType]) -> CelType:
        method = getattr(self, f"_{node.data}", None)
        if method is None:
            return DYN
        result: CelType = method(node, scope)
        return result

    # --- structure that only passes a type through -------------------------------------------------------

    def _pass(self, node: Any, scope: dict[str, CelType]) -> CelType:
        return self.type_of(node.children[-1], scope) if len(node.children) == 1 else DYN

    _member = _primary = _paren_expr = _pass

    def _expr(self, node: Any, scope: dict[str, CelType]) -> CelType:
        if len(node.children) == 1:
            return self.type_of(node.children[0], scope)
        cond, then, other = (self.type_of(c, scope) for c in node.children)
        if (cond not in (BOOL, DYN)) or not _same(then, other):
            offset = self._operator(node.children[0], node.children[1], "?")
            return self.no_overload(offset, "_?_:_", cond, then, other)
        return DYN if DYN in (then, other) else then

    def _conditionalor(self, node: Any, scope: dict[str, CelType]) -> CelType:
        return self._logical(node, scope)

    def _conditionaland(self, node: Any, scope: dict[str, CelType]) -> CelType:
        return self._logical(node, scope)

    def _logical(self, node: Any, scope: dict[str, CelType]) -> CelType:
        if len(node.children) == 1:
            return self.type_of(node.children[0], scope)
        for child in node.children:
            found = self.type_of(child, scope)
            if found not in (BOOL, DYN):
                self.report(self.position(child), f"expected type 'bool' but found '{found}'")
        return BOOL

    def _relation(self, node: Any, scope: dict[str, CelType]) -> CelType:
        if len(node.children) == 1:
            return self.type_of(node.children[0], scope)
        op_node, right_node = node.children
        left_node = op_node.children[0]
        left, right = self.type_of(left_node, scope), self.type_of(right_node, scope)
        text, name = _RELATIONS[op_node.data]
        if ERROR in (left, right):
            other = right if left == ERROR else left
            if name in ("_==_", "_!=_", "@in") or other.name in _ORDERED:
                return DYN  # the refused operand may still be of a type this comparison takes
        elif self._relation_ok(name, left, right):
            return BOOL
        return self.no_overload(self._operator(left_node, right_node, text), name, left, right)

    def _relation_ok(self, name: str, left: CelType, right: CelType) -> bool:
        if name == "@in":
            if right.name in ("list", "map"):  # a list's element or a map's key
                return _same(left, right.params[0])
            return right == DYN  # not a string, an object or an optional
        if not _known(left, right):
            return True
        if name in ("_==_", "_!=_"):
            return _same(left, right) or (NULL in (left, right) and _nullable(left if right == NULL else right))
        if left in NUMBERS and right in NUMBERS:
            return True
        if NULL in (left, right) and (left if right == NULL else right) in (DURATION, TIMESTAMP, NULL):
            return True  # null stands for a well-known type: it compiles; evaluating it finds no overload
        return left == right and left.name in ("string", "bytes", "bool", "duration", "timestamp")  # (numbers: above)

    def _arithmetic(self, node: Any, scope: dict[str, CelType]) -> CelType:
        if len(node.children) == 1:
            return self.type_of(node.children[0], scope)
        op_node, right_node = node.children
        left_node = op_node.children[0]
        left, right = self.type_of(left_node, scope), self.type_of(right_node, scope)
        text, name = _ARITHMETIC[op_node.data]
        if not _known(left, right):
            other = right if left == DYN else left
            if other in NUMBERS or (name == "_+_" and other.name in ("string", "bytes", "list")):
                return other  # only that type's overload can match (dyn * 2 is an int, dyn + [1] a list(int))
            if name not in _DYN_OPERANDS.get(other.name, {name}):
                self.no_overload(self._operator(left_node, right_node, text), name, left, right)
                return ERROR
            return DYN
        result = _arithmetic_result(name, left, right)
        if result is None:
            self.no_overload(self._operator(left_node, right_node, text), name, left, right)
            return ERROR
        return result

    _addition = _multiplication = _arithmetic

    def _unary(self, node: Any, scope: dict[str, CelType]) -> CelType:
        if len(node.children) == 1:
            return self.type_of(node.children[0], scope)
        op, operand = node.children
        found = self.type_of(operand, scope)
        if op.data == "unary_not":
            if found not in (BOOL, DYN):
                return self.no_overload(_start(op), "!_", found)
            return BOOL
        if found not in (INT, DOUBLE, DYN):
            return self.no_overload(_start(op), "-_", found)
        return found

    # --- names, fields, calls ----------------------------------------------------------------------------

    def _ident(self, node: Any, scope: dict[str, CelType]) -> CelType:
        name = str(node.children[0])
        if name in scope:
            return scope[name]
        return self.self_type if name == "self" else DYN

    def _member_dot(self, node: Any, scope: dict[str, CelType]) -> CelType:
        target_node, name_token = node.children
        target = self.type_of(target_node, scope)
        name = str(name_token)
        if target.fields is not None:  # an object (only objects declare fields)
            declared = target.fields.get(name)
            if not isinstance(declared, dict):
                return self.report(self.source.rfind(".", 0, name_token.start_pos),
                                   f"undefined field '{name}'")
            return schema_type(declared, f"{target.declared}.{name}")
        if target.name == "map":
            return target.params[1]
        return DYN

    def _member_index(self, node: Any, scope: dict[str, CelType]) -> CelType:
        target = self.type_of(node.children[0], scope)
        self.type_of(node.children[1], scope)
        if target.name == "list":
            return target.params[0]
        if target.name == "map":
            return target.params[1]
        return DYN

    def _member_dot_arg(self, node: Any, scope: dict[str, CelType]) -> CelType:
        target_node, name_token = node.children[0], node.children[1]
        args = list(node.children[2].children) if len(node.children) > 2 else []
        name = str(name_token)
        paren = self.source.find("(", name_token.end_pos)
        target = self.type_of(target_node, scope)
        if name == "optSelect" and len(args) == 1:
            return self._optional_select(target, args[0], node)
        if name in ("all", "exists", "exists_one", "filter", "map") and args and _is_ident(args[0]):
            return self._macro(name, target, args, scope, paren)
        found = [self.type_of(a, scope) for a in args]
        if target != DYN and not _declared(name):
            return self.report(paren, f"undeclared reference to '{name}' (in container '')")
        if name in ("matches", "find", "findAll") and args:
            self._literal_pattern(args[0], name)
        result = _method_result(name, target, found)
        if result is None:
            shown = ", ".join(str(t) for t in found)
            return self.report(paren, f"found no matching overload for '{name}' applied to '{target}.({shown})'")
        return result

    def _optional_select(self, target: CelType, arg: Any, node: Any) -> CelType:
        """``x.?f`` (rewritten to ``x.optSelect("f")``): an optional of the field's type; ``f`` must be declared."""
        field_name = _string_literal(arg) or ""
        if target.name == "optional":
            target = target.params[0]
        if target.fields is not None:
            declared = target.fields.get(field_name)
            if not isinstance(declared, dict):
                return self.report(self.source.rfind(".", 0, node.children[1].start_pos),
                                   f"undefined field '{field_name}'")
            return CelType("optional", (schema_type(declared, f"{target.declared}.{field_name}"),))
        if target.name == "map":
            return CelType("optional", (target.params[1],))
        return DYN

    def _macro(self, name: str, target: CelType, args: list[Any], scope: dict[str, CelType],
               paren: int) -> CelType:
        element = target.params[0] if target.name in ("list", "map") else DYN
        inner = {**scope, str(_ident_name(args[0])): element}
        body = [self.type_of(a, inner) for a in args[1:]]
        if not body:
            return DYN
        predicate = body[-1]  # the predicate of all, exists, exists_one and filter (map has none to judge)
        if name in ("all", "exists") and predicate not in (BOOL, DYN):
            self.report(self.position(args[1]), f"expected type 'bool' but found '{predicate}'")
        elif name == "exists_one" and predicate not in (BOOL, DYN):
            self.no_overload(paren, "_?_:_", predicate, INT, INT)
        elif name == "filter" and predicate not in (BOOL, DYN):
            shown = CelType("list", (element,))
            self.no_overload(paren, "_?_:_", predicate, shown, shown)
        if name == "map":
            return CelType("list", (body[-1],))
        return CelType("list", (element,)) if name == "filter" else BOOL

    def _ident_arg(self, node: Any, scope: dict[str, CelType]) -> CelType:
        name = str(node.children[0])
        args = list(node.children[1].children) if len(node.children) > 1 else []
        if name == "has":
            self._presence_test(node, args)
            return BOOL
        found = [self.type_of(a, scope) for a in args]
        if not _declared(name):
            return self.report(self.source.find("(", node.children[0].end_pos),
                               f"undeclared reference to '{name}' (in container '')")
        if name == "size" and len(found) == 1:
            if found[0].name == "object":
                return self.no_overload(self.source.find("(", node.children[0].end_pos), "size", found[0])
            return INT
        if name == "quantity" and len(found) == 1:
            return QUANTITY
        if name in ("isQuantity", "isURL"):
            return BOOL
        if name in _CONVERSIONS and len(args) == 1:
            paren = self.source.find("(", node.children[0].end_pos)
            return self._conversion(name, args[0], found[0], paren)
        return DYN

    def _presence_test(self, node: Any, args: list[Any]) -> None:
        """``has(x.f)``: ``f`` must be a declared field when ``x`` is an object (reported at the call)."""
        if not args:
            return
        select: Any = args[0]
        while hasattr(select, "children") and len(select.children) == 1:  # (a selection has two)
            select = select.children[0]
        if getattr(select, "data", "") != "member_dot":
            return
        target = self.type_of(select.children[0], {})
        name = str(select.children[1])
        if target.fields is not None and not isinstance(target.fields.get(name), dict):
            self.report(self.source.find("(", node.children[0].end_pos), f"undefined field '{name}'")

    def _conversion(self, name: str, arg: Any, found: CelType, paren: int) -> CelType:
        """A conversion's result; its argument checked as cel-go's overloads, validators and folding check it."""
        text = _string_literal(arg)
        if name in ("duration", "timestamp"):
            if found.name not in ("string", "int", name, "dyn", "null"):  # no duration(double), timestamp(bool)…
                return self.no_overload(paren, name, found)
            valid = {"duration": _DURATION_TEXT, "timestamp": _TIMESTAMP_TEXT}[name]
            literal_int = name == "duration" and found == INT and any(t.type == "INT_LIT" for t in _tokens(arg))
            if (text is not None and not valid.fullmatch(text)) or found == NULL or literal_int:
                self.report(_start(arg), f"invalid {name} argument", validator=True)
        elif name in ("int", "uint", "double") and text is not None and not self.folding and not _converts(name, text):
            self.folding = f"program instantiation failed: type conversion error from 'string' to '{name}'"
        return _CONVERSIONS[name]

    def _literal_pattern(self, arg: Any, name: str) -> None:
        """A constant regex is compiled before evaluation: ``matches`` by the checker, ``find``/``findAll``
        when the program is built (regex.go), each with its own words."""
        text = _string_literal(arg)
        if text is None:
            return
        from kubectl_testbench.validate.cel.regexp import regexp_error

        error = regexp_error(text)
        if error is None:
            return
        if name == "matches":
            self.report(_start(arg), "invalid matches argument", validator=True)
        elif not self.folding:
            self.folding = f"program instantiation failed: {error}"

    # --- literals ------------------------------------------------------------------------------------------

    def _literal(self, node: Any, scope: dict[str, CelType]) -> CelType:
        token = node.children[0]
        return {"INT_LIT": INT, "UINT_LIT": UINT, "FLOAT_LIT": DOUBLE, "STRING_LIT": STRING,
                "MLSTRING_LIT": STRING, "BYTES_LIT": BYTES, "BOOL_LIT": BOOL, "NULL_LIT": NULL}[token.type]

    def _map_lit(self, node: Any, scope: dict[str, CelType]) -> CelType:
        entries = list(node.children[0].children) if node.children else []
        types = [self.type_of(e, scope) for e in entries]
        return CelType("map", (self._homogeneous(entries[0::2], types[0::2], every=True),
                               self._homogeneous(entries[1::2], types[1::2], every=True)))

    def _list_lit(self, node: Any, scope: dict[str, CelType]) -> CelType:
        items = list(node.children[0].children) if node.children else []
        return CelType("list", (self._homogeneous(items, [self.type_of(item, scope) for item in items]),))

    def _homogeneous(self, nodes: list[Any], types: list[CelType], every: bool = False) -> CelType:
        """The element type of a literal's items: theirs when they agree, else dyn. cel-go's validator of
        homogeneous literals refuses the items whose type differs from the first's: a list's first such item, each
        of a map's keys and values (``every``). A dyn item ends the judging: cel-go refuses it if it is dyn and
        judges it as its type if it is one we do not know, so what it says past it is not known here."""
        for item, found in zip(nodes[1:], types[1:], strict=True):
            if found == DYN:
                break
            if not _same(types[0], found):
                self.report(self.position(item), f"expected type '{types[0]}' but found '{found}'", validator=True)
                if not every:
                    break
        return types[0] if types and all(t == types[0] for t in types) else DYN

    def position(self, node: Any) -> int:
        """Where cel-go places a node: a selection at its dot, an index at ``[``, a call at ``(``, an operator
        at its symbol, a literal or name at its start (parentheses are not nodes of their own)."""
        while hasattr(node, "children") and len(node.children) == 1 and node.data not in (
                "ident", "literal", "list_lit", "map_lit", "ident_arg"):
            node = node.children[0]
        kind, children = node.data, node.children
        if kind == "member_dot":
            return self.source.rfind(".", 0, children[1].start_pos)
        if kind == "member_index":
            return self.source.find("[", _end(children[0]))
        if kind == "member_dot_arg":
            return self.source.find("(", children[1].end_pos)
        if kind == "ident_arg":
            return self.source.find("(", children[0].end_pos)
        if kind in ("relation", "addition", "multiplication") and len(children) == 2:
            op_node = children[0]
            text = {**_RELATIONS, **_ARITHMETIC}[op_node.data][0]
            return self._operator(op_node.children[0], children[1], text)
        if kind in ("conditionalor", "conditionaland") and len(children) == 2:
            return self._operator(children[0], children[1], "||" if kind == "conditionalor" else "&&")
        if kind == "expr" and len(children) == 3:
            return self._operator(children[0], children[1], "?")
        if kind in ("list_lit", "map_lit") or (kind == "unary" and len(children) == 2):
            return int(node.meta.start_pos)  # the bracket or the operator (its own token: never rebuilt)
        return _start(node)

    def _operator(self, left: Any, right: Any, text: str) -> int:
        """Where an operator stands: the first ``text`` after the left operand (celpy keeps no token for it)."""
        return self.source.find(text, _end(left), _start(right))


def _method_result(name: str, target: CelType, found: list[CelType]) -> CelType | None:
    """A method call's result type; None where cel-go has no overload for this receiver and these arguments.

    Only receivers whose methods are all known are judged (strings, lists, quantities, objects); the rest
    are dyn and left to evaluation."""
    table = _STRING_METHODS if target == STRING else _QUANTITY_METHODS if target == QUANTITY else None
    if table is not None:
        if name not in table:
            return None
        signatures, result = table[name]
        if DYN in found or any(len(sig) == len(found) and all(map(_same, sig, found)) for sig in signatures):
            return result
        return None
    if target.name == "list":
        element = target.params[0]
        if name in ("sum", "listMin", "max") and not found:  # (min is listMin once rewritten: syntax.py)
            return element
        if name == "isSorted" and not found:
            return BOOL
        if name in ("indexOf", "lastIndexOf") and len(found) == 1:
            return INT if _same(element, found[0]) else None
        if name == "join":
            return STRING
        if name == "size" and not found:
            return INT
        return DYN
    if target.name == "optional":
        inner = target.params[0]
        if name in ("hasValue",):
            return BOOL
        if name == "value":
            return inner
        if name == "orValue" and len(found) == 1:
            return inner if _same(inner, found[0]) else None
        return DYN
    if target.name == "object" and name == "size":
        return None
    return INT if name == "size" and not found and target.name == "map" else DYN


def _declared(name: str) -> bool:
    """Is ``name`` a function cel-go knows in the API server's environment (celpy's, ours or Kubernetes')?"""
    from celpy.evaluation import base_functions

    from kubectl_testbench.validate.cel.library import functions

    return name in _MACROS or name in _KUBERNETES_ONLY or name in base_functions or name in functions()


_TIME_ARITHMETIC = {
    ("_+_", "duration", "duration"): DURATION, ("_+_", "timestamp", "duration"): TIMESTAMP,
    ("_+_", "duration", "timestamp"): TIMESTAMP, ("_-_", "duration", "duration"): DURATION,
    ("_-_", "timestamp", "timestamp"): DURATION, ("_-_", "timestamp", "duration"): TIMESTAMP,
}
"""cel-go's overloads of + and - over durations and timestamps (no timestamp + timestamp, no duration - timestamp)."""


def _arithmetic_result(name: str, left: CelType, right: CelType) -> CelType | None:
    if left == right and left in NUMBERS:
        return None if name == "_%_" and left == DOUBLE else left  # no modulus of doubles
    if name == "_+_" and left == right and left.name in ("string", "bytes"):
        return left
    if name == "_+_" and left.name == "list":
        return (right if left.params[0] == DYN else left) if _same(left, right) else None  # [] + ['a']: list(string)
    # durations and timestamps; null stands for either well-known type: the one overload it leaves, else any (dyn)
    matches = {result for (op, a, b), result in _TIME_ARITHMETIC.items()
               if op == name and (left == NULL or a == left.name) and (right == NULL or b == right.name)}
    return next(iter(matches)) if len(matches) == 1 else (DYN if matches else None)


def _known(*types: CelType) -> bool:
    return all(t != DYN for t in types)


def _same(a: CelType, b: CelType) -> bool:
    """Assignable in both directions for ``==``: equal, or equal once dyn parameters are ignored (objects are
    all alike here: their declared names are left to evaluation)."""
    if DYN in (a, b):
        return True
    if a.name != b.name:
        return False
    return all(map(_same, a.params, b.params))  # (types of one name have as many parameters)


def _nullable(other: CelType) -> bool:
    """What ``== null`` compiles against: the well-known message types and objects, not strings or numbers."""
    return other.name in ("duration", "timestamp", "object")


def _converts(name: str, text: str) -> bool:
    if name in ("int", "uint"):
        return bool(_INT_TEXT[name].fullmatch(text))
    try:
        float(text)
    except ValueError:
        return False
    return True


def _string_literal(node: Any) -> str | None:
    """The value of a one-line string literal argument, raw or without escapes (not bytes), else None."""
    for token in _tokens(node):
        if token.type != "STRING_LIT":
            return None
        text = str(token.value)
        raw = text[0] in "rR"
        text = text[raw:]
        if text[0] not in "'\"" or ("\\" in text and not raw):
            return None
        return text[1:-1]
    return None


def _tokens(node: Any) -> Iterator[Any]:
    """The tokens of a node that is a single literal, through the chain of one-child rules above it."""
    while hasattr(node, "children") and len(node.children) == 1:
        node = node.children[0]
    if not hasattr(node, "children"):
        yield node


def _is_ident(node: Any) -> bool:
    return _ident_name(node) is not None


def _ident_name(node: Any) -> str | None:
    while hasattr(node, "children") and len(node.children) == 1 and node.data != "ident":
        node = node.children[0]
    if getattr(node, "data", None) == "ident":
        return str(node.children[0])
    return None


def _original_offset(rewritten: str, original: str, offset: int) -> int:
    """Where an offset of the rewritten rule falls in the rule as written (inserted text maps to the place of
    what it replaced: ``x.optSelect("f")`` points back at ``x.?f``)."""
    import difflib

    matcher = difflib.SequenceMatcher(None, rewritten, original, autojunk=False)
    for tag, r1, r2, o1, _ in matcher.get_opcodes():
        if r1 <= offset < r2 or (offset == r2 and tag == "equal" and r2 == len(rewritten)):
            return o1 + (offset - r1 if tag == "equal" else 0)
    return len(original)


def _place_tokens(source: str, tree: Any) -> None:
    """Give position-less tokens their place: celpy rebuilds ``true``/``false``/``null`` tokens without one.

    Tokens come in source order, so each is looked for after the end of the one before it."""
    cursor = 0
    for token in _leaves(tree):
        if getattr(token, "start_pos", None) is None:
            token.start_pos = source.find(str(token), cursor)  # the token's own text: it is there
            token.end_pos = token.start_pos + len(str(token))
        cursor = int(token.end_pos)


def _start(node: Any) -> int:
    """Where a node's text starts: its first token, or its own recorded place when it has no token (``{}``)."""
    first = next(iter(_leaves(node)), None)
    return int(first.start_pos if first is not None else node.meta.start_pos)


def _end(node: Any) -> int:
    """Where a node's text ends: its recorded end (closing brackets included) or, where celpy rebuilt the node
    (``true``, ``false``) and recorded none, its tokens'."""
    return max(int(p) for p in (node.meta.end_pos, *(leaf.end_pos for leaf in _leaves(node))) if p is not None)


def _leaves(node: Any) -> Iterator[Any]:
    if not hasattr(node, "children"):
        yield node
        return
    for child in node.children:
        yield from _leaves(child)
