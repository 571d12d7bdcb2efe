"""Go's ``regexp`` refusals, for CEL's regex functions: the API server compiles patterns with RE2 in Go.

``matches`` with a constant pattern is refused when the rule is compiled, ``find``/``findAll`` when the program
is built (regex.go), other patterns when they are evaluated; all three word it as Go's ``regexp/syntax`` does.
Python's ``re`` reads the pattern here (through :func:`~kubectl_testbench.validate.schema.re2_to_python`), so its
messages are translated, and Perl-only syntax Python accepts but RE2 refuses is refused first.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PERL_ONLY = re.compile(r"\(\?(?:=|!|<=|<!|P=|>)|\\[1-9]")
_Quote = Callable[[str, int], str]
_GO_REGEXP_ERRORS: tuple[tuple[str, str, _Quote], ...] = (
    # Python's words for a broken pattern → Go regexp/syntax's, with what Go quotes after them
    ("unterminated character set", "missing closing ]", lambda p, at: p[p.rfind("[", 0, at + 1):]),
    ("missing ), unterminated subpattern", "missing closing )", lambda p, at: p),
    ("unbalanced parenthesis", "unexpected )", lambda p, at: p),
    ("nothing to repeat", "missing argument to repetition operator", lambda p, at: p[at:at + 1]),
)


def regexp_error(pattern: str) -> str | None:
    """Go's ``regexp.Compile`` error for an RE2 pattern ("error parsing regexp: missing closing ]: `[`"),
    or None when it compiles. Perl-only syntax (lookaround, backreferences) is refused as RE2 refuses it."""
    from kubectl_testbench.validate.schema import re2_to_python

    perl = _PERL_ONLY.search(pattern)
    if perl is not None:
        return f"error parsing regexp: invalid or unsupported Perl syntax: `{perl.group(0)}`"
    try:
        re.compile(re2_to_python(pattern))
    except re.error as err:
        for python, go, quoted in _GO_REGEXP_ERRORS:
            if str(err.msg).startswith(python):
                return f"error parsing regexp: {go}: `{quoted(pattern, err.pos or 0)}`"
        return f"error parsing regexp: {err.msg}: `{pattern}`"
    return None


