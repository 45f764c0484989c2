"""Importing a framework the ``integrations`` extra brings, with an error
that says how to install it."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["INSTALL_HINT", "require"]

INSTALL_HINT = "pip install 'kronograph[integrations]'"


def require(module: str, package: str, user: str) -> ModuleType:
    """Import ``module`` (of the PyPI ``package``) for ``user`` (the module
    that needs it), or raise an ImportError naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{user} needs the '{package}' package: {INSTALL_HINT}") from exc
