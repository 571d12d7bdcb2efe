"""Bridges to other tools: importers of foreign evaluation datasets (and, later, GitOps plugins)."""
