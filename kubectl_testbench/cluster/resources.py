"""The kinds we read and write, their REST paths, and how kubectl names them.

A fixed table instead of full discovery: we only ever touch these kinds, so we know their plural
names up front and use discovery only to ask whether the cluster serves them (one GET per group).

Objects a cluster returns are read with :func:`mapping`, :func:`sequence` and :func:`dig`: a field that
holds ``null``, a list or a string where an object belongs reads as absent, so a misbehaving server or an
odd object (a ``selector: null``) never turns into an internal error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

INSTALL_TESTKUBE = "install Testkube first (https://docs.testkube.io/articles/install/overview)"
INSTALL_CRD = ("install the Experiment CRD first (kubectl testbench crd | kubectl apply --server-side -f -) "
               "or leave out --include-experiment")


@dataclass(frozen=True, slots=True, order=True)
class Kind:
    kind: str
    group: str
    version: str
    plural: str
    missing_hint: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def discovery_path(self) -> str:
        """The group/version discovery document (``/api/v1`` or ``/apis/<group>/<version>``)."""
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    @property
    def resource(self) -> str:
        """``plural.group`` as RBAC and error messages spell it (``configmaps`` for the core group)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def display(self) -> str:
        """kubectl's ``kind.group`` prefix in ``configmap/x`` or ``testworkflow.testworkflows.testkube.io/x``."""
        lower = self.kind.lower()
        return f"{lower}.{self.group}" if self.group else lower

    @property
    def file_id(self) -> str:
        """``group.version.Kind``, the prefix of kubectl diff's file names."""
        return f"{self.group}.{self.version}.{self.kind}" if self.group else f"{self.version}.{self.kind}"

    def collection(self, namespace: str | None) -> str:
        """The collection path; ``namespace=None`` lists across all namespaces."""
        if namespace is None:
            return f"{self.discovery_path}/{self.plural}"
        return f"{self.discovery_path}/namespaces/{quote(namespace, safe='')}/{self.plural}"

    def item(self, namespace: str, name: str) -> str:
        return f"{self.collection(namespace)}/{quote(name, safe='')}"


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def sequence(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def dig(obj: Any, *keys: str) -> Any:
    """``obj[k1][k2]…``, or None where a key is missing or a value on the way is not an object."""
    for key in keys:
        obj = mapping(obj).get(key)
    return obj


def text(value: Any) -> str:
    """A field as text: ``""`` for null, else its string form (a server may send a number where a name belongs)."""
    return "" if value is None else str(value)


CONFIGMAP = Kind("ConfigMap", "", "v1", "configmaps")
TESTWORKFLOW = Kind("TestWorkflow", "testworkflows.testkube.io", "v1", "testworkflows", INSTALL_TESTKUBE)
TESTTRIGGER = Kind("TestTrigger", "tests.testkube.io", "v1", "testtriggers", INSTALL_TESTKUBE)
EXECUTION = Kind("TestWorkflowExecution", "testworkflows.testkube.io", "v1", "testworkflowexecutions",
                 INSTALL_TESTKUBE)
EXPERIMENT = Kind("Experiment", "testbench.agentic-layer.ai", "v1alpha1", "experiments", INSTALL_CRD)
NAMESPACE = Kind("Namespace", "", "v1", "namespaces")

KINDS: dict[tuple[str, str], Kind] = {(k.api_version, k.kind): k for k in
                                      (CONFIGMAP, TESTWORKFLOW, TESTTRIGGER, EXECUTION, EXPERIMENT, NAMESPACE)}


def kind_of(obj: dict[str, Any]) -> Kind:
    """The table entry for an object; our renderer only emits kinds in the table."""
    key = (str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    try:
        return KINDS[key]
    except KeyError:
        raise ValueError(f"unsupported kind {key[1]} ({key[0]})") from None


@dataclass(frozen=True, slots=True, order=True)
class Ref:
    """One object's identity; prints the way kubectl names objects (``configmap/x``)."""

    kind: Kind
    namespace: str
    name: str

    @classmethod
    def of(cls, obj: dict[str, Any]) -> Ref:
        meta = mapping(obj.get("metadata"))
        return cls(kind_of(obj), str(meta.get("namespace", "")), str(meta.get("name", "")))

    def __str__(self) -> str:
        return f"{self.kind.display}/{self.name}"

    @property
    def path(self) -> str:
        return self.kind.item(self.namespace, self.name)

    @property
    def qualified(self) -> str:
        """With the namespace, for messages that span namespaces."""
        return f"{self} in namespace {self.namespace}"
