"""kubectl-testbench: compile Testbench Experiments into Testkube resources outside the cluster."""

__version__ = "0.1.0"
