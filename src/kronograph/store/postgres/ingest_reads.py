"""Queries of the ingestion pipeline against PostgreSQL."""

from __future__ import annotations
