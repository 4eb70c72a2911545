"""What an event is on the bus (``EventSpec``), and ``event``, the decorator a context class
declares its event with: the class is the one place an event is declared."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

if TYPE_CHECKING:
    from .contexts import EventContext

Kind = Literal["observer", "interceptor", "predicate"]


@dataclass(frozen=True, slots=True)
class EventSpec:
    """How one event behaves on the bus.

    ``returns``: keys a handler may return; ``short_circuit``: keys that skip the remaining
    ordinary handlers and the downstream step; ``recovery``: keys where the first one wins;
    ``deny``: whether ``Deny`` is accepted; ``ask``: whether ``Ask`` is (the run then pauses);
    ``gate``: an isolated exception counts as ``Deny``;
    ``teardown``: every handler exception is logged and ignored; ``match``: the context
    attribute ``match=`` tests; ``groups``: the sets the runtime asks about at once
    (``model_call`` and ``tool_call``: the hook layer of each call; ``stream``;
    ``between_turns``; ``after_answer``: the work left once a run has its answer).
    """

    name: str
    kind: Kind
    context: type[EventContext]
    returns: frozenset[str] = frozenset()
    short_circuit: frozenset[str] = frozenset()
    recovery: frozenset[str] = frozenset()
    deny: bool = False
    ask: bool = False
    gate: bool = False
    teardown: bool = False
    match: str | None = None
    aliases: tuple[str, ...] = ()
    doc: str = ""
    groups: frozenset[str] = frozenset()

    @property
    def kind_label(self) -> str:
        """The kind as the catalog table shows it."""
        if self.kind != "interceptor":
            return self.kind
        if self.short_circuit:
            return "interceptor, short-circuit"
        if not self.returns:
            return "interceptor (Deny only)"
        return "interceptor"

    @property
    def may_return(self) -> str:
        """What a handler may return, as text."""
        if self.kind == "predicate":
            return "True stops"
        parts = [f'{{"{k}"}}' for k in sorted(self.returns)]
        if self.deny:
            parts.append("Deny(reason)")
        if self.ask:
            parts.append("Ask(reason)")
        return ", ".join(parts) or "-"


_C = TypeVar("_C", bound="type[EventContext]")


def event(
    name: str,
    kind: Kind,
    *,
    doc: str,
    returns: Iterable[str] = (),
    short_circuit: Iterable[str] = (),
    recovery: Iterable[str] = (),
    deny: bool = False,
    ask: bool = False,
    gate: bool = False,
    teardown: bool = False,
    match: str | None = None,
    aliases: Iterable[str] = (),
    groups: Iterable[str] = (),
) -> Callable[[_C], _C]:
    """Declare the event whose context the decorated class is: its ``EventSpec`` becomes the
    class's ``spec``, and the catalog is the list of these declarations in the order of
    ``contexts.py``.

    ``doc`` says when the event fires (one line of the README's table); the other arguments
    are the ``EventSpec`` fields. A declaration that contradicts its class (a returned key or
    ``match`` attribute the context lacks, a short-circuit or recovery key that is not
    returned, an observer that takes returns) raises ``TypeError`` at import.
    """

    def declare(cls: _C) -> _C:
        spec = EventSpec(
            name,
            kind,
            cls,
            returns=frozenset(returns),
            short_circuit=frozenset(short_circuit),
            recovery=frozenset(recovery),
            deny=deny,
            ask=ask,
            gate=gate,
            teardown=teardown,
            match=match,
            aliases=tuple(aliases),
            doc=doc,
            groups=frozenset(groups),
        )
        _check(spec)
        cls.spec = spec
        return cls

    return declare


def _check(spec: EventSpec) -> None:
    """Refuse a declaration its context class cannot honour (a mistake in ``contexts.py``)."""
    where = f"event {spec.name!r} ({spec.context.__name__})"
    declared = getattr(spec.context, "spec", None)
    if declared is not None and declared.context is spec.context:  # its own, not inherited
        raise TypeError(f"{where}: the class already declares {declared.name!r}")
    fields = spec.context.model_fields
    missing = sorted(k for k in spec.returns if k not in fields)
    if missing:
        raise TypeError(f"{where}: returns {missing}, which the context has no field for")
    extra = sorted((spec.short_circuit | spec.recovery) - spec.returns)
    if extra:
        raise TypeError(f"{where}: short-circuit or recovery keys {extra} are not returned")
    if spec.kind != "interceptor" and (spec.returns or spec.deny or spec.ask or spec.gate):
        raise TypeError(f"{where}: a {spec.kind} takes no returns, Deny or Ask")
    # a field is no class attribute in pydantic; a property (``tool_name``) is
    if (
        spec.match is not None
        and spec.match not in fields
        and not hasattr(spec.context, spec.match)
    ):
        raise TypeError(f"{where}: match={spec.match!r} is not an attribute of the context")
    if not spec.doc:
        raise TypeError(f"{where}: doc (when the event fires) is empty")


__all__ = ["EventSpec", "Kind", "event"]
