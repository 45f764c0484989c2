"""Ingestion: entity and fact resolution, and the ways facts come in."""
