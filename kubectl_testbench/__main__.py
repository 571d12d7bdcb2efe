"""Allow ``python -m kubectl_testbench``."""

from kubectl_testbench.cli.main import main

if __name__ == "__main__":
    main()
