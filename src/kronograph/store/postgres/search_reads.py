"""Search queries against PostgreSQL."""

from __future__ import annotations
