"""Hostile cases of the cluster verbs: a misbehaving API server (tests/cluster/fakeapi.py) the CLI child talks to.

Each generator starts a stand-in API server in the test process, set up to misbehave one way, writes a kubeconfig
for it and returns the child's arguments. The servers run in daemon threads until the test process ends (a
dripping answer must outlive the child that gave up on it); atexit stops them.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.cluster.fakeapi import FakeApiServer, Raw, Recorded, raw_head, retry_later, status

FIXTURES = Path(__file__).resolve().parent.parent / "cluster" / "fixtures"
EXPERIMENTS = "/apis/testbench.agentic-layer.ai/v1alpha1"
GiB = 1 << 30

Result = tuple[list[str], bytes | None]
CLUSTER_GENERATORS: dict[str, Callable[[Path], Result]] = {}


def generator(fn: Callable[[Path], Result]) -> Callable[[Path], Result]:
    CLUSTER_GENERATORS[fn.__name__] = fn
    return fn


def _server(tmp: Path, method: str = "", pattern: str = "", answer: Callable[[Recorded], Any] | None = None,
            server: str | None = None) -> tuple[FakeApiServer, list[str]]:
    api = FakeApiServer().start()  # the stand-in: hostile answers kube-apiserver never sends
    atexit.register(api.stop)
    if answer is not None:
        api.hook(method, pattern, answer)
    return api, ["--kubeconfig", str(api.kubeconfig(tmp / "kubeconfig", server=server))]


def _drip(body: bytes, head: bool = False) -> Raw:
    return Raw(raw_head(200, len(body)), [bytes([b]) for b in body], pause=1.0, drip_head=head)


def _blocks(total: int) -> Iterator[bytes]:
    block = b" " * (1 << 20)
    for _ in range(total >> 20):
        yield block


@generator
def cluster_slow_body(tmp: Path) -> Result:
    """One byte a second: urllib3's per-read timeout never fires."""
    _, args = _server(tmp, "GET", "/apis/testworkflows.testkube.io/v1$",
                      lambda r: _drip(b'{"kind":"APIResourceList","resources":[]}' * 4))
    return [str(FIXTURES), *args], None


@generator
def cluster_slow_headers(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", EXPERIMENTS + "$", lambda r: _drip(b"{}", head=True))
    return args, None


@generator
def cluster_retry_after_100(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", EXPERIMENTS + "$", lambda r: retry_later(429, "TooManyRequests", "slow", "100"))
    return args, None


@generator
def cluster_3gib_answer(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", EXPERIMENTS + "$", lambda r: Raw(raw_head(200, 3 * GiB), _blocks(3 * GiB)))
    return args, None


@generator
def cluster_3gib_answer_until_close(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", EXPERIMENTS + "$", lambda r: Raw(raw_head(200), _blocks(3 * GiB)))
    return args, None


def _pages(token: Callable[[int], str]) -> Callable[[Recorded], Any]:
    count = iter(range(1, 1_000_000))

    def page(req: Recorded) -> Any:
        n = next(count)
        return 200, {"kind": "ExperimentList", "metadata": {"continue": token(n)},
                     "items": [{"metadata": {"name": f"e-{n}", "namespace": "team-a"}}]}

    return page


@generator
def cluster_repeated_continue(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", "/experiments$", _pages(lambda n: "again"))
    return args, None


@generator
def cluster_endless_continue(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", "/experiments$", _pages(lambda n: f"t{n}"))
    return args, None


def _listing(*items: dict[str, Any]) -> Callable[[Recorded], Any]:
    return lambda r: (200, {"kind": "List", "metadata": {}, "items": list(items)})


def _ours(kind: str, name: str, namespace: str = "testkube", api_version: str = "v1") -> dict[str, Any]:
    labels = {"app.kubernetes.io/managed-by": "kubectl-testbench", "testbench.agentic-layer.ai/experiment-name": "old",
              "testbench.agentic-layer.ai/experiment-namespace": "team-a"}
    return {"apiVersion": api_version, "kind": kind,
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": labels}}


@generator
def cluster_prune_foreign_namespace(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", "/namespaces/testkube/configmaps$",
                      _listing(_ours("ConfigMap", "coredns", "kube-system")))
    return [str(FIXTURES), *args], None


@generator
def cluster_prune_namespace_kind(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", "/namespaces/testkube/configmaps$", _listing(_ours("Namespace", "kube-system")))
    return [str(FIXTURES), *args], None


@generator
def cluster_secret_in_configmap_list(tmp: Path) -> Result:
    _, args = _server(tmp, "GET", "/namespaces/testkube/configmaps$", _listing(_ours("Secret", "token")))
    return [str(FIXTURES), *args], None


@generator
def cluster_osc52_in_status(tmp: Path) -> Result:
    api, args = _server(tmp)
    api.put({"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
             "metadata": {"name": "rag", "namespace": "team-a"},
             "spec": {"agentRef": {"name": "\x1b]52;c;cHduZWQ=\x07"}, "schedule": {"cron": "\n::error::x * * * *"}}})
    return args, None


@generator
def cluster_userinfo_in_server_url(tmp: Path) -> Result:
    """A password in the kubeconfig's server URL, and a server that echoes the bearer token in its error."""
    api, _ = _server(tmp, "GET", EXPERIMENTS + "$",
                     lambda r: status(500, "InternalError", f"bad {r.headers.get('authorization')}"))
    url = api.url.replace("http://", "http://admin:s3cret@")
    return ["--kubeconfig", str(api.kubeconfig(tmp / "kubeconfig-userinfo", server=url))], None
