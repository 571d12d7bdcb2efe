"""The render flags and the validate-then-render step, shared by render, apply, diff and prune.

One decorator declares the flags once, so ``apply`` renders exactly what ``render`` prints for the same
flags; one function validates, prints findings and refuses to go on after any error.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kubectl_testbench.cli.common import (
    EXIT_FINDINGS,
    EXIT_USAGE,
    jobs_option,
    limits_from,
    limits_options,
    project_config,
)
from kubectl_testbench.model.render_settings import CLI_SETTINGS, FLAG_SETTINGS, PORT_MAX, PORT_MIN, Setting

if TYPE_CHECKING:
    from kubectl_testbench.render.rendered import Rendered
    from kubectl_testbench.render.sinks import Sink
    from kubectl_testbench.validate.diagnostics import Counts

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class RenderArgs:
    """The render flags as given."""

    testkube_namespace: str | None = None
    agent_url: str | None = None
    agent_port: int | None = None
    gateway_url: str | None = None
    gateway_port: int | None = None
    include_experiment: bool = False
    argocd_sync_waves: bool | None = None
    defaults_file: str | None = None
    no_defaults: bool = False
    strict: bool = False
    jobs: int | None = None
    max_file_mib: int = 16
    max_depth: int = 256
    max_nodes: int = 1_000_000


_NAMES = tuple(RenderArgs.__dataclass_fields__)


def render_options(fn: F) -> F:
    """Add the render flags to a command; the command receives them as one ``render: RenderArgs``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name) for name in _NAMES}
        return fn(*args, render=RenderArgs(**values), **kwargs)

    decorated: Any = wrapper
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    result: F = decorated
    return result


def _url_template(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A usage error (exit 2) for a placeholder render would leave in the URL as written."""
    from kubectl_testbench.model.url_templates import template_problem

    problem = template_problem(value) if value is not None else None
    if problem is not None:
        raise click.BadParameter(f"{value!r}: {problem}")
    return value


def _namespace(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A namespace is a DNS-1123 label: it becomes part of every generated object's name and file name."""
    from kubectl_testbench.k8snames import dns1123_label_error
    from kubectl_testbench.safe_text import escape_controls

    problem = dns1123_label_error(value) if value is not None else None
    if problem is not None:
        raise click.BadParameter(f"{escape_controls(value or '')!r}: {problem}")
    return value


def _option(setting: Setting) -> Callable[[Any], Any]:
    """The click option of one render setting, from the table (model/render_settings)."""
    assert setting.flag is not None
    kind = setting.kind
    if kind == "switch":
        return click.option(setting.flag, setting.name, is_flag=True, help=setting.help)
    if kind == "tristate":
        return click.option(f"{setting.flag}/--no-{setting.flag[2:]}", setting.name, default=None, help=setting.help)
    by_kind: dict[str, dict[str, Any]] = {
        "namespace": {"callback": _namespace},
        "url": {"metavar": "TEMPLATE", "callback": _url_template},
        "port": {"type": click.IntRange(PORT_MIN, PORT_MAX)},
        "file": {"type": click.Path(dir_okay=False)},
    }
    extra = by_kind[kind]
    return click.option(setting.flag, setting.name, default=None, help=setting.help, **extra)


_OPTIONS: tuple[Callable[[Any], Any], ...] = (*(_option(s) for s in CLI_SETTINGS), jobs_option, limits_options)


RENDER_NAMESPACE_SOURCE = ("the default, as no -n was given; apply, diff and prune use the kubeconfig context's "
                           "namespace instead")


def render_into(paths: tuple[str, ...], namespace: str, args: RenderArgs, fmt: str, sink: Sink,
                refused: str = "nothing rendered", pass_manifests: bool = False,
                only_testbench_files: bool = False, namespace_source: str = RENDER_NAMESPACE_SOURCE) -> Counts:
    """Validate and render into ``sink``; print warnings; on any error print the findings and exit 1
    (2: unreadable input) with nothing written. Experiments without metadata.namespace get ``namespace``
    (kubectl's order: the file, then -n, then, for cluster commands, the context); a notice says which
    and why (``namespace_source``), since the generated names depend on it. Returns what was read."""
    from kubectl_testbench.pipeline.render import Request, render_all
    from kubectl_testbench.render.settings import Flags
    from kubectl_testbench.validate.report import text_line

    flags = Flags(namespace=namespace, **{s.name: getattr(args, s.name) for s in FLAG_SETTINGS})
    config = project_config(paths)
    request = Request(flags=flags, defaults_file=args.defaults_file, discover_defaults=not args.no_defaults,
                      fmt=fmt, strict=args.strict or config.strict, rules=config.selection,
                      limits=limits_from(args.max_file_mib, args.max_depth, args.max_nodes),
                      pass_manifests=pass_manifests, only_testbench_files=only_testbench_files)
    outcome = render_all(paths, request, args.jobs, sink)
    for d in outcome.warnings:
        click.echo(text_line(d), err=True, nl=False)
    if not outcome.ok:
        for d in outcome.problems:
            click.echo(text_line(d), err=True, nl=False)
        click.echo(f"error: {refused}: {outcome.counts.summary()}", err=True)
        sys.exit(EXIT_USAGE if outcome.counts.unreadable else EXIT_FINDINGS)
    notice = namespace_notice(outcome.unnamespaced, namespace, namespace_source)
    if notice:
        click.echo(notice, err=True)
    return outcome.counts


def namespace_notice(origins: list[str], namespace: str, source: str) -> str:
    """One stderr line: which Experiments got which namespace, and where it came from (empty: none did)."""
    from kubectl_testbench.safe_text import escape_controls
    from kubectl_testbench.words import plural

    if not origins:
        return ""
    one = len(origins) == 1
    shown = ", ".join(origins[:3]) + (f" and {len(origins) - 3} more" if len(origins) > 3 else "")
    return escape_controls(f"notice: {plural(len(origins), 'Experiment')} without metadata.namespace "
                           f"{'goes' if one else 'go'} to namespace \"{namespace}\" ({source}): {shown}")


def render_or_exit(paths: tuple[str, ...], namespace: str, args: RenderArgs, fmt: str,
                   refused: str = "nothing rendered",
                   namespace_source: str = RENDER_NAMESPACE_SOURCE) -> list[Rendered]:
    """All objects, in apply order (for apply, diff and prune, which need them together); objects that
    render wrote earlier (a committed rendered directory) are taken as they are."""
    from kubectl_testbench.render.sinks import StdoutSink

    sink = StdoutSink(fmt)
    render_into(paths, namespace, args, fmt, sink, refused, pass_manifests=True, namespace_source=namespace_source)
    return sink.ordered()
