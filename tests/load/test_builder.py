"""Reading YAML as Kubernetes does: YAML 1.1 scalars, positions, duplicate keys, merges, limits."""

from __future__ import annotations

import math

import pytest
import yaml

from kubectl_testbench.load.builder import build
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.load.positions import PosDict, PosList, field_path, locate
from kubectl_testbench.load.scalars import resolve_plain


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        ("yes", True, "yaml/yaml11-boolean"),
        ("On", True, "yaml/yaml11-boolean"),
        ("n", False, "yaml/yaml11-boolean"),
        ("true", True, None),
        ("False", False, None),
        ("~", None, None),
        ("null", None, None),
        ("0755", 493, "yaml/legacy-octal"),
        ("0o17", 15, None),
        ("0x1F", 31, None),
        ("0b101", 5, None),
        ("1_000", 1000, None),
        ("+5", 5, None),
        ("1.0", 1, None),  # JSON has one number type: integral floats are stored as integers
        ("0.25", 0.25, None),
        (".5", 0.5, None),
        ("1e3", 1000, None),
        ("1:20", "1:20", "yaml/sexagesimal"),  # go-yaml has no base-60 numbers: a string for Kubernetes
        ("2024-01-02", "2024-01-02", None),  # timestamps stay strings (go-yaml v2 into interface{})
        ("1e400", "1e400", None),  # Go's ParseFloat fails on overflow, so it stays a string
        ("09", 9, None),  # not octal, but a valid float for Go
        ("-", "-", None),
        ("hello", "hello", None),
    ],
)
def test_plain_scalars_resolve_like_go_yaml_v2(text: str, value: object, note: str | None) -> None:
    got, got_note = resolve_plain(text)
    assert got == value and type(got) is type(value)
    assert got_note == note


def test_non_finite_values_are_flagged() -> None:
    value, note = resolve_plain(".inf")
    assert math.isinf(value) and note == "yaml/non-finite"


def test_quoted_and_block_scalars_are_always_strings() -> None:
    result = build('a: "yes"\nb: \'1\'\nc: |\n  0755\n')
    assert result.data == {"a": "yes", "b": "1", "c": "0755\n"}
    assert result.remarks == []


def test_every_value_and_key_has_its_position() -> None:
    text = "spec:\n  agentRef:\n    name: a\n  env:\n  - name: X\n    value: '1'\n"
    data = build(text, line_offset=10).data
    assert isinstance(data, PosDict)
    assert data["spec"].key_marks["agentRef"] == (12, 3)
    assert locate(data, ("spec", "agentRef", "name")) == (13, 11)
    assert locate(data, ("spec", "agentRef")) == (12, 3), "objects point at their key"
    assert locate(data, ("spec", "env", 0, "value")) == (16, 12)
    assert isinstance(data["spec"]["env"], PosList)
    assert locate(data, ("spec", "missing", "deeper")) == (11, 1), "absent paths point at the deepest key"


def test_duplicate_keys_are_reported_and_the_last_value_wins() -> None:
    result = build("a: 1\nb:\n  c: 1\n  c: 2\n")
    assert result.data["b"]["c"] == 2
    [remark] = result.remarks
    assert (remark.rule, remark.path, remark.mark) == ("yaml/duplicate-key", ("b", "c"), (4, 3))


def test_keys_normalise_like_sigs_k8s_yaml_so_yes_and_true_collide() -> None:
    result = build("true: 1\nyes: 2\n3: x\n")
    assert result.data == {"true": 2, "3": "x"}
    assert [r.rule for r in result.remarks] == ["yaml/yaml11-boolean", "yaml/duplicate-key"]


def test_null_key_is_an_error() -> None:
    result = build("~: 1\n")
    assert result.error is not None and result.error.rule == "yaml/key-type"


def test_merge_keys_follow_the_yaml_merge_spec() -> None:
    text = "base: &b {a: 1, b: 2}\nother: &o {b: 20, c: 30}\nx:\n  <<: [*b, *o]\n  a: 10\n"
    assert build(text).data["x"] == {"a": 10, "b": 2, "c": 30}


def test_merge_of_a_scalar_is_an_error() -> None:
    result = build("x:\n  <<: 5\n")
    assert result.error is not None and result.error.rule == "yaml/merge"


def test_aliases_expand_and_recursive_aliases_fail() -> None:
    assert build("a: &x [1, 2]\nb: *x\n").data == {"a": [1, 2], "b": [1, 2]}
    result = build("a: &x [*x]\n")
    assert result.error is not None and result.error.rule == "yaml/alias"


def test_billion_laughs_stops_at_the_alias_limit() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    result = build("\n".join(lines) + "\n")
    assert result.error is not None and result.error.rule == "yaml/alias-limit"


def test_deep_nesting_stops_at_the_depth_limit_without_crashing() -> None:
    depth = 100_000  # PyYAML's C composer segfaults on this; the event builder must not
    result = build("[" * depth + "]" * depth, limits=Limits(max_depth=64))
    assert result.error is not None and result.error.rule == "yaml/too-deep"
    assert "64" in result.error.message


def test_explicit_tags() -> None:
    assert build("a: !!str 10\nb: !!int '7'\nc: !!float 1\n").data == {"a": "10", "b": 7, "c": 1}
    result = build("a: !!int abc\n")
    assert result.error is not None and result.error.rule == "yaml/tag"
    custom = build("a: !vault secret\n")
    assert custom.data == {"a": "secret"} and custom.remarks[0].rule == "yaml/unknown-tag"


def test_syntax_error_has_a_position() -> None:
    result = build("a: [1, 2\nb: 3\n", line_offset=4)
    assert result.error is not None and result.error.rule == "yaml/syntax"
    assert result.error.mark[0] == 6


def test_empty_and_comment_only_documents_are_empty() -> None:
    assert build("").empty and build("# just a comment\n").empty and build("~\n").empty


def test_json_input_reads_like_yaml() -> None:
    text = '{"apiVersion": "v1", "kind":"List", "items": [1, 2.5, "x", true, null]}'
    assert build(text).data == {"apiVersion": "v1", "kind": "List", "items": [1, 2.5, "x", True, None]}


def test_agrees_with_pyyaml_on_ordinary_documents() -> None:
    text = "a: 1\nb: [x, 'y', 2.5]\nc: {d: e}\nf: |\n  multi\n  line\n"
    assert build(text).data == yaml.safe_load(text)


def test_field_paths_use_kubernetes_notation() -> None:
    from kubectl_testbench.load.positions import MapKey

    assert field_path(("spec", "env", 0, "name")) == "spec.env[0].name"
    assert field_path(("metadata", "labels", MapKey("app.kubernetes.io/name"))) == \
        "metadata.labels[app.kubernetes.io/name]"
