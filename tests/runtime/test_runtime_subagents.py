"""Sub-agents as tools: the tool offered, the events on the parent's bus, the sub-run's own
ids and branch, what the sub-agent sees and what comes back, and whose hooks reach it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    HookBus,
    ProviderRequest,
    ProviderResponse,
    ScriptedProvider,
    ToolCall,
    Usage,
    tool,
)
from agenthooks.events import CATALOG
from agenthooks.events.contexts import EventContext

Row = tuple[str, str, str, str | None]  # (event, branch, run label, parent run label)


class Recorder:
    """Every event of a bus (``on_event`` aside), with run ids shown as labels R0, R1, ... in
    order of first appearance, so sequences read and compare exactly."""

    def __init__(self, bus: HookBus, events: list[str] | None = None) -> None:
        self.contexts: list[tuple[str, EventContext]] = []
        self._labels: dict[str, str] = {}
        for name in events or [e for e in CATALOG if e != "on_event"]:
            bus.on(name, self._handler(name))

    def _handler(self, name: str) -> Any:
        def record(ctx: EventContext) -> None:
            self.contexts.append((name, ctx))

        return record

    def label(self, run_id: str | None) -> str | None:
        if run_id is None:
            return None
        return self._labels.setdefault(run_id, f"R{len(self._labels)}")

    def rows(self, branch: str | None = None) -> list[Row]:
        out = []
        for name, ctx in self.contexts:
            parent = self.label(ctx.parent_run_id)
            run = self.label(ctx.run_id)
            if branch is None or ctx.branch == branch:
                out.append((name, ctx.branch, run or "", parent))
        return out

    def names(self) -> list[str]:
        return [name for name, _ in self.contexts]


def calls(*items: tuple[str, str, dict[str, Any]]) -> ProviderResponse:
    """A response asking for the tool calls (id, name, arguments)."""
    return ProviderResponse(
        tool_calls=[ToolCall(id=i, name=n, arguments=a) for i, n, a in items],
        finish_reason="tool_calls",
    )


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def said(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)


def asked(*items: tuple[str, str, dict[str, Any]]) -> ChatMessage:
    return ChatMessage(
        role="assistant", tool_calls=[ToolCall(id=i, name=n, arguments=a) for i, n, a in items]
    )


def answered(call_id: str, name: str, content: str, *, is_error: bool = False) -> ChatMessage:
    return ChatMessage(
        role="tool", content=content, tool_call_id=call_id, name=name, is_error=is_error
    )


RUN_OF_ONE_ANSWER = [
    "on_chat_start",
    "on_user_message",
    "on_message",
    "pre_agent",
    "on_loop_start",
    "transform_context",
    "pre_request",
    "on_response",
    "on_loop_end",
    "post_agent",
    "on_message",
    "on_chat_done",
    "on_chat_end",
]


def team(
    researcher_script: list[Any],
    orchestrator_script: list[Any],
    *,
    researcher_bus: HookBus | None = None,
    researcher_tools: list[Any] | None = None,
) -> tuple[Agent, Agent, ScriptedProvider, ScriptedProvider]:
    sub_provider = ScriptedProvider(researcher_script, name="researcher-model")
    researcher = Agent(
        "researcher",
        "You research.",
        provider=sub_provider,
        tools=researcher_tools or [],
        bus=researcher_bus,
    )
    top_provider = ScriptedProvider(orchestrator_script, name="orchestrator-model")
    orchestrator = Agent(
        "orchestrator", "You orchestrate.", provider=top_provider, sub_agents=[researcher]
    )
    return orchestrator, researcher, top_provider, sub_provider


# ------------------------------------------------------------------------------ offered


async def test_sub_agent_is_offered_as_a_tool_named_after_it_with_one_task_argument() -> None:
    top = ScriptedProvider(["no tools needed"])
    orchestrator = Agent(
        "orchestrator",
        "You orchestrate.",
        provider=top,
        sub_agents=[
            Agent("researcher", "You research."),
            Agent("critic", "You criticise.", description="Finds flaws in a draft."),
            Agent("plain"),
        ],
    )

    await orchestrator.chat("hello")

    def schema(name: str, description: str) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {
                    "additionalProperties": False,
                    "properties": {"task": {"title": "Task", "type": "string"}},
                    "required": ["task"],
                    "type": "object",
                },
            },
        }

    assert top.requests[0].tools == [
        schema("researcher", "You research."),  # instructions when there is no description
        schema("critic", "Finds flaws in a draft."),  # the description wins
        schema("plain", "Delegate a task to plain."),
    ]


# ---------------------------------------------------------------------- events and ids


async def test_sub_agent_call_fires_subagent_events_and_a_full_run_with_its_own_ids() -> None:
    orchestrator, _, _, _ = team(
        ["Paris is the capital."],
        [calls(("c1", "researcher", {"task": "capital of France?"})), "It is Paris."],
    )
    rec = Recorder(orchestrator.bus)

    response = await orchestrator.chat("Where is the French government?")

    top = [
        (e, "orchestrator", "R0", None)
        for e in (
            "on_chat_start",
            "on_user_message",
            "on_message",
            "pre_agent",
            "on_loop_start",
            "transform_context",
            "pre_request",
            "on_response",
            "on_message",
            "pre_tool_call",
            "on_subagent_start",
        )
    ]
    sub = [(e, "orchestrator/researcher", "R1", "R0") for e in RUN_OF_ONE_ANSWER]
    rest = [
        (e, "orchestrator", "R0", None)
        for e in (
            "on_subagent_stop",
            "on_tool_call_result",
            "on_message",
            "on_loop_end",
            "prepare_next_turn",
            "should_stop",
            "on_loop_start",
            "transform_context",
            "pre_request",
            "on_response",
            "on_loop_end",
            "post_agent",
            "on_message",
            "on_chat_done",
            "on_chat_end",
        )
    ]
    assert rec.rows() == top + sub + rest
    assert response.content == "It is Paris."
    assert response.agent == "orchestrator"
    assert all(ctx.session_id is None for _, ctx in rec.contexts)

    start = next(c for n, c in rec.contexts if n == "on_subagent_start")
    stop = next(c for n, c in rec.contexts if n == "on_subagent_stop")
    assert (start.subagent, start.task, start.agent) == (  # type: ignore[attr-defined]
        "researcher",
        "capital of France?",
        "orchestrator",
    )
    assert (stop.subagent, stop.task, stop.result, stop.error) == (  # type: ignore[attr-defined]
        "researcher",
        "capital of France?",
        "Paris is the capital.",
        None,
    )
    assert stop.duration is not None and stop.duration >= 0  # type: ignore[attr-defined]
    sub_agents = {ctx.agent for _, ctx in rec.contexts if ctx.branch != "orchestrator"}
    assert sub_agents == {"researcher"}


async def test_subagent_events_match_on_the_sub_agent_name() -> None:
    critic = Agent("critic", provider=ScriptedProvider(["looks fine"]))
    orchestrator, _, _, _ = team(
        ["found it"],
        [calls(("c1", "researcher", {"task": "t1"}), ("c2", "critic", {"task": "t2"})), "ok"],
    )
    orchestrator = Agent(
        "orchestrator",
        provider=orchestrator.provider,
        sub_agents=[orchestrator.sub_agents[0], critic],
    )
    seen: list[tuple[str, str]] = []
    orchestrator.on(
        "on_subagent_start", lambda c: seen.append(("start", c.subagent)), match="researcher"
    )
    orchestrator.on("OnSubagentStop", lambda c: seen.append(("stop", c.subagent)), match=["critic"])

    await orchestrator.chat("go")

    assert seen == [("start", "researcher"), ("stop", "critic")]


# ----------------------------------------------------------------- what each side sees


async def test_sub_agent_starts_from_the_task_alone_and_only_its_result_enters_history() -> None:
    orchestrator, researcher, top, sub = team(
        ["first finding", "second finding"],
        [
            "Let me think.",
            calls(("c1", "researcher", {"task": "look up A"})),
            calls(("c2", "researcher", {"task": "look up B"})),
            "A and B found.",
        ],
    )

    await orchestrator.chat("warm up")
    response = await orchestrator.chat("Find A then B.")

    assert [(r.system, r.messages) for r in sub.requests] == [
        ("You research.", [user("look up A")]),
        ("You research.", [user("look up B")]),  # nothing of the first delegation
    ]
    assert sub.requests[0].tools == []
    assert researcher.history == []  # a delegated call never touches its own conversation
    assert orchestrator.history == [
        user("warm up"),
        said("Let me think."),
        user("Find A then B."),
        asked(("c1", "researcher", {"task": "look up A"})),
        answered("c1", "researcher", "first finding"),
        asked(("c2", "researcher", {"task": "look up B"})),
        answered("c2", "researcher", "second finding"),
        said("A and B found."),
    ]
    assert top.requests[-1].messages == orchestrator.history[:-1]
    assert response.messages == orchestrator.history[2:]


# ------------------------------------------------------------------- whose hooks run


@tool
def search(query: str) -> str:
    """Search the web."""
    return f"results for {query}"


async def test_sub_agent_without_a_bus_of_its_own_runs_on_the_parents_bus() -> None:
    orchestrator, researcher, _, sub = team(
        [calls(("s1", "search", {"query": "eiffel"})), "It is 330 m tall."],
        [calls(("c1", "researcher", {"task": "height of the Eiffel tower"})), "330 m."],
        researcher_tools=[search],
    )
    seen: list[tuple[str, str, str, dict[str, Any]]] = []
    orchestrator.on(
        "pre_tool_call", lambda c: seen.append((c.call.name, c.branch, c.agent, c.call.arguments))
    )

    await orchestrator.chat("How tall is the Eiffel tower?")

    assert not researcher.has_own_bus
    assert seen == [
        ("researcher", "orchestrator", "orchestrator", {"task": "height of the Eiffel tower"}),
        ("search", "orchestrator/researcher", "researcher", {"query": "eiffel"}),
    ]
    assert sub.requests[1].messages[-1] == answered("s1", "search", "results for eiffel")


async def test_sub_agent_with_its_own_bus_gets_the_parents_guards_but_not_its_handlers() -> None:
    own = HookBus()
    orchestrator, _, _, sub = team(
        [calls(("s1", "search", {"query": "secrets"})), "Search was blocked."],
        [calls(("c1", "researcher", {"task": "find secrets"})), "Nothing found."],
        researcher_bus=own,
        researcher_tools=[search],
    )
    parent_seen: list[str] = []
    own_seen: list[str] = []
    guard_seen: list[tuple[str, str]] = []
    orchestrator.on("pre_tool_call", lambda c: parent_seen.append(c.call.name))

    def policy(ctx: Any) -> Deny | None:
        guard_seen.append((ctx.call.name, ctx.branch))
        return Deny("search is not allowed here") if ctx.call.name == "search" else None

    orchestrator.on("pre_tool_call", policy, guard=True)
    own.on("pre_tool_call", lambda c: own_seen.append(c.call.name))
    parent_sub_events: list[str] = []
    orchestrator.on("on_chat_start", lambda c: parent_sub_events.append(c.branch))

    response = await orchestrator.chat("Find secrets.")

    assert parent_seen == ["researcher"]  # the sub-agent's call never reached it
    assert own_seen == ["search"]
    assert guard_seen == [("researcher", "orchestrator"), ("search", "orchestrator/researcher")]
    assert parent_sub_events == ["orchestrator"]  # the sub-run fired on the researcher's bus
    assert sub.requests[1].messages[-1] == answered(
        "s1", "search", "search is not allowed here", is_error=True
    )
    assert response.content == "Nothing found."


async def test_deny_inside_the_sub_agent_ends_only_the_sub_run() -> None:
    orchestrator, _, top, sub = team(
        ["never asked"],
        [calls(("c1", "researcher", {"task": "forbidden topic"})), "Understood, I cannot."],
    )
    rec = Recorder(
        orchestrator.bus,
        [
            "pre_request",
            "on_chat_done",
            "on_chat_end",
            "on_subagent_stop",
            "on_tool_call_result",
            "on_tool_call_error",
            "post_agent",
        ],
    )
    orchestrator.on(
        "pre_request", lambda c: Deny("researcher is offline") if c.agent == "researcher" else None
    )

    response = await orchestrator.chat("Research the forbidden topic.")

    assert sub.requests == []
    assert rec.rows() == [
        ("pre_request", "orchestrator", "R0", None),
        ("pre_request", "orchestrator/researcher", "R1", "R0"),
        ("on_chat_done", "orchestrator/researcher", "R1", "R0"),
        ("on_chat_end", "orchestrator/researcher", "R1", "R0"),
        ("on_subagent_stop", "orchestrator", "R0", None),
        ("on_tool_call_result", "orchestrator", "R0", None),
        ("pre_request", "orchestrator", "R0", None),
        ("post_agent", "orchestrator", "R0", None),
        ("on_chat_done", "orchestrator", "R0", None),
        ("on_chat_end", "orchestrator", "R0", None),
    ]
    sub_done = rec.contexts[2][1]
    assert sub_done.response.finish_reason == "denied"  # type: ignore[attr-defined]
    assert sub_done.response.content == "researcher is offline"  # type: ignore[attr-defined]
    assert top.requests[1].messages[-1] == answered("c1", "researcher", "researcher is offline")
    assert (response.content, response.finish_reason) == ("Understood, I cannot.", "stop")


async def test_sub_agent_that_raises_gives_the_parent_an_error_tool_message() -> None:
    orchestrator, _, top, _ = team(
        [RuntimeError("research model down")],
        [calls(("c1", "researcher", {"task": "anything"})), "I could not research it."],
    )
    rec = Recorder(
        orchestrator.bus,
        [
            "on_chat_error",
            "on_chat_end",
            "on_subagent_stop",
            "on_tool_call_error",
            "on_tool_call_result",
        ],
    )

    response = await orchestrator.chat("Research anything.")

    assert rec.rows() == [
        ("on_chat_error", "orchestrator/researcher", "R1", "R0"),
        ("on_chat_end", "orchestrator/researcher", "R1", "R0"),
        ("on_subagent_stop", "orchestrator", "R0", None),
        ("on_tool_call_error", "orchestrator", "R0", None),
        ("on_chat_end", "orchestrator", "R0", None),
    ]
    stop, error = rec.contexts[2][1], rec.contexts[3][1]
    assert stop.result is None  # type: ignore[attr-defined]
    assert isinstance(stop.error, RuntimeError)  # type: ignore[attr-defined]
    assert str(stop.error) == "research model down"  # type: ignore[attr-defined]
    assert error.source == "handler"  # type: ignore[attr-defined]
    assert error.error is stop.error  # type: ignore[attr-defined]
    assert top.requests[1].messages[-1] == answered(
        "c1", "researcher", "RuntimeError: research model down", is_error=True
    )
    assert response.content == "I could not research it."


# ------------------------------------------------------------------------- parallel


async def test_sub_agents_in_a_parallel_batch_are_separate_runs_with_their_own_branch() -> None:
    both_asked = asyncio.Event()
    asked_names: list[str] = []

    def meeting(name: str, answer: str) -> Any:
        async def reply(request: ProviderRequest) -> str:
            asked_names.append(name)
            if len(asked_names) == 2:
                both_asked.set()
            # each waits for the other: only concurrent sub-runs get past this
            await asyncio.wait_for(both_asked.wait(), 5)
            return answer

        return reply

    researcher = Agent("researcher", provider=ScriptedProvider([meeting("r", "facts")]))
    writer = Agent("writer", provider=ScriptedProvider([meeting("w", "prose")]))
    top = ScriptedProvider(
        [
            calls(("c1", "researcher", {"task": "gather"}), ("c2", "writer", {"task": "draft"})),
            "combined",
        ]
    )
    orchestrator = Agent(
        "orchestrator", provider=top, sub_agents=[researcher, writer], parallel_tool_calls=True
    )
    rec = Recorder(orchestrator.bus)

    response = await orchestrator.chat("Write a report.")

    assert response.content == "combined"
    assert rec.rows("orchestrator/researcher") == [
        (e, "orchestrator/researcher", "R1", "R0") for e in RUN_OF_ONE_ANSWER
    ]
    assert rec.rows("orchestrator/writer") == [
        (e, "orchestrator/writer", "R2", "R0") for e in RUN_OF_ONE_ANSWER
    ]
    researcher_agents = {c.agent for _, c in rec.contexts if c.branch == "orchestrator/researcher"}
    assert researcher_agents == {"researcher"}
    top_rows = [r[0] for r in rec.rows("orchestrator")]
    first_stop = top_rows.index("on_subagent_stop")
    assert top_rows[top_rows.index("on_message", 3) + 1 : first_stop + 2] == [
        "pre_tool_call",
        "pre_tool_call",
        "on_subagent_start",
        "on_subagent_start",
        "on_subagent_stop",
        "on_subagent_stop",
    ]
    assert top.requests[1].messages[-2:] == [
        answered("c1", "researcher", "facts"),
        answered("c2", "writer", "prose"),
    ]


@pytest.mark.parametrize("own_bus", [False, True])
async def test_sub_agents_post_agent_decides_the_result_the_parent_gets(own_bus: bool) -> None:
    bus = HookBus() if own_bus else None
    orchestrator, researcher, top, _ = team(
        ["raw finding"], [calls(("c1", "researcher", {"task": "t"})), "done"], researcher_bus=bus
    )

    def polish(ctx: Any) -> dict[str, Any] | None:
        if ctx.agent != "researcher":
            return None
        return {"response": ctx.response.model_copy(update={"content": "polished finding"})}

    (researcher if own_bus else orchestrator).on("post_agent", polish)

    await orchestrator.chat("go")

    assert researcher.has_own_bus is own_bus
    assert top.requests[1].messages[-1] == answered("c1", "researcher", "polished finding")


async def test_a_sub_agent_sharing_its_parents_bus_runs_each_guard_once() -> None:
    shared = HookBus()  # one bus for the whole team, given to both agents
    researcher = Agent("researcher", provider=ScriptedProvider(["found"]), bus=shared)
    orchestrator = Agent(
        "orchestrator",
        bus=shared,
        sub_agents=[researcher],
        provider=ScriptedProvider([calls(("c1", "researcher", {"task": "t"})), "done"]),
    )
    seen: list[tuple[str, str]] = []
    shared.on("pre_request", lambda c: seen.append(("hook", c.branch)))
    shared.on("pre_request", lambda c: seen.append(("guard", c.branch)), guard=True)

    await orchestrator.chat("go")

    assert seen == [
        ("hook", "orchestrator"),
        ("guard", "orchestrator"),
        ("hook", "orchestrator/researcher"),
        ("guard", "orchestrator/researcher"),
        ("hook", "orchestrator"),
        ("guard", "orchestrator"),
    ]


async def test_nested_sub_agents_extend_the_branch_and_keep_every_ancestors_guards() -> None:
    top_bus, middle_bus = HookBus(), HookBus()
    helper = Agent("helper", provider=ScriptedProvider(["helped"]))  # runs on its parent's bus
    researcher = Agent(
        "researcher",
        provider=ScriptedProvider([calls(("h1", "helper", {"task": "assist"})), "researched"]),
        sub_agents=[helper],
        bus=middle_bus,
    )
    orchestrator = Agent(
        "orchestrator",
        provider=ScriptedProvider(
            [calls(("r1", "researcher", {"task": "research"})), "orchestrated"]
        ),
        sub_agents=[researcher],
        bus=top_bus,
    )
    seen: list[tuple[str, str]] = []
    top_bus.on("on_chat_start", lambda c: seen.append(("top guard", c.branch)), guard=True)
    top_bus.on("on_chat_start", lambda c: seen.append(("top hook", c.branch)))
    middle_bus.on("on_chat_start", lambda c: seen.append(("middle hook", c.branch)))
    rec = Recorder(middle_bus, ["on_chat_done"])

    response = await orchestrator.chat("go")

    assert seen == [
        ("top hook", "orchestrator"),
        ("top guard", "orchestrator"),
        ("middle hook", "orchestrator/researcher"),
        ("top guard", "orchestrator/researcher"),
        ("middle hook", "orchestrator/researcher/helper"),
        ("top guard", "orchestrator/researcher/helper"),
    ]
    assert rec.rows() == [  # R0: the researcher's run, parent of the helper's
        ("on_chat_done", "orchestrator/researcher/helper", "R1", "R0"),
        ("on_chat_done", "orchestrator/researcher", "R0", "R2"),
    ]
    assert response.content == "orchestrated"


async def test_a_tool_calls_after_events_carry_the_usage_its_sub_agent_spent() -> None:
    """The context after a call carries the run's common fields as they are then: the
    sub-agent's tokens are in the parent's ``usage`` by ``on_tool_call_result``."""
    asks = ProviderResponse(
        tool_calls=[ToolCall(id="c1", name="researcher", arguments={"task": "look"})],
        usage=Usage(input_tokens=10, output_tokens=1),
    )
    found = ProviderResponse(content="found it", usage=Usage(input_tokens=100, output_tokens=5))
    orchestrator, _, _, _ = team([found], [asks, "done"])
    seen: list[tuple[str, int, int]] = []
    for event in ("pre_tool_call", "on_tool_call_result"):
        orchestrator.on(
            event,
            lambda ctx, event=event: seen.append(
                (event, ctx.usage.input_tokens, ctx.usage.output_tokens)
            ),
            match="researcher",
        )
    await orchestrator.chat("go")
    assert seen == [("pre_tool_call", 10, 1), ("on_tool_call_result", 110, 6)]
