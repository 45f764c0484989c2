"""What the service logs, and what it does not.

- A library may not reconfigure the root logger: the ``mcp`` SDK installs a
  rich handler there when its server is built (rendering one traceback took
  seconds, on the event loop). :func:`root_logging_kept` builds it with the
  root's handlers and level put back.
- An unexpected error is logged once (:class:`UnexpectedErrors`), as one
  record, and answered 500 ``internal``; it never reaches the server's own
  last-resort handler, which would log it again. On an erasure (``forget``)
  the log keeps the error's type and stack but not its message, which may
  quote the name being erased.
- The access log names the path, never the query string: a name searched for
  or forgotten over GET must not land in a log (:class:`PathOnly`).
- ``kronograph serve`` writes its log through a queue (:func:`log_in_background`):
  a record is formatted and written by a thread of its own, not by the event
  loop that answers requests, and a database password in it is masked.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import logging.handlers
import queue
import sys
import traceback
from collections.abc import Iterator
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..redact import redact_dsn, traceback_text
from .errors import error_response

__all__ = [
    "PathOnly", "UnexpectedErrors", "keep_queries_out_of_the_access_log", "log_in_background", "path_only",
    "root_logging_kept",
]

_log = logging.getLogger("kronograph.server")
ACCESS_LOGGER = "uvicorn.access"


@contextlib.contextmanager
def root_logging_kept() -> Iterator[None]:
    """Whatever runs inside may call ``logging.basicConfig``; the root logger's
    handlers and level are as before once it returns."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)


def path_only(target: str) -> str:
    """A request target without its query string (nor fragment)."""
    return target.split("?", 1)[0].split("#", 1)[0]


class PathOnly(logging.Filter):
    """Drop the query string from uvicorn's access records (client, method, target, version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], path_only(args[2]), *args[3:])
        return True


def keep_queries_out_of_the_access_log() -> None:
    """Put :class:`PathOnly` on uvicorn's access logger (once per process)."""
    access = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, PathOnly) for f in access.filters):
        access.addFilter(PathOnly())


class UnexpectedErrors:
    """ASGI middleware: an exception no handler answered is logged once and
    answered 500 ``internal``, with no trace in the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watching_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watching_send)
        except HTTPException:  # answered by the middleware that raised it (a body over the limit)
            raise
        except Exception as exc:  # the last stop: logged here, once, and answered
            where = (scope.get("method"), path_only(scope.get("path", "")))
            if _erasing(scope):
                _log.error("unexpected error on %s %s: %s (message withheld: an erasure)\n%s", *where,
                           type(exc).__name__, "".join(traceback.format_tb(exc.__traceback__)).rstrip())
            else:
                _log.error("unexpected error on %s %s:\n%s", *where, traceback_text(exc))
            if started:
                return
            await error_response(500, "internal error (logged by the server)")(scope, receive, send)


def _erasing(scope: Scope) -> bool:
    """Whether a request erases something (``forget``): its error messages may quote the name."""
    path = scope.get("path", "")
    query = scope.get("query_string", b"").decode("latin-1").lower()
    return (path.endswith("/forget") or (scope.get("method") == "DELETE" and "/entities/" in path)
            or "forget=true" in query or "forget=1" in query)


class _Masked(logging.Formatter):
    """The standard format, with any database password masked (a traceback may quote an address)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_dsn(super().format(record))


class _Enqueue(logging.handlers.QueueHandler):
    """Hands the record over as it is: the listener's thread formats it (the traceback included)."""

    def prepare(self, record: logging.LogRecord) -> Any:
        record = copy.copy(record)
        record.msg, record.args = record.getMessage(), None
        return record


@contextlib.contextmanager
def log_in_background(level: int = logging.INFO) -> Iterator[None]:
    """While inside: the service's loggers (``kronograph``, ``uvicorn``,
    ``mcp``) go to stderr through a queue and a thread of their own. They are
    put back as they were on the way out; the root logger is left alone."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Masked("%(levelname)s: %(name)s: %(message)s"))
    records: queue.SimpleQueue[Any] = queue.SimpleQueue()
    listener = logging.handlers.QueueListener(records, handler, respect_handler_level=False)
    loggers = [logging.getLogger(name) for name in ("kronograph", "uvicorn", "mcp")]
    before = [(list(lg.handlers), lg.level, lg.propagate) for lg in loggers]
    for logger in loggers:
        logger.handlers = [_Enqueue(records)]
        logger.setLevel(level if logger.name != "mcp" else max(level, logging.WARNING))
        logger.propagate = False
    keep_queries_out_of_the_access_log()
    listener.start()
    try:
        yield
    finally:
        listener.stop()  # writes what is still queued
        for logger, (handlers, old_level, propagate) in zip(loggers, before, strict=True):
            logger.handlers, logger.propagate = handlers, propagate
            logger.setLevel(old_level)
