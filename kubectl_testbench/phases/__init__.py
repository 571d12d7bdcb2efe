"""The phase image's own Python package, run on this machine: its cached virtualenv and what it can score."""
