"""``kubectl_complete-testbench``: shell completion for ``kubectl testbench …`` (kubectl ≥ 1.26).

kubectl runs this executable with the plugin's arguments, the last one being the word under the
cursor (empty for a new word), and reads completion candidates from stdout, one per line
(``value<TAB>description`` allowed), followed by cobra's ``:<directive>`` line:

- ``:4`` (no file completion) for subcommands, flags, flag values and cluster names;
- ``:8`` with the candidates ``yaml``, ``yml``, ``json`` (file extension filter) for ``PATH…`` arguments;
- ``:0`` (default: files) for file-valued flags such as ``--kubeconfig``; ``:16`` for directories.

Values come from the click command tree itself, so a new flag completes without touching this file;
Experiment names, contexts and namespaces are looked up live and skipped silently on any failure.
Any failure here prints no candidates and ``:4``: completion must never break the user's shell.
"""

from __future__ import annotations

import sys

NO_FILE_COMP = 4
FILTER_FILE_EXT = 8
FILTER_DIRS = 16
DEFAULT = 0
MANIFEST_EXTENSIONS = ("yaml", "yml", "json")
PATH_ARGUMENTS = frozenset({"paths"})


def completions(args: list[str]) -> list[str]:
    """The lines to print for ``kubectl testbench ARGS``, the directive line last."""
    try:
        return _completions(args)
    except Exception:
        return [f":{NO_FILE_COMP}"]


def _completions(args: list[str]) -> list[str]:
    import click
    from click.shell_completion import _resolve_context, _resolve_incomplete

    from kubectl_testbench.cli.main import PROG, cli

    words = list(args) or [""]
    done, incomplete = words[:-1], words[-1]
    ctx = _resolve_context(cli, {}, PROG, done)
    obj, incomplete = _resolve_incomplete(ctx, done, incomplete)
    if isinstance(obj, click.Argument) and obj.name in PATH_ARGUMENTS:
        return [*MANIFEST_EXTENSIONS, f":{FILTER_FILE_EXT}"]
    items = obj.shell_complete(ctx, incomplete)
    if any(item.type == "file" for item in items):
        return [f":{DEFAULT}"]
    if any(item.type == "dir" for item in items):
        return [f":{FILTER_DIRS}"]
    lines = []
    for item in items:
        value = str(item.value)
        help_text = " ".join(str(item.help or "").split())
        lines.append(f"{value}\t{help_text[:80]}" if help_text else value)
    return [*lines, f":{NO_FILE_COMP}"]


def main() -> None:
    """Console script ``kubectl_complete-testbench``."""
    try:
        out = completions(sys.argv[1:])
        sys.stdout.write("".join(line + "\n" for line in out))
        sys.stdout.flush()
    except Exception:  # e.g. a closed pipe: never a traceback in a shell
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
