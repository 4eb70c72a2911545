"""What the subcommands share: the error they raise, reading a store, and a plain-text table."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import sqlite3
import textwrap
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..errors import StoreError
from ..stores.postgres import PostgresStore  # psycopg itself is imported on first use
from ..stores.sqlite import SQLiteStore

if TYPE_CHECKING:
    from ..stores.sql import SQLStore

T = TypeVar("T")


class CLIError(Exception):
    """A failure the command reports in one line, exiting with ``code`` (2: bad input)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def one_line(exc: BaseException) -> str:
    """``TypeName: message`` on one line (a driver's message may span several)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def missing_store(store: SQLStore) -> str | None:
    """Why ``store`` cannot be read without creating it (a SQLite file that does not exist:
    most likely a mistyped path), else None."""
    if not isinstance(store, SQLiteStore) or str(store.path) == ":memory:":
        return None
    if not store.path.exists():
        return (
            f"no store at {str(store.path)!r}: the file does not exist (check the path; "
            "reading never creates a store)"
        )
    if not store.path.is_file():
        return f"no store at {str(store.path)!r}: it is not a file"
    # a file of another program (or an empty one) would get the store's tables on the first
    # read: look, read-only, for the store's schema table first
    schema = store.table("schema")
    try:
        uri = f"{store.path.resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (schema,)
            ).fetchone()
    except sqlite3.Error as exc:
        return f"no store at {str(store.path)!r}: it cannot be read as SQLite ({one_line(exc)})"
    if found is None:
        return f"no store at {str(store.path)!r}: the file holds no agenthooks sessions (no {schema} table)"
    return None


STORE_WAIT = 10.0
"""Seconds a command waits for a PostgreSQL connection before it says the store cannot be
reached (a worker's store waits longer: ``PostgresStore(timeout=30.0)``)."""


def existing(store: SQLStore) -> SQLStore:
    """``store``, or a ``CLIError`` (exit 2) when reading it would create it. A PostgreSQL
    store waits at most ``STORE_WAIT`` for a connection: a person is waiting."""
    problem = missing_store(store)
    if problem is not None:
        raise CLIError(problem)
    if isinstance(store, PostgresStore):
        store.timeout = min(store.timeout, STORE_WAIT)
    return store


def store_failures() -> tuple[type[BaseException], ...]:
    """What a store raises when it cannot be reached or read: a ``StoreError``, an OS error,
    or an error of its driver (sqlite3, psycopg when installed)."""
    kinds: list[type[BaseException]] = [StoreError, OSError, sqlite3.Error]
    try:
        import psycopg
    except ImportError:  # the postgres extra is not installed
        pass
    else:
        kinds.append(psycopg.Error)
    return tuple(kinds)


def read_store(store: SQLStore, read: Callable[[SQLStore], Coroutine[Any, Any, T]]) -> T:
    """``read(store)`` run to its end, the store closed after it; a store that cannot be
    reached or read is a one-line ``CLIError`` naming it (exit 1), never a traceback."""

    async def run() -> T:
        try:
            return await read(store)
        finally:
            try:
                await store.aclose()
            except store_failures():
                pass  # closing what never opened: the read's own error says why

    try:
        return asyncio.run(run())
    except StoreError as exc:  # it names the store already
        raise CLIError(" ".join(str(exc).split()), 1) from None
    except store_failures() as exc:
        raise CLIError(f"cannot read {store!r}: {one_line(exc)}", 1) from None


class Subparsers(Protocol):
    """What ``add_subparsers()`` returns, as the commands use it."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Add the command ``name`` and return its parser (``kwargs`` as argparse takes them)."""
        ...


def table(
    header: list[str],
    rows: list[list[str]],
    *,
    limits: dict[int, int] | None = None,
    width: int | None = None,
) -> str:
    """Rows under a header with padded columns. A column in ``limits`` wraps at that many
    characters; the last column wraps to what is left of the terminal width."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    limits = limits or {}
    last = len(header) - 1
    widths = [
        min(max(len(r[i]) for r in [header, *rows]), limits.get(i, 10**6)) for i in range(last)
    ]
    indent = sum(widths) + 2 * last
    widths.append(max(24, width - indent))
    lines = []
    for row in [header, ["-" * len(h) for h in header], *rows]:
        cells = [
            textwrap.wrap(cell, w, break_on_hyphens=False) or [""] for cell, w in zip(row, widths)
        ]
        for n in range(max(len(c) for c in cells)):
            parts = [(c[n] if n < len(c) else "").ljust(w + 2) for c, w in zip(cells, widths)]
            lines.append("".join(parts).rstrip())
    return "\n".join(lines) + "\n"


__all__ = [
    "STORE_WAIT",
    "CLIError",
    "Subparsers",
    "existing",
    "missing_store",
    "one_line",
    "read_store",
    "store_failures",
    "table",
]
