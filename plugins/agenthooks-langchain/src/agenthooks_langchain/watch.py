"""Where a LangChain agent run begins and ends, seen through LangChain's own callbacks.

``after_agent`` does not run when a run fails or is cancelled, and no middleware hook sees the
end of the graph. LangGraph reports both to the callback handlers of the graph's run
(``on_chain_end``; ``on_chain_error``, awaited before the error reaches the caller, also for a
``CancelledError``). So the bridge registers two handlers with LangChain's
``register_configure_hook``, which LangChain adds to every callback manager it configures:

- ``NodeParents`` (sync, inline): for the nodes of ``create_agent`` graphs, which graph run each
  node run belongs to, so a hook inside a node finds its run (and LangChain's run id);
- ``RunEnds`` (async): the end of each graph run the bridge is following, where the bridged
  run ends (done, paused, error or abort). While the bridge follows no run it asks LangChain
  to skip it for every chain event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langchain_core.tracers.context import register_configure_hook
from langgraph.errors import GraphBubbleUp

_AGENT_GRAPH = "langchain_create_agent"
"""The ``ls_integration`` metadata ``create_agent`` puts on its graph (and its nodes inherit)."""

Ending = Callable[[BaseException | None, Any], Awaitable[None]]


class NodeParents(BaseCallbackHandler):
    """The graph run of each running ``create_agent`` node run (node run id -> graph run id),
    kept while the node runs."""

    run_inline = True
    ignore_llm = True
    ignore_retry = True
    ignore_agent = True
    ignore_retriever = True
    ignore_chat_model = True
    ignore_custom_event = True

    def __init__(self) -> None:
        self.parents: dict[UUID, UUID] = {}
        self.interrupted: set[UUID] = set()

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note the graph run of a starting ``create_agent`` node run."""
        if (
            parent_run_id is not None
            and metadata
            and "langgraph_node" in metadata
            and metadata.get("ls_integration") == _AGENT_GRAPH
        ):
            self.parents[run_id] = parent_run_id

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Forget a node run that ended."""
        self.parents.pop(run_id, None)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Forget a node run that failed; an interrupt marks its graph run paused."""
        graph = self.parents.pop(run_id, None)
        if graph is not None and isinstance(error, GraphBubbleUp) and graph in RUN_ENDS.endings:
            # a node raised an interrupt: the graph run will end paused, though its end
            # (on_chain_end, with the state as output) does not say so
            self.interrupted.add(graph)

    def paused(self, graph: UUID) -> bool:
        """Whether a node of graph run ``graph`` was interrupted (asked once, when it ends)."""
        if graph in self.interrupted:
            self.interrupted.discard(graph)
            return True
        return False

    def graph_run(self, config: RunnableConfig) -> UUID | None:
        """The graph run of the node running with ``config`` (inside a node's hook)."""
        manager = config.get("callbacks")
        node = getattr(manager, "parent_run_id", None)
        return None if node is None else self.parents.get(node)


class RunEnds(BaseCallbackHandler):
    """Calls the ending registered for a graph run when that run ends (``None`` and its output)
    or fails (the exception), before the caller gets either."""

    run_inline = True
    raise_error = True
    """An ``on_chat_done`` handler's exception reaches the caller (LangChain would log it)."""
    ignore_llm = True
    ignore_retry = True
    ignore_agent = True
    ignore_retriever = True
    ignore_chat_model = True
    ignore_custom_event = True

    def __init__(self) -> None:
        self.endings: dict[UUID, Ending] = {}

    @property
    def ignore_chain(self) -> bool:
        """True while no bridged run waits for its end: LangChain then skips this handler."""
        # no bridged run anywhere: LangChain skips this handler for every chain event
        return not self.endings

    async def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Call the ending of a graph run that ended, with its output."""
        ending = self.endings.pop(run_id, None)
        if ending is not None:
            await ending(None, outputs)

    async def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Call a failed graph run's ending with the exception, shielded from cancellation."""
        ending = self.endings.pop(run_id, None)
        if ending is not None:
            await asyncio.shield(ending(error, None))


NODE_PARENTS = NodeParents()
RUN_ENDS = RunEnds()
# context variables whose default is the handler: LangChain adds a configure hook's handler to
# a manager when its variable has a value, so every manager, in any thread or task, gets it
_NODE_PARENTS_HOOK: ContextVar[NodeParents | None] = ContextVar(
    "agenthooks_langchain_node_parents", default=NODE_PARENTS
)
_RUN_ENDS_HOOK: ContextVar[RunEnds | None] = ContextVar(
    "agenthooks_langchain_run_ends", default=RUN_ENDS
)
_installed = False


def install() -> None:
    """Register both handlers with LangChain, once per process (the first
    ``AgentHooksMiddleware`` does it)."""
    global _installed
    if not _installed:
        _installed = True
        register_configure_hook(_NODE_PARENTS_HOOK, inheritable=True)
        register_configure_hook(_RUN_ENDS_HOOK, inheritable=True)


__all__ = ["NODE_PARENTS", "RUN_ENDS", "NodeParents", "RunEnds", "install"]
