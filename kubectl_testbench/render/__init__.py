"""Compiling Experiments into Testkube resources: pure functions from Experiment data to manifests."""
