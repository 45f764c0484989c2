"""A migration script cut into its statements, run one by one: Citus sends
a DDL statement on a distributed table to the workers as the text it came
in, and a worker refuses a text of several statements ("cannot insert
multiple commands into a prepared statement")."""

from __future__ import annotations

import re

__all__ = ["statements"]

_DOLLAR = re.compile(r"\$[A-Za-z_]*\$")


def statements(script: str) -> list[str]:
    """The statements of ``script``, each without its ``;``; comments and
    blank pieces are dropped. Knows quotes ('…', "…"), dollar quotes
    ($$…$$, $tag$…$tag$) and comments (-- …, /* … */), so a ``;`` inside
    them does not end a statement."""
    out: list[str] = []
    start = i = 0
    n = len(script)
    code = False  # whether the piece so far holds more than blanks and comments
    while i < n:
        c = script[i]
        if c == ";":
            if code:
                out.append(script[start:i].strip())
            start, code = i + 1, False
            i += 1
            continue
        if script.startswith("--", i):
            end = script.find("\n", i)
            i = n if end < 0 else end + 1
            start = start if code else i  # a comment before a statement is left out
            continue
        if script.startswith("/*", i):
            end = script.find("*/", i + 2)
            i = n if end < 0 else end + 2
            start = start if code else i
            continue
        code = code or not c.isspace()
        if c in "'\"":
            end = script.find(c, i + 1)
            while end >= 0 and script.startswith(c, end + 1):  # a doubled quote is a quote within
                end = script.find(c, end + 2)
            i = n if end < 0 else end + 1
            continue
        tag = _DOLLAR.match(script, i) if c == "$" else None
        if tag is not None:
            end = script.find(tag.group(), tag.end())
            i = n if end < 0 else end + len(tag.group())
            continue
        i += 1
    if code:
        out.append(script[start:].strip())
    return out
