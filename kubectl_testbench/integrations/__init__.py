"""Where the tool meets other tools: importers of other evaluation formats, Argo CD's plugin protocol, KRM
functions, hooks that see every file."""
