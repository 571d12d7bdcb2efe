"""The REST client against a local HTTP stand-in of the API server: paging, status mapping, headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.cluster.client import (
    MAX_RETRIES,
    MAX_RETRY_WAIT,
    PAGE_SIZE,
    Client,
    Target,
    retry_after,
    status_error,
)
from kubectl_testbench.cluster.config import ClusterOptions, connect
from kubectl_testbench.cluster.errors import (
    AlreadyExists,
    FieldConflict,
    Invalid,
    NotFound,
    NotServed,
    ServerError,
)
from kubectl_testbench.cluster.resources import CONFIGMAP, TESTWORKFLOW, Ref
from tests.cluster.fakeapi import FakeApiServer, Recorded, retry_later, status

pytestmark = pytest.mark.fake_api(
    "faults a real server will not produce on demand: pages of one item with continue tokens, 429 with Retry-After,"
    " 5xx, bounded retries, discovery counted per request")

SERVER = "https://k8s.example:6443"


@pytest.fixture
def client(api: FakeApiServer, kubeconfig: Path) -> Client:
    return Client(connect(ClusterOptions()))


def test_list_follows_continue_tokens(api: FakeApiServer, client: Client) -> None:
    pages = {"": (["a", "b"], "t1"), "t1": (["c"], "t2"), "t2": (["d"], "")}

    def page(req: Recorded) -> tuple[int, Any]:
        names, token = pages[req.q("continue") or ""]
        return 200, {"kind": "ConfigMapList", "metadata": {"continue": token},
                     "items": [{"metadata": {"name": n}} for n in names]}

    api.hook("GET", "/configmaps$", page)
    items = client.list(CONFIGMAP, "testkube", "a=b")
    assert [i["metadata"]["name"] for i in items] == ["a", "b", "c", "d"]
    assert all(i["kind"] == "ConfigMap" and i["apiVersion"] == "v1" for i in items)
    lists = [r for r in api.requests if r.path.endswith("/configmaps")]
    assert [r.q("continue") for r in lists] == [None, "t1", "t2"]
    assert {r.q("limit") for r in lists} == {str(PAGE_SIZE)} and {r.q("labelSelector") for r in lists} == {"a=b"}


def test_get_of_a_missing_object_is_none(client: Client) -> None:
    assert client.get(Ref(TESTWORKFLOW, "testkube", "nope")) is None


def test_discovery_is_cached_per_group(api: FakeApiServer, client: Client) -> None:
    assert client.served(TESTWORKFLOW) and client.served(TESTWORKFLOW)
    assert [r.path for r in api.requests] == ["/apis/testworkflows.testkube.io/v1"]
    api.served["/apis/testworkflows.testkube.io/v1"].pop("testworkflows")
    fresh = Client(client.connection)
    assert not fresh.served(TESTWORKFLOW), "group served but without the resource"
    with pytest.raises(NotServed, match=r"TestWorkflow \(testworkflows.testkube.io/v1\) is not served"):
        fresh.ensure_served(TESTWORKFLOW)


def test_names_with_odd_characters_are_escaped_in_paths() -> None:
    assert Ref(CONFIGMAP, "ns", "a b/c").path == "/api/v1/namespaces/ns/configmaps/a%20b%2Fc"


TARGET = Target("create", TESTWORKFLOW, "testkube", "x")


def test_already_exists() -> None:
    err = status_error(409, {"reason": "AlreadyExists", "message": "exists"}, TARGET, SERVER)
    assert isinstance(err, AlreadyExists)
    assert err.message == 'already exists: create TestWorkflow "x" in namespace "testkube"'


def test_conflict_without_field_names_and_several_managers() -> None:
    err = status_error(409, {"reason": "Conflict", "details": {"causes": [
        {"reason": "FieldManagerConflict", "message": 'conflict with "helm"', "field": ".spec.a"},
        {"reason": "FieldManagerConflict", "message": 'conflict with "argocd-controller"', "field": ""},
        {"reason": "FieldManagerConflict", "message": 'conflict with "helm"', "field": ".spec.b"}]}},
        Target("patch", TESTWORKFLOW, "testkube", "x"), SERVER)
    assert isinstance(err, FieldConflict)
    assert err.conflicts == [("helm", ".spec.a"), ("argocd-controller", ""), ("helm", ".spec.b")]
    assert err.message.startswith('conflict applying testworkflow.testworkflows.testkube.io/x: field manager "helm" '
                                  'owns .spec.a, .spec.b; field manager "argocd-controller" owns fields we set.')


def test_other_status_codes() -> None:
    assert isinstance(status_error(400, {"message": "bad"}, TARGET, SERVER), Invalid)
    err = status_error(429, {"reason": "TooManyRequests", "message": "slow down"}, TARGET, SERVER)
    assert isinstance(err, ServerError) and "429 TooManyRequests: slow down" in err.message
    err = status_error(418, {}, TARGET, SERVER, "I'm a teapot")
    assert err.message == (f"unexpected answer 418 from the Kubernetes API server at {SERVER} to create "
                           "TestWorkflow \"x\" in namespace \"testkube\": I'm a teapot")
    assert isinstance(status_error(404, {"details": {"name": "x"}}, TARGET, SERVER), NotFound)
    assert isinstance(status_error(404, {}, TARGET, SERVER), NotServed)


def test_messages_are_always_one_line() -> None:
    err = status_error(500, {"reason": "InternalError", "message": "a\n\n  b\r\nc"}, TARGET, SERVER)
    assert "\n" not in err.message and err.message.endswith("a b c")


def test_retry_after_follows_client_go() -> None:
    assert retry_after(429, "1") == 1.0 and retry_after(503, " 0 ") == 0.0
    assert retry_after(429, "3600") == MAX_RETRY_WAIT
    assert retry_after(429, None) is None, "no Retry-After: the server did not ask for a retry"
    assert retry_after(429, "Wed, 21 Oct 2015 07:28:00 GMT") is None, "HTTP dates are not retried (client-go)"
    assert retry_after(409, "1") is None and retry_after(200, "1") is None


def test_429_with_retry_after_is_sent_again_until_it_succeeds(api: FakeApiServer, client: Client) -> None:
    answers = iter([retry_later(429, "TooManyRequests", "slow down")] * 2)
    api.hook("GET", "/configmaps/cm", lambda r: next(answers, None))
    api.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "team-a"}})
    live = client.get(Ref(CONFIGMAP, "team-a", "cm"))
    assert live is not None and live["metadata"]["name"] == "cm"
    sent = [str(r) for r in api.requests if r.path.endswith("/cm")]
    assert sent == ["GET /api/v1/namespaces/team-a/configmaps/cm"] * 3


def test_5xx_without_retry_after_fails_at_once(api: FakeApiServer, client: Client) -> None:
    api.hook("GET", "/configmaps/cm", lambda r: status(503, "ServiceUnavailable", "etcd is down"))
    with pytest.raises(ServerError) as caught:
        client.get(Ref(CONFIGMAP, "team-a", "cm"))
    assert caught.value.message.endswith("503 ServiceUnavailable: etcd is down")
    assert len([r for r in api.requests if r.path.endswith("/cm")]) == 1


def test_retries_are_bounded_and_said_in_the_error(api: FakeApiServer, client: Client) -> None:
    api.hook("GET", "/configmaps/cm", lambda r: retry_later(429, "TooManyRequests", "slow down"))
    with pytest.raises(ServerError) as caught:
        client.get(Ref(CONFIGMAP, "team-a", "cm"))
    assert caught.value.message.endswith(
        f"429 TooManyRequests: slow down (still failing after {MAX_RETRIES} retries as Retry-After asked)")
    assert len([r for r in api.requests if r.path.endswith("/cm")]) == MAX_RETRIES + 1
