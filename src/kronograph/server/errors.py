"""Every error the REST service answers, in one stable shape.

``{"error": {"code": "<stable code>", "message": "<human text>", "field": "<param or null>"}}``

Library errors are translated here, at the seam: InvalidInputError is 400
``invalid_input`` naming its field, NotFoundError 404 ``not_found``,
ConcurrentWriteError 409 ``conflict``, a closed memory or a failing store 503
``unavailable``. Request validation is 422 ``invalid_input``; anything
unexpected is 500 ``internal`` with no stack trace (logged once, by
:class:`.logs.UnexpectedErrors`).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import ClosedError, ConcurrentWriteError, InvalidInputError, NotFoundError, StoreError
from ..redact import exception_text

__all__ = ["CODES", "ApiError", "ErrorBody", "ErrorDetail", "error_response", "install_error_handlers"]

_log = logging.getLogger("kronograph.server")

CODES = {
    400: "invalid_input", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "invalid_input",
    406: "invalid_input", 409: "conflict", 413: "too_large", 415: "invalid_input", 421: "misdirected",
    422: "invalid_input", 500: "internal",
    503: "unavailable", 504: "timeout",
}


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


class ApiError(Exception):
    """An error the service answers on purpose."""

    def __init__(self, status: int, message: str, *, field: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, message, field
        self.code = code or CODES.get(status, "invalid_input")


def error_response(status: int, message: str, *, field: str | None = None, code: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"code": code or CODES.get(status, "invalid_input"), "message": message, "field": field}}
    return JSONResponse(body, status_code=status, headers=headers)


def _location(loc: tuple[Any, ...]) -> str | None:
    # Only the first item says where (a field may itself be called "query").
    parts = [str(p) for p in (loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc)]
    return ".".join(parts) or None


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, ApiError):  # registered for ApiError only
        raise exc
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    return error_response(exc.status, exc.message, field=exc.field, code=exc.code, headers=headers)


async def _validation(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, RequestValidationError):  # registered for RequestValidationError only
        raise exc
    errors = exc.errors()
    first = errors[0] if errors else {}
    field = _location(tuple(first.get("loc", ())))
    message = str(first.get("msg", "invalid request"))
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    return error_response(422, message, field=field)


async def _http(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, StarletteHTTPException):  # registered for StarletteHTTPException only
        raise exc
    message = exc.detail if isinstance(exc.detail, str) else "request refused"
    # FastAPI's word for a body its JSON parser gave up on (nested past the
    # parser's stack, say): the field at fault is the body itself.
    field = "body" if exc.status_code == 400 and message == "There was an error parsing the body" else None
    if field is not None:
        message = "the body could not be read as JSON (too deeply nested, or not JSON)"
    return error_response(exc.status_code, message, field=field, headers=getattr(exc, "headers", None))


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, InvalidInputError):  # registered for InvalidInputError only
        raise exc
    return error_response(400, str(exc), field=exc.field)


async def _not_found(request: Request, exc: Exception) -> JSONResponse:
    return error_response(404, str(exc))


async def _conflict(request: Request, exc: Exception) -> JSONResponse:
    return error_response(409, "the group changed while this request was applied: try again")


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    _log.error("store unavailable on %s %s: %s", request.method, request.url.path, exception_text(exc))
    return error_response(503, "the memory's store is unavailable; try again later")


def install_error_handlers(app: FastAPI) -> None:
    """Route every exception to its JSON error (most specific first)."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(InvalidInputError, _invalid)
    app.add_exception_handler(NotFoundError, _not_found)
    app.add_exception_handler(ConcurrentWriteError, _conflict)
    app.add_exception_handler(ClosedError, _unavailable)
    app.add_exception_handler(StoreError, _unavailable)
