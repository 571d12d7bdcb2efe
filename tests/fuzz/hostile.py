"""Shared parts of the consumer fuzz targets: the committed corpus, the strategies that draw from it, where a
hostile string goes in an Experiment, and the properties every consumer's input must keep.

The corpus (``tests/fuzz/corpus/``) is the seed: ``strings/*.json`` hold hostile strings (``{"why", "strings"}``,
JSON-escaped so the files themselves stay plain ASCII; ``{"repeat": s, "times": n}`` stands for a long run) and
``documents/`` hostile YAML and JSON files, read as bytes. Each target draws a corpus entry, a generated string, or
a corpus entry inside generated text, so the corpus is always reached and Hypothesis still explores around it.

The properties are written from the consumers' side, independently of ``kubectl_testbench.safe_text``:

* GitHub's runner (actions/runner ``ActionCommandManager``) splits a log on CR, LF and CRLF, and reads a line as a
  workflow command when it holds ``##[`` anywhere or starts with ``::`` after whitespace;
* a terminal acts on C0 controls other than tab and newline, DEL and C1 controls (ESC, BEL, CSI, OSC, NEL, ...);
  human-readable text (log lines, tables, stderr) must also carry no bidi override or line separator;
* Testkube evaluates every ``{{`` in a TestWorkflow or TestTrigger string; the only literal form is ``{{"{{"}}``.
"""

from __future__ import annotations

import copy
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
from click.testing import Result
from hypothesis import HealthCheck, settings

CORPUS = Path(__file__).parent / "corpus"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])


def _expand(entry: str | dict[str, Any]) -> str:
    if isinstance(entry, str):
        return entry
    return str(entry["repeat"]) * int(entry["times"])


@cache
def corpus_strings() -> tuple[str, ...]:
    """Every hostile string of the corpus, in a fixed order (file name, then position)."""
    out: list[str] = []
    for path in sorted((CORPUS / "strings").glob("*.json")):
        out += [_expand(e) for e in json.loads(path.read_text(encoding="ascii"))["strings"]]
    return tuple(out)


@cache
def corpus_documents() -> tuple[tuple[str, bytes], ...]:
    """``(file name, bytes)`` of every hostile document of the corpus."""
    return tuple((p.name, p.read_bytes()) for p in sorted((CORPUS / "documents").iterdir()) if p.is_file())


def document_text(data: bytes) -> str:
    """A corpus document as the readers get it: decoded text, which holds no lone surrogate (the callers decode
    files strictly and the language server refuses one first), so undecodable bytes become U+FFFD."""
    return data.decode("utf-8", "replace")


ANY_CHARACTER = st.characters(blacklist_categories=())
"""Every code point, lone surrogates included (they reach us through JSON escapes and file names)."""
INTERESTING = st.sampled_from("\n\r\t \x1b\x07\x85\u2028\u202e:#[{}$`'\"\\%,<>&\x00\x9b\ufeff")


def hostile_text(surrogates: bool = False, max_size: int = 30) -> st.SearchStrategy[str]:
    """A corpus string, generated text rich in the characters that matter, or a corpus string inside such text."""
    chars = st.one_of(INTERESTING, ANY_CHARACTER if surrogates else st.characters(blacklist_categories=("Cs",)))
    generated = st.text(chars, max_size=max_size)
    corpus = st.sampled_from(corpus_strings())
    if not surrogates:
        corpus = corpus.map(lambda s: re.sub("[\ud800-\udfff]", "\ufffd", s))
    spliced = st.tuples(generated, corpus, generated).map("".join)
    return st.one_of(corpus, generated, spliced)


# --- where a hostile string goes --------------------------------------------------------------------------

BASE: dict[str, Any] = {
    "apiVersion": "testbench.agentic-layer.ai/v1alpha1",
    "kind": "Experiment",
    "metadata": {"name": "fuzz", "namespace": "team-a", "labels": {"team": "platform"},
                 "annotations": {"note": "a note"}},
    "spec": {
        "agentRef": {"name": "agent", "namespace": "agents"},
        "aiGatewayRef": {"name": "gateway", "namespace": "gateways"},
        "env": [{"name": "MODE", "value": "fast"}],
        "schedule": {"cron": "0 3 * * *", "timezone": "Europe/Berlin"},
        "trigger": {"enabled": True, "concurrencyPolicy": "Forbid"},
        "dataset": {"inline": {"llmAsAJudgeModel": "gpt-4o-mini", "scenarios": [{"name": "s1", "steps": [{
            "input": "hello",
            "reference": {"response": "r", "topics": ["t"], "toolCalls": [{"name": "get_weather",
                                                                          "args": {"city": "x"}}]},
            "metrics": [{"metricName": "AgentGoalAccuracyWithoutReference"}],
            "customValues": {"k": "v"}}]}]}},
    },
}
STEP = ("spec", "dataset", "inline", "scenarios", 0, "steps", 0)
KEY = "<key>"
"""The last segment of a slot that puts the string in a key of the mapping the slot names."""

FREE_SLOTS: tuple[tuple[Any, ...], ...] = (
    (*STEP, "input"), (*STEP, "reference", "response"), (*STEP, "reference", "topics", 0),
    (*STEP, "reference", "toolCalls", 0, "name"), (*STEP, "reference", "toolCalls", 0, "args", "city"),
    (*STEP, "reference", "toolCalls", 0, "args", KEY), (*STEP, "customValues", "k"), (*STEP, "customValues", KEY),
    ("spec", "dataset", "inline", "scenarios", 0, "name"), ("spec", "env", 0, "name"), ("spec", "env", 0, "value"),
    ("metadata", "annotations", "note"),
)
"""Fields and keys that take any text (the Experiment stays valid), and whose text reaches the rendered objects."""
STRICT_SLOTS: tuple[tuple[Any, ...], ...] = (
    ("metadata", "name"), ("metadata", "namespace"), ("metadata", "labels", "team"), ("metadata", "labels", KEY),
    ("metadata", "annotations", KEY), ("spec", "agentRef", "name"), ("spec", "dataset", "url"),
    ("spec", "dataset", "inline", "llmAsAJudgeModel"), ("spec", "schedule", "cron"), ("spec", "schedule", "timezone"),
    ("spec", "trigger", "concurrencyPolicy"), (*STEP, "metrics", 0, "metricName"), ("spec", KEY),
)
"""Validated fields and keys: most hostile text makes the Experiment invalid, so it reaches the messages of validate,
the KRM results and stderr (``spec.dataset.url`` replaces the inline dataset: the workflow's ``datasetUrl``)."""
SLOTS = FREE_SLOTS + STRICT_SLOTS


def place(values: dict[tuple[Any, ...], str]) -> dict[str, Any]:
    """A copy of BASE with each value at its slot (as a key of the slot's mapping when the slot ends in KEY)."""
    doc = copy.deepcopy(BASE)
    for slot, value in values.items():
        if slot == ("spec", "dataset", "url"):
            doc["spec"]["dataset"] = {"url": "https://datasets.example.com/" + value}
            continue
        parent = doc
        for seg in slot[:-1]:
            parent = parent[seg]
        if slot[-1] == KEY:
            parent[value] = "v"
        else:
            parent[slot[-1]] = value
    return doc


@st.composite
def hostile_experiment(draw: st.DrawFn, surrogates: bool = False) -> dict[str, Any]:
    """BASE with hostile text in every field that takes any text (a valid Experiment whose objects carry it), or
    in one field or key of any kind (mostly an invalid one, whose messages quote it)."""
    if draw(st.booleans()):
        return place({slot: draw(hostile_text(surrogates)) for slot in FREE_SLOTS})
    return place({draw(st.sampled_from(SLOTS)): draw(hostile_text(surrogates))})


def encode(text: str) -> bytes:
    """Text as file bytes: a lone surrogate from a file name (U+DC80..U+DCFF) is its byte again; any other
    is written as CESU-8 (``surrogatepass``), which no reader may take for UTF-8."""
    return text.encode("utf-8", "surrogateescape" if not re.search("[\ud800-\udc7f\udd00-\udfff]", text)
                       else "surrogatepass")


def file_name(text: str, suffix: str = ".yaml") -> str:
    """``text`` as the name of a file in a directory: no ``/`` or NUL, only lone surrogates a file system gives
    (U+DC80..U+DCFF), at most 200 bytes."""
    name = re.sub("[/\x00\ud800-\udc7f\udd00-\udfff]", "_", text) or "x"
    while len(os.fsencode(name)) > 200:
        name = name[: len(name) // 2]
    return name + suffix


def raw_insert(text: str, line: int, indent: int, value: str) -> str:
    """``value`` inserted as raw text at the start of line ``line`` (modulo the line count), indented."""
    lines = text.split("\n")
    at = line % len(lines)
    lines.insert(at, " " * indent + value)
    return "\n".join(lines)


@st.composite
def experiment_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """``(file name, content)`` of an Experiment file holding one hostile string: in a field or key (written as
    YAML by PyYAML or as JSON), in the file name, or as a raw line anywhere (in a block scalar, too)."""
    where = draw(st.sampled_from(["field", "field", "field", "name", "raw", "document"]))
    if where == "document":
        name, data = draw(st.sampled_from(corpus_documents()))
        return name, data
    if where == "field":
        doc = draw(hostile_experiment())
        if draw(st.booleans()):
            return "exp.json", json.dumps(doc, ensure_ascii=draw(st.booleans())).encode()
        import yaml

        text = yaml.safe_dump(doc, allow_unicode=draw(st.booleans()), sort_keys=False, width=1 << 30)
        return "exp.yaml", text.encode()
    value = draw(hostile_text(surrogates=True))
    if where == "name":
        return file_name(value), BASE_YAML.encode()
    text = raw_insert(BASE_YAML, draw(st.integers(0, 40)), draw(st.sampled_from([0, 2, 16])), value)
    return "exp.yaml", encode(text)


BASE_YAML = """\
apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata:
  name: fuzz
  namespace: team-a
spec:
  agentRef:
    name: agent
  aiGatewayRef:
    name: gateway
    namespace: gateways
  dataset:
    inline:
      llmAsAJudgeModel: gpt-4o-mini
      scenarios:
        - name: s1
          steps:
            - input: |
                first line of the prompt
                last line of the prompt
              metrics:
                - metricName: AgentGoalAccuracyWithoutReference
"""
"""A valid Experiment with a literal block scalar: a raw line inserted at indentation 16 lands inside it."""


# --- what the consumers must see ------------------------------------------------------------------------

_LOG_LINES = re.compile(r"\r\n|\r|\n")
TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Characters a terminal acts on: C0 controls but tab and newline, DEL, C1 (ESC, BEL, CR, CSI, OSC, NEL, ...)."""
HUMAN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                   "\ud800-\udfff]")
"""In human-readable text also bidi controls, line/paragraph separators and lone surrogates."""
ANNOTATION = re.compile(r"::(error|warning|notice)( [^:]*)?::(.*)")
"""Our own ``-o github`` lines: ``::error file=...,line=...,col=...,title=...::message``."""


def log_lines(text: str) -> list[str]:
    """``text`` split into lines the way GitHub's runner reads a log (CR, LF and CRLF end a line)."""
    return _LOG_LINES.split(text)


def commands(text: str, annotations: bool = False) -> list[str]:
    """The lines of ``text`` GitHub's runner would run as workflow commands (our annotations excepted when
    ``annotations``)."""
    found = []
    for line in log_lines(text):
        if "##[" in line or (line.lstrip().startswith("::") and not (annotations and ANNOTATION.fullmatch(line))):
            found.append(line)
    return found


def check_log_text(text: str, annotations: bool = False) -> None:
    """Human-readable output (text reports, tables, stderr): no command, no terminal or bidi control."""
    assert commands(text, annotations) == []
    assert HUMAN.findall(text) == []


def check_data_text(text: str) -> None:
    """Machine-readable output (JSON, SARIF, XML, YAML): no command and no terminal control in its text."""
    assert commands(text) == []
    assert TERMINAL.findall(text) == []


def check_annotation(line: str) -> None:
    """One ``-o github`` line as the runner parses it: properties ``key=value`` joined by ``,`` with ``%``, CR,
    LF, ``:`` and ``,`` %-escaped (``UnescapeProperty``), data with ``%``, CR and LF escaped (``UnescapeData``)."""
    match = ANNOTATION.fullmatch(line)
    assert match, line
    for prop in (match.group(2) or "").strip().split(","):
        key, sep, value = prop.partition("=")
        assert sep and key in ("file", "line", "col", "endLine", "endColumn", "title"), prop
        assert not re.search("%(?!25|0D|0A|3A|2C)", value), prop
    assert not re.search("%(?!25|0D|0A)", match.group(3)), match.group(3)


LITERAL_OPEN = '{{"{{"}}'


def unescaped_expressions(value: Any) -> list[str]:
    """Strings (values and keys, at any depth) in which Testkube would find an expression of the user's: a
    ``{{`` that does not begin the literal form ``{{"{{"}}``, scanning left to right as its parser does."""
    found: list[str] = []

    def scan(text: str) -> None:
        at = text.find("{{")
        while at != -1:
            if not text.startswith(LITERAL_OPEN, at):
                found.append(text)
                return
            at = text.find("{{", at + len(LITERAL_OPEN))

    def walk(item: Any) -> None:
        if isinstance(item, str):
            scan(item)
        elif isinstance(item, dict):
            for key, sub in item.items():
                walk(key)
                walk(sub)
        elif isinstance(item, list):
            for sub in item:
                walk(sub)

    walk(value)
    return found


def check_run(result: Result, codes: tuple[int, ...] = (0, 1, 2)) -> None:
    """The CLI ended as documented: an exit code it documents, no traceback, stdout that is strict UTF-8 (what
    a real process writes; CliRunner's stderr is backslashreplace, as Python's own is), stderr safe for a log."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in codes, (result.exit_code, result.output)
    assert "Traceback" not in result.stderr
    result.stdout_bytes.decode("utf-8")
    check_log_text(result.stderr)
