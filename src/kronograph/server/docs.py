"""``/docs``: the API reference as one plain HTML page, rendered here from
the app's own OpenAPI schema.

FastAPI's default page loads Swagger UI from a CDN: third-party script, not
pinned, on the origin where the web view keeps the API key. This page has no
script at all and is served under the web view's Content-Security-Policy;
``/openapi.json`` stays for tools (and for any Swagger UI a user runs
elsewhere).
"""

from __future__ import annotations

from html import escape
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from .web import HEADERS

__all__ = ["mount_docs", "render"]

_STYLE = "/static/app.css"


def _schema_name(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(_schema_name(s) for s in schema[key])
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return f"list[{_schema_name(schema['items'])}]"
    return str(schema.get("type", "object"))


def _operation(method: str, path: str, op: dict[str, Any]) -> str:
    parts = [f"<h3><code>{escape(method.upper())} {escape(path)}</code></h3>"]
    if op.get("description") or op.get("summary"):
        parts.append(f"<p>{escape(str(op.get('description') or op.get('summary')))}</p>")
    params = [p for p in op.get("parameters", []) if isinstance(p, dict)]
    if params:
        rows = "".join(
            f"<li><code>{escape(str(p.get('name')))}</code> ({escape(str(p.get('in')))}"
            f"{', required' if p.get('required') else ''}): {escape(_schema_name(p.get('schema') or {}))}"
            f"{' — ' + escape(str(p['description'])) if p.get('description') else ''}</li>"
            for p in params
        )
        parts.append(f"<p>Parameters:</p><ul>{rows}</ul>")
    body = (op.get("requestBody") or {}).get("content", {}).get("application/json", {}).get("schema")
    if isinstance(body, dict):
        parts.append(f"<p>Body: <code>{escape(_schema_name(body))}</code></p>")
    answers = []
    for status, answer in sorted((op.get("responses") or {}).items()):
        schema = (answer.get("content") or {}).get("application/json", {}).get("schema")
        shape = f" <code>{escape(_schema_name(schema))}</code>" if isinstance(schema, dict) else ""
        answers.append(f"<li>{escape(str(status))}: {escape(str(answer.get('description', '')))}{shape}</li>")
    if answers:
        parts.append(f"<p>Answers:</p><ul>{''.join(answers)}</ul>")
    return "<section>" + "".join(parts) + "</section>"


def render(schema: dict[str, Any]) -> str:
    """The reference page for an OpenAPI schema: plain HTML, no script."""
    info = schema.get("info", {})
    title = f"{info.get('title', 'API')} {info.get('version', '')}".strip()
    operations = [
        _operation(method, path, op)
        for path, item in (schema.get("paths") or {}).items()
        for method, op in item.items() if isinstance(op, dict)
    ]
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<link rel="stylesheet" href="{_STYLE}"></head><body><main><h1>{escape(title)}</h1>'
        f"<p>{escape(str(info.get('description', '')))}</p>"
        '<p>The machine-readable schema: <a href="/openapi.json">/openapi.json</a>.</p>'
        + "".join(operations) + "</main></body></html>"
    )


def mount_docs(app: FastAPI) -> None:
    """Serve the reference at ``/docs``."""

    @app.get("/docs", include_in_schema=False)
    async def reference() -> HTMLResponse:
        return HTMLResponse(render(app.openapi()), headers=HEADERS)
