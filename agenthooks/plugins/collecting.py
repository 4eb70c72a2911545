"""What a plugin's ``setup(bus)`` is handed: the bus, and its blinker signals, each keeping a
disposer for what the plugin adds (handlers, middleware, nested plugins, receivers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import blinker

from ..disposer import Disposer

if TYPE_CHECKING:
    from ..bus import HookBus

F = TypeVar("F", bound=Callable[..., Any])


class Collecting:
    """The bus as a plugin's ``setup(bus)`` sees it: every registration is remembered, so the
    plugin's disposer can undo all of them."""

    def __init__(self, bus: HookBus) -> None:
        self._bus = bus
        self.disposers: list[Callable[[], None]] = []
        self.handlers: list[tuple[str, Any]] = []
        """Each ``(event, handler)`` the plugin registered: a host that cannot fire an event
        tells the plugin's handlers (governed by its declared needs) from a user's."""

    def on(self, event: str, handler: Any = None, **options: Any) -> Any:
        return self._keep(self._bus.on(event, handler, **options), event, "on", options, handler)

    def once(self, event: str, handler: Any = None, **options: Any) -> Any:
        return self._keep(
            self._bus.once(event, handler, **options), event, "once", options, handler
        )

    def use(self, item: Any) -> Disposer:
        dispose = self._bus.use(item)
        self.disposers.append(dispose)
        return dispose

    def signal(self, event: str) -> _TrackedSignal:
        """The bus's blinker signal, with every receiver connected through it remembered."""
        return _TrackedSignal(self._bus.signal(event), self.disposers)

    @property
    def target(self) -> HookBus:
        """The bus the plugin is being installed on."""
        return self._bus

    def _keep(
        self, result: Any, event: str, how: str, options: dict[str, Any], handler: Any = None
    ) -> Any:
        if isinstance(result, Disposer):
            self.disposers.append(result)
            self.handlers.append((event, handler))
            return result

        def decorate(fn: Any) -> Any:  # decorator form: register through the disposer path
            getattr(self, how)(event, fn, **options)
            return fn

        return decorate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bus, name)


class _TrackedSignal:
    """A blinker signal as a plugin's ``setup`` sees it: ``connect`` also records how to
    disconnect, so removing the plugin (or a failed setup) disconnects its receivers."""

    def __init__(self, signal: Any, disposers: list[Callable[[], None]]) -> None:
        self._signal = signal
        self._disposers = disposers

    def connect(self, receiver: Any, sender: Any = None, weak: bool = False) -> Any:
        result = self._signal.connect(receiver, blinker.ANY if sender is None else sender, weak)
        # for every sender: blinker keeps a receiver disconnected from one sender listed
        self._disposers.append(lambda: self._signal.disconnect(receiver))
        return result

    def connect_via(self, sender: Any, weak: bool = False) -> Callable[[F], F]:
        def decorate(fn: F) -> F:
            self.connect(fn, sender, weak)
            return fn

        return decorate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._signal, name)


__all__: list[str] = []
