"""What a bridge gives the kit: how to build and run an agent of its framework on a scripted
model, and how to resume it. A sixth framework is one more adapter."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..bridges import Capabilities
    from ..bus import HookBus
    from .script import Step


@dataclass
class Outcome:
    """What the caller got from a run.

    Attributes:
        text: The answer's text (``None`` for none).
        output: The structured output, where the run had an output type.
        paused: The ids of the tool calls a paused run waits on (empty: not paused).
        finish_reason: How the run ended, where the framework says (else ``None``).
        history: Every text the framework keeps of the run (its stored messages), for the
            redaction cases.
        handle: What ``resume`` needs (the agent, a thread id, a run state).
    """

    text: str | None = None
    output: Any = None
    paused: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    history: list[str] = field(default_factory=list)
    handle: Any = None


class BridgeAdapter(ABC):
    """One framework as the kit drives it.

    Attributes:
        capabilities: The bridge's declaration.
        structured: The adapter runs agents with an ``output_type`` (``run(output_type=)``).
        streams: The adapter runs agents streamed (``stream``).
        resumes: The adapter resumes a paused run (``resume``).
        unscripted: Events the bridge fires only where the kit's scripts cannot lead (a
            handoff, a sub-agent): the bridge's own tests pin them.
    """

    capabilities: Capabilities
    structured: bool = False
    streams: bool = False
    resumes: bool = True
    unscripted: frozenset[str] = frozenset()

    @abstractmethod
    async def run(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
        *,
        output_type: type[Any] | None = None,
    ) -> Outcome:
        """Build an agent of the framework, bridged to ``bus``, whose scripted model answers
        ``script`` and whose tools are ``tools``; run it on ``message``. A final step's
        text is the structured answer's JSON when ``output_type`` is given."""

    async def resume(self, bus: HookBus, paused: Outcome, decisions: Mapping[str, bool]) -> Outcome:
        """Resume ``paused`` with a human's answer per call id (True: approved).

        Raises:
            NotImplementedError: The adapter does not resume (``resumes`` is False).
        """
        raise NotImplementedError

    async def stream(
        self,
        bus: HookBus,
        script: Sequence[Step],
        tools: Sequence[Callable[..., Any]],
        message: str,
    ) -> tuple[list[str], Outcome]:
        """Run streamed: the text deltas the caller read, and the outcome.

        Raises:
            NotImplementedError: The adapter does not stream (``streams`` is False).
        """
        raise NotImplementedError


__all__ = ["BridgeAdapter", "Outcome"]
