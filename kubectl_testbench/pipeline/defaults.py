"""Which RenderDefaults file applies to an input, and the questions validation asks of it: does it name a
default AI gateway (then ``semantic/no-gateway`` does not apply, as the operator falls back to one), does it set
the setup phase's MinIO settings (then ``semantic/s3-default-minio`` does not apply)."""

from __future__ import annotations

from kubectl_testbench.load.sources import Source


def defaults_path(source: Source, defaults_file: str | None, discover_defaults: bool = True) -> str | None:
    """The RenderDefaults file for ``source``: the one given, else (when looking) the nearest one next to it."""
    from kubectl_testbench.render.defaults_file import discover

    return defaults_file or (discover(source.path, source.root) if discover_defaults else None)


def names_gateway(source: Source, defaults_file: str | None = None, discover_defaults: bool = True) -> bool:
    """The RenderDefaults that render would use for ``source`` names a default AI gateway (an unreadable or
    invalid file names none: render reports it). ``defaults_file``/``discover_defaults``: as in ``Inputs``."""
    from kubectl_testbench.render.defaults_file import DefaultsError, load_defaults

    path = defaults_path(source, defaults_file, discover_defaults)
    if path is None:
        return False
    try:
        return load_defaults(path).names_gateway
    except DefaultsError:
        return False


def sets_minio(source: Source, defaults_file: str | None = None, discover_defaults: bool = True) -> bool:
    """The RenderDefaults that render would use for ``source`` sets MINIO_ENDPOINT, MINIO_ROOT_USER or
    MINIO_ROOT_PASSWORD in its env (an unreadable or invalid file sets none: render reports it)."""
    from kubectl_testbench.render.defaults_file import DefaultsError, load_defaults

    path = defaults_path(source, defaults_file, discover_defaults)
    if path is None:
        return False
    try:
        return load_defaults(path).sets_minio
    except DefaultsError:
        return False
