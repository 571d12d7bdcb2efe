"""schema: the CRD's OpenAPI schema, as the API server applies it (strict field validation).

All of them are reported by one walk of the schema (``validate/schema.py``), with the API server's own
messages; ``validate/hints.py`` words the hints of the mistakes people make first.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

_SERVER = "The API server checks the same constraint of the CRD's schema and refuses the object."

SCHEMA_REQUIRED = Rule(
    "schema/required", Severity.ERROR, "A required field is missing.",
    "The CRD's schema lists the fields an object must set at each level (an Experiment's agentRef and dataset, "
    f"a metric's metricName...). {_SERVER}",
    hint="add the field; the message names it",
)
SCHEMA_UNKNOWN_FIELD = Rule(
    "schema/unknown-field", Severity.ERROR, "A field the schema does not know (strict field validation).",
    "kubectl apply validates fields strictly: a field the schema does not declare is an error, not silently "
    "dropped as a lenient client would drop it. Most often it is a typo (datset) or a field at the wrong "
    "indentation level; the hint names the known field it is closest to.",
    hint="correct the name, or move the field to the level it belongs to",
    fix="Renames the key when exactly one known field matches it ignoring case or is 1-2 edits away, and that "
        "field is not set already (datset -> dataset).",
    fixer="kubectl_testbench.validate.schema:_rename_fix",
)
SCHEMA_TYPE = Rule(
    "schema/type", Severity.ERROR, "A value has the wrong type.",
    "A field holds a value of another type than the schema declares: text where a number is expected, a list "
    "where an object is. Most come from YAML's reading of plain scalars: yes is a boolean, 0.8 a number, "
    f"\"0.8\" a string. {_SERVER}",
    hint="write a value of the type the message names (quote text, do not quote numbers and booleans)",
    fix="A plain number or YAML 1.1 boolean/octal in a string field is quoted as written (yes, 0777, n); a number "
        "written as a string in a number field is unquoted (\"0.8\" -> 0.8). Never in free-form fields.",
    fixer="kubectl_testbench.validate.schema:_type_fix",
)
SCHEMA_NULL_FIELD = Rule(
    "schema/null-field", Severity.WARNING,
    "A field is null: kubectl apply drops it, a server-side apply refuses it.",
    "A field whose schema is not nullable holds null (`schedule:` with nothing after it, or `schedule: null`). A "
    "create and kubectl's client-side apply prune such nulls before validating, so the field is simply unset. A "
    "server-side apply keeps the null, and the API server refuses the whole object (kube-apiserver 1.35.4: "
    "`spec.schedule: Invalid value: \"null\": spec.schedule in body must be of type object: \"null\"`): that is "
    "`kubectl apply --server-side`, Flux (which always applies server-side) and Argo CD with "
    "`ServerSideApply=true`. Either way the line sets nothing.",
    hint="remove the line, or give the field a value",
    fix="Removes the null field.",
    check="kubectl_testbench.validate.schema:_null_field",
)
SCHEMA_ENUM = Rule(
    "schema/enum", Severity.ERROR, "A value is not one of the allowed values.",
    "The field takes one of a fixed set of values, compared case-sensitively (Allow, not allow). "
    f"{_SERVER}",
    hint="use one of the values the message lists",
    fix="Corrects the case when exactly one allowed value matches ignoring case (allow -> Allow).",
)
SCHEMA_MINIMUM = Rule(
    "schema/minimum", Severity.ERROR, "A number is below its minimum.",
    f"The field's schema sets a lowest value (a threshold is at least 0, for example). {_SERVER}",
    hint="use a number within the range the message gives",
)
SCHEMA_MAXIMUM = Rule(
    "schema/maximum", Severity.ERROR, "A number is above its maximum.",
    f"The field's schema sets a highest value (a threshold is at most 1, for example). {_SERVER}",
    hint="use a number within the range the message gives",
    fix="writes a threshold above 10 and at most 100 as the fraction it reads as a percentage of (90 becomes 0.9)",
    fixer="kubectl_testbench.validate.hints:field_fix",
)
SCHEMA_MULTIPLE_OF = Rule(
    "schema/multiple-of", Severity.ERROR, "A number is not a multiple of the required factor.",
    f"The field's schema requires a multiple of a factor. {_SERVER}",
    hint="use a multiple of the factor the message gives",
)
SCHEMA_PATTERN = Rule(
    "schema/pattern", Severity.ERROR, "A string does not match the required pattern.",
    "The field's schema gives a regular expression its text must match, such as the five fields of a cron "
    f"schedule. {_SERVER} The hint says in words what the pattern expects where it can.",
    hint="write the value in the form the message and hint describe",
    fix="drops the seconds field of a six-field cron when it is 0 (every run time stays the same)",
    fixer="kubectl_testbench.validate.hints:field_fix",
)
SCHEMA_FORMAT = Rule(
    "schema/format", Severity.ERROR, "A string does not match its format (e.g. date-time).",
    f"The field's schema declares a format (date-time, date...) that the text must have. {_SERVER}",
    hint="write the value in the declared format (date-time: 2024-05-01T12:00:00Z)",
)
SCHEMA_MIN_LENGTH = Rule(
    "schema/min-length", Severity.ERROR, "A string is shorter than allowed.",
    f"The field's schema sets a shortest length (often 1: the field may not be empty). {_SERVER}",
    hint="fill in the value",
)
SCHEMA_MAX_LENGTH = Rule(
    "schema/max-length", Severity.ERROR, "A string is longer than allowed.",
    f"The field's schema sets a longest length. {_SERVER}",
    hint="shorten the value to the length the message gives",
)
SCHEMA_MIN_ITEMS = Rule(
    "schema/min-items", Severity.ERROR, "A list has fewer items than required.",
    f"The field's schema sets a smallest number of items (often 1: the list may not be empty). {_SERVER}",
    hint="add items, or leave the field out if it is optional",
)
SCHEMA_MAX_ITEMS = Rule(
    "schema/max-items", Severity.ERROR, "A list has more items than allowed.",
    f"The field's schema sets a largest number of items. {_SERVER}",
    hint="remove items down to the number the message gives",
)
SCHEMA_MIN_PROPERTIES = Rule(
    "schema/min-properties", Severity.ERROR, "An object has fewer fields than required.",
    f"The field's schema sets a smallest number of fields for the object. {_SERVER}",
    hint="set the fields the object needs",
)
SCHEMA_MAX_PROPERTIES = Rule(
    "schema/max-properties", Severity.ERROR, "An object has more fields than allowed.",
    f"The field's schema sets a largest number of fields for the object. {_SERVER}",
    hint="remove fields down to the number the message gives",
)
SCHEMA_DUPLICATE = Rule(
    "schema/duplicate", Severity.ERROR, "A list declared as a set or map repeats an item or key.",
    "A list the schema declares as a set (x-kubernetes-list-type: set) may not hold an item twice, and one "
    "declared as a map may not hold two items with the same key fields. Server-side apply merges such lists by "
    f"item or key, which a repetition makes ambiguous. {_SERVER}",
    hint="remove the repeated item, or merge the two",
)
SCHEMA_ANY_OF = Rule(
    "schema/any-of", Severity.ERROR, "A value matches none of the alternatives (anyOf/oneOf).",
    "The schema offers alternative shapes for the value (anyOf) or requires exactly one of them to fit "
    f"(oneOf), and the value fits none, or several where one is required. {_SERVER}",
    hint="give the value one of the shapes the schema allows",
)
SCHEMA_NOT = Rule(
    "schema/not", Severity.ERROR, "A value matches a schema it must not match.",
    f"The schema excludes a shape of value (not), and the value has it. {_SERVER}",
    hint="change the value so it no longer has the excluded shape",
)
