"""User text made safe to print: one module every output format runs user-controlled text through.

Values from input files (names, URLs, prompts, file names) end up in CI logs, JUnit/SARIF reports,
Markdown job summaries and orchestrator messages. GitHub's runner reads two kinds of workflow command
in a log line (actions/runner ``ActionCommandManager.TryProcessCommand``): a line that starts with ``::``
after leading whitespace (``::error …`` forges an annotation, ``::stop-commands::token`` switches command
processing off), and the older form ``##[command]`` *anywhere* in a line (``##[error]x``,
``##[set-output name=x;]v``). A newline in a value starts a new log line; control characters drive
terminals (ESC sequences) and are illegal in XML 1.0.

* :func:`escape_controls` is for human text (log lines, messages): every control, line-breaking or bidi
  character and the ``[`` of ``##[`` written as a visible escape, the way Go's ``%q`` (and so ``kubectl``)
  writes such strings, so the text stays on one line, stays readable, and never becomes a command.
* Formats that carry *data* keep it exact and neutralise ``##[`` in their own encoding, which parsers
  read back as the same string: :func:`json_log_safe` (``##\\u005b``) and :func:`xml_log_safe`
  (``##&#91;``) over the encoded document, after :func:`escape_unprintable` for what the format cannot
  carry. render's YAML writes ``##\\x5b`` in a double-quoted scalar (``emit/yamlout.py``).
"""

from __future__ import annotations

import re

_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f"      # C0 and C1 control characters (newline, CR, ESC, NEL, …)
    "\u061c\u200e\u200f"       # bidi marks
    "\u2028\u2029"             # Unicode line and paragraph separators
    "\u202a-\u202e\u2066-\u2069"  # bidi embeddings, overrides and isolates ("Trojan Source")
    "\ud800-\udfff"            # lone surrogates (JSON escapes, undecodable file-name bytes): not encodable, not XML
    "\ufffe\uffff]"            # non-characters XML 1.0 excludes
)
_UNSAFE = re.compile(_UNPRINTABLE.pattern + r"|(?<=##)\[")
"""What :func:`escape_controls` escapes: the characters above, and the ``[`` that makes ``##[`` a command."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
LEGACY_COMMAND = "##["
"""GitHub's older workflow-command prefix, honoured anywhere in a log line."""


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that is not UTF-8 (surrogateescape): the byte, as Go writes it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` on one line with every control, line-breaking or bidi character, and ``##[``, written as an escape.

    ``"a\\n::error::x"`` becomes ``a\\n::error::x`` with a literal backslash-n, ``"##[error]x"`` becomes
    ``##\\x5berror]x``, a file-name byte that is not UTF-8 ``\\xff``; plain text (letters of any script,
    emoji, backslashes) is returned unchanged, without copying.
    """
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape, text)


def escape_unprintable(text: str) -> str:
    """As :func:`escape_controls`, but leaving ``##[`` as it is: for a format that encodes it itself.

    Only for values that then go through :func:`json_log_safe` or :func:`xml_log_safe` with the whole
    document, so the value keeps its ``##[`` as data (a SARIF message, a JUnit file attribute).
    """
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(_escape, text)


def markdown_text(text: str) -> str:
    """User text for Markdown (a table cell, a job summary line): on one line as :func:`escape_controls` writes
    it, HTML's ``&``, ``<`` and ``>`` and the table's ``|`` escaped, so a value can neither end its cell nor
    add markup to a pull-request comment or a job summary."""
    safe = escape_controls(text)
    return safe.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def json_log_safe(encoded: str) -> str:
    """JSON text with every ``##[`` written ``##\\u005b``: the same strings once parsed, no command in a log.

    Outside strings JSON has no ``#``, so every ``##[`` in JSON text is inside a string, where ``\\u005b``
    is ``[``. Leading ``::`` needs nothing: JSON escapes line breaks, so a line of pretty-printed JSON
    starts with indentation and a quote, bracket, brace, digit or literal.
    """
    return encoded.replace(LEGACY_COMMAND, "##\\u005b") if LEGACY_COMMAND in encoded else encoded


def xml_log_safe(encoded: str) -> str:
    """XML text with every ``##[`` written ``##&#91;``: the same text once parsed (in content and attributes).

    Only for documents without comments, CDATA sections or processing instructions holding user text
    (where a character reference is not one), which is how the reports write XML.
    """
    return encoded.replace(LEGACY_COMMAND, "##&#91;") if LEGACY_COMMAND in encoded else encoded


def display_path(path: str) -> str:
    """A file name for the start of a log line: escaped, and never starting like a workflow command.

    A file in a pull request may be called ``::error::x.yaml``; a line that begins with it would be a
    workflow command. Relative names that start with ``:``, ``-`` or whitespace get a ``./`` prefix,
    which names the same file.
    """
    safe = escape_controls(path)
    if safe and safe != "-" and (safe[0] in ":-" or safe[0].isspace()):
        return "./" + safe
    return safe


def safe_log_line(line: str) -> str:
    """One line of file content for a CI log (a diff line): escaped, and never read as a workflow command.

    GitHub's runner strips leading whitespace before looking for ``::``, so a context line such as
    ``"     ::error::x"`` would still be a command; its first colon is written as ``\\x3a`` instead.
    ``##[`` anywhere in the line is escaped as :func:`escape_controls` does.
    """
    safe = escape_controls(line)
    stripped = safe.lstrip()
    if stripped.startswith("::"):
        return safe[: len(safe) - len(stripped)] + "\\x3a" + stripped[1:]
    return safe


def is_log_command(line: str) -> bool:
    """Whether GitHub's runner would read ``line`` (one log line) as a workflow command of either form."""
    return line.lstrip().startswith("::") or LEGACY_COMMAND in line


_COMMAND_LINE_START = re.compile(r"^[^\S\n]*::", re.MULTILINE)
"""A line whose first non-whitespace characters are ``::``. The class "whitespace but not a line feed" is exactly
what ``str.lstrip()`` removes (both use Unicode's whitespace), and only a line feed ends a line here."""


def has_log_command(text: str) -> bool:
    """Whether any line of ``text`` (split at line feeds) is a workflow command: the same answer as
    :func:`is_log_command` on every line, in two scans in C (long multi-line values are rendered as blocks)."""
    return LEGACY_COMMAND in text or _COMMAND_LINE_START.search(text) is not None
