"""``kubectl testbench fix``: apply the safe fixes validation offers, and migrate earlier Experiment shapes.

Rules decide what a fix is (``validate``); this package applies fixes to files: edits placed by byte
range, every change read back and compared before anything is written, round-trip checks of comments for
migrations (ruamel.yaml, imported only here).
"""
