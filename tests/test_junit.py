"""The one JUnit writer: layout, escaping of attributes and text, and no CI log command in the document."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from kubectl_testbench import junit


def test_a_document_with_every_kind_of_case() -> None:
    cases = [junit.Case([("name", "ok"), ("time", 0)]),
             junit.Case([("name", "bad")], junit.Outcome("failure", [("message", "m"), ("type", "t")], "a\nb")),
             junit.Case([("name", "gone")], junit.Outcome("skipped", [("message", "only in base")])),
             junit.Case([("name", "log")], junit.Outcome("system-out", text="x"))]
    text = junit.document([("name", "all"), ("tests", 4)], [junit.Suite([("name", "s")], cases, [("source", "f")])])
    assert text == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="all" tests="4">\n'
        '  <testsuite name="s">\n'
        '    <properties><property name="source" value="f"/></properties>\n'
        '    <testcase name="ok" time="0"/>\n'
        '    <testcase name="bad"><failure message="m" type="t">a\nb</failure></testcase>\n'
        '    <testcase name="gone"><skipped message="only in base"/></testcase>\n'
        '    <testcase name="log"><system-out>x</system-out></testcase>\n'
        '  </testsuite>\n'
        '</testsuites>\n')


def test_an_empty_suite_and_no_properties() -> None:
    assert junit.document([("name", "n")], [junit.Suite([("name", "s")], [])]) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="n">\n  <testsuite name="s">\n  </testsuite>\n'
        "</testsuites>\n")


def test_values_are_escaped_and_forge_no_log_command() -> None:
    value = 'a "q" <b> & \x07\n##[error]x'
    text = junit.document([("name", value)], [junit.Suite([("name", "s")], [
        junit.Case([("name", value)], junit.Outcome("error", [("message", value)], "line <1>\n##[warning]y"))])])
    assert "##[" not in text and "\x07" not in text
    root = ET.fromstring(text.encode())
    assert root.get("name") == 'a "q" <b> & \\x07\\n##[error]x'  # the value once parsed: controls visible, ##[ data
    error = root.find("testsuite/testcase/error")
    assert error is not None and error.text == "line <1>\n##[warning]y"  # text keeps its line breaks


def test_properties_follow_one_another_in_one_element() -> None:
    suite = junit.Suite([("name", "s")], [], [("source", "a.yaml"), ("strict", "true")])
    text = junit.document([("name", "n")], [suite])
    assert '    <properties><property name="source" value="a.yaml"/><property name="strict" value="true"/>' \
           "</properties>\n" in text
    properties = ET.fromstring(text.encode()).findall("testsuite/properties/property")
    assert [(p.get("name"), p.get("value")) for p in properties] == [("source", "a.yaml"), ("strict", "true")]
