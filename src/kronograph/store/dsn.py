"""Database addresses without their secrets, for anything shown to a person
or written to a log: a banner, an error, a log line.

A PostgreSQL address carries its password in one of three places: the URL's
user info (``postgresql://user:secret@host/db``, where the secret may itself
hold ``@``), a ``password=`` query parameter, or a ``password=`` pair of a
``key=value`` connection string. :func:`redact_dsn` masks all three anywhere
in a text (a psycopg message quotes the string it could not parse), and
leaves everything else, a SQLite path included, as it was.
"""

from __future__ import annotations

import re

__all__ = ["MASK", "redact_dsn"]

MASK = "***"
# scheme://user:secret@ ... the user info ends at the last "@" before the host (greedy over non-space).
_USERINFO = re.compile(r"(?i)\b((?:postgres(?:ql)?|[a-z][a-z0-9+.-]*)://[^\s:@/]*):\S*@(?=[^\s@]*(?:\s|$))")
_PARAMETER = re.compile(r"(?i)([?&]password=)[^&\s'\"]*")
_PAIR = re.compile(r"""(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s'"&]+)""")


def redact_dsn(text: str) -> str:
    """``text`` with every database password in it masked."""
    text = _USERINFO.sub(rf"\1:{MASK}@", text)
    text = _PARAMETER.sub(rf"\1{MASK}", text)
    return _PAIR.sub(rf"\1{MASK}", text)
