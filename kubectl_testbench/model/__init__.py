"""Pydantic models of the Experiment custom resource: the single source of truth for its schema."""
