"""Observe everything through one callback: a uniform record per event.

Seed 003: ``OnEvent`` logging ``[type] agent=... tool=...`` for every event, and
``NewObservingHooks`` wiring every hook to one callback for logging, metrics or a UI. Both are
``on_event`` here: it fires once per emission of every other event, after its chain ran.

Output:
    [on_chat_start] agent=assistant branch=assistant tool=- input='Weather in Rome?'
    [on_user_message] agent=assistant branch=assistant tool=- input='Weather in Rome?'
    [on_message] agent=assistant branch=assistant tool=-
    [pre_agent] agent=assistant branch=assistant tool=- input='Weather in Rome?'
    [on_loop_start] agent=assistant branch=assistant tool=-
    [transform_context] agent=assistant branch=assistant tool=-
    [pre_request] agent=assistant branch=assistant tool=-
    [on_response] agent=assistant branch=assistant tool=-
    [on_message] agent=assistant branch=assistant tool=-
    [pre_tool_call] agent=assistant branch=assistant tool=weather input={'city': 'Rome'}
    [on_tool_call_result] agent=assistant branch=assistant tool=weather input={'city': 'Rome'} output='sunny'
    [on_message] agent=assistant branch=assistant tool=-
    [on_loop_end] agent=assistant branch=assistant tool=-
    [prepare_next_turn] agent=assistant branch=assistant tool=-
    [should_stop] agent=assistant branch=assistant tool=-
    [on_loop_start] agent=assistant branch=assistant tool=-
    [transform_context] agent=assistant branch=assistant tool=-
    [pre_request] agent=assistant branch=assistant tool=-
    [on_response] agent=assistant branch=assistant tool=-
    [on_loop_end] agent=assistant branch=assistant tool=-
    [post_agent] agent=assistant branch=assistant tool=- input='Weather in Rome?'
    [on_message] agent=assistant branch=assistant tool=-
    [on_chat_done] agent=assistant branch=assistant tool=-
    [on_chat_end] agent=assistant branch=assistant tool=-
    24 events, 0 errors
"""

import asyncio

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import EventRecord

counts = {"events": 0, "errors": 0}


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return "sunny"


def on_event(evt: EventRecord) -> None:
    counts["events"] += 1
    counts["errors"] += evt.is_error
    line = f"[{evt.type}] agent={evt.agent} branch={evt.branch} tool={evt.tool_name or '-'}"
    if isinstance(evt.input, (str, dict)):
        line += f" input={evt.input!r}"
    if isinstance(evt.output, str):
        line += f" output={evt.output!r}"
    print(line)


async def main() -> None:
    model = ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[ToolCall(id="c1", name="weather", arguments={"city": "Rome"})]
            ),
            "It is sunny in Rome.",
        ]
    )
    agent = Agent("assistant", provider=model, tools=[weather])
    agent.on("OnEvent", on_event)
    await agent.chat("Weather in Rome?")
    print(f"{counts['events']} events, {counts['errors']} errors")


if __name__ == "__main__":
    asyncio.run(main())
