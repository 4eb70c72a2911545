"""How long the path of a call is: count the agenthooks functions a piece of work calls, and
the hops between modules (two consecutive agenthooks calls whose code lives in different
modules), with ``sys.setprofile``. ``make bench`` prints it per tool call (the goal: at most
10 hops per extra tool call)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from types import FrameType
from typing import Any

import agenthooks

PACKAGE = str(Path(agenthooks.__file__).resolve().parent)


@dataclass
class PathTrace:
    """The agenthooks functions called, in order, as ``module:function``."""

    calls: list[str] = field(default_factory=list)

    @property
    def hops(self) -> int:
        """Consecutive calls whose code lives in different modules."""
        modules = [c.split(":", 1)[0] for c in self.calls]
        return sum(1 for a, b in pairwise(modules) if a != b)


def trace(work: Callable[[], Awaitable[Any]]) -> PathTrace:
    """Run ``work()`` on a fresh event loop and record every agenthooks function it calls."""
    found = PathTrace()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if code.co_filename.startswith(PACKAGE):
                module = code.co_filename[len(PACKAGE) + 1 :].removesuffix(".py")
                found.calls.append(f"{module}:{code.co_name}")

    async def main() -> None:
        sys.setprofile(profile)
        try:
            await work()
        finally:
            sys.setprofile(None)

    asyncio.run(main())
    return found


__all__ = ["PathTrace", "trace"]
