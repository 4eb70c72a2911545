"""``Disposer``: what every registration returns (a hook, a plugin, a middleware), apart
from the bus so that what registers things (plugins, say) needs nothing of the bus."""

from __future__ import annotations

from collections.abc import Callable


class Disposer:
    """Removes what a registration added. Idempotent: a second call is a no-op.

    Also a context manager: ``with bus.on("on_message", h): ...`` removes ``h`` on exit.
    """

    __slots__ = ("_undo",)

    def __init__(self, undo: Callable[[], None]) -> None:
        self._undo: Callable[[], None] | None = undo

    def __call__(self) -> None:
        """Remove the registration; calling again does nothing."""
        undo, self._undo = self._undo, None
        if undo is not None:
            undo()

    @property
    def active(self) -> bool:
        """False once disposed."""
        return self._undo is not None

    def __enter__(self) -> Disposer:
        return self

    def __exit__(self, *exc: object) -> None:
        self()


__all__ = ["Disposer"]
