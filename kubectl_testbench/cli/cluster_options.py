"""The kubectl cluster flags shared by every cluster command, and the one place errors become exit codes.

Exit codes of cluster commands: 0 success; 1 findings (invalid input, ``diff`` differences, a failed or
timed-out run); 2 usage, unreadable input, no usable kubeconfig/context, or an Experiment that does
not exist; 3 the cluster failed us (unreachable, timeout, credentials, RBAC, missing CRD, field
conflict, server error).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.shell_completion import CompletionItem

from kubectl_testbench.cli.common import EXIT_INTERNAL, EXIT_USAGE
from kubectl_testbench.cluster.config import DEFAULT_REQUEST_TIMEOUT, ClusterOptions, parse_duration
from kubectl_testbench.model.constants import DEFAULT_NAMESPACE

if TYPE_CHECKING:
    from kubectl_testbench.cluster.client import Client

F = TypeVar("F", bound=Callable[..., Any])
COMPLETION_TIMEOUT = 2.0
EXIT_CLUSTER = EXIT_INTERNAL

EXIT_CODES_HELP = ("Exit codes: 0 success, 1 findings/differences/failed run, 2 usage or unreadable input "
                   "(including kubeconfig and unknown Experiments), 3 cluster error (unreachable, timeout, "
                   "RBAC, missing CRD, field conflict).")


if TYPE_CHECKING:
    _ParamBase = click.ParamType[float, Any]
else:  # click < 8.2 has no generic ParamType
    _ParamBase = click.ParamType


class Duration(_ParamBase):
    """A Go-style duration (``30s``, ``5m``, ``1h30m``) or plain seconds, as kubectl takes them."""

    name = "duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, int | float):
            return float(value)
        try:
            return parse_duration(str(value))
        except ValueError as err:
            self.fail(str(err), param, ctx)


def _complete_contexts(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from kubectl_testbench.cluster.config import context_names

    return [CompletionItem(n) for n in context_names(ctx.params.get("kubeconfig")) if n.startswith(incomplete)]


def _complete_namespaces(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    def names(client: Client) -> list[str]:
        """Only valid names: what a misbehaving server lists goes into the user's shell."""
        from kubectl_testbench.cluster.resources import NAMESPACE, dig
        from kubectl_testbench.k8snames import dns1123_label_error

        listed = (dig(n, "metadata", "name") for n in client.list(NAMESPACE, None))
        return [n for n in listed if isinstance(n, str) and not dns1123_label_error(n)]

    return [CompletionItem(n) for n in sorted(quiet_cluster(ctx, names)) if n.startswith(incomplete)]


def quiet_cluster(ctx: click.Context, query: Callable[[Client], list[str]]) -> list[str]:
    """Run a completion query against the cluster the command line points at; nothing on any failure."""
    try:
        from kubectl_testbench.cluster.client import Client
        from kubectl_testbench.cluster.config import connect

        options = ClusterOptions(ctx.params.get("kubeconfig"), ctx.params.get("context"),
                                 ctx.params.get("namespace"), COMPLETION_TIMEOUT)
        return query(Client(connect(options)))
    except Exception:  # completion must never print a traceback into the user's shell
        return []


_OPTIONS: tuple[Callable[[Any], Any], ...] = (
    click.option("--kubeconfig", type=click.Path(dir_okay=False), default=None,
                 help="Path to the kubeconfig file [$KUBECONFIG, else ~/.kube/config, else in-cluster]."),
    click.option("--context", default=None, shell_complete=_complete_contexts,
                 help="The kubeconfig context to use [current-context]."),
    click.option("-n", "--namespace", default=None, shell_complete=_complete_namespaces,
                 help="Namespace of the Experiments [the context's namespace, else default]."),
    click.option("--request-timeout", type=Duration(), default=f"{DEFAULT_REQUEST_TIMEOUT:g}s", show_default=True,
                 help="Give up on a single API request after this long (0: never), e.g. 10s, 1m."),
)


def cluster_options(fn: F) -> F:
    """Add ``--kubeconfig --context -n --request-timeout``; the command receives ``cluster: ClusterOptions``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        timeout = kwargs.pop("request_timeout")
        options = ClusterOptions(kubeconfig=kwargs.pop("kubeconfig"), context=kwargs.pop("context"),
                                 namespace=kwargs.pop("namespace"), request_timeout=timeout or None)
        return fn(*args, cluster=options, **kwargs)

    decorated: Any = wrapper
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    result: F = decorated
    return result


def default_namespace(options: ClusterOptions) -> str:
    """The namespace the command works in, without connecting: ``-n``, the context's, the pod's, ``default``.

    Used to render before connecting (and by ``--dry-run=client``, which needs no cluster at all).
    """
    return namespace_and_source(options)[0]


def namespace_and_source(options: ClusterOptions) -> tuple[str, str]:
    """:func:`default_namespace` and where it came from, in words for the namespace notice."""
    from kubectl_testbench.cluster import config
    from kubectl_testbench.cluster.errors import ConfigError

    if options.namespace:
        return options.namespace, "from -n"
    try:
        paths = config.kubeconfig_paths(options.kubeconfig)
        if paths:
            view = config.read_kubeconfig(paths)
            name = options.context or view.current
            namespace = (view.contexts.get(name or "") or {}).get("namespace")
            if namespace:
                return str(namespace), f'from the kubeconfig context "{name}"'
            return DEFAULT_NAMESPACE, f'the default: no -n, and the kubeconfig context "{name}" sets no namespace'
        if config.in_cluster():
            text = (config.SERVICE_ACCOUNT_DIR / "namespace").read_text(encoding="utf-8").strip()
            if text:
                return text, "from the pod's service account"
    except (ConfigError, OSError):
        pass
    return DEFAULT_NAMESPACE, "the default: no -n and no namespace in a kubeconfig context"


def connect(options: ClusterOptions) -> Client:
    """A client for the configured cluster (exit 2 on kubeconfig problems)."""
    from kubectl_testbench.cluster.client import Client
    from kubectl_testbench.cluster.config import connect as load

    with cluster_errors():
        return Client(load(options))


def exit_code(err: Exception) -> int:
    from kubectl_testbench.cluster.errors import ConfigError
    from kubectl_testbench.cluster.execution import WorkflowMissing

    return EXIT_USAGE if isinstance(err, ConfigError | WorkflowMissing) else EXIT_CLUSTER


@contextlib.contextmanager
def cluster_errors() -> Iterator[None]:
    """Turn any :class:`ClusterError` into its one line on stderr and its exit code."""
    from kubectl_testbench.cluster.errors import ClusterError

    try:
        yield
    except ClusterError as err:
        click.echo(f"error: {err.message}", err=True)
        sys.exit(exit_code(err))
