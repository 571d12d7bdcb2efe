"""yaml: reading the text as kubectl reads it (YAML 1.1 scalars, one document per '---', strict decoding).

Reported by the reader (``load/builder.py`` for YAML, ``load/jsonread.py`` for JSON, ``load/scalars.py`` for
the scalars whose reading differs between YAML 1.1 and 1.2) and turned into findings by ``validate/engine.py``.
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

YAML_SYNTAX = Rule(
    "yaml/syntax", Severity.ERROR, "The document is not valid YAML.",
    "The text cannot be parsed: kubectl would refuse the whole document. The message is the parser's, with the "
    "line and column where it gave up; the hint names the usual cause in words (a tab used for indentation, an "
    "unclosed quote or bracket, a colon missing after a key). The other documents of the file are still checked.",
    hint="look at the line shown and the one above it: the mistake is often where the parser first noticed it",
    fix="Tab indentation: re-indents with spaces when the tabbed lines can only be children of the line above "
        "them.",
    fixer="kubectl_testbench.validate.engine:_tab_fix",
)
YAML_DOCUMENT_SEPARATOR = Rule(
    "yaml/document-separator", Severity.ERROR,
    "A '---' line carries content after the marker, which kubectl rejects.",
    "kubectl splits a stream into documents at lines that start with '---' and accepts only a comment after the "
    "marker. YAML itself allows '--- {kind: X}', so other tools read such a file, but kubectl apply fails on it.",
    hint="put the document content on the next line",
    fix="Moves the content after '---' to the next line.",
    fixer="kubectl_testbench.validate.engine:_separator_fix",
)
YAML_DUPLICATE_KEY = Rule(
    "yaml/duplicate-key", Severity.ERROR,
    "A mapping repeats a key; strict decoding rejects it (the later value would win).",
    "YAML parsers usually keep the last of two equal keys and drop the first without a word, so one of two "
    "values someone wrote is silently lost. The API server's strict field validation refuses such an object; "
    "this rule reports it with both places.",
    hint="keep one of the two entries (merge their content if both hold something)",
    fix="removes the earlier of a key's two entries, which Kubernetes never reads (not for a key a merge (<<) "
        "sets, nor one written three times or more)",
)
YAML_TOO_DEEP = Rule(
    "yaml/too-deep", Severity.ERROR, "Nesting exceeds --max-depth.",
    "Mappings and lists nested deeper than --max-depth are not read further. No Experiment comes close to the "
    "default; deep nesting is a sign of generated or hostile input, and bounding it keeps the reader's memory and "
    "recursion bounded.",
    hint="raise the limit with --max-depth if the nesting is intended",
    over_limit=True,
)
YAML_ALIAS = Rule(
    "yaml/alias", Severity.ERROR, "An alias refers to an unknown anchor or to itself.",
    "An alias (*name) must refer to an anchor (&name) defined earlier in the same document and not to the node "
    "that contains it. Otherwise the document has no value: kubectl refuses it.",
    hint="define the anchor before the alias, in the same document",
)
YAML_ALIAS_LIMIT = Rule(
    "yaml/alias-limit", Severity.ERROR, "Aliases expand to too many nodes, or to more text than --max-file-size.",
    "Aliases copy what their anchor holds, so a few lines can expand to billions of nodes (a billion-laughs "
    "document). The expansion is bounded by nodes and by text, as the file size bounds text written out, so "
    "that reading a small file cannot exhaust memory.",
    hint="write the repeated content out, or raise --max-file-size if the expansion is intended",
    over_limit=True,
)
YAML_TOO_MANY_NODES = Rule(
    "yaml/too-many-nodes", Severity.ERROR,
    "A file has more nodes than --max-nodes (each document counts as 100 at least).",
    "The number of nodes (scalars, mappings, lists) read from one file is bounded, each document counting as at "
    "least 100, so that a file of a million tiny documents costs no more than one large one. Once the budget is "
    "spent one finding says so and the rest of the file is not read.",
    hint="split the file, or raise the limit with --max-nodes",
    over_limit=True,
)
YAML_MERGE = Rule(
    "yaml/merge", Severity.ERROR, "A merge key (<<) is given something other than mappings.",
    "A merge key takes a mapping, or a list of mappings, whose entries it adds to the enclosing mapping. Given a "
    "scalar or a list of other things it has no meaning, and kubectl refuses the document.",
    hint="give << an alias of a mapping, or a list of such aliases",
)
YAML_KEY_TYPE = Rule(
    "yaml/key-type", Severity.ERROR, "A mapping key is null, a list or a mapping, which JSON cannot carry.",
    "Kubernetes objects are JSON, whose object keys are strings. YAML allows complex keys (? [a, b]) and null "
    "keys, which cannot be converted, so kubectl refuses the document.",
    hint="use a plain text key",
)
YAML_TAG = Rule(
    "yaml/tag", Severity.ERROR, "A scalar cannot be read as its explicit tag (e.g. !!int abc).",
    "An explicit standard tag (!!int, !!float, !!bool, !!timestamp...) demands that the scalar be read as that "
    "type. When the text is not a value of the type, the document cannot be read.",
    hint="remove the tag, or write a value of the tagged type",
)
YAML_UNKNOWN_TAG = Rule(
    "yaml/unknown-tag", Severity.WARNING, "A custom tag is ignored by Kubernetes.",
    "A tag Kubernetes does not know (!Ref, !include, !secret) is dropped: the value is read as plain text or "
    "structure. Whatever the tag was meant to do (an include, a reference, a secret lookup) does not happen.",
    hint="resolve the tag with the tool it belongs to before validating or applying, or remove it",
)
YAML_YAML11_BOOLEAN = Rule(
    "yaml/yaml11-boolean", Severity.WARNING,
    "yes/no/on/off/y/n are booleans for Kubernetes (YAML 1.1) but text for YAML 1.2 tools: write true/false in a "
    "boolean field, quote the word in a text field.",
    "Kubernetes reads YAML 1.1, in which the plain words yes, no, on, off, y and n are booleans; editors, yq and "
    "most other tools read YAML 1.2, in which they are text. The same file then means different things to "
    "different tools. In a text field the schema also reports it (schema/type), since the API server receives a "
    "boolean.",
    hint="write true/false in a boolean field; quote the word in a text field",
    fix="In a boolean field, writes true/false for yes/no/on/off (what Kubernetes reads). In a string field the "
        "finding is schema/type, whose fix quotes the word.",
    fixer="kubectl_testbench.validate.engine:_remark_fix",
)
YAML_SEXAGESIMAL = Rule(
    "yaml/sexagesimal", Severity.WARNING,
    "1:20-style values are strings for Kubernetes but numbers for YAML 1.1 tools.",
    "YAML 1.1 reads digits separated by colons as a base-60 number (1:20 is 80). Kubernetes' reader keeps them "
    "as text, but other YAML 1.1 tools convert them, so a time or a version like 1:20 is easily corrupted on its "
    "way through them.",
    hint="quote the value",
    fix="In a string field, quotes the value as written (\"1:30\").",
    fixer="kubectl_testbench.validate.engine:_remark_fix",
)
YAML_LEGACY_OCTAL = Rule(
    "yaml/legacy-octal", Severity.WARNING,
    "0755-style values are octal for Kubernetes (YAML 1.1) but decimal for YAML 1.2.",
    "A plain number with a leading zero is octal in YAML 1.1, which Kubernetes reads (0755 is 493), and decimal "
    "in YAML 1.2. The number the API server receives is not the one most readers see.",
    hint="write the number without the leading zero, or quote it if it is text",
)
YAML_NON_FINITE = Rule(
    "yaml/non-finite", Severity.ERROR, ".inf and .nan cannot be represented in JSON; Kubernetes rejects them.",
    "YAML has infinity and not-a-number (.inf, .nan) and numbers too large for a 64-bit float; JSON has neither, "
    "and the API server receives JSON. kubectl fails to convert such a document.",
    hint="write a finite number, or quote the value if it is text",
)
YAML_AFTER_DOCUMENT_END = Rule(
    "yaml/after-document-end", Severity.WARNING,
    "Content after '...' without a '---' line: kubectl silently drops it.",
    "'...' ends a document. kubectl ignores everything after it up to the next '---' line, so content written "
    "there is never applied, and nothing says so.",
    hint="start the next document with a '---' line",
)
YAML_NOT_AN_OBJECT = Rule(
    "yaml/not-an-object", Severity.ERROR, "The document is a scalar or a list, not a Kubernetes object.",
    "Every document kubectl applies must be an object (a mapping with apiVersion and kind), or a List of "
    "objects. A document that is a string, a number or a bare list cannot be applied.",
    hint="make the document a mapping with apiVersion, kind, metadata and spec",
    check="kubectl_testbench.validate.objects:objects",
)
