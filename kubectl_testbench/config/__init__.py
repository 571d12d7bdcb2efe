"""The project's configuration file, found as ruff finds ``pyproject.toml``: from the input (or the working
directory) up to the filesystem root, the first directory holding ``.testbench.yaml``, or a ``pyproject.toml``
with a ``[tool.kubectl-testbench]`` table (``.testbench.yaml`` first when a directory holds both).

Both hold the same settings (docs/config.md): ``select``, ``ignore``, ``extend-select``, ``strict`` and
``defaults`` (the ``spec`` of a RenderDefaults file). An empty ``.testbench.yaml`` is valid: it is also the
marker by which Argo CD's plugin claims an Application.

Precedence, for every command: the command line > the configuration file > the built-in defaults; for render
settings, the Experiment's annotation > the flag > ``--defaults FILE`` > the nearest ``testbench-defaults.yaml``
> the configuration's ``defaults`` > built-in (render/settings applies it).

Foundation layer: it reads files and returns plain settings; the ``defaults`` are validated where every
RenderDefaults file is (render/defaults_file).
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any, NamedTuple

from kubectl_testbench.rules.selection import Selection, SelectorError

CONFIG_FILE = ".testbench.yaml"
PYPROJECT = "pyproject.toml"
TOOL_TABLE = "kubectl-testbench"
"""``[tool.kubectl-testbench]`` in ``pyproject.toml``."""
CONFIG_NAMES = (CONFIG_FILE, PYPROJECT)

KEYS = ("select", "ignore", "extend-select", "strict", "defaults")


class ConfigError(Exception):
    """A configuration file that cannot be used: a one-line message with its location."""


class Config(NamedTuple):
    """The settings of one configuration file (all empty: no file, or an empty one)."""

    path: str | None = None
    selection: Selection = Selection()
    strict: bool = False
    defaults: dict[str, Any] | None = None
    """The ``spec`` of a RenderDefaults document (with positions when read from YAML), or None."""


NO_CONFIG = Config()


def find_config(start: str) -> str | None:
    """The configuration file that applies to ``start`` (a file, a directory, or ``-`` for the working
    directory): the nearest one walking up to the filesystem root."""
    directory = os.path.abspath(os.getcwd() if start in ("-", "") else start)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    return _find_from(directory)


def forget_found() -> None:
    """Look again: a long-running process (the language server) sees a configuration file created or removed
    since (a command run finds each directory's file once)."""
    _find_from.cache_clear()


@cache
def _find_from(directory: str) -> str | None:
    candidate = os.path.join(directory, CONFIG_FILE)
    if os.path.isfile(candidate):
        return candidate
    candidate = os.path.join(directory, PYPROJECT)
    if os.path.isfile(candidate) and _has_tool_table(candidate):
        return candidate
    parent = os.path.dirname(directory)
    return None if parent == directory else _find_from(parent)


def _has_tool_table(path: str) -> bool:
    """``pyproject.toml`` holds ``[tool.kubectl-testbench]`` (ruff passes over a pyproject without its table;
    one that cannot be parsed but names the table counts, so that its error is reported, not skipped)."""
    import tomllib

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    if TOOL_TABLE.encode() not in data:  # most pyproject.toml files: no parsing
        return False
    try:
        return TOOL_TABLE in tomllib.loads(data.decode()).get("tool", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return True


def load_config(start: str) -> Config:
    """The configuration that applies to ``start`` (:data:`NO_CONFIG` when there is none); raises
    :class:`ConfigError`."""
    path = find_config(start)
    return NO_CONFIG if path is None else read_config(path)


def read_config(path: str) -> Config:
    """The settings of the configuration file ``path``; raises :class:`ConfigError` with its location."""
    try:
        stat = os.stat(path)
        version = (stat.st_mtime_ns, stat.st_size)
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the configuration file: {err.strerror or err}") from None
    return _read(path, version)


@cache
def _read(path: str, version: tuple[int, int]) -> Config:
    if os.path.basename(path) == PYPROJECT:
        table, where = _toml_table(path), _toml_where(path)
    else:
        table = _yaml_table(path)
        where = _yaml_where(path, table)
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise ConfigError(f"{where(unknown[0])}: unknown setting {unknown[0]!r} (settings: {', '.join(KEYS)})")
    lists = {}
    for key in ("select", "ignore", "extend-select"):
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where(key)}: {key} must be a list of rule ids or groups")
        lists[key] = value
    try:
        selection = Selection.parse(lists["select"], lists["ignore"], lists["extend-select"])
    except SelectorError as err:
        raise ConfigError(f"{where('select')}: {err}") from None
    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        raise ConfigError(f"{where('strict')}: strict must be true or false")
    defaults = table.get("defaults")
    if defaults is not None and not isinstance(defaults, dict):
        raise ConfigError(f"{where('defaults')}: defaults must be a mapping (a RenderDefaults spec)")
    return Config(path, selection, strict, defaults)


def _toml_table(path: str) -> dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read the configuration file: {err}") from None
    table = data.get("tool", {}).get(TOOL_TABLE, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TOOL_TABLE}] must be a table")
    return table


def _toml_where(path: str) -> Any:
    return lambda key: f"{path}: [tool.{TOOL_TABLE}] {key}"


def _yaml_table(path: str) -> dict[str, Any]:
    from kubectl_testbench.load.builder import build
    from kubectl_testbench.load.decode import DecodeError, decode
    from kubectl_testbench.load.limits import DEFAULT_LIMITS
    from kubectl_testbench.load.sources import Source, SourceError, read_bytes

    try:
        text = decode(read_bytes(Source(path), DEFAULT_LIMITS))
    except (SourceError, DecodeError) as err:
        raise ConfigError(f"{path}: cannot read the configuration file: {err.message}") from None
    built = build(text)
    if built.error is not None:
        line, col = built.error.mark
        raise ConfigError(f"{path}:{line}:{col}: {built.error.message}")
    if built.empty or built.data is None:
        return {}  # the Argo CD marker: an empty file is a valid configuration
    if not isinstance(built.data, dict):
        raise ConfigError(f"{path}:1:1: the configuration must be a mapping of settings")
    return built.data


def _yaml_where(path: str, table: dict[str, Any]) -> Any:
    def where(key: str) -> str:
        from kubectl_testbench.load.positions import locate

        mark = locate(table, (key,), key=True) if key in table else None
        return f"{path}:{mark[0]}:{mark[1]}" if mark else path

    return where
