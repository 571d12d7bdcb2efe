"""User text made safe to print: one function every output format runs user-controlled text through.

Values from input files (names, URLs, prompts, file names) end up in CI logs, JUnit/SARIF reports,
Markdown job summaries and orchestrator messages. A newline in such a value starts a new log line, and
GitHub Actions treats a line starting with ``::`` as a workflow command (``::error …`` forges an
annotation, ``::stop-commands::token`` switches command processing off); control characters drive
terminals (ESC sequences) and are illegal in XML 1.0. :func:`escape_controls` escapes all of them
visibly, the way Go's ``%q`` (and so ``kubectl``) prints such strings, so the text stays on one line,
stays readable, and never becomes a command.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f"      # C0 and C1 control characters (newline, CR, ESC, NEL, …)
    "\u061c\u200e\u200f"       # bidi marks
    "\u2028\u2029"             # Unicode line and paragraph separators
    "\u202a-\u202e\u2066-\u2069"  # bidi embeddings, overrides and isolates ("Trojan Source")
    "\ud800-\udfff"            # lone surrogates (from JSON escapes): not encodable, not XML
    "\ufffe\uffff]"            # non-characters XML 1.0 excludes
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` on one line with every control, line-breaking or bidi character written as an escape.

    ``"a\\n::error::x"`` becomes ``a\\n::error::x`` with a literal backslash-n; plain text (letters
    of any script, emoji, backslashes) is returned unchanged, without copying.
    """
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape, text)


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
    """
    safe = escape_controls(line)
    stripped = safe.lstrip()
    if stripped.startswith("::"):
        return safe[: len(safe) - len(stripped)] + "\\x3a" + stripped[1:]
    return safe
