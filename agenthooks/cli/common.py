"""What the subcommands share: the error they raise and a plain-text table."""

from __future__ import annotations

import argparse
import shutil
import textwrap
from typing import Any, Protocol


class CLIError(Exception):
    """A failure the command reports in one line, exiting with ``code`` (2: bad input)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


class Subparsers(Protocol):
    """What ``add_subparsers()`` returns, as the commands use it."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


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


__all__ = ["CLIError", "Subparsers", "table"]
