"""``kubectl testbench run --local``: one Experiment run on this machine by the phase image's own code.

Rendered and resolved with our own code (``render`` + ``render --resolve``), then each resolved step runs as the
phase container would, with the phase package in its cached environment (``kubectl_testbench.phases.env``) or
with the phase image under docker/podman. Imported only by ``run --local`` (and the tests): the normal CLI
start-up never loads it.
"""
