"""valueFrom and file references against the Secrets and ConfigMaps given: which objects count, how their
data decodes, and every message a user reads when a reference finds nothing."""

from __future__ import annotations

import pytest

from kubectl_testbench.local.values import Values, ValuesError


def secret(name: str, data: dict[str, str] | None = None, string_data: dict[str, object] | None = None,
           api_version: str = "v1", kind: str = "Secret") -> dict[str, object]:
    obj: dict[str, object] = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}}
    if data is not None:
        obj["data"] = data
    if string_data is not None:
        obj["stringData"] = string_data
    return obj


def configmap(name: str, data: dict[str, object] | None = None, binary: dict[str, str] | None = None,
              api_version: str = "v1") -> dict[str, object]:
    obj: dict[str, object] = {"apiVersion": api_version, "kind": "ConfigMap", "metadata": {"name": name}}
    if data is not None:
        obj["data"] = data
    if binary is not None:
        obj["binaryData"] = binary
    return obj


def missing(name: str, ref: str, what: str, obj: str) -> str:
    return (f"env {name} comes from {ref}, which is not among the given values: give it with --env {name}=VALUE, "
            f"or the {what} with --values-from FILE (kubectl get {what.lower()} {obj} -o yaml)")


def error(values: Values, name: str, value_from: dict[str, object]) -> str:
    with pytest.raises(ValuesError) as err:
        values.env(name, value_from)
    return str(err.value)


SECRET_REF = {"secretKeyRef": {"name": "s", "key": "k"}}
CONFIGMAP_REF = {"configMapKeyRef": {"name": "c", "key": "k"}}


def test_only_v1_secrets_and_configmaps_with_a_name_count() -> None:
    for objects in ([secret("s", string_data={"k": "v"}, api_version="v2")],
                    [secret("s", string_data={"k": "v"}, kind="Opaque")],
                    [secret("", string_data={"k": "v"})],
                    [configmap("s", {"k": "v"})]):  # a ConfigMap does not answer a secretKeyRef
        assert error(Values(objects), "X", SECRET_REF) == missing("X", "secretKeyRef s/k", "Secret", "s")
    for objects in ([configmap("c", {"k": "v"}, api_version="apps/v1")], [configmap("", {"k": "v"})],
                    [secret("c", string_data={"k": "v"})]):
        assert error(Values(objects), "X", CONFIGMAP_REF) == missing("X", "configMapKeyRef c/k", "ConfigMap", "c")
    assert Values([secret("s", string_data={"k": "v"})]).env("X", SECRET_REF) == "v"
    assert Values([configmap("c", {"k": "v"})]).env("X", CONFIGMAP_REF) == "v"


def test_secret_and_configmap_data_decode_as_the_api_server_stores_them() -> None:
    values = Values([secret("s", {"k": "aGk=", "raw": "/w=="}, {"n": 3}),
                     configmap("c", {"k": 5, "t": "text"}, {"b": "aGk="})])
    assert values.env("A", SECRET_REF) == "hi"
    assert values.env("B", {"secretKeyRef": {"name": "s", "key": "raw"}}) == "\ufffd"  # not UTF-8: replaced
    assert values.env("C", {"secretKeyRef": {"name": "s", "key": "n"}}) == "3"
    assert values.env("D", CONFIGMAP_REF) == "5"
    assert values.env("E", {"configMapKeyRef": {"name": "c", "key": "b"}}) == "hi"
    assert values.file("/f", {"configMapKeyRef": {"name": "c", "key": "b"}}) == b"hi"
    assert values.file("/f", {"secretKeyRef": {"name": "s", "key": "raw"}}) == b"\xff"
    assert values.file("/f", {"configMapKeyRef": {"name": "c", "key": "t"}}) == b"text"


def test_string_data_overrides_data_for_the_same_key() -> None:
    values = Values([secret("s", {"k": "ZnJvbS1kYXRh"}, {"k": "from-stringData"})])
    assert values.env("X", SECRET_REF) == "from-stringData"


@pytest.mark.parametrize(("obj", "message"), [
    (secret("s", {"k": "not base64!"}), "Secret s data.k: not base64"),
    (secret("s", {"k": "aGk=\n"}), "Secret s data.k: not base64"),
    (secret("s", {"k": "é"}), "Secret s data.k: not base64"),
    (secret("s", {"k": "aGk"}), "Secret s data.k: not base64"),  # padding missing
    (configmap("c", binary={"b": "@@"}), "ConfigMap c binaryData.b: not base64"),
])
def test_data_that_is_not_base64_is_refused_naming_the_object_and_key(obj: dict[str, object], message: str) -> None:
    with pytest.raises(ValuesError) as err:
        Values([obj])
    assert str(err.value) == message


def test_the_first_reference_kind_decides_and_optional_must_be_true() -> None:
    values = Values([secret("s", string_data={"k": "secret"}), configmap("c", {"k": "configmap"})])
    assert values.env("X", {**SECRET_REF, **CONFIGMAP_REF}) == "secret"
    assert values.env("X", {"secretKeyRef": "s", **CONFIGMAP_REF}) == "configmap"  # not a reference: skipped
    assert values.env("X", {"secretKeyRef": {"name": "s", "key": "no", "optional": True}}) is None
    assert values.env("X", {"configMapKeyRef": {"name": "none", "key": "k", "optional": True}}) is None
    for optional in (False, "true", 1):
        assert error(values, "X", {"secretKeyRef": {"name": "s", "key": "no", "optional": optional}}) == missing(
            "X", "secretKeyRef s/no", "Secret", "s")
    assert error(values, "Y", {"configMapKeyRef": {"name": "c", "key": "no"}}) == missing(
        "Y", "configMapKeyRef c/no", "ConfigMap", "c")


def test_given_values_win_over_every_reference() -> None:
    values = Values([secret("s", string_data={"k": "secret"})], {"X": "flag", "Z": ""})
    assert values.env("X", SECRET_REF) == "flag"
    assert values.env("Z", {"fieldRef": {"fieldPath": "metadata.name"}}) == ""
    assert values.env("Y", SECRET_REF) == "secret"


def test_references_only_a_pod_has_are_refused_with_the_way_out() -> None:
    assert error(Values(), "POD", {"resourceFieldRef": {"resource": "limits.cpu"}, "fieldRef": {}}) == (
        "env POD comes from fieldRef, resourceFieldRef, which only a pod in the cluster has: give it with "
        "--env POD=VALUE")
    assert error(Values(), "E", {}) == (
        "env E comes from an empty valueFrom, which only a pod in the cluster has: give it with --env E=VALUE")


def test_file_references_name_the_object_to_give() -> None:
    values = Values([secret("s", string_data={"k": "v"})])
    assert values.file("/etc/x", SECRET_REF) == b"v"
    with pytest.raises(ValuesError) as err:
        values.file("/etc/x", {"secretKeyRef": {"name": "s", "key": "other"}})
    assert str(err.value) == ("file /etc/x comes from secretKeyRef s/other: give the Secret with --values-from FILE "
                              "(kubectl get secret s -o yaml)")
    with pytest.raises(ValuesError) as err:
        values.file("cfg.yaml", {"configMapKeyRef": {"name": "c", "key": "k"}})
    assert str(err.value) == ("file cfg.yaml comes from configMapKeyRef c/k: give the ConfigMap with --values-from "
                              "FILE (kubectl get configmap c -o yaml)")
    with pytest.raises(ValuesError) as err:
        values.file("/p", {"secretKeyRef": "s", "fieldRef": {}})
    assert str(err.value) == "file /p: its content is not known (fieldRef, secretKeyRef)"
