"""The one dispatch loop: every event, whatever its kind, runs through ``Dispatcher.dispatch``.

Observers run every handler and ignore returns (warning once per handler that returns
something: an ``IgnoredReturnWarning``); interceptors fold (each return is applied to
the context before the next handler runs; a short-circuit or recovery ends the ordinary tier,
a ``Deny`` ends everything); predicates stop at the first ``True``. Guards run after the
ordinary tier, are never skipped by it, and fail closed. Then blinker receivers, then the
``on_event`` record.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog

from ..decisions import Ask, Deny
from ..errors import HOOK_MARK, BadReturnError, StopRun
from ..events.catalog import CATALOG, EventSpec, resolve
from .registry import NO_CHAINS, Chains, ErrorPolicy, Registration
from .returns import apply_return, warn_ignored_return
from .signals import RECORD_COUNTS, BusSignal, error_text, event_record, send_receivers

if TYPE_CHECKING:
    from ..events.contexts import EventContext

log = structlog.get_logger("agenthooks")

_TEARDOWN = {name: spec.teardown for name, spec in CATALOG.items()}
_QUIET = {name: False if spec.kind == "predicate" else None for name, spec in CATALOG.items()}
"""What firing each event returns when nobody listens."""
_UNKNOWN = object()


class Dispatcher:
    """The dispatch state of a bus and the loop that reads it.

    ``chains`` holds each event's (ordinary, guards) tuples in dispatch order; ``listened`` the
    events an emission must not skip; ``after`` those with work after the chain (receivers or
    records). All three are replaced whenever a registration changes, never mutated.
    """

    errors: ErrorPolicy
    chains: dict[str, Chains]
    listened: frozenset[str]
    after: frozenset[str]
    records: bool
    signals: dict[str, BusSignal]

    async def dispatch(
        self,
        event: str,
        ctx: EventContext,
        between: Callable[[EventContext], bool] | None = None,
        *,
        approved: bool = False,
    ) -> Any:
        """Fire ``event`` (a canonical name or an alias) with ``ctx``.

        Returns what the kind of the event decides: ``None`` for an observer, the ``Deny``
        that refused the step or the ``Ask`` that paused it (or ``None``) for an interceptor,
        the verdict for a predicate.
        ``between(ctx)`` runs after the ordinary handlers, before the guards (which it skips
        by returning True). ``approved``: a human approved this step at ``resume()``, so an
        ``Ask`` returned for it counts as ``None``. An unknown name raises
        ``UnknownEventError``."""
        if event not in self.listened:
            quiet = _QUIET.get(event, _UNKNOWN)
            if quiet is not _UNKNOWN:  # a canonical name nobody listens to
                return quiet
            spec = resolve(event)  # an alias, or an unknown name (which raises)
            if spec.name not in self.listened:
                return _QUIET[spec.name]
            event = spec.name
        spec = CATALOG[event]
        kind = spec.kind
        ordinary, guards = self.chains.get(event, NO_CHAINS)
        deny: Deny | Ask | None = None  # an Ask ends the chain as a Deny does
        verdict = False
        for tier in (ordinary, guards) if guards else (ordinary,):
            for reg in tier:
                if reg.matcher is not None and not reg.matcher(getattr(ctx, spec.match)):  # type: ignore[arg-type]
                    continue
                if reg.once and not self._consume(reg):
                    continue
                try:
                    result = reg.fn(ctx)
                    if reg.is_async or (result is not None and inspect.isawaitable(result)):
                        result = await result
                    if result is None:
                        continue
                    if kind != "interceptor":
                        if kind == "observer":  # the return is ignored, and warned about
                            if not reg.returned:
                                warn_ignored_return(spec, reg, result)
                            continue
                        if type(result) is not bool:
                            raise BadReturnError(
                                f"{spec.name} handlers return True, False or None, not "
                                f"{type(result).__name__} (handler {reg.label})"
                            )
                        if result:
                            verdict = True
                            break
                        continue
                    stop, deny = apply_return(spec, ctx, result, reg, approved)
                except Exception as exc:
                    stop, deny = False, self._failed(reg, spec, exc, ctx)
                # a short-circuit or recovery ends the ordinary tier; guards never stop early
                if deny is not None or (stop and not reg.guard):
                    break
            if deny is not None or verdict:
                break
            if between is not None and tier is ordinary and between(ctx):
                break
        if event in self.after:
            await self._after_chain(spec, ctx, deny)
        return verdict if kind == "predicate" else deny

    if TYPE_CHECKING:

        async def emit(self, event: str, ctx: EventContext) -> None:
            """Fire an observer event: every handler runs, returns are ignored."""

        async def intercept(self, event: str, ctx: EventContext) -> Deny | Ask | None:
            """Fold an interceptor event over its handlers; returns the refusing ``Deny`` (or
            the pausing ``Ask``)."""

        async def check(self, event: str, ctx: EventContext) -> bool:
            """Ask a predicate event: True as soon as one handler returns True."""

    else:
        # one loop, three typed faces
        emit = intercept = check = dispatch

    def _consume(self, reg: Registration) -> bool:
        """Claim a once-handler's single call and remove it; False when a concurrent emission
        (holding an older snapshot of the chain) already claimed it."""
        if reg.spent:
            return False
        reg.spent = True
        self._remove(reg)
        return True

    def _remove(self, reg: Registration) -> None:
        raise NotImplementedError

    def _failed(
        self, reg: Registration, spec: EventSpec, exc: Exception, ctx: EventContext
    ) -> Deny | None:
        """What a handler's exception (or bad return) means: raise it, or log it and count it
        as ``None`` (as ``Deny`` in a gate, and in any guard of an event that can deny).
        Teardown events, and the ``on_event`` records of teardown events, never raise."""
        if spec.teardown or (spec.name == "on_event" and _TEARDOWN.get(ctx.type, False)):  # type: ignore[attr-defined]
            log_isolated(reg, spec, exc)
            return None
        if isinstance(exc, StopRun):  # a deliberate stop is never isolated
            raise exc
        if reg.guard and spec.deny:
            log_isolated(reg, spec, exc)
            return Deny(error_text(exc))
        if reg.guard or (reg.errors or self.errors) == "raise":
            if getattr(exc, HOOK_MARK, None) is None:
                note = getattr(exc, "add_note", None)
                if note is not None:
                    note(f"raised by handler {reg.label} of event {spec.name!r}")
                try:
                    setattr(exc, HOOK_MARK, spec.name)
                except AttributeError:  # an exception type that takes no attributes
                    pass
            raise exc
        log_isolated(reg, spec, exc)
        return Deny(error_text(exc)) if spec.gate else None

    async def _after_chain(
        self, spec: EventSpec, ctx: EventContext, deny: Deny | Ask | None
    ) -> None:
        signal = self.signals.get(spec.name)
        if signal is not None and signal.receivers:

            def failed(receiver: Any, exc: Exception) -> None:
                self._failed(Registration(receiver, spec.name), spec, exc, ctx)

            await send_receivers(signal, self, ctx, failed)
        if self.records and spec.name != "on_event":
            if RECORD_COUNTS and ctx.run_id in RECORD_COUNTS:
                RECORD_COUNTS[ctx.run_id] += 1
            await self.dispatch("on_event", event_record(spec.name, ctx, deny))


def log_isolated(reg: Registration, spec: EventSpec, exc: Exception) -> None:
    """Log a handler exception that does not end the run, saying what it counted as."""
    if spec.teardown:
        counted = "ignored (teardown events never change the outcome)"
    elif (reg.guard and spec.deny) or spec.gate:
        counted = "Deny: this event fails closed"
    else:
        counted = "None: the run goes on; register policy with guard=True to make it fail closed"
    log.warning(
        "hook_error_isolated",
        hook_event=spec.name,
        handler=reg.label,
        error=f"{type(exc).__name__}: {exc}",
        guard=reg.guard,
        counted_as=counted,
    )


__all__ = ["Dispatcher", "log_isolated"]
