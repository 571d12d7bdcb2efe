"""``explain`` documents metadata as kubectl does (ObjectMeta, its fields and their descriptions, never
``<no description>``) and never breaks a URL when it wraps a description."""

from __future__ import annotations

import re

from tests.conftest import run_cli


def test_metadata_is_object_meta_with_a_description() -> None:
    out = run_cli("explain", "experiment").output
    assert "<no description>" not in out
    assert ("  metadata\t<ObjectMeta>\n    Standard object's metadata. More info:\n"
            "    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata\n") in out


def test_metadata_lists_its_fields() -> None:
    result = run_cli("explain", "experiment.metadata")
    assert result.exit_code == 0
    assert "FIELD: metadata <ObjectMeta>" in result.output
    fields = re.findall(r"^  (\w+)\t<([^>]+)>", result.output, re.M)
    assert ("name", "string") in fields and ("namespace", "string") in fields
    assert ("labels", "map[string]string") in fields and ("annotations", "map[string]string") in fields
    assert "<no description>" not in result.output and "<empty>" not in result.output


def test_a_metadata_field_explains_what_testbench_does_with_it() -> None:
    out = run_cli("explain", "metadata.namespace").output
    assert "FIELD: namespace <string>" in out
    assert "When unset, kubectl testbench uses -n, then (apply, diff," in out
    missing = run_cli("explain", "metadata.nme")
    assert missing.exit_code == 2 and 'field "nme" does not exist in metadata' in missing.output


def test_urls_are_never_cut_when_wrapping() -> None:
    for field in ("experiment", "experiment.metadata", "metadata.name", "metadata.labels"):
        out = run_cli("explain", field).output
        urls = re.findall(r"https?://\S+", out)
        assert urls, field
        for url in urls:
            assert not url.endswith("-"), f"{field}: {url} was cut at a hyphen"
        assert "sig-\n" not in out and "api-conventions.md" in run_cli("explain", "experiment").output


def test_recursive_lists_object_meta_fields() -> None:
    out = run_cli("explain", "--recursive").output
    assert "  metadata\t<ObjectMeta>\n    annotations\t<map[string]string>\n" in out
