"""safe_text: user text never forms a GitHub workflow command (``::`` at a line start, ``##[`` anywhere)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape, quoteattr

import hypothesis.strategies as st
from hypothesis import given

from kubectl_testbench.safe_text import (
    display_path,
    escape_controls,
    escape_unprintable,
    has_log_command,
    is_log_command,
    json_log_safe,
    markdown_text,
    safe_log_line,
    xml_log_safe,
)

hostile = st.lists(st.sampled_from(["##[", "#", "[", "::", ":", "\n", "\r", "\x1b", "\x85", "\u2028", "\udcff",
                                    "error]", "a", " ", "é"]), max_size=12).map("".join)


def test_escape_controls_writes_the_legacy_command_prefix_visibly() -> None:
    assert escape_controls("##[error]forged") == "##\\x5berror]forged"
    assert escape_controls("x ###[group]y ##[set-output name=a;]b") == "x ###\\x5bgroup]y ##\\x5bset-output name=a;]b"
    assert escape_controls("#[x] ## [y] #\n#[z]") == "#[x] ## [y] #\\n#[z]"


def test_plain_text_is_returned_without_copying() -> None:
    text = "plain [text] # with ## hashes and ::colons"
    assert escape_controls(text) is text
    assert escape_unprintable(text) is text


def test_undecodable_file_name_bytes_are_written_as_the_bytes() -> None:
    """A name that is not UTF-8 reaches us surrogate-escaped (os.listdir); Go's %q writes the byte as \\xff."""
    assert escape_controls("bad\udcff\udc80.yaml") == "bad\\xff\\x80.yaml"
    assert escape_controls("lone \ud800 \udfff") == "lone \\ud800 \\udfff"  # from a JSON escape: no byte behind it


def test_escape_unprintable_keeps_the_prefix_for_formats_that_encode_it() -> None:
    assert escape_unprintable("##[error]a\nb") == "##[error]a\\nb"


def test_paths_and_diff_lines_are_never_commands() -> None:
    assert display_path("##[error]x.yaml") == "##\\x5berror]x.yaml"
    assert display_path("::error::x.yaml") == "./::error::x.yaml"
    assert safe_log_line("   ##[group]x") == "   ##\\x5bgroup]x"
    assert safe_log_line("  ::error::x ##[y") == "  \\x3a:error::x ##\\x5by"


def test_is_log_command_reads_lines_as_the_runner_does() -> None:
    assert is_log_command("  ::error::x") and is_log_command("text ##[error]x") and is_log_command("##[")
    assert not is_log_command("a::b") and not is_log_command("#[x]") and not is_log_command("## [x]")


@given(hostile)
def test_escaped_text_is_one_line_without_a_command(text: str) -> None:
    for escaped in (escape_controls(text), display_path(text), safe_log_line(text)):
        assert "\n" not in escaped and "\r" not in escaped and "##[" not in escaped
        assert escaped.encode("utf-8").decode() == escaped  # no lone surrogate left
    assert not is_log_command(display_path(text)) and not is_log_command(safe_log_line(text))


@given(hostile)
def test_json_and_xml_encodings_keep_the_data(text: str) -> None:
    encoded = json_log_safe(json.dumps({"k": text, "##[k]": [text]}, indent=2))
    assert "##[" not in encoded
    assert json.loads(encoded) == {"k": text, "##[k]": [text]}
    value = escape_unprintable(text)
    xml = xml_log_safe(f"<a b={quoteattr(value)}>{escape(value)}</a>")
    assert "##[" not in xml
    element = ET.fromstring(xml.encode("utf-8"))
    assert element.get("b") == value and (element.text or "") == value


@given(hostile)
def test_escaping_twice_changes_nothing(text: str) -> None:
    """Formatters may clip escaped text and escape it again as Markdown: the second pass must be a no-op."""
    assert escape_controls(escape_controls(text)) == escape_controls(text)


def test_markdown_text_stays_in_its_cell_and_adds_no_markup() -> None:
    assert markdown_text("a|b <i>&amp;\n##[x]") == "a\\|b &lt;i&gt;&amp;amp;\\n##\\x5bx]"
    assert markdown_text("plain text") == "plain text"


lines_of_whitespace = st.lists(st.sampled_from(["::", ":", "##[", "#", "[", "\n", " ", "\t", "\x0b", "\x85", "\u3000",
                                                "\u2028", "\r", "a"]), max_size=12).map("".join)


@given(lines_of_whitespace)
def test_has_log_command_answers_as_is_log_command_on_every_line(text: str) -> None:
    """The one-scan form render uses on long values (issue 34) says what the per-line form says."""
    assert has_log_command(text) == any(is_log_command(line) for line in text.split("\n"))


def test_has_log_command_examples() -> None:
    assert has_log_command("a\n \u3000::error::x")  # Unicode whitespace before "::", as lstrip() removes
    assert has_log_command("a\nb ##[group]")
    assert not has_log_command("a::b\n\u2028")
    assert not has_log_command("a\u2028::b")  # U+2028 is whitespace to lstrip, but ends no line of the split
