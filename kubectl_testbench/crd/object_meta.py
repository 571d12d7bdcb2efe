"""ObjectMeta's documentation for ``explain``: the CRD declares ``metadata`` as a bare ``type: object`` (the API
server validates it itself), so the descriptions kubectl explain shows for it come from here, in the words of
Kubernetes' API reference (k8s.io/apimachinery ObjectMeta), shortened to what an Experiment author sets."""

from __future__ import annotations

from typing import Any

TYPE_KEY = "x-explain-type"
"""The type name explain prints instead of the schema's (``<ObjectMeta>``, as kubectl does)."""
_API = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
_DOCS = "https://kubernetes.io/docs/concepts/overview/working-with-objects"


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _map(description: str) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": {"type": "string"}, "description": description}


OBJECT_META: dict[str, Any] = {
    "type": "object",
    TYPE_KEY: "ObjectMeta",
    "description": "Standard object's metadata. More info: " + _API + "#metadata",
    "required": ["name"],
    "properties": {
        "name": _string(
            "Name must be unique within a namespace. Is required when creating resources, although some resources "
            "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
            "intended for creation idempotence and configuration definition. Cannot be updated. For an "
            "Experiment it is a DNS-1123 subdomain, and it becomes part of the generated TestWorkflow, ConfigMap "
            "and TestTrigger names (<name>-<namespace>-workflow). More info: " + _DOCS + "/names#names"),
        "namespace": _string(
            "Namespace defines the space within which each name must be unique. An empty namespace is equivalent "
            "to the \"default\" namespace. Must be a DNS_LABEL. Cannot be updated. When unset, kubectl testbench "
            "uses -n, then (apply, diff, prune) the kubeconfig context's namespace, then \"default\", and says "
            "so on stderr. More info: " + _DOCS + "/namespaces"),
        "labels": _map(
            "Map of string keys and values that can be used to organize and categorize (scope and select) "
            "objects. May match selectors of replication controllers and services. More info: " + _DOCS
            + "/labels"),
        "annotations": _map(
            "Annotations is an unstructured key value map stored with a resource that may be set by external "
            "tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when "
            "modifying objects. kubectl testbench reads testbench.agentic-layer.ai/agent-url, "
            "testbench.agentic-layer.ai/ai-gateway-url and testbench.agentic-layer.ai/ai-gateway-port. More "
            "info: " + _DOCS + "/annotations"),
        "generateName": _string(
            "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name "
            "field has not been provided. Not usable with apply or GitOps (kubectl testbench requires a name)."),
        "finalizers": {"type": "array", "items": {"type": "string"}, "description":
                       "Must be empty before the object is deleted from the registry. Each entry is an identifier "
                       "for the responsible component that will remove the entry from the list."},
        "ownerReferences": {"type": "array", "items": {"type": "object"}, "description":
                            "List of objects depended by this object. If ALL objects in the list have been "
                            "deleted, this object will be garbage collected."},
        "uid": _string("UID is the unique in time and space value for this object, set by the server. Read-only."),
        "resourceVersion": _string(
            "An opaque value that represents the internal version of this object, set by the server. Must not be "
            "set on objects to be created. Read-only."),
        "generation": {"type": "integer", "description":
                       "A sequence number representing a specific generation of the desired state. Populated by "
                       "the system. Read-only."},
        "creationTimestamp": _string(
            "A timestamp representing the server time when this object was created. Populated by the system. "
            "Read-only. Null for lists."),
    },
}


def with_object_meta(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (an Experiment's openAPIV3Schema) with ``metadata`` documented as ObjectMeta."""
    props = schema.get("properties") or {}
    meta = props.get("metadata")
    if not isinstance(meta, dict) or meta.get("properties"):
        return schema
    return {**schema, "properties": {**props, "metadata": OBJECT_META}}
