"""The service: REST API, MCP server and web view (extra ``server``).

``keys`` (API keys bound to groups) needs nothing beyond the core; the rest
needs the ``server`` extra (FastAPI, uvicorn, the official ``mcp`` SDK).
"""
