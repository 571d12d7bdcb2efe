"""``render --resolve``: TestWorkflows expanded with their templates, as Testkube will run them. Pure."""

from kubectl_testbench.render.resolve.batch import Resolved, resolve_objects
from kubectl_testbench.render.resolve.expressions import ExpressionError, UnknownVariable
from kubectl_testbench.render.resolve.model import (
    DocumentError,
    EnvValue,
    ExecutionContext,
    MountedFile,
    ResolvedStep,
    ResolvedWorkflow,
    document,
    parse_document,
)
from kubectl_testbench.render.resolve.workflow import IMAGE_ENTRYPOINTS, ResolveError, resolve_workflow

__all__ = [
    "IMAGE_ENTRYPOINTS",
    "DocumentError",
    "EnvValue",
    "ExecutionContext",
    "ExpressionError",
    "MountedFile",
    "ResolveError",
    "Resolved",
    "ResolvedStep",
    "ResolvedWorkflow",
    "UnknownVariable",
    "document",
    "parse_document",
    "resolve_objects",
    "resolve_workflow",
]
