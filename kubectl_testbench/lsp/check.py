"""Validate an editor buffer exactly as ``kubectl testbench validate`` would validate the saved file.

The engine reads text; what ``validate`` checks on the bytes first (size, encoding) is checked here on what
the editor holds: a text larger than the file-size limit, or one that cannot be written as UTF-8 (a lone
surrogate a client sent as a JSON escape), gets the same finding ``validate`` reports for such a file. A
buffer shown with replacement characters because the file on disk is not UTF-8 gets the decoding error of
that file, and so does a buffer the editor decoded from another encoding (Latin-1 in Neovim looks clean): the
server reads the file's bytes when the editor opens or saves it and passes its decoding error in. The
defaults file is discovered for the buffer's path as ``validate`` discovers it for a file found under the
workspace folder, so ``semantic/no-gateway`` disappears in the same places.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kubectl_testbench import rules
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits, MiB
from kubectl_testbench.lsp.text import engine_lines
from kubectl_testbench.model.constants import GROUP
from kubectl_testbench.rules.input import INPUT_ENCODING, INPUT_TOO_LARGE
from kubectl_testbench.rules.selection import ALL_RULES, Selection
from kubectl_testbench.validate.diagnostics import Diagnostic
from kubectl_testbench.validate.engine import FileResult, Options, template_notice, validate_text

SERVED_LANGUAGES = frozenset({"yaml", "json", "jsonc"})
SERVED_EXTENSIONS = (".yaml", ".yml", ".json")
_EXPERIMENT_KIND = re.compile(r"""^\s*(?:-\s+)?["']?kind["']?\s*:\s*["']?Experiment\b""", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Settings:
    limits: Limits = DEFAULT_LIMITS


DEFAULT_SETTINGS = Settings()


def is_served(language_id: str, uri: str) -> bool:
    """YAML and JSON documents (by the client's language id, or by the file name when it sends another id)."""
    if language_id in SERVED_LANGUAGES:
        return True
    return uri.lower().endswith(SERVED_EXTENSIONS) and language_id in ("", "plaintext")


def holds_experiments(text: str) -> bool:
    """Whether the buffer is ours: it names our API group (an Experiment, a RenderDefaults file, a typo'd
    kind) or an Experiment kind (a typo'd group, which validate reports as kind/group)."""
    return GROUP in text or _EXPERIMENT_KIND.search(text) is not None


def check(text: str, path: str, root: str | None, settings: Settings = DEFAULT_SETTINGS) -> list[Diagnostic]:
    """The findings for one buffer, their fixes placed; ``path`` is the file it stands for (or its URI),
    ``root`` the workspace folder holding it (defaults files are looked for up to there)."""
    return check_later(text, path, root, settings, place_fixes=True).diagnostics


def check_later(text: str, path: str, root: str | None, settings: Settings = DEFAULT_SETTINGS,
                place_fixes: bool = False, on_disk: Diagnostic | None = None) -> FileResult:
    """:func:`check`, with the fixes left to be placed by ``FileResult.placed()`` when code actions are asked
    for (unless ``place_fixes``): diagnostics are published without reading the document a second time.
    ``on_disk``: the decoding error of the file's bytes, when they are not what ``validate`` can read."""
    from kubectl_testbench.sniff import looks_templated

    limits = settings.limits
    try:
        data = text.encode()  # UTF-8
    except UnicodeEncodeError as err:
        return _only(path, _encoding_finding(text, path, err.start))
    if len(data) > limits.max_file_bytes:
        return _only(path, _finding(INPUT_TOO_LARGE.id, path, (0, 0),
                                    f"larger than the {limits.max_file_bytes // MiB} MiB limit "
                                    "(raise with --max-file-size)"))
    if on_disk is not None:
        return _only(path, on_disk)
    if "\ufffd" in text:
        unreadable = disk_decoding_error(path, limits)
        if unreadable is not None:
            return _only(path, unreadable)
    if looks_templated(data):
        return template_notice(path)
    options = Options(limits=limits, rules=configured_rules(path), place_fixes=place_fixes)
    return validate_text(text, path, options, gateway_default=gateway_default(path, root))


def _only(path: str, finding: Diagnostic) -> FileResult:
    return FileResult(path, [finding])


def configured_rules(path: str) -> Selection:
    """The rules the configuration file for ``path`` selects, as ``validate`` finds it (all for an unsaved
    buffer; a configuration file that cannot be read is reported by ``validate``, here it selects nothing)."""
    from kubectl_testbench.config import ConfigError, forget_found, load_config

    if not os.path.isabs(path):
        return ALL_RULES
    forget_found()  # a file created or removed while the editor is open counts from the next check
    try:
        return load_config(path).selection
    except ConfigError:
        return ALL_RULES


def gateway_default(path: str, root: str | None) -> Callable[[], bool]:
    """Whether the RenderDefaults file validate would find for ``path`` (searched up to ``root``, the
    workspace folder, as for a file found in a directory given to validate) names an AI gateway."""

    def names_gateway() -> bool:
        from kubectl_testbench.load.sources import Source
        from kubectl_testbench.pipeline.defaults import names_gateway

        if not os.path.isabs(path):
            return False  # an unsaved buffer has no directory to find a defaults file in
        return names_gateway(Source(path, scanned=root is not None, root=root or path))

    return names_gateway


def workspace_root(path: str, folders: Sequence[str]) -> str | None:
    """The innermost workspace folder holding ``path``."""
    best: str | None = None
    for folder in folders:
        folder = os.path.abspath(folder)
        if (path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)) and (best is None or
                                                                                   len(folder) > len(best)):
            best = folder
    return best


def _encoding_finding(text: str, path: str, offset: int) -> Diagnostic:
    lines = engine_lines(text)
    line = lines.line_of(offset)
    column = offset - lines.starts[line]
    code = ord(text[offset])
    return _finding(INPUT_ENCODING.id, path, (line + 1, column + 1),
                    f"the text holds a lone UTF-16 surrogate (U+{code:04X}) at line {line + 1}, column {column + 1}: "
                    "it cannot be saved as UTF-8", "remove the character, or write the pair it belongs to")


REPLACED = "the editor shows it decoded with replacement characters (U+FFFD)"
DECODED_OTHERWISE = ("the editor decoded it from another encoding; kubectl and validate read the bytes as UTF-8 "
                     "(in Neovim: :set fileencoding=utf-8 | write)")


def disk_decoding_error(path: str, limits: Limits, hint: str = REPLACED) -> Diagnostic | None:
    """The decoding error ``validate`` reports for the file at ``path`` (None when it decodes, is larger than
    the limit, or is no file: an unsaved buffer, another URI scheme)."""
    from kubectl_testbench.load.decode import DecodeError, decode

    if not os.path.isabs(path):
        return None
    try:
        if os.path.getsize(path) > limits.max_file_bytes:
            return None
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    try:
        decode(data)
    except DecodeError as err:
        return _finding(err.rule, path, err.mark, f"the file on disk: {err.message}", hint)
    return None


def _finding(rule: str, path: str, mark: tuple[int, int], message: str, hint: str = "") -> Diagnostic:
    return Diagnostic(rule, rules.severity(rule), message, path, mark[0], mark[1], "", hint)
