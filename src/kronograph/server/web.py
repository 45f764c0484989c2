"""The web view: one page, served by ``kronograph serve`` at ``/``.

A group's overview (counts, latest episodes, most connected entities, recent
changes), episode pages, entity pages (neighbourhood graph, timeline, *as of*
slider), search and the context block, each at a hash route
(``#/g/{group}/...``). The page is four files built into the package
(``static/``), plain JavaScript and SVG: nothing is fetched from the
internet, and the Content-Security-Policy says so. It reads the REST API
(``/v1/...``) with the key the user types in (kept for the browser tab
only), or with none in local mode. See ``docs/web.md``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["HEADERS", "STATIC", "mount_web"]

STATIC = Path(__file__).resolve().parent / "static"

# Only this origin, for everything: scripts, styles, images and API calls.
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {"Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class _Static(StaticFiles):
    """The page's assets, with the same headers as the page."""

    async def get_response(self, path: str, scope):  # type: ignore[no-untyped-def]
        response = await super().get_response(path, scope)
        response.headers.update(HEADERS)
        return response


def mount_web(app: FastAPI) -> None:
    """Serve the page at ``/`` and its assets under ``/static``."""

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html", headers=HEADERS)

    app.mount("/static", _Static(directory=STATIC), name="static")
