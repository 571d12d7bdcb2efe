"""Where the tool meets other tools: Argo CD's plugin protocol, KRM functions, hooks that see every file."""
