"""The service: REST API, MCP server and web view (extra ``server``).

``keys`` (API keys bound to groups) needs nothing beyond the core; the rest
needs the ``server`` extra (FastAPI, uvicorn, the official ``mcp`` SDK).
"""

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":  # FastAPI is imported only when the service is wanted
        from .app import create_app

        return create_app
    raise AttributeError(name)
