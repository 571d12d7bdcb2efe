"""``kubectl testbench lsp`` as a command: pygls only on its own path, a one-line error without the extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES, ROOT

LSP_MODULES = ("pygls", "lsprotocol", "cattrs", "kubectl_testbench.lsp")


def test_cli_start_up_and_validate_never_import_the_language_server(tmp_path: Path) -> None:
    code = f"""
import sys
import kubectl_testbench.cli.main as m
for argv in (['--help'], ['validate', {str(EXAMPLES / 'experiments')!r}], ['lsp', '--help'], ['fix', '--help']):
    try:
        m.cli.main(args=argv, prog_name='kubectl testbench', standalone_mode=False)
    except SystemExit:
        pass
    loaded = sorted(name for name in sys.modules if name.split('.')[0] in {LSP_MODULES!r} or
                    name.startswith('kubectl_testbench.lsp'))
    print('LOADED', argv[0], loaded)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("LOADED ")]
    assert lines == ["LOADED --help []", "LOADED validate []", "LOADED lsp []", "LOADED fix []"]


def test_without_the_lsp_extra_the_command_fails_with_one_line_and_exit_2() -> None:
    code = ("import sys\nsys.modules['pygls'] = None\n"
            "from kubectl_testbench.cli.main import main\nmain(['lsp'])\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == ("error: kubectl testbench lsp needs the lsp extra (pygls), and kubectl-testbench is not "
                           "on PyPI: pip install 'kubectl-testbench[lsp] @ https://github.com/agentic-layer/"
                           "kubectl-testbench/archive/refs/tags/v0.1.0.tar.gz' (in a checkout: pip install '.[lsp]')\n")
    readme = (ROOT / "README.md").read_text()
    assert "pip install 'kubectl-testbench @ https://github.com/agentic-layer/kubectl-testbench/archive/refs/tags/" \
           "v0.1.0.tar.gz'" in readme, "the message follows README's install command"
