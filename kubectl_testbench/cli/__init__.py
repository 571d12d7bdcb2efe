"""The command line: thin click commands, one module per verb, loaded only when that verb runs."""
