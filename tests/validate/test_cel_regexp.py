"""validate/cel/regexp judged by Go's own ``regexp.Compile`` (the API server compiles CEL's patterns with it).

A standard-library Go program (``goregexp/``) answers for each pattern. The patterns in ``AGREE`` must read
exactly as Go words them. ``KNOWN_GAPS`` are patterns where our reading (Python's ``re`` behind a translation)
still differs from Go's: each is asserted to differ as recorded, so that a fix shows up as a failing test that
asks to move the pattern over. The patterns a check meets today are those of our own CRD's rules, which agree.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kubectl_testbench.validate.cel.regexp import regexp_error
from tests.go_toolchain import NO_GO, build_stdlib_program, go_binary

AGREE = ["(?=a)", "x(?!a)", "[a", "ab[c", "x[a-", "(a", "(a(b)", "a)", "*a", "a|*", "(?i)abc", "[[:alpha:]]",
         "(?P<n>a)", "[]a]", ")(", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "x+", "a{2,3}"]
KNOWN_GAPS = {
    # Go's words                                   what we say instead (Python's re, or our Perl-only refusal)
    "(?<=a)b": "invalid or unsupported Perl syntax: `(?<=`",  # Go: invalid named capture
    "(?P=n)": "invalid or unsupported Perl syntax: `(?P=`",  # Go quotes `(?P`
    "\\1": "invalid or unsupported Perl syntax: `\\1`",  # Go: invalid escape sequence
    "a**": "multiple repeat: `a**`",  # Go: invalid nested repetition operator: `**`
    "[z-a]": "bad character range z-a: `[z-a]`",  # Go: invalid character class range: `z-a`
    "a{1001}": None,  # Go: invalid repeat count
    "\\p{Greek}": "bad escape \\p: `\\p{Greek}`",  # Go accepts Unicode classes
    "\\Q.\\E": "bad escape \\Q: `\\Q.\\E`",  # Go accepts quoting
    "\\z": "bad escape \\z: `\\z`",  # Go accepts end of text
    "\\Z": None,  # Go: invalid escape sequence
    "a++": None,  # Go: invalid nested repetition operator
    "(?<n>a)": "unknown extension ?<n: `(?<n>a)`",  # Go accepts a named group
    "(?#c)": None,  # Go: invalid or unsupported Perl syntax: `(?#`
    "\\e": "bad escape \\e: `\\e`",  # Go: invalid escape sequence
}


@pytest.fixture(scope="module")
def go_regexp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if go_binary() is None:
        pytest.skip(NO_GO)
    return build_stdlib_program(Path(__file__).parent / "goregexp", tmp_path_factory.mktemp("goregexp"), "goregexp")


def _go(program: Path, patterns: list[str]) -> list[str | None]:
    out = subprocess.run([str(program)], input="\n".join(json.dumps(p) for p in patterns) + "\n",
                         capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    return [None if line == "ok" else line for line in out]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_patterns_read_as_go_reads_them(go_regexp: Path) -> None:
    assert [regexp_error(p) for p in AGREE] == _go(go_regexp, AGREE)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_the_known_gaps_still_differ_as_recorded(go_regexp: Path) -> None:
    patterns = list(KNOWN_GAPS)
    go = _go(go_regexp, patterns)
    ours = [regexp_error(p) for p in patterns]
    assert all(o != g for o, g in zip(ours, go, strict=True)), "a gap closed: move the pattern to AGREE"
    assert ours == [None if w is None else f"error parsing regexp: {w}" for w in KNOWN_GAPS.values()]


@pytest.mark.parametrize(("pattern", "quoted"), [
    ("(?=a)", "(?="), ("x(?!a)b", "(?!"), ("a|*", "*"), ("*a", "*"), ("ab[c", "[c"), ("a)", "a)")])
def test_what_the_message_quotes(pattern: str, quoted: str) -> None:
    message = regexp_error(pattern)
    assert message is not None and message.endswith(f": `{quoted}`")
