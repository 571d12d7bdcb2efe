"""input: the file itself, before any YAML is read.

Reported while finding and reading the input (``load/sources.py``, ``load/decode.py``) and, for an editor
buffer, by the language server (``lsp/check.py``).
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

INPUT_NOT_FOUND = Rule(
    "input/not-found", Severity.ERROR, "The path does not exist.",
    "A path given on the command line names no file or directory. It is an error rather than an empty result so "
    "that a mistyped path in a CI job fails the job instead of validating nothing.",
    hint="check the path (it is relative to the working directory), or quote a glob the shell did not expand",
)
INPUT_UNREADABLE = Rule(
    "input/unreadable", Severity.ERROR, "The file or directory cannot be read (permissions, I/O error).",
    "The operating system refused to open or list the path, or reading it failed part way. Nothing in it was "
    "checked, so validate exits with 2 (unreadable input) rather than 1 (invalid input).",
    hint="check the permissions of the file and of the directories above it",
)
INPUT_NOT_A_FILE = Rule(
    "input/not-a-file", Severity.ERROR, "The path is a device, socket or FIFO, not a regular file.",
    "Only regular files, directories and - (stdin) are read. A device or a FIFO could block forever or never "
    "end, so it is refused before anything is read from it.",
    hint="give a regular file, or pipe the content to validate -",
)
INPUT_TOO_LARGE = Rule(
    "input/too-large", Severity.ERROR, "The file is larger than --max-file-size.",
    "Files are read whole, so their size is bounded before reading: an Experiment is a few kilobytes, and a file "
    "of many megabytes is more likely a mistake (a dataset or a build artefact) or an attack on the reader than "
    "a manifest.",
    hint="raise the limit with --max-file-size if the file is meant to be that large",
    over_limit=True,
)
INPUT_BINARY = Rule(
    "input/binary", Severity.ERROR, "The file contains NUL bytes: it is not YAML or JSON.",
    "YAML and JSON text never holds a NUL byte; a file that does is binary (an archive, an image, a compiled "
    "file) picked up by a directory scan or a glob. It is reported instead of being read as garbage.",
    hint="leave the file out of the paths you validate",
)
INPUT_ENCODING = Rule(
    "input/encoding", Severity.ERROR, "The file is not valid UTF-8 (or UTF-16/32 with a byte-order mark).",
    "kubectl reads manifests as UTF-8, or as UTF-16/32 when a byte-order mark says so. Text in another encoding "
    "(Latin-1, Windows-1252) would be misread, so the first byte that does not decode is reported with its line "
    "and column.",
    hint="save the file as UTF-8",
)
INPUT_EMPTY = Rule(
    "input/empty", Severity.ERROR, "A file named on the command line holds no YAML document.",
    "A file given by name is expected to hold something to validate; an empty one (or one of comments only) "
    "usually means the wrong file or a generator that wrote nothing. Files found by scanning a directory may be "
    "empty without a finding.",
    hint="check that the file is the one you meant, and that whatever writes it wrote something",
)
INPUT_TEMPLATE = Rule(
    "input/template", Severity.INFO,
    "A Go/Helm template found by a directory scan: skipped, not YAML.",
    "In a directory scan, with --only-testbench-files (for hooks that pass every YAML file) and in the editor, a "
    "file holding Go template actions ({{ ... }}) is a chart template, not a manifest: reading it as YAML would "
    "report errors that are not in what it renders. It is skipped with this notice, which never fails validate. "
    "A template named on the command line is read as YAML: naming a file asks for it to be checked.",
    hint="validate what it renders: helm template . | kubectl testbench validate -",
)
INPUT_HELM_CHART = Rule(
    "input/helm-chart", Severity.INFO,
    "A Helm chart found by a directory scan: its files are skipped.",
    "A directory holding Chart.yaml is a Helm chart: Chart.yaml, values files and templates are the chart's "
    "sources, not manifests, and none of them is an Experiment as written. A directory scan skips the chart with "
    "this one notice, which never fails validate or render; files of the chart named on the command line are read "
    "as they are.",
    hint="validate what it renders: helm template CHART | kubectl testbench validate -",
)
