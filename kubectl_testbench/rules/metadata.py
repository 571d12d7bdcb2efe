"""metadata: ObjectMeta, which the API server decodes and validates itself, not through the CRD's schema.

Reported by ``validate/metadata.py`` (decoding as metav1.ObjectMeta, then ``ValidateObjectMetaAccessor`` for an
object about to be created) and ``validate/nulls.py``.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

METADATA_NAME_REQUIRED = Rule(
    "metadata/name-required", Severity.ERROR,
    "metadata.name is missing (generateName cannot be used with GitOps or apply).",
    "Every Experiment needs a name. The API server would accept generateName instead on create, but kubectl "
    "apply, Argo CD and Flux identify objects by name and cannot apply an object that has none.",
    hint="set metadata.name",
    check="kubectl_testbench.validate.metadata:_check_names",
)
METADATA_NAME = Rule(
    "metadata/name", Severity.ERROR, "metadata.name is not a DNS-1123 subdomain.",
    "The API server requires a name of lower-case letters, digits, '-' and '.', starting and ending with a letter "
    "or digit, at most 253 characters (generateName likewise, before its random suffix). Upper case, '_' and "
    "spaces are the usual culprits.",
    hint="use lower-case letters, digits and '-'",
    check="kubectl_testbench.validate.metadata:_check_names",
)
METADATA_NAMESPACE = Rule(
    "metadata/namespace", Severity.ERROR, "metadata.namespace is not a DNS-1123 label.",
    "A namespace name is a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter "
    "or digit, at most 63 characters. No such namespace can exist, so the API server refuses the object.",
    hint="use the name of an existing namespace",
    check="kubectl_testbench.validate.metadata:_check_names",
)
METADATA_LABELS = Rule(
    "metadata/labels", Severity.ERROR, "A label key or value is not valid.",
    "A label key is a qualified name with an optional DNS prefix (example.com/name), a value at most 63 "
    "characters of letters, digits, '-', '_' and '.', starting and ending with a letter or digit. Labels are used "
    "in selectors, hence the strict syntax; the API server refuses anything else.",
    hint="shorten the value or drop the characters the message names",
    check="kubectl_testbench.validate.metadata:_check_labels",
)
METADATA_ANNOTATIONS = Rule(
    "metadata/annotations", Severity.ERROR, "An annotation key is invalid or the annotations are too large.",
    "Annotation keys follow the label key syntax (checked lower-cased); values are free text, but all "
    "annotations of an object together may hold at most 256 KiB. The API server refuses the object otherwise.",
    hint="correct the key, or move large data out of the annotations",
    check="kubectl_testbench.validate.metadata:_check_annotations",
)
METADATA_UNKNOWN_FIELD = Rule(
    "metadata/unknown-field", Severity.ERROR, "metadata holds a field ObjectMeta does not have.",
    "metadata is decoded strictly as Kubernetes' ObjectMeta: a field it does not have (label: instead of labels:, "
    "a field meant for spec) is an error under kubectl's strict field validation, not silently dropped.",
    hint="correct the name, or move the field where it belongs",
    fix="Renames the key when it is a slip of exactly one ObjectMeta field (or owner reference / managedFields "
        "field) that is not set.",
    fixer="kubectl_testbench.validate.fix_choices:rename_fix",
)
METADATA_TYPE = Rule(
    "metadata/type", Severity.ERROR, "A metadata field has the wrong type.",
    "ObjectMeta's fields have fixed types: names, namespace and label values are strings, labels and annotations "
    "maps of strings, finalizers a list of strings. A plain number or boolean there (namespace: no, version: 1.0) "
    "cannot be decoded, and the API server refuses the object.",
    hint="quote the value, or give the field the shape the message names",
    fix="Quotes a plain number or boolean in a string field (namespace: no, a label value, a finalizer).",
    fixer="kubectl_testbench.validate.metadata:_quote_fix",
)
METADATA_NULL_FIELD = Rule(
    "metadata/null-field", Severity.INFO,
    "A metadata field is null (creationTimestamp: null); the API server drops it.",
    "kubectl create --dry-run=client -o yaml writes creationTimestamp: null, and generators write labels: null. "
    "The API server accepts and drops such fields, so this is noise in a file under Git, not an error.",
    hint="remove the line",
    fix="Removes the null field.",
    check="kubectl_testbench.validate.nulls:null_metadata_fields",
)
METADATA_TIMESTAMP = Rule(
    "metadata/timestamp", Severity.ERROR,
    "A metadata timestamp is not an RFC 3339 date-time; the server cannot decode it.",
    "creationTimestamp and deletionTimestamp are decoded as RFC 3339 date-times (2024-05-01T12:00:00Z). Any "
    "other text fails decoding, and the API server refuses the object.",
    hint="remove the timestamp (the server sets it) or write an RFC 3339 date-time",
    check="kubectl_testbench.validate.metadata:_expect_time",
)
METADATA_OWNER_REFERENCES = Rule(
    "metadata/owner-references", Severity.ERROR,
    "An owner reference lacks apiVersion, kind, name or uid, or several are controllers.",
    "An owner reference must name its owner completely (apiVersion, kind, name, uid), and at most one owner may "
    "be the controller. Owner references copied from a cluster usually carry a uid that does not exist in "
    "another cluster.",
    hint="remove ownerReferences from manifests kept in Git",
    check="kubectl_testbench.validate.metadata:_check_owner_references",
)
METADATA_FINALIZERS = Rule(
    "metadata/finalizers", Severity.ERROR,
    "A finalizer is not a qualified name, or orphan and foregroundDeletion are both set.",
    "A finalizer is a qualified name (example.com/cleanup). The built-in orphan and foregroundDeletion "
    "finalizers contradict each other and may not both be set. The API server refuses the object otherwise.",
    hint="correct the finalizer name, or keep one of orphan and foregroundDeletion",
    check="kubectl_testbench.validate.metadata:_check_finalizers",
)
METADATA_MANAGED_FIELDS = Rule(
    "metadata/managed-fields", Severity.ERROR,
    "A managedFields entry has an invalid operation, fieldsType, manager or subresource.",
    "managedFields records server-side apply's field ownership; the server checks each entry (operation Apply or "
    "Update, fieldsType FieldsV1, a manager name of at most 128 characters...). Entries copied from a cluster "
    "belong to that cluster's history, not in a manifest.",
    hint="remove managedFields from manifests kept in Git",
    check="kubectl_testbench.validate.metadata:_check_managed_fields",
)
METADATA_MANAGED_FIELDS_SET = Rule(
    "metadata/managed-fields-set", Severity.WARNING,
    "metadata.managedFields is set: a server-side apply refuses the object.",
    "managedFields is the server's record of who owns which field. A create replaces whatever the manifest "
    "holds with the server's own record; a server-side apply refuses the whole object (kube-apiserver 1.35.4: "
    "`metadata.managedFields must be nil`), and that is `kubectl apply --server-side`, Flux and Argo CD with "
    "`ServerSideApply=true`. It comes from copying `kubectl get -o yaml` into a manifest.",
    hint="remove metadata.managedFields",
    fix="Removes metadata.managedFields.",
    check="kubectl_testbench.validate.metadata:_managed_fields_set",
)
METADATA_RESOURCE_VERSION = Rule(
    "metadata/resource-version", Severity.ERROR,
    "metadata.resourceVersion is set: the server refuses to create the object.",
    "resourceVersion is the server's optimistic-concurrency token. Set in a manifest (usually copied from "
    "kubectl get -o yaml), it makes a create fail, and an apply fail with a conflict once the object has "
    "changed in the cluster.",
    hint="remove metadata.resourceVersion (it was copied from a cluster)",
    check="kubectl_testbench.validate.metadata:check_metadata",
)
