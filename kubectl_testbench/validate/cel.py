"""CEL validation rules (``x-kubernetes-validations``) read from the CRD and evaluated with celpy.

As in the API server, ``self`` is bound at the rule's schema node, ``number`` fields are doubles,
``integer`` fields ints, absent and null are the same (nulls were pruned before), and transition rules
(``oldSelf``) do not run on create.

Cost: celpy needs ~40 ms to import and ~0.3 ms per evaluation. Each rule is compiled once per process,
the Lark parser is cached on disk, and results are memoised on the *projection* of ``self`` the rule can
observe: the AST tells which paths it reads and which it only tests with ``has()``. The dataset rule
reads three presence bits, so thousands of Experiments share a handful of evaluations.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from kubectl_testbench.load.positions import Path

Schema = dict[str, Any]
_MEMO_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class CelOutcome:
    """What one rule said about one value: passed, failed (with the message) or could not evaluate."""

    passed: bool
    message: str = ""
    error: str = ""
    field_path: Path = ()
    skipped: bool = False


class CompiledRule:
    """One rule: compiled program, the paths of ``self`` it reads, and a memo of its results."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.rule: str = spec["rule"]
        self.message: str = spec.get("message") or f"failed rule: {self.rule}"
        self.message_expression: str | None = spec.get("messageExpression")
        self.field_path: Path = _parse_field_path(spec.get("fieldPath", ""))
        self.reason: str = spec.get("reason", "FieldValueInvalid")
        env = _environment()
        ast = env.compile(self.rule)
        self.transition = _uses_ident(ast, "oldSelf")
        self.presence, self.values = _access_paths(ast)
        self.program = env.program(ast, functions=_k8s_library())
        self.message_program = (
            env.program(env.compile(self.message_expression), functions=_k8s_library())
            if self.message_expression
            else None
        )
        self.memo: dict[str, CelOutcome] = {}

    def evaluate(self, value: Any, schema: Schema) -> CelOutcome:
        if self.transition:
            return CelOutcome(True, skipped=True)
        projected = _project(value, self.presence, self.values)
        key = json.dumps(projected, sort_keys=True, default=repr)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        outcome = self._run(projected, schema)
        if len(self.memo) >= _MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = outcome
        return outcome

    def _run(self, value: Any, schema: Schema) -> CelOutcome:
        from celpy.evaluation import CELEvalError

        activation = {"self": to_cel(value, schema)}
        try:
            result = self.program.evaluate(activation)
        except CELEvalError as err:
            return CelOutcome(False, error=_eval_error_text(err))
        except Exception as err:  # celpy raises plain TypeErrors for some overload failures
            return CelOutcome(False, error=f"{type(err).__name__}: {err}")
        if isinstance(result, CELEvalError):
            return CelOutcome(False, error=_eval_error_text(result))
        from celpy import celtypes

        if not isinstance(result, (bool, celtypes.BoolType)):
            return CelOutcome(False, error=f"rule must evaluate to a bool, got {type(result).__name__}")
        if result:
            return CelOutcome(True)
        return CelOutcome(False, message=self._message(activation), field_path=self.field_path)

    def _message(self, activation: dict[str, Any]) -> str:
        if self.message_program is not None:
            try:
                text = self.message_program.evaluate(activation)
                if isinstance(text, str) and text.strip():
                    return str(text)
            except Exception:  # an erroring messageExpression falls back to message, as in Kubernetes
                pass
        return self.message


_RULES: dict[str, CompiledRule] = {}


def evaluate_rule(spec: dict[str, Any], value: Any, schema: Schema) -> CelOutcome:
    """One rule on one value, answering from remembered outcomes when the projection was seen before.

    Only a miss compiles the rule (importing celpy on first use); see :mod:`cel_store`.
    """
    from kubectl_testbench.validate.cel_store import store

    cache = store()
    rule_text = spec["rule"]
    analysis = cache.analyses.get(rule_text)
    if analysis is None:
        rule = compiled(spec)
        analysis = {"presence": rule.presence, "values": rule.values, "transition": rule.transition}
        cache.put_analysis(rule_text, analysis)
    if analysis["transition"]:
        return CelOutcome(True, skipped=True)
    presence = [tuple(p) for p in analysis["presence"]]
    values = [tuple(p) for p in analysis["values"]]
    projected = _project(value, presence, values)
    key = json.dumps([spec, projected], sort_keys=True, default=repr)
    hit = cache.outcomes.get(key)
    if hit is not None:
        passed, message, error, field_path = hit
        return CelOutcome(bool(passed), message, error, tuple(field_path))
    outcome = compiled(spec).evaluate(value, schema)
    cache.put_outcome(key, [outcome.passed, outcome.message, outcome.error, list(outcome.field_path)])
    return outcome


def compiled(spec: dict[str, Any]) -> CompiledRule:
    """The compiled form of a rule spec from a CRD, built once per process."""
    key = json.dumps(spec, sort_keys=True)
    rule = _RULES.get(key)
    if rule is None:
        rule = _RULES[key] = CompiledRule(spec)
    return rule


# --- celpy environment -------------------------------------------------------------------------------

_ENV: Any = None


def _environment() -> Any:
    global _ENV
    if _ENV is None:
        import celpy
        from celpy.celparser import CELParser

        if CELParser.CEL_PARSER is None:
            CELParser.CEL_PARSER = _cached_parser()
        limit = sys.getrecursionlimit()
        _ENV = celpy.Environment()
        sys.setrecursionlimit(limit)  # celpy raises it process-wide; our rules are shallow
    return _ENV


def _cached_parser() -> Any:
    """celpy's Lark parser, built with Lark's on-disk cache in a private per-user directory (70 ms → 5 ms).

    Lark's own ``cache=True`` writes a pickle to the shared temp dir, which another local user could
    replace; we only use a directory we own and nobody else can write.
    """
    import celpy
    import lark
    from celpy.celparser import CELParser

    logging.getLogger("lark").setLevel(logging.CRITICAL)
    grammar = (FsPath(celpy.__file__).parent / "cel.lark").read_text()
    cache: str | bool = False
    directory = private_cache_dir()
    if directory is not None:
        cache = str(directory / f"cel-parser-lark{lark.__version__}.pickle")
    return lark.Lark(
        grammar,
        parser="lalr",
        start="expr",
        debug=True,
        g_regex_flags=re.M,
        lexer_callbacks={"IDENT": CELParser.ambiguous_literals},
        propagate_positions=True,
        maybe_placeholders=False,
        priority="invert",
        tree_class=lark.Tree,
        cache=cache,
    )


def private_cache_dir() -> FsPath | None:
    if os.environ.get("KUBECTL_TESTBENCH_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = FsPath(base) / "kubectl-testbench"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
            return None
        if not os.access(directory, os.W_OK):
            return None
    except OSError:
        return None
    return directory


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


def _project(value: Any, presence: list[tuple[str, ...]], values: list[tuple[str, ...]]) -> Any:
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


def to_cel(value: Any, schema: Schema) -> Any:
    """A CEL value typed as Kubernetes types it: by the schema node, not by the JSON value alone."""
    from celpy import celtypes as ct
    from celpy.adapter import json_to_cel

    if value is None:
        return None
    t = schema.get("type")
    if schema.get("x-kubernetes-int-or-string"):
        return ct.StringType(value) if isinstance(value, str) else ct.IntType(value)
    if t == "object" and isinstance(value, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        if not props and not isinstance(extra, dict):
            return json_to_cel(value)
        return ct.MapType({
            ct.StringType(k): to_cel(v, props.get(k) or (extra if isinstance(extra, dict) else {}))
            for k, v in value.items()
        })
    if t == "array" and isinstance(value, list):
        items = schema.get("items") or {}
        return ct.ListType([to_cel(v, items) for v in value])
    if t == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return ct.DoubleType(float(value))
    if t == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return ct.IntType(int(value))
    return json_to_cel(value)


# --- the Kubernetes CEL library: the parts celpy lacks -------------------------------------------------------


def _k8s_library() -> dict[str, Any]:
    from celpy import celtypes as ct

    def lower_ascii(s: Any) -> Any:
        return ct.StringType(str(s).lower())

    def upper_ascii(s: Any) -> Any:
        return ct.StringType(str(s).upper())

    def trim(s: Any) -> Any:
        return ct.StringType(str(s).strip())

    def index_of(s: Any, sub: Any) -> Any:
        return ct.IntType(list(s).index(sub) if isinstance(s, list) and sub in s else
                          (str(s).find(str(sub)) if not isinstance(s, list) else -1))

    def split(s: Any, sep: Any) -> Any:
        return ct.ListType([ct.StringType(p) for p in str(s).split(str(sep))])

    def join(items: Any, sep: Any = "") -> Any:
        return ct.StringType(str(sep).join(str(i) for i in items))

    def is_sorted(items: Any) -> Any:
        return ct.BoolType(all(items[i] <= items[i + 1] for i in range(len(items) - 1)))

    def sum_(items: Any) -> Any:
        total: Any = ct.IntType(0)
        for item in items:
            total = total + item
        return total

    return {
        "lowerAscii": lower_ascii, "upperAscii": upper_ascii, "trim": trim, "indexOf": index_of,
        "split": split, "join": join, "isSorted": is_sorted, "sum": sum_,
    }


def _eval_error_text(err: Any) -> str:
    args = getattr(err, "args", ())
    if args and isinstance(args[0], str):
        detail = args[2] if len(args) > 2 and args[2] else ""
        return f"{args[0]}{': ' + str(detail[0] if isinstance(detail, tuple) and detail else detail) if detail else ''}"
    return str(err)


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
