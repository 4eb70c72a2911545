"""A store from one string, for the command line and the environment
(``AGENTHOOKS_STORE``): ``postgresql://...`` / ``postgres://...`` (optionally with
``?schema=NAME``... in ``options``), ``sqlite:///path/to/file.db``, or a plain file path."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import StoreError
from .sqlite import SQLiteStore

if TYPE_CHECKING:
    from .sql import SQLStore

STORE_ENV = "AGENTHOOKS_STORE"
"""The environment variable naming the store when none is given."""


def open_store(url: str | None = None) -> SQLStore:
    """Open the store a URL or path names.

    A PostgreSQL URL may carry ``agenthooks_schema`` and ``agenthooks_prefix`` query
    parameters (taken off before connecting); a SQLite URL or path may carry neither.

    Args:
        url: ``postgresql://...``, ``sqlite:///file.db`` or a file path; ``None``:
            ``$AGENTHOOKS_STORE``.

    Raises:
        StoreError: No store is given, or the URL cannot name one (it says why).
    """
    url = url if url is not None else os.environ.get(STORE_ENV, "")
    if not url.strip():
        raise StoreError(
            f"no store given: pass a URL or path (postgresql://..., sqlite:///file.db, "
            f"file.db) or set {STORE_ENV}"
        )
    parts = urlsplit(url)
    if parts.scheme in ("postgresql", "postgres"):
        from .postgres import PostgresStore

        query = dict(parse_qsl(parts.query))
        options: dict[str, Any] = {}
        if "agenthooks_schema" in query:
            options["schema"] = query.pop("agenthooks_schema")
        if "agenthooks_prefix" in query:
            options["prefix"] = query.pop("agenthooks_prefix")
        dsn = urlunsplit(parts._replace(query=urlencode(query)))
        return PostgresStore(dsn, **options)
    if parts.scheme == "sqlite":
        path = url[len("sqlite://") :]
        if not path.startswith("/"):
            raise StoreError(f"{url!r}: write sqlite:///relative.db or sqlite:////absolute.db")
        return SQLiteStore(path[1:] or ":memory:")
    if parts.scheme and len(parts.scheme) > 1:
        raise StoreError(f"{url!r}: unknown store scheme {parts.scheme!r} (postgresql, sqlite)")
    return SQLiteStore(url)


__all__ = ["STORE_ENV", "open_store"]
