"""Kubernetes core types the Experiment embeds, as the Kubernetes OpenAPI schema defines them."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from kubectl_testbench.model.base import KubeModel
from kubectl_testbench.model.schema_meta import INT_OR_STRING, K8s

_ATOMIC: dict[str, Any] = {"x-kubernetes-map-type": "atomic"}


class ConfigMapKeySelector(KubeModel):
    """Selects a key from a ConfigMap."""

    k8s_schema: ClassVar[dict[str, Any]] = _ATOMIC
    key: str
    """The key to select."""
    name: str = ""
    """Name of the referent.
This field is effectively required, but due to backwards compatibility is
allowed to be empty. Instances of this type with an empty value here are
almost certainly wrong.
More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"""
    optional: bool | None = None
    """Specify whether the ConfigMap or its key must be defined"""


class SecretKeySelector(KubeModel):
    """SecretKeySelector selects a key of a Secret."""

    k8s_schema: ClassVar[dict[str, Any]] = _ATOMIC
    key: str
    """The key of the secret to select from.  Must be a valid secret key."""
    name: str = ""
    """Name of the referent.
This field is effectively required, but due to backwards compatibility is
allowed to be empty. Instances of this type with an empty value here are
almost certainly wrong.
More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"""
    optional: bool | None = None
    """Specify whether the Secret or its key must be defined"""


class ObjectFieldSelector(KubeModel):
    """ObjectFieldSelector selects an APIVersioned field of an object."""

    k8s_schema: ClassVar[dict[str, Any]] = _ATOMIC
    api_version: str | None = None
    """Version of the schema the FieldPath is written in terms of, defaults to "v1"."""
    field_path: str
    """Path of the field to select in the specified API version."""


class ResourceFieldSelector(KubeModel):
    """ResourceFieldSelector represents container resources (cpu, memory) and their output format."""

    k8s_schema: ClassVar[dict[str, Any]] = _ATOMIC
    container_name: str | None = None
    """Container name: required for volumes, optional for env vars"""
    divisor: Annotated[
        int | str | None,
        INT_OR_STRING,
        K8s(
            pattern=r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
        ),
    ] = None
    """Specifies the output format of the exposed resources, defaults to "1\""""
    resource: str
    """Required: resource to select"""


class FileKeySelector(KubeModel):
    """FileKeySelector selects a key of the env file."""

    k8s_schema: ClassVar[dict[str, Any]] = _ATOMIC
    key: str
    """The key within the env file. An invalid key will prevent the pod from starting.
The keys defined within a source may consist of any printable ASCII characters except '='.
During Alpha stage of the EnvFiles feature gate, the key size is limited to 128 characters."""
    optional: bool = False
    """Specify whether the file or its key must be defined. If the file or key
does not exist, then the env var is not published.
If optional is set to true and the specified key does not exist,
the environment variable will not be set in the Pod's containers.

If optional is set to false and the specified key does not exist,
an error will be returned during Pod creation."""
    path: str
    """The path within the volume from which to select the file.
Must be relative and may not contain the '..' path or start with '..'."""
    volume_name: str
    """The name of the volume mount containing the env file."""


class EnvVarSource(KubeModel):
    """Source for the environment variable's value. Cannot be used if value is not empty."""

    config_map_key_ref: ConfigMapKeySelector | None = None
    """Selects a key of a ConfigMap."""
    field_ref: ObjectFieldSelector | None = None
    """Selects a field of the pod: supports metadata.name, metadata.namespace, `metadata.labels['<KEY>']`, `metadata.annotations['<KEY>']`,
spec.nodeName, spec.serviceAccountName, status.hostIP, status.podIP, status.podIPs."""
    file_key_ref: FileKeySelector | None = None
    """FileKeyRef selects a key of the env file.
Requires the EnvFiles feature gate to be enabled."""
    resource_field_ref: ResourceFieldSelector | None = None
    """Selects a resource of the container: only resources limits and requests
(limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory and requests.ephemeral-storage) are currently supported."""
    secret_key_ref: SecretKeySelector | None = None
    """Selects a key of a secret in the pod's namespace"""


class EnvVar(KubeModel):
    """EnvVar represents an environment variable present in a Container."""

    name: str
    """Name of the environment variable.
May consist of any printable ASCII characters except '='."""
    value: str | None = None
    """Variable references $(VAR_NAME) are expanded
using the previously defined environment variables in the container and
any service environment variables. If a variable cannot be resolved,
the reference in the input string will be unchanged. Double $$ are reduced
to a single $, which allows for escaping the $(VAR_NAME) syntax: i.e.
"$$(VAR_NAME)" will produce the string literal "$(VAR_NAME)".
Escaped references will never be expanded, regardless of whether the variable
exists or not.
Defaults to ""."""
    value_from: EnvVarSource | None = None
    """Source for the environment variable's value. Cannot be used if value is not empty."""


class ObjectReference(KubeModel):
    """ObjectReference contains enough information to let you inspect or modify the referred object."""

    k8s_schema: ClassVar[dict[str, Any]] = _ATOMIC
    api_version: str | None = None
    """API version of the referent."""
    field_path: str | None = None
    """If referring to a piece of an object instead of an entire object, this string
should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].
For example, if the object reference is to a container within a pod, this would take on a value like:
"spec.containers{name}" (where "name" refers to the name of the container that triggered
the event) or if no container name is specified "spec.containers[2]" (container with
index 2 in this pod). This syntax is chosen only to have some well-defined way of
referencing a part of an object."""
    kind: str | None = None
    """Kind of the referent.
More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"""
    name: str | None = None
    """Name of the referent.
More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"""
    namespace: str | None = None
    """Namespace of the referent.
More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/"""
    resource_version: str | None = None
    """Specific resourceVersion to which this reference is made, if any.
More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency"""
    uid: str | None = None
    """UID of the referent.
More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids"""


class Condition(KubeModel):
    """Condition contains details for one aspect of the current state of this API Resource."""

    last_transition_time: Annotated[str, K8s(format="date-time")]
    """lastTransitionTime is the last time the condition transitioned from one status to another.
This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable."""
    message: Annotated[str, Field(max_length=32768)]
    """message is a human readable message indicating details about the transition.
This may be an empty string."""
    observed_generation: Annotated[int | None, Field(ge=0), K8s(format="int64")] = None
    """observedGeneration represents the .metadata.generation that the condition was set based upon.
For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date
with respect to the current state of the instance."""
    reason: Annotated[
        str, Field(min_length=1, max_length=1024, pattern=r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
    ]
    """reason contains a programmatic identifier indicating the reason for the condition's last transition.
Producers of specific condition types may define expected values and meanings for this field,
and whether the values are considered a guaranteed API.
The value should be a CamelCase string.
This field may not be empty."""
    status: Literal["True", "False", "Unknown"]
    """status of the condition, one of True, False, Unknown."""
    type: Annotated[
        str,
        Field(
            max_length=316,
            pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
        ),
    ]
    """type of condition in CamelCase or in foo.example.com/CamelCase."""
