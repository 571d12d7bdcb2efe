"""``kubectl testbench lsp``."""

from __future__ import annotations

import sys

import click

from kubectl_testbench import __version__
from kubectl_testbench.cli.common import fail, limits_from, limits_options

RELEASE_ARCHIVE = f"https://github.com/agentic-layer/kubectl-testbench/archive/refs/tags/v{__version__}.tar.gz"
"""What pip installs this version from: the package is not on PyPI (README.md's install command)."""


@click.command()
@click.option("--stdio", is_flag=True,
              help="Talk LSP over stdin/stdout: the default and only transport (accepted because LSP clients "
                   "such as vscode-languageclient pass it).")
@click.option("--debounce-ms", type=click.IntRange(0, 60_000), default=150, show_default=True,
              help="While a document is being typed in, validate it at most once per this many milliseconds "
                   "(the first change after a pause is validated at once).")
@click.option("--log-file", type=click.Path(dir_okay=False, writable=True),
              help="Also write the server's log to this file (it always goes to stderr, which editors show).")
@click.option("-v", "--verbose", is_flag=True, help="Log every document validation.")
@limits_options
def lsp(stdio: bool, debounce_ms: int, log_file: str | None, verbose: bool, max_file_mib: int, max_depth: int,
        max_nodes: int) -> None:
    """Run the language server: validate's findings, explain's docs, completion and fix's quick fixes in
    your editor, as you type (docs/editors.md shows the set-up for VS Code, Neovim, Helix and Zed).

    It serves YAML and JSON documents that hold Experiments and ignores the rest. Needs the lsp extra
    (kubectl-testbench is not on PyPI): pip install '.[lsp]' in a checkout, or the release archive as
    docs/editors.md shows. Exit codes as LSP asks: 0 after shutdown and exit, 1 when the
    client went away without them, 2 when the lsp extra is missing.
    """
    del stdio
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        fail(f"kubectl testbench lsp needs the lsp extra (pygls), and kubectl-testbench is not on PyPI: "
             f"pip install 'kubectl-testbench[lsp] @ {RELEASE_ARCHIVE}' (in a checkout: pip install '.[lsp]')")
    from kubectl_testbench.lsp.check import Settings
    from kubectl_testbench.lsp.server import serve

    settings = Settings(limits=limits_from(max_file_mib, max_depth, max_nodes))
    sys.exit(serve(settings, debounce_ms / 1000, log_file, verbose))
