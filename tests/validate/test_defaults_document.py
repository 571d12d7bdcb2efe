"""A RenderDefaults document among validate's inputs: schema, namespace and URL-template findings, located."""

from __future__ import annotations

from kubectl_testbench.validate.engine import validate_text

HEAD = "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\nmetadata:\n  name: d\nspec:\n"


def _rows(spec: str) -> list[tuple[str, int, int, str, str, str, str]]:
    result = validate_text(HEAD + spec, "d.yaml")
    return [(d.rule, d.line, d.col, d.path, d.message, d.hint, d.object) for d in result.diagnostics]


def test_a_clean_defaults_document_has_no_findings() -> None:
    assert _rows("  testkubeNamespace: tk\n  agentUrl: http://{name}.{namespace}:{port}\n") == []


def test_schema_findings_are_placed_at_their_field() -> None:
    [(rule, line, col, path, message, _, obj)] = _rows("  agentPort: 70000\n")
    assert (rule, line, col, path, obj) == ("schema/maximum", 6, 14, "spec.agentPort", "RenderDefaults")
    assert message.startswith("Invalid value: 70000: must be less than or equal to 65535")


def test_a_testkube_namespace_that_is_no_dns_label() -> None:
    assert _rows("  testkubeNamespace: Team_A\n") == [
        ("semantic/dns-label", 6, 22, "spec.testkubeNamespace",
         'Invalid value: "Team_A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters '
         "or '-', and must start and end with an alphanumeric character (e.g. 'my-name')",
         "a namespace is a DNS-1123 label", "RenderDefaults")]


def test_unknown_placeholders_in_both_url_templates() -> None:
    rows = _rows("  agentUrl: http://{nme}:8000\n  aiGateway:\n    url: http://{prt}/v1\n")
    assert [(r[0], r[1], r[2], r[3], r[5], r[6]) for r in rows] == [
        ("semantic/url-placeholder", 6, 13, "spec.agentUrl", "write the placeholder as listed, or the URL itself",
         "RenderDefaults"),
        ("semantic/url-placeholder", 8, 10, "spec.aiGateway.url", "write the placeholder as listed, or the URL "
         "itself", "RenderDefaults")]
    assert rows[0][4] == ('Invalid value: "http://{nme}:8000": unknown placeholder {nme} (known: {name}, '
                          "{namespace}, {port}); did you mean {name}?")


def test_a_field_the_schema_refuses_is_not_reported_twice() -> None:
    assert [r[0] for r in _rows("  testkubeNamespace: 42\n")] == ["schema/type"]
    rows = _rows("  agentUrl: 42\n  aiGateway: {url: 7}\n")
    assert [(r[0], r[3]) for r in rows] == [("schema/type", "spec.agentUrl"), ("schema/type", "spec.aiGateway.url")]


def test_a_spec_or_gateway_that_is_not_a_mapping_is_only_a_schema_finding() -> None:
    assert [r[0] for r in _rows("  aiGateway: [x]\n")] == ["schema/type"]
    assert [d.rule for d in validate_text(HEAD.replace("spec:\n", "spec: 3\n"), "d.yaml").diagnostics] == [
        "schema/type"]


def test_an_unknown_field_is_placed_at_its_key_with_the_schemas_hint() -> None:
    assert _rows("  agentPrt: 80\n") == [
        ("schema/unknown-field", 6, 3, "spec.agentPrt", 'unknown field "spec.agentPrt"', 'did you mean "agentPort"?',
         "RenderDefaults")]


def test_every_finding_of_the_document_at_once() -> None:
    result = validate_text(HEAD + "  testkubeNamespace: Bad_NS\n  agentPort: 70000\n  agentUrl: http://{nme}\n",
                           "d.yaml")
    assert [(d.rule, d.severity.value, d.file, d.line) for d in result.diagnostics] == [
        ("semantic/dns-label", "error", "d.yaml", 6), ("schema/maximum", "error", "d.yaml", 7),
        ("semantic/url-placeholder", "error", "d.yaml", 8)]
