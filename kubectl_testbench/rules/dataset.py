"""dataset: a dataset file (``experiment.json``, what the setup phase downloads from S3 or a URL) checked against
the phase package's own ``testbench/schema/experiment.schema.json``.

Reported by ``validate/dataset.py`` for ``kubectl testbench dataset validate`` and for a dataset file that
``validate`` meets among its inputs (a JSON object with ``scenarios`` and neither ``apiVersion`` nor ``kind``).
"""

from __future__ import annotations

from kubectl_testbench.rules.rule import Rule, Severity

_CHECKS = "kubectl_testbench.validate.dataset"

DATASET_SCHEMA = Rule(
    "dataset/schema", Severity.ERROR,
    "The dataset file does not match the phase package's experiment.schema.json.",
    "The setup phase of agentic-layer-testbench downloads the file and validates it against its Experiment model, "
    "whose schema it ships as testbench/schema/experiment.schema.json. A missing scenarios list, a step without "
    "input, a threshold outside [0, 1] or a value of the wrong type fails the run at setup, after the workflow was "
    "scheduled; checked here against that schema (a copy derived from the installed package and drift-tested).",
    hint="compare the file with an exported one: kubectl testbench dataset export EXPERIMENT.yaml",
    check=f"{_CHECKS}:check_dataset",
)
DATASET_UNKNOWN_FIELD = Rule(
    "dataset/unknown-field", Severity.WARNING,
    "A field the phase package does not read: it is ignored without a word.",
    "The schema does not forbid other fields and the phase's models drop them silently, so a misspelled or "
    "camelCase field (defaultThreshold, metricName, toolCalls: the Experiment's spellings) has no effect: the "
    "default threshold applies, the reference is missing. Dataset files use the snake_case names of the schema.",
    hint="use the snake_case field the schema names (the finding suggests the closest one)",
    check=f"{_CHECKS}:check_dataset",
)
DATASET_NOT_JSON = Rule(
    "dataset/not-json", Severity.ERROR,
    "The file is not one UTF-8 JSON value, which is all the setup phase reads.",
    "The setup phase reads the object with json.loads(content.decode('utf-8')): YAML, a byte-order mark, another "
    "encoding or a second value after the first fails there, even where kubectl would read the file.",
    hint="write the dataset as one JSON object in UTF-8: kubectl testbench dataset export writes one",
    check=f"{_CHECKS}:not_json_finding",
)
