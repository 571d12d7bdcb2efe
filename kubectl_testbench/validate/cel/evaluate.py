"""CEL validation rules (``x-kubernetes-validations``) read from the CRD and evaluated with celpy.

As in the API server (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go): ``self`` is bound
at the rule's schema node, ``number`` fields are doubles, ``integer`` fields ints, absent and null are the
same (nulls were pruned before); transition rules (``oldSelf``) do not run on create unless they set
``optionalOldSelf``, which runs them with ``oldSelf`` unset; ``reason`` picks the kind of field error and
``fieldPath`` where it points; ``messageExpression`` falls back to ``message`` when it fails, is not a
string, is empty or spans lines. Evaluation is metered (see :mod:`cost`) and every error is one line.

Cost: celpy needs ~40 ms to import and ~0.3 ms per evaluation. Each rule is compiled once per process,
the Lark parser comes precompiled (:mod:`environment`), and results are memoised on the *projection* of
``self`` the rule (and its messageExpression) can observe: the AST tells which paths it reads and which
it only tests with ``has()``. The dataset rule reads three presence bits, so thousands of Experiments
share a handful of evaluations, and for the CRD we ship every one of them was computed when the package
was built (:mod:`shipped`): a run on our own CRD does not import celpy at all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.load.positions import Path
from kubectl_testbench.validate.cel.cost import (
    CALL_LIMIT_ERROR,
    MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
    CostExceeded,
    Meter,
)

Schema = dict[str, Any]
_MEMO_LIMIT = 4096
REASONS = ("FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueDuplicate")


@dataclass(frozen=True, slots=True)
class CelOutcome:
    """What one rule said about one value: passed, failed (with the message) or could not evaluate."""

    passed: bool
    message: str = ""
    error: str = ""
    field_path: Path = ()
    skipped: bool = False
    reason: str = "FieldValueInvalid"
    stopped: str = ""
    """Why evaluation stopped early: "call"/"budget" (the server's limits, an error) or "offline"."""


class CompiledRule:
    """One rule: compiled program, the paths of ``self`` it reads, and a memo of its results."""

    def __init__(self, spec: dict[str, Any]) -> None:
        from kubectl_testbench.validate.cel.environment import environment
        from kubectl_testbench.validate.cel.syntax import rewrite

        self.rule: str = spec["rule"]
        self.message: str = (spec.get("message") or "").strip()
        self.message_expression: str | None = spec.get("messageExpression")
        self.field_path: Path = _parse_field_path(spec.get("fieldPath", ""))
        reason = spec.get("reason")
        self.reason: str = reason if reason in REASONS else "FieldValueInvalid"
        self.optional_old_self = bool(spec.get("optionalOldSelf"))
        self.meter = Meter()
        env = environment()
        self.compile_error = ""
        self.source = rewrite(self.rule)
        try:
            ast = env.compile(self.source)
        except Exception as err:  # celpy's CELParseError, with a multi-line caret picture
            self.compile_error = _syntax_error(err)
            ast = env.compile("true")
        self.tree = None if self.compile_error else ast
        """What cel-go's checker sees (:mod:`check`), parsed from the rewritten text."""
        self.checked: dict[int, tuple[Schema, str, Path]] = {}
        self.transition = _uses_ident(ast, "oldSelf")
        self.presence, self.values = _access_paths(ast)
        self.program = self._program(env, ast)
        self.message_program = None
        self.message_tree: Any = None
        self.message_source = rewrite(self.message_expression) if self.message_expression else ""
        self.message_broken = False
        if self.message_expression:
            try:
                message_ast = env.compile(self.message_source)
                self.message_tree = message_ast
                self.message_program = self._program(env, message_ast)
            except Exception:  # a messageExpression that does not compile falls back to message
                self.message_program = None
                self.message_broken = True
            else:  # the message may read what the rule does not: the projection must keep it
                presence, values = _access_paths(message_ast)
                self.presence += [p for p in presence if p not in self.presence]
                self.values += [p for p in values if p not in self.values]
        self.memo: dict[str, CelOutcome] = {}

    def analysis(self) -> dict[str, Any]:
        """What a remembered outcome is keyed by: the observed paths, and whether the rule is skipped."""
        return {"presence": [list(p) for p in self.presence], "values": [list(p) for p in self.values],
                "transition": self.transition and not self.optional_old_self}

    def _program(self, env: Any, ast: Any) -> Any:
        from kubectl_testbench.validate.cel.cost import metered_runner
        from kubectl_testbench.validate.cel.library import functions

        return metered_runner(env, ast, functions(), lambda: self.meter)

    @property
    def error_string(self) -> str:
        """ruleErrorString: the message if there is one, else the rule."""
        return self.message or self.rule.strip()

    def compiled_at(self, schema: Schema) -> tuple[str, Path]:
        """What cel-go's compilation of the rule at this schema node decides, once per node: its refusal ("" when
        it compiles) and the fieldPath, which the server drops when the messageExpression does not compile to a
        string (the compilation result then carries no normalized field path)."""
        hit = self.checked.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1], hit[2]
        from kubectl_testbench.validate.cel.check import DYN, STRING, CheckError, check, expression_type

        error = ""
        if self.tree is not None:
            try:
                check(self.source, self.tree, schema, original=self.rule)
            except CheckError as err:
                error = str(err)
        field_path = self.field_path
        if field_path and self.message_expression and (
                self.message_broken
                or expression_type(self.message_source, self.message_tree, schema) not in (STRING, DYN)):
            field_path = ()
        self.checked[id(schema)] = (schema, error, field_path)
        return error, field_path

    def type_error(self, schema: Schema) -> str:
        """cel-go's compile-time refusal of the rule at this schema node ("" when it compiles)."""
        return self.compiled_at(schema)[0]

    def evaluate(self, value: Any, schema: Schema, meter: Meter | None = None) -> CelOutcome:
        if self.transition and not self.optional_old_self:
            return CelOutcome(True, skipped=True)
        error = self.type_error(schema)
        if error:
            return CelOutcome(False, error=f"rule compile error: {error}")
        outcome = self._evaluate(value, schema, meter)
        if outcome.field_path and not outcome.passed and not outcome.error:
            from dataclasses import replace

            return replace(outcome, field_path=self.compiled_at(schema)[1])
        return outcome

    def _evaluate(self, value: Any, schema: Schema, meter: Meter | None = None) -> CelOutcome:
        projected = project(value, self.presence, self.values)
        key = json.dumps(projected, sort_keys=True, default=repr)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        outcome = self._run(projected, schema, meter)
        if not outcome.stopped:
            if len(self.memo) >= _MEMO_LIMIT:
                self.memo.clear()
            self.memo[key] = outcome
        return outcome

    def _run(self, value: Any, schema: Schema, meter: Meter | None = None) -> CelOutcome:
        from celpy import celtypes
        from celpy.evaluation import CELEvalError

        from kubectl_testbench.validate.cel.library import NONE

        if self.compile_error:
            return CelOutcome(False, error=f"rule compile error: {self.compile_error}")
        if self.transition and not self.optional_old_self:
            return CelOutcome(True, skipped=True)
        self.meter = meter or Meter()
        self.meter.start_call()
        try:
            activation: dict[str, Any] = {"self": to_cel(value, schema, self.meter)}
            if self.transition:
                activation["oldSelf"] = NONE  # optionalOldSelf on create: oldSelf is optional.none()
            result = self.program.evaluate(activation)
        except CostExceeded as stop:
            return self._stopped(stop)
        except CELEvalError as err:
            text = eval_error_text(err)
            if text.startswith("found no matching overload"):  # only dyn values get here: cel-go's runtime words
                return CelOutcome(False, error=_overload(TypeError(), self.error_string))
            return CelOutcome(False, error=f"{text} evaluating rule: {self.error_string}")
        except RecursionError:
            return CelOutcome(False, error=f"expression nested too deeply evaluating rule: {self.error_string}")
        except Exception as err:  # celpy raises plain TypeErrors for some overload failures
            return CelOutcome(False, error=_overload(err, self.error_string))
        if not isinstance(result, (bool, celtypes.BoolType)):  # (celpy raises an error result, never returns it)
            return CelOutcome(False, error=f"rule must evaluate to a bool, got {type(result).__name__}: "
                              f"{self.error_string}")
        if result:
            return CelOutcome(True)
        return CelOutcome(False, message=self._message(activation), field_path=self.field_path,
                          reason=self.reason)

    def _stopped(self, stop: CostExceeded) -> CelOutcome:
        if stop.limit == "offline":
            return CelOutcome(True, skipped=True, stopped="offline",
                              message=f"not evaluated: it needs more than {stop.spent - 1} cost units on this "
                              "document, more than kubectl-testbench evaluates offline (the API server allows "
                              "1000000 per rule)")
        if stop.limit == "call":
            return CelOutcome(False, stopped="call", error=f"'{CALL_LIMIT_ERROR}': no further validation rules "
                              f"will be run due to call cost exceeds limit for rule: {self.error_string}")
        return CelOutcome(False, stopped="budget", error="validation failed due to running out of cost budget, "
                          "no further validation rules will be run")

    def _message(self, activation: dict[str, Any]) -> str:
        """evalMessageExpression, falling back to ruleMessageOrDefault as the API server does."""
        default = self.message or f"failed rule: {self.rule.strip()}"
        if self.message_program is None:
            return default
        try:
            text = self.message_program.evaluate(activation)
        except Exception:  # an erroring messageExpression falls back to message, as in Kubernetes
            return default
        if not isinstance(text, str):
            return default
        text = text.strip()
        if not text or "\n" in text or len(text.encode()) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES:
            return default
        return text


def _syntax_error(err: Exception) -> str:
    """A rule that does not parse, in cel-go's form ("compilation failed: ERROR: <input>:1:8: Syntax error: …").

    The place is celpy's (the last token its parser took, where cel-go names the one it could not take) and
    cel-go's list of the tokens it expected is not reproduced: the verdict is the same, a compile error."""
    line, column = getattr(err, "line", None), getattr(err, "column", None)
    if not isinstance(line, int) or not isinstance(column, int):
        return one_line(str(err))
    return f"compilation failed: ERROR: <input>:{line}:{column}: Syntax error: the rule does not parse here"


def one_line(text: str) -> str:
    """The first meaningful line of a celpy message, without celpy's internals."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), text.strip())
    return re.sub(r"\s*\(in activation .*\)$", "", first)


_CELPY_TYPE = re.compile(r"<class '(?:celpy\.celtypes|builtins)\.(\w+?)(?:Type)?'>")
_TYPE_NAMES = {"Int": "int", "Uint": "uint", "Double": "double", "String": "string", "Bool": "bool",
               "Bytes": "bytes", "List": "list", "Map": "map", "None": "null_type", "Timestamp": "timestamp",
               "Duration": "duration"}


_OPERATORS = {"relation_gt": "_>_", "relation_lt": "_<_", "relation_ge": "_>=_", "relation_le": "_<=_",
              "relation_eq": "_==_", "relation_ne": "_!=_", "relation_in": "@in", "addition_add": "_+_",
              "addition_sub": "_-_", "multiplication_mul": "_*_", "multiplication_div": "_/_",
              "multiplication_mod": "_%_"}


def eval_error_text(err: Any) -> str:
    """A celpy evaluation error as cel-go words it, on one line."""
    args: tuple[Any, ...] = tuple(getattr(err, "args", ()))
    text = args[0] if args and isinstance(args[0], str) else str(err)
    text = _CELPY_TYPE.sub(lambda m: _TYPE_NAMES.get(m.group(1), m.group(1).lower()), one_line(text))
    for celpy_name, cel_name in _OPERATORS.items():
        text = text.replace(f"'{celpy_name}'", f"'{cel_name}'")
    if text.startswith("undeclared reference to"):
        return text.split(" (", 1)[0]
    if text.startswith("no such member in mapping: "):  # a map without the key (cel-go: "no such key: k")
        return "no such key: " + text.removeprefix("no such member in mapping: ").strip("'")
    if text == "return error for overflow":
        return "integer overflow"
    if text in ("no such member", "no such key") and len(args) > 2 and args[2]:
        detail = args[2][0] if isinstance(args[2], tuple) and args[2] else args[2]
        return f"{text}: {one_line(str(detail))}"
    return text


def _overload(err: Exception, rule: str) -> str:
    return (f"'no such overload': call arguments did not match a supported operator, function or macro "
            f"signature for rule: {rule}") if isinstance(err, (TypeError, AttributeError)) else (
        f"{one_line(str(err)) or type(err).__name__} evaluating rule: {rule}")


_RULES: dict[str, CompiledRule] = {}


def evaluate_rule(spec: dict[str, Any], value: Any, schema: Schema, meter: Meter | None = None) -> CelOutcome:
    """One rule on one value, answering from remembered outcomes when the projection was seen before.

    Remembered first in the package (:mod:`shipped`, every outcome of our CRD's rules), then in the
    user's cache (:mod:`store`). Only a miss compiles the rule (importing celpy on first use).
    """
    from kubectl_testbench.validate.cel.shipped import shipped

    known = shipped()
    rule_key = analysis_key(spec)
    analysis = known.analyses.get(rule_key)
    if analysis is None:
        analysis = _stored_analysis(spec, rule_key)
    if analysis["transition"] and not spec.get("optionalOldSelf"):
        return CelOutcome(True, skipped=True)
    presence = [tuple(p) for p in analysis["presence"]]
    values = [tuple(p) for p in analysis["values"]]
    key = outcome_key(spec, project(value, presence, values))
    hit = known.outcomes.get(key)
    if hit is None:
        from kubectl_testbench.validate.cel.store import store

        hit = store().outcomes.get(key)
    if hit is not None:
        return outcome_from_saved(hit)
    outcome = compiled(spec).evaluate(value, schema, meter)
    if not outcome.stopped:
        from kubectl_testbench.validate.cel.store import store

        store().put_outcome(key, saved_outcome(outcome))
    return outcome


def _stored_analysis(spec: dict[str, Any], rule_key: str) -> dict[str, Any]:
    from kubectl_testbench.validate.cel.store import store

    cache = store()
    analysis: dict[str, Any] | None = cache.analyses.get(rule_key)
    if analysis is None:
        analysis = compiled(spec).analysis()
        cache.put_analysis(rule_key, analysis)
    return analysis


def analysis_key(spec: dict[str, Any]) -> str:
    """Rules are analysed by their text, with the messageExpression whose paths are part of it."""
    rule: str = spec["rule"]
    message_expression = spec.get("messageExpression")
    return rule if not message_expression else f"{rule}\0{message_expression}"


def outcome_key(spec: dict[str, Any], projected: Any) -> str:
    return json.dumps([spec, projected], sort_keys=True, default=repr)


def saved_outcome(outcome: CelOutcome) -> list[Any]:
    """A CelOutcome as JSON (an outcome that stopped early is never saved)."""
    return [outcome.passed, outcome.message, outcome.error, list(outcome.field_path), outcome.reason]


def outcome_from_saved(saved: list[Any]) -> CelOutcome:
    passed, message, error, field_path, *rest = saved
    return CelOutcome(bool(passed), message, error, tuple(field_path), reason=rest[0] if rest else "FieldValueInvalid")


def compiled(spec: dict[str, Any]) -> CompiledRule:
    """The compiled form of a rule spec from a CRD, built once per process."""
    key = json.dumps(spec, sort_keys=True)
    rule = _RULES.get(key)
    if rule is None:
        rule = _RULES[key] = CompiledRule(spec)
    return rule


# --- AST analysis: which parts of self does a rule observe? ---------------------------------------------

_WRAPPERS = frozenset(("expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                       "unary", "paren_expr"))


def _access_paths(ast: Any) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Paths of ``self`` the rule tests with ``has()`` only, and paths whose values it reads."""
    presence: list[tuple[str, ...]] = []
    values: list[tuple[str, ...]] = []

    def visit(tree: Any) -> None:
        from lark import Tree

        if not isinstance(tree, Tree):
            return
        if tree.data == "ident_arg" and _token(tree.children[0]) == "has":
            arg = _single_argument(tree)
            chain = _chain(arg) if arg is not None else None
            if chain:
                presence.append(chain)
                return
        if tree.data == "member":
            chain = _chain(tree)
            if chain is not None:
                values.append(chain)
                return
        if tree.data == "ident" and _token(tree.children[0]) == "self":
            values.append(())
            return
        for child in tree.children:
            visit(child)

    visit(ast)
    return presence, values


def _single_argument(ident_arg: Any) -> Any:
    from lark import Tree

    for child in ident_arg.children[1:]:
        if isinstance(child, Tree) and child.data == "exprlist" and len(child.children) == 1:
            node = child.children[0]
            while isinstance(node, Tree) and node.data in _WRAPPERS and len(node.children) == 1:
                node = node.children[0]
            return node
    return None


def _chain(member: Any) -> tuple[str, ...] | None:
    """``self.a.b`` as ("a", "b"); None when the member expression is anything else."""
    from lark import Tree

    if not isinstance(member, Tree) or member.data != "member" or len(member.children) != 1:
        return None
    inner = member.children[0]
    if not isinstance(inner, Tree):
        return None
    if inner.data == "primary":
        ident = inner.children[0] if inner.children else None
        if isinstance(ident, Tree) and ident.data == "ident" and _token(ident.children[0]) == "self":
            return ()
        return None
    if inner.data == "member_dot" and len(inner.children) == 2:
        base = _chain(inner.children[0])
        return None if base is None else (*base, str(inner.children[1]))
    return None


def _token(node: Any) -> str:
    return str(node) if not hasattr(node, "data") else ""


def _uses_ident(ast: Any, name: str) -> bool:
    from lark import Tree

    return any(t.data == "ident" and _token(t.children[0]) == name for t in ast.iter_subtrees()
               if isinstance(t, Tree))


_PLACEHOLDER = True


def project(value: Any, presence: list[tuple[str, ...]], values: list[tuple[str, ...]]) -> Any:
    """The part of ``value`` a rule can observe; evaluating on it gives the same result as on ``value``."""
    if any(not p for p in values):
        return value
    out: dict[str, Any] = {}
    if not isinstance(value, dict):
        return value
    for path in values:
        _copy_path(value, out, path, leaf_value=True)
    for path in presence:
        _copy_path(value, out, path, leaf_value=False)
    return out


def _copy_path(src: Any, dst: dict[str, Any], path: tuple[str, ...], leaf_value: bool) -> None:
    for i, seg in enumerate(path):
        if not isinstance(src, dict) or seg not in src:
            return
        last = i == len(path) - 1
        item = src[seg]
        if last:
            if seg not in dst:
                dst[seg] = item if leaf_value else _PLACEHOLDER
            return
        if not isinstance(item, dict):
            dst[seg] = item  # reading through a non-object: keep it so the same error happens
            return
        existing = dst.get(seg)
        if not isinstance(existing, dict):
            existing = dst[seg] = {}
        elif existing is item:
            return
        src, dst = item, existing


# --- values: JSON → CEL types, guided by the schema --------------------------------------------------------


def to_cel(value: Any, schema: Schema, meter: Meter | None = None) -> Any:
    """A CEL value typed as Kubernetes types it: by the schema node, not by the JSON value alone.

    With a ``meter``, every converted node costs a unit: a huge value stops at the offline limit instead
    of taking seconds to convert.
    """
    from celpy import celtypes as ct
    from celpy.adapter import json_to_cel

    if meter is not None:
        meter.charge()
    if value is None:
        return None
    t = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        return ct.StringType(value) if isinstance(value, str) else ct.IntType(value)
    if t == "object" and isinstance(value, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        if not props and not isinstance(extra, dict):
            if meter is not None:
                _charge_all(value, meter)
            return json_to_cel(value)
        return ct.MapType({
            ct.StringType(k): to_cel(v, props.get(k) or (extra if isinstance(extra, dict) else {}), meter)
            for k, v in value.items()
        })
    if t == "array" and isinstance(value, list):
        items = schema.get("items") or {}
        return ct.ListType([to_cel(v, items, meter) for v in value])
    if t == "string" and isinstance(value, str) and schema.get("format") in _FORMAT_TYPES:
        return _formatted(value, schema["format"])
    if t == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return ct.DoubleType(float(value))
    if t == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return ct.IntType(int(value))
    if meter is not None and isinstance(value, (dict, list)):
        _charge_all(value, meter)
    return json_to_cel(value)


_FORMAT_TYPES = ("duration", "date-time", "date", "byte")
"""String formats Kubernetes gives a CEL type of their own (SchemaDeclType): duration, timestamp, bytes."""


def _formatted(text: str, fmt: str) -> Any:
    """A string of a typed format as its CEL value; text the format does not read stays a string (schema
    validation reports it)."""
    import base64
    import binascii

    from celpy import celtypes as ct

    try:
        if fmt == "duration":
            return ct.DurationType(0) if text.lstrip("+-") == "0" else ct.DurationType(text)
        if fmt == "byte":
            return ct.BytesType(base64.b64decode(text, validate=True))
        return ct.TimestampType(text if fmt == "date-time" else f"{text}T00:00:00Z")
    except (ValueError, TypeError, binascii.Error):
        return ct.StringType(text)


def _charge_all(value: dict[str, Any] | list[Any], meter: Meter) -> None:
    """A unit for every value nested in ``value`` (``value`` itself was charged by :func:`to_cel`)."""
    stack = list(value.values()) if isinstance(value, dict) else list(value)
    while stack:
        item = stack.pop()
        meter.charge()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _parse_field_path(text: str) -> Path:
    """``.spec.foo['bar'][0]``-style fieldPath → path segments (relative to the rule's node)."""
    out: list[str | int] = []
    for m in re.finditer(r"\.([A-Za-z_][A-Za-z0-9_]*)|\['([^']*)'\]|\[(\d+)\]", text):
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(m.group(2))
        else:
            out.append(int(m.group(3)))
    return tuple(out)
