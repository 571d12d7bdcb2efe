"""YAML syntax errors get their likely cause in plain words, derived from libyaml's problem and context marks and
the source lines: each common mistake, in the second document of a file (file lines, not document lines), with
its exact message and hint. libyaml's wording stays the message; the hint says what to write."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_testbench.validate.engine import validate_text
from tests.conftest import run_cli
from tests.validate.helpers import VALID

FIRST = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\n"


def R(old: str, new: str) -> str:
    assert old in VALID
    return VALID.replace(old, new, 1)


CASES = {
    'key-indented-one-too-far': R('  dataset:\n',
        '   dataset:\n'),
    'key-indented-one-too-little': R('  dataset:\n',
        ' dataset:\n'),
    'list-item-without-dash': R('                - metricName: AgentGoalAccuracyWithReference\n',
        '                - metricName: AgentGoalAccuracyWithReference\n                metricName: A'
        'nswerAccuracy\n'),
    'item-key-misaligned': R('              reference:\n',
        '             reference:\n'),
    'dash-without-space': R('                - metricName: AgentGoalAccuracyWithReference\n',
        '                -metricName: AgentGoalAccuracyWithReference\n                - metricName: '
        'AnswerAccuracy\n'),
    'unclosed-double-quote': R('input: Will it rain in Berlin tomorrow?',
        'input: "Will it rain in Berlin tomorrow?'),
    'unclosed-single-quote': R('input: Will it rain in Berlin tomorrow?',
        "input: 'Will it rain in Berlin tomorrow?"),
    'inner-double-quotes': R('input: Will it rain in Berlin tomorrow?',
        'input: "Will it "rain" tomorrow?"'),
    'no-space-after-colon': R('  name: weather-eval\n',
        '  name:weather-eval\n'),
    'colon-space-in-value': R('input: Will it rain in Berlin tomorrow?',
        'input: Question: will it rain?'),
    'value-then-deeper-line': R('  namespace: agents\n',
        '    namespace: agents\n'),
    'key-without-colon': R('  agentRef:\n',
        '  agentRef\n'),
    'value-starts-with-at': R('input: Will it rain in Berlin tomorrow?',
        'input: @weather will it rain?'),
    'value-starts-with-star': R('input: Will it rain in Berlin tomorrow?',
        'input: *urgent* will it rain?'),
    'value-starts-with-brace': R('input: Will it rain in Berlin tomorrow?',
        'input: {city} forecast'),
    'unclosed-bracket': R('  aiGatewayRef:\n',
        '  topics: [rain, sun\n  aiGatewayRef:\n'),
    'backslash-in-double-quotes': R('input: Will it rain in Berlin tomorrow?',
        'input: "C:\\data\\x"'),
    'multi-line-value-at-key-indent': R('                response: It will rain in Berlin tomorrow.\n',
        '                response: It will rain\n                in Berlin tomorrow.\n               '
        ' x: 1\n'),
    'list-on-key-line': R('              metrics:\n                - metricName: AgentGoalAccuracyWithReference\n',
        '              metrics: - metricName: AgentGoalAccuracyWithReference\n'),
    'block-text-not-indented': R('                response: It will rain in Berlin tomorrow.\n',
        '                response: |\n                It will rain.\n                x: 1\n'),
}

EXPECTED = [
    ('key-indented-one-too-far', "14:4",
     'did not find expected key while parsing a block mapping',
     'line 14 is indented 3 spaces, which matches none of the keys above it (at 0, 2, 4 spaces): indent it'
     " like the key it belongs with, 2 spaces like 'agentRef' (line 12) or 4 spaces like 'name' (line 13)"),
    ('key-indented-one-too-little', "14:2",
     'did not find expected key while parsing a block mapping',
     'line 14 is indented 1 space, which matches none of the keys above it (at 0, 2, 4 spaces): indent it '
     "like the key it belongs with, 0 spaces like 'spec' (line 11) or 2 spaces like 'agentRef' (line 12)"),
    ('list-item-without-dash', "25:17",
     "did not find expected '-' indicator while parsing a block collection",
     "line 25 is at the indentation of the list's '-' (line 24) but has no '-': start it with '- ' for a n"
     'ew item, or indent it 18 spaces to belong to the item above'),
    ('item-key-misaligned', "21:14",
     "did not find expected '-' indicator while parsing a block collection",
     "line 21 is indented 13 spaces; the item above starts its keys at 14 spaces (after the '- ' on line 2"
     '0): indent it 14 spaces to belong to that item'),
    ('dash-without-space', "25:17",
     'did not find expected key while parsing a block mapping',
     'a list item needs a space after \'-\': on line 24, write "- metricName: AgentGoalAccuracyWithReference'
     '"'),
    ('unclosed-double-quote', "29:1",
     'found unexpected end of stream while scanning a quoted scalar',
     'the " opened at line 20, column 22 is never closed: end the value with " (a " inside it is written \\'
     '")'),
    ('unclosed-single-quote', "29:1",
     'found unexpected end of stream while scanning a quoted scalar',
     "the ' opened at line 20, column 22 is never closed: end the value with ' (a ' inside it is written '"
     "')"),
    ('inner-double-quotes', "20:32",
     'did not find expected key while parsing a block mapping',
     'the value starts with ", so it ends at the next " (column 31) and the rest of the line is an error: '
     'quote the whole value with the other quote: \'Will it "rain" tomorrow?\''),
    ('no-space-after-colon', "10:12",
     'mapping values are not allowed in this context',
     'YAML needs a space after \':\': line 9 reads as the text \'name:weather-eval\', not a key; write "name: '
     'weather-eval"'),
    ('colon-space-in-value', "20:30",
     'mapping values are not allowed in this context',
     "a value containing ': ' must be quoted: write input: 'Question: will it rain?'"),
    ('value-then-deeper-line', "10:14",
     'mapping values are not allowed in this context',
     "line 10 is indented more than line 9, whose key 'name' already has a value: indent it 2 spaces like "
     "'name', or move the value of line 9 below its key"),
    ('key-without-colon', "13:9",
     'mapping values are not allowed in this context',
     'line 12 has no \':\' after its key: write "agentRef:"'),
    ('value-starts-with-at', "20:22",
     'found character that cannot start any token while scanning for the next token',
     'a value cannot start with @: quote the whole value'),
    ('value-starts-with-star', "20:29",
     'did not find expected alphabetic or numeric character while scanning an alias',
     'a value starting with * is read as an alias (a reference to an &anchor): quote the whole value'),
    ('value-starts-with-brace', "20:29",
     'did not find expected key while parsing a block mapping',
     "a value starting with { is a flow mapping: quote the whole value: '{city} forecast'"),
    ('unclosed-bracket', "27:15",
     "did not find expected ',' or ']' while parsing a flow sequence",
     'the [ opened at line 26, column 11 is not closed: close it with ], or quote the value if the bracket'
     's are text'),
    ('backslash-in-double-quotes', "20:25",
     'found unknown escape character while parsing a quoted scalar',
     'a backslash inside double quotes starts an escape (\\n, \\t, \\\\): write \\\\ for a backslash, or put the'
     ' value in single quotes, where a backslash is just a backslash'),
    ('multi-line-value-at-key-indent', "24:17",
     "could not find expected ':' while scanning a simple key",
     "line 23 is at the indentation of the keys, so it reads as a key without ':'. To continue the value o"
     'f line 22, indent it more than \'response\' or put the whole value in quotes; if it is a key, write "i'
     'n Berlin tomorrow.:"'),
    ('list-on-key-line', "23:24",
     'block sequence entries are not allowed in this context',
     "a list cannot start on the line of its key: put each '- ' item on its own line, indented under the k"
     'ey'),
    ('block-text-not-indented', "24:17",
     "could not find expected ':' while scanning a simple key",
     "the text of the block that starts on line 22 must be indented more than its key ('response', at 16 s"
     'paces)'),
]


@pytest.mark.parametrize(("name", "where", "message", "hint"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_each_common_mistake_gets_its_cause_in_words(name: str, where: str, message: str, hint: str) -> None:
    result = validate_text(FIRST + CASES[name], "exp.yaml")
    (found,) = [d for d in result.diagnostics if d.rule == "yaml/syntax"]
    assert (f"{found.line}:{found.col}", found.message, found.hint) == (where, message, hint)


def test_every_case_is_covered() -> None:
    assert [e[0] for e in EXPECTED] == list(CASES)


def test_the_cli_prints_the_hint_under_the_error(tmp_path: Path) -> None:
    path = tmp_path / "exp.yaml"
    path.write_text(CASES["list-item-without-dash"])
    result = run_cli("validate", str(path))
    assert result.exit_code == 1
    assert result.output.splitlines()[:2] == [
        f"{path}:20:17: error[yaml/syntax] did not find expected '-' indicator while parsing a block collection",
        "  hint: line 20 is at the indentation of the list's '-' (line 19) but has no '-': start it with '- ' for a "
        "new item, or indent it 18 spaces to belong to the item above"]


def test_tabs_keep_their_hint_and_fix(tmp_path: Path) -> None:
    result = validate_text(VALID.replace("  agentRef:\n    name", "  agentRef:\n\tname"), "exp.yaml")
    (found,) = [d for d in result.diagnostics if d.rule == "yaml/syntax"]
    assert found.hint == "YAML does not allow tabs for indentation: use spaces"
