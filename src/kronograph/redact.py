"""Secrets out of error text, before it is stored, logged or answered.

A provider's or a database's error message may carry what no one else should
see: an API key it echoes back, a bearer token, a URL with a password in it,
the address of a host on a private network. Every error text kronograph
keeps (an episode's ``error``, a saga run's), logs or returns passes through
:func:`redact_text`; model, embedding, judge and store errors are redacted as
they are made (see :mod:`kronograph.errors`). :func:`redact_dsn` is the
milder form for a database URL shown to its own operator (a banner, a
report): only the password goes.

What :func:`redact_text` replaces, by ``[redacted]``:

- tokens shaped like API keys (``sk-…``, ``sk-ant-…``, ``AIza…``, ``kg_…``,
  ``gsk_…``, ``hf_…``, ``ghp_…``, ``xox…-``, ``AKIA…``, ``ya29.…``, JSON web
  tokens) and any long run of letters and digits of mixed case;
- the credential after ``Bearer`` or ``Basic``, and the value of a key, token,
  secret or password given as ``name=value`` or ``name: value`` (headers,
  JSON, libpq's ``password=…``);
- in a URL: its user and password, the value of a credential-like query
  parameter, and a host on a private network (loopback, RFC 1918, link-local,
  unique-local IPv6, ``localhost``, a name with no dot, ``.internal``,
  ``.local``, ``.lan``, ``.corp``, ``.home``, ``.intranet``, ``.svc``);
- a private IPv4 address anywhere.
"""

from __future__ import annotations

import ipaddress
import re
import traceback

__all__ = ["REDACTED", "exception_text", "redact_dsn", "redact_text", "traceback_text"]

REDACTED = "[redacted]"

_KEY_SHAPES = re.compile(
    r"""(?x)
    (?<![A-Za-z0-9])(?:
        sk-[A-Za-z0-9_*\-]{3,}                      # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-); masked forms too
      | AIza[0-9A-Za-z_\-]{10,}                      # Google
      | kg_[A-Za-z0-9_\-]{8,}                        # kronograph's own API keys
      | (?:gsk|hf|ghp|gho|ghu|ghs|ghr|xai|github_pat)_[A-Za-z0-9_\-]{8,}
      | xai-[A-Za-z0-9_\-]{8,}
      | xox[abprs]-[A-Za-z0-9\-]{8,}                 # Slack
      | (?:AKIA|ASIA)[0-9A-Z]{16}                    # AWS access key ids
      | ya29\.[A-Za-z0-9_\-]{8,}                     # Google OAuth access tokens
      | eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*   # JSON web tokens
    )
    """
)
# A long run of letters and digits in both cases with a digit: a secret's shape
# (uuids, hex digests and words are not: one case, or no digit).
_OPAQUE = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-])")
_SCHEME_CREDENTIAL = re.compile(
    r"\b([Bb]earer|BEARER)(\s+)[A-Za-z0-9._~+/=\-]{6,}|\b(Basic)(\s+)[A-Za-z0-9+/]{8,}={0,2}"
)
_NAMED = re.compile(
    r"""(?ix)
    (?P<name>\\?["']?(?:[a-z0-9_\-]*(?:api[_\-]?key|apikey|access[_\-]?key|secret|token|password|passwd|pwd
        |authorization|auth[_\-]?key|credentials?|private[_\-]?key|session[_\-]?key|signature|sig))\\?["']?)
    (?P<sep>\s*(?:[:=]|%3[adAD])\s*)                    # also URL-encoded
    (?:
        (?P<quote>\\?["'])[^"'\n]*?\\?["']            # a quoted value, whole (JSON-escaped quotes too)
      | (?!\[redacted\])(?:(?:bearer|basic)(?:\s+|%20|\+))?[^\s"',;&}\]\\]+
    )
    """
)
_URL = re.compile(r"(?i)\b(?P<scheme>[a-z][a-z0-9+.\-]*)://(?P<rest>[^\s\"'<>]+)")
_QUERY_SECRET = re.compile(
    r"(?i)([?&;](?:[a-z0-9_\-]*(?:key|token|secret|password|passwd|pwd|sig|signature|auth|credential)s?)=)[^&#\s]*"
)
_INTERNAL_SUFFIXES = (".localhost", ".internal", ".local", ".lan", ".corp", ".home", ".intranet", ".svc",
                      ".cluster.local", ".private", ".localdomain")
# A host named outright (``host='db.internal'``, ``server at "ollama"``), and a
# name on a private domain anywhere.
_HOST_NAMED = re.compile(r"""(?i)\b(host(?:name)?\s*[=:]\s*|server at\s+)(["']?)([A-Za-z0-9_.\-]+)(["']?)""")
_PRIVATE_NAME = re.compile(
    r"(?i)(?<![A-Za-z0-9_.\-])[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*"
    r"\.(?:localhost|internal|local|lan|corp|home|intranet|svc|private|localdomain)(?![A-Za-z0-9_\-])"
)
_IPV4 = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.])")


def _is_private_ip(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return bool(address.is_private or address.is_loopback or address.is_link_local or address.is_unspecified
                or address.is_reserved)


def _internal_host(host: str) -> bool:
    host = host.strip("[]").rstrip(".").lower()
    if not host:
        return False
    if _is_private_ip(host):
        return True
    if ":" in host or re.fullmatch(r"[\d.]+", host):  # a public IP address
        return False
    return "." not in host or host == "localhost" or host.endswith(_INTERNAL_SUFFIXES)


def _url(match: re.Match[str]) -> str:
    scheme, rest = match.group("scheme"), match.group("rest")
    cut = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        authority = REDACTED + "@" + authority.rsplit("@", 1)[1]
    userinfo, _, hostport = authority.rpartition("@")
    host = hostport
    if hostport.startswith("["):
        host = hostport[: hostport.find("]") + 1] if "]" in hostport else hostport
    elif ":" in hostport:
        host = hostport.rsplit(":", 1)[0]
    if _internal_host(host):
        hostport = REDACTED
    authority = f"{userinfo}@{hostport}" if userinfo else hostport
    return f"{scheme}://{authority}{_QUERY_SECRET.sub(lambda m: m.group(1) + REDACTED, tail)}"


def _named(match: re.Match[str]) -> str:
    quote = match.group("quote") or ""
    return f"{match.group('name')}{match.group('sep')}{quote}{REDACTED}{quote}"


def _opaque(match: re.Match[str]) -> str:
    token = match.group(0)
    mixed = re.search(r"[a-z]", token) and re.search(r"[A-Z]", token) and re.search(r"\d", token)
    return REDACTED if mixed else token


def _host_named(match: re.Match[str]) -> str:
    if not _internal_host(match.group(3)):
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}{REDACTED}{match.group(4)}"


def _ipv4(match: re.Match[str]) -> str:
    return REDACTED if _is_private_ip(match.group(1)) else match.group(0)


def redact_text(text: str) -> str:
    """``text`` with credentials and private addresses replaced (see the module)."""
    if not text:
        return text
    out = _URL.sub(_url, text)
    out = _NAMED.sub(_named, out)
    out = _SCHEME_CREDENTIAL.sub(lambda m: f"{m.group(1) or m.group(3)}{m.group(2) or m.group(4)}{REDACTED}", out)
    out = _KEY_SHAPES.sub(REDACTED, out)
    out = _OPAQUE.sub(_opaque, out)
    out = _HOST_NAMED.sub(_host_named, out)
    out = _PRIVATE_NAME.sub(REDACTED, out)
    return _IPV4.sub(_ipv4, out)


# A database password sits in one of three places: the URL's user info
# (``postgresql://user:secret@host/db``, where the secret may itself hold ``@``
# or ``/``: the user info ends at the last ``@`` before the host), a
# ``password=`` query parameter, or a ``password=`` pair of a ``key=value``
# connection string. All three are masked anywhere in a text (a psycopg
# message quotes the string it could not parse); a SQLite path is left alone.
_DSN_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:@/]*):\S*@(?=[^\s@]*(?:\s|$))")
_DSN_PARAMETER = re.compile(r"(?i)([?&](?:ssl)?password=)[^&\s'\"]*")
_DSN_PAIR = re.compile(r"""(?i)(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s'"&]+)""")


def redact_dsn(text: str) -> str:
    """A database URL or libpq connection string, or a message quoting one,
    without its password (``postgresql://kg:***@db:5432/memory``): for
    showing to its operator (a banner, a CLI error, a log line)."""
    text = _DSN_USERINFO.sub(r"\1:***@", text)
    text = _DSN_PARAMETER.sub(r"\1***", text)
    return _DSN_PAIR.sub(r"\1***", text)


def exception_text(exc: BaseException) -> str:
    """``Type: message``, redacted: what may be stored or shown of an error."""
    return redact_text(f"{type(exc).__name__}: {exc}")


def traceback_text(exc: BaseException) -> str:
    """The whole traceback, redacted: what may be logged of an unexpected error."""
    return redact_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
