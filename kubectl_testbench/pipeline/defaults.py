"""Which RenderDefaults file applies to an input, and the questions validation asks of it: does it name a
default AI gateway (then ``semantic/no-gateway`` does not apply, as the operator falls back to one), does it set
the setup phase's MinIO settings (then ``semantic/s3-default-minio`` does not apply)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubectl_testbench.load.sources import Source

if TYPE_CHECKING:
    from kubectl_testbench.render.settings import Defaults


def defaults_path(source: Source, defaults_file: str | None, discover_defaults: bool = True) -> str | None:
    """The RenderDefaults file for ``source``: the one given, else (when looking) the nearest one next to it,
    else the configuration file that applies to it when it has ``defaults`` (docs/config.md)."""
    from kubectl_testbench.render.defaults_file import discover

    if defaults_file or not discover_defaults:
        return defaults_file
    return discover(source.path, source.root) or _configured(source.path)


def _configured(path: str) -> str | None:
    """The configuration file for ``path`` when it holds ``defaults`` (an unreadable one is reported by the
    command that reads it for its own settings, and read again by render, which stops on it)."""
    from kubectl_testbench.config import ConfigError, find_config, read_config

    found = find_config(path)
    if found is None:
        return None
    try:
        return found if read_config(found).defaults is not None else None
    except ConfigError:
        return found


def names_gateway(source: Source, defaults_file: str | None = None, discover_defaults: bool = True) -> bool:
    """The RenderDefaults that render would use for ``source`` names a default AI gateway (an unreadable or
    invalid file names none: render reports it). ``defaults_file``/``discover_defaults``: as in ``Inputs``."""
    found = _defaults_for(source, defaults_file, discover_defaults)
    return found is not None and found.names_gateway


def sets_minio(source: Source, defaults_file: str | None = None, discover_defaults: bool = True) -> bool:
    """The RenderDefaults that render would use for ``source`` sets MINIO_ENDPOINT, MINIO_ROOT_USER or
    MINIO_ROOT_PASSWORD in its env (an unreadable or invalid file sets none: render reports it)."""
    found = _defaults_for(source, defaults_file, discover_defaults)
    return found is not None and found.sets_minio


def _defaults_for(source: Source, defaults_file: str | None, discover_defaults: bool) -> Defaults | None:
    """The RenderDefaults render would use for ``source``, or None (none, or one it cannot read)."""
    from kubectl_testbench.render.defaults_file import DefaultsError, load_defaults

    path = defaults_path(source, defaults_file, discover_defaults)
    if path is None:
        return None
    try:
        return load_defaults(path)
    except DefaultsError:
        return None
