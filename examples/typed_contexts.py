"""Typed hook contexts: each seed's hook signature or context struct is one pydantic context
here, so an editor completes ``ctx.call.arguments`` and mypy checks it.

Seed 003: the context structs ``ToolUseContext``, ``PostToolUseContext``, ``ToolErrorContext``,
``ModelCallContext``, ``ModelResponseContext``, ``ModelErrorContext``,
``SubagentEventContext``, ``LifecycleContext``, ``RunContext``, ``UserMessageContext``.
Seed 000: the ``Ctx`` and ``Return`` types of every hook (``OnChatStartCtx``,
``PreRequestReturn``, ...). Seed 004: the decision types and the ``AgentHooks`` interface
(types.ts). The plugin below takes one typed context per hook; the table maps every 000 and
004 hook to its event, its context class and what it may return.

Output:
    003 struct           context                 fields
    UserMessageContext   UserMessageContext      message='Find notes on hooks'
    LifecycleContext     PreAgentContext         input='Find notes on hooks'
    ModelCallContext     PreRequestContext       messages=1 tools=['notes', 'broken', 'summarizer']
    ModelResponseContext ResponseContext         tool_calls=['notes', 'broken', 'summarizer']
    ToolUseContext       PreToolCallContext      tool=notes id=c1 input={'topic': 'hooks'} branch=writer
    PostToolUseContext   ToolCallResultContext   output='3 notes on hooks'
    ToolUseContext       PreToolCallContext      tool=broken id=c2 input={} branch=writer
    ToolErrorContext     ToolCallErrorContext    tool=broken error=RuntimeError('disk unavailable') source=handler
    ToolUseContext       PreToolCallContext      tool=summarizer id=c3 input={'task': 'summarize the notes'} branch=writer
    SubagentEventContext SubagentStartContext    subagent=summarizer task='summarize the notes'
    SubagentEventContext SubagentStopContext     subagent=summarizer result='Summary.'
    PostToolUseContext   ToolCallResultContext   output='Summary.'
    ModelCallContext     PreRequestContext       messages=5 tools=['notes', 'broken', 'summarizer']
    ModelErrorContext    ModelErrorContext       error=TimeoutError('model timed out')
    LifecycleContext     PostAgentContext        response='Recovered.'
    RunContext           ChatEndContext          error=None response='Recovered.'
    seed hook             event                context                 may return
    000 onChatStart       on_chat_start        ChatStartContext        Deny(reason)
    000 onChatDone        on_chat_done         ChatDoneContext         -
    000 onChatAbort       on_chat_abort        ChatAbortContext        -
    000 onChatError       on_chat_error        ChatErrorContext        -
    000 preRequest        pre_request          PreRequestContext       {"request"}, {"response"}, Deny(reason)
    000 onResponse        on_response          ResponseContext         {"response"}, Deny(reason)
    000 onMessage         on_message           MessageContext          -
    000 preToolCall       pre_tool_call        PreToolCallContext      {"call"}, {"error"}, {"result"}, Deny(reason), Ask(reason)
    000 onToolCallResult  on_tool_call_result  ToolCallResultContext   {"result"}, {"terminate"}, Deny(reason)
    000 onToolCallError   on_tool_call_error   ToolCallErrorContext    {"error"}, {"result"}, {"terminate"}
    000 onScopeRegister   on_scope_register    ScopeRegisterContext    -
    000 onScopeUnregister on_scope_unregister  ScopeUnregisterContext  -
    004 beforeRun         on_chat_start        ChatStartContext        Deny(reason)
    004 afterRun          on_chat_done         ChatDoneContext         -
    004 beforeToolCall    pre_tool_call        PreToolCallContext      {"call"}, {"error"}, {"result"}, Deny(reason), Ask(reason)
    004 afterToolCall     on_tool_call_result  ToolCallResultContext   {"result"}, {"terminate"}, Deny(reason)
    004 beforeHandoff     pre_handoff          PreHandoffContext       Deny(reason), Ask(reason)
    004 onStop            on_stop              StopContext             -
    004 onSubagentStart   on_subagent_start    SubagentStartContext    -
    004 onSubagentStop    on_subagent_stop     SubagentStopContext     -
    004 onSessionStart    on_session_start     SessionStartContext     Deny(reason)
    004 onSessionEnd      on_session_end       SessionEndContext       -
    004 onLlmStart        pre_request          PreRequestContext       {"request"}, {"response"}, Deny(reason)
    004 onLlmEnd          on_response          ResponseContext         {"response"}, Deny(reason)
"""

import asyncio

from agenthooks import Agent, HookBus, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import (
    ChatEndContext,
    ModelErrorContext,
    PostAgentContext,
    PreAgentContext,
    PreRequestContext,
    PreToolCallContext,
    ResponseContext,
    SubagentContext,
    ToolErrorContext,
    ToolResultContext,
    UserMessageContext,
    resolve,
)
from agenthooks.events.contexts import EventContext


@tool
def notes(topic: str) -> str:
    """Find notes on a topic."""
    return f"3 notes on {topic}"


@tool
def broken() -> str:
    """Always fails."""
    raise RuntimeError("disk unavailable")


def show(struct: str, ctx: EventContext, fields: str) -> None:
    print(f"{struct:<20} {type(ctx).__name__:<23} {fields}")


class Typed:
    """A plugin: one method per event, each with its typed context."""

    def on_user_message(self, ctx: UserMessageContext) -> None:
        show("UserMessageContext", ctx, f"message={ctx.message!r}")

    def pre_agent(self, ctx: PreAgentContext) -> None:
        show("LifecycleContext", ctx, f"input={ctx.input!r}")

    def pre_request(self, ctx: PreRequestContext) -> None:
        tools = [t["function"]["name"] for t in ctx.request.tools]
        show("ModelCallContext", ctx, f"messages={len(ctx.request.messages)} tools={tools}")

    def on_response(self, ctx: ResponseContext) -> None:
        if ctx.response.tool_calls:
            calls = [c.name for c in ctx.response.tool_calls]
            show("ModelResponseContext", ctx, f"tool_calls={calls}")

    def on_model_error(self, ctx: ModelErrorContext) -> dict[str, object]:
        show("ModelErrorContext", ctx, f"error={ctx.error!r}")
        return {"response": ProviderResponse(content="Recovered.")}

    def pre_tool_call(self, ctx: PreToolCallContext) -> None:
        show(
            "ToolUseContext",
            ctx,
            f"tool={ctx.call.name} id={ctx.tool_call_id} "
            f"input={ctx.call.arguments} branch={ctx.branch}",
        )

    def on_tool_call_result(self, ctx: ToolResultContext) -> None:
        show("PostToolUseContext", ctx, f"output={ctx.result!r}")

    def on_tool_call_error(self, ctx: ToolErrorContext) -> None:
        show(
            "ToolErrorContext", ctx, f"tool={ctx.call.name} error={ctx.error!r} source={ctx.source}"
        )

    def on_subagent_start(self, ctx: SubagentContext) -> None:
        show("SubagentEventContext", ctx, f"subagent={ctx.subagent} task={ctx.task!r}")

    def on_subagent_stop(self, ctx: SubagentContext) -> None:
        show("SubagentEventContext", ctx, f"subagent={ctx.subagent} result={ctx.result!r}")

    def post_agent(self, ctx: PostAgentContext) -> None:
        show("LifecycleContext", ctx, f"response={ctx.response.content!r}")

    def on_chat_end(self, ctx: ChatEndContext) -> None:
        content = ctx.response.content if ctx.response else None
        show("RunContext", ctx, f"error={ctx.error} response={content!r}")


SEED_HOOKS = {
    "000": [
        "onChatStart",
        "onChatDone",
        "onChatAbort",
        "onChatError",
        "preRequest",
        "onResponse",
        "onMessage",
        "preToolCall",
        "onToolCallResult",
        "onToolCallError",
        "onScopeRegister",
        "onScopeUnregister",
    ],
    "004": [
        "beforeRun",
        "afterRun",
        "beforeToolCall",
        "afterToolCall",
        "beforeHandoff",
        "onStop",
        "onSubagentStart",
        "onSubagentStop",
        "onSessionStart",
        "onSessionEnd",
        "onLlmStart",
        "onLlmEnd",
    ],
}


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="c1", name="notes", arguments={"topic": "hooks"}),
                    ToolCall(id="c2", name="broken"),
                    ToolCall(id="c3", name="summarizer", arguments={"task": "summarize the notes"}),
                ]
            ),
            TimeoutError("model timed out"),
        ]
    )
    # a bus of its own: the plugin below does not reach the sub-agent's own events
    summarizer = Agent("summarizer", bus=HookBus(), provider=ScriptedProvider(["Summary."]))
    agent = Agent("writer", provider=model, tools=[notes, broken], sub_agents=[summarizer])
    agent.use(Typed())
    print(f"{'003 struct':<20} {'context':<23} fields")
    await agent.chat("Find notes on hooks")

    print(f"{'seed hook':<21} {'event':<20} {'context':<23} may return")
    for seed, names in SEED_HOOKS.items():
        for name in names:
            spec = resolve(name)
            print(
                f"{seed} {name:<17} {spec.name:<20} {spec.context.__name__:<23} {spec.may_return}"
            )


if __name__ == "__main__":
    asyncio.run(main())
