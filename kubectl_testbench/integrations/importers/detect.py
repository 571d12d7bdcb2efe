"""``import --from auto``: which format each input file is, decided from its name and its first document.

A file is judged on its own, so a directory may mix formats. Directories are searched for the files a format
names unambiguously (ADK ``*.test.json``/``*.evalset.json``, AgentV's suite names) and for YAML manifests of
kind EvalDataset (Orloj); a table (CSV, JSON, Parquet) is read when it is given as a file.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass

from kubectl_testbench.integrations.importers.common import (
    STDIN,
    ImportInputError,
    expand_inputs,
    read_input_text,
)
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits

ADK_NAMES = ("*.test.json", "*.evalset.json")
AGENTV_NAMES = ("suite.yaml", "suite.yml", "*.eval.yaml", "*.eval.yml", "eval.yaml", "eval.yml", "EVAL.yaml",
                "EVAL.yml", "*.EVAL.yaml", "*.EVAL.yml")
MANIFEST_NAMES = ("*.yaml", "*.yml")
_AGENTV_ROW_KEYS = frozenset({"vars", "assert", "assertions", "criteria", "expected_outcome", "input_messages",
                              "expected_messages", "rubrics", "conversation_id"})
_ADK_KEYS = frozenset({"eval_cases", "evalCases", "eval_set_id", "evalSetId"})


@dataclass(frozen=True, slots=True)
class Detected:
    """One input file, its format and why that format was chosen (said on stderr)."""

    path: str
    format: str
    reason: str


def _named(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _first_document(path: str, limits: Limits) -> object:
    """The data of the first YAML/JSON document (or JSON Lines row) of ``path``; None when it is neither."""
    from kubectl_testbench.load.builder import build
    from kubectl_testbench.load.split import split_documents

    text = read_input_text(path, limits)
    if path.endswith((".jsonl", ".ndjson")):
        line = next((raw for raw in text.splitlines() if raw.strip()), "")
        text = line
    first = next(iter(split_documents(text)), None)
    if first is None:
        return None
    built = build(first.text, first.start_line, limits)
    return None if built.error is not None else built.data


def detect_file(path: str, limits: Limits = DEFAULT_LIMITS) -> Detected | None:
    """The format of ``path``, or None when nothing about it says which."""
    name = os.path.basename(path)
    if _named(name, ADK_NAMES):
        return Detected(path, "adk", "ADK file name (*.test.json, *.evalset.json)")
    if _named(name, AGENTV_NAMES):
        return Detected(path, "agentv", "AgentV suite name (suite.yaml, *.eval.yaml, EVAL.yaml)")
    if name.endswith((".csv", ".tsv")):
        return Detected(path, "csv", "CSV file")
    if name.endswith((".parquet", ".pq")):
        return Detected(path, "parquet", "Parquet file")
    if not name.endswith((".json", ".jsonl", ".ndjson", ".yaml", ".yml")):
        return None
    data = _first_document(path, limits)
    if isinstance(data, dict):
        if str(data.get("kind")) in ("EvalDataset", "EvalRun") or str(data.get("apiVersion", "")).startswith(
                "orloj.dev"):
            return Detected(path, "orloj", f"kind {data.get('kind')} (Orloj)")
        if _ADK_KEYS & set(data):
            return Detected(path, "adk", "an ADK EvalSet (eval_cases)")
        if {"tests", "evalcases", "prompts"} & set(data) or _AGENTV_ROW_KEYS & set(data):
            return Detected(path, "agentv", "AgentV tests, prompts or case fields")
        if name.endswith((".jsonl", ".ndjson", ".json")):
            return Detected(path, "json", "JSON rows")
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        keys = set().union(*(set(item) for item in data))
        if {"query", "expected_tool_use"} & keys or ("data" in keys and "name" in keys):
            return Detected(path, "adk", "an ADK legacy eval array (query, expected_tool_use)")
        if _AGENTV_ROW_KEYS & keys:
            return Detected(path, "agentv", "a list of AgentV cases")
        if name.endswith(".json"):
            return Detected(path, "json", "a JSON array of rows")
    return None


def detect(paths: Sequence[str], limits: Limits = DEFAULT_LIMITS) -> list[Detected]:
    """Every input file with its format, in the order given (directories searched as the module says).

    A file given by name whose format cannot be told is an error; in a directory such files are not eval
    files (fixtures, configs) and are passed over.
    """
    out: list[Detected] = []
    for path in paths:
        if path == STDIN:
            raise ImportInputError("<stdin>", "--from auto cannot tell the format of stdin: name it with --from")
        if os.path.isdir(path):
            found = expand_inputs([path], (*ADK_NAMES, *AGENTV_NAMES, *MANIFEST_NAMES), "eval files")
            for file in found:
                name = os.path.basename(file)
                if _named(name, ADK_NAMES) or _named(name, AGENTV_NAMES):
                    detected = detect_file(file, limits)
                elif _named(name, MANIFEST_NAMES):
                    detected = detect_file(file, limits)
                    detected = detected if detected is not None and detected.format == "orloj" else None
                else:
                    detected = None
                if detected is not None:
                    out.append(detected)
            if not any(d.path.startswith(path) for d in out):
                raise ImportInputError(path, "no eval file of a known format under this directory (looked for "
                                             f"{', '.join((*ADK_NAMES, *AGENTV_NAMES))} and Orloj manifests)")
            continue
        for file in expand_inputs([path], (), "files"):
            detected = detect_file(file, limits)
            if detected is None:
                raise ImportInputError(file, "--from auto cannot tell its format: name it with --from")
            out.append(detected)
    return out
