"""Stream hook events to a browser UI over Server-Sent Events (Starlette).

Seed 003: "Streaming to a UI": forward every hook event to a frontend (``json.Marshal(evt)``
then ``websocket.Send``); with the agent hierarchy visible through ``branch``. Here an
``on_event`` handler feeds a queue per request and a Starlette endpoint streams it as SSE.

``python examples/stream_events_to_ui.py --serve`` serves a live page on
http://127.0.0.1:8000/; without ``--serve`` it starts the server on a free port, plays the
browser's part with an HTTP client, and prints what the UI would receive.

Needs the ``examples`` extra: ``pip install 'agenthooks[examples]'`` (starlette, uvicorn).

Output:
    HTTP 200 text/event-stream; charset=utf-8
    on_chat_start       concierge          input="Book a table for two"
    pre_agent           concierge
    pre_tool_call       concierge          tool=booker input={"task": "table for two at 8pm"}
    on_subagent_start   concierge
    on_chat_start       concierge/booker   input="table for two at 8pm"
    pre_agent           concierge/booker
    pre_tool_call       concierge/booker   tool=reserve input={"time": "20:00", "seats": 2}
    on_tool_call_result concierge/booker   tool=reserve output="confirmed #17"
    post_agent          concierge/booker
    on_chat_done        concierge/booker
    on_subagent_stop    concierge
    on_tool_call_result concierge          tool=booker output="Booked: confirmed #17."
    post_agent          concierge
    on_chat_done        concierge
    end                 concierge          answer="Your table for two is booked for 8pm."
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, StreamingResponse
from starlette.routing import Route

from agenthooks import Agent, ProviderResponse, ScriptedProvider, ToolCall, tool
from agenthooks.events import EventRecord
from agenthooks.record import to_jsonable

SHOWN = {
    "on_chat_start",
    "pre_agent",
    "pre_tool_call",
    "on_tool_call_result",
    "on_tool_call_error",
    "on_subagent_start",
    "on_subagent_stop",
    "post_agent",
    "on_chat_done",
    "on_chat_error",
}


@tool
def reserve(time: str, seats: int) -> str:
    """Reserve a table."""
    return "confirmed #17"


def build_agent() -> Agent:
    booker = Agent(
        "booker",
        tools=[reserve],
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="r1", name="reserve", arguments={"time": "20:00", "seats": 2})
                    ]
                ),
                "Booked: confirmed #17.",
            ]
        ),
    )
    return Agent(
        "concierge",
        sub_agents=[booker],
        provider=ScriptedProvider(
            [
                ProviderResponse(
                    tool_calls=[
                        ToolCall(id="b1", name="booker", arguments={"task": "table for two at 8pm"})
                    ]
                ),
                "Your table for two is booked for 8pm.",
            ]
        ),
    )


def sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


async def chat_events(request: Request) -> StreamingResponse:
    """``GET /chat?message=...``: run the agent, stream its events as they fire."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    agent = build_agent()

    def forward(evt: EventRecord) -> None:
        if evt.type in SHOWN:
            queue.put_nowait(
                sse(
                    evt.type,
                    {
                        "type": evt.type,
                        "agent": evt.agent,
                        "branch": evt.branch,
                        "tool": evt.tool_name,
                        "input": to_jsonable(evt.input),
                        "output": to_jsonable(evt.output) if evt.tool_name else None,
                        "error": evt.error,
                    },
                )
            )

    agent.on("on_event", forward)

    async def run() -> None:
        try:
            response = await agent.chat(request.query_params.get("message", "hello"))
            queue.put_nowait(sse("end", {"branch": agent.name, "answer": response.content}))
        except Exception as exc:
            queue.put_nowait(sse("end", {"branch": agent.name, "error": str(exc)}))
        finally:
            queue.put_nowait(None)

    async def stream() -> AsyncIterator[str]:
        task = asyncio.ensure_future(run())
        try:
            while (item := await queue.get()) is not None:
                yield item
        finally:
            task.cancel()  # the browser went away: abort the run (on_chat_abort fires)
            await asyncio.gather(task, return_exceptions=True)

    return StreamingResponse(stream(), media_type="text/event-stream")


PAGE = """<!doctype html><meta charset="utf-8"><title>agent events</title>
<input id="m" value="Book a table for two"><button id="go">Send</button><pre id="log"></pre>
<script>
document.getElementById("go").onclick = function () {
  var log = document.getElementById("log");
  var source = new EventSource("/chat?message=" + encodeURIComponent(
    document.getElementById("m").value));
  ["%s", "end"].forEach(function (type) {
    source.addEventListener(type, function (e) {
      log.textContent += type + " " + e.data + "\\n";
      if (type === "end") source.close();
    });
  });
};
</script>""".replace("%s", '", "'.join(sorted(SHOWN)))


async def page(request: Request) -> HTMLResponse:
    return HTMLResponse(PAGE)


app = Starlette(routes=[Route("/", page), Route("/chat", chat_events)])


def describe(event: str, data: dict[str, Any]) -> str:
    """One line per event, as a UI might list it."""
    extras = []
    if data.get("tool"):
        extras.append(f"tool={data['tool']}")
    if event == "on_chat_start" or (event == "pre_tool_call" and data.get("input")):
        extras.append(f"input={json.dumps(data['input'])}")
    if event.startswith("on_tool_call") and data.get("output") is not None:
        extras.append(f"output={json.dumps(data['output'])}")
    if "answer" in data:
        extras.append(f"answer={json.dumps(data['answer'])}")
    return f"{event:<19} {data['branch']:<18} {' '.join(extras)}".rstrip()


async def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.ensure_future(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client,
            client.stream("GET", "/chat", params={"message": "Book a table for two"}) as response,
        ):
            print("HTTP", response.status_code, response.headers["content-type"])
            event = ""
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    event = line[len("event: ") :]
                elif line.startswith("data: "):
                    print(describe(event, json.loads(line[len("data: ") :])))
    finally:
        server.should_exit = True
        await serving


if __name__ == "__main__":
    if "--serve" in sys.argv:
        uvicorn.run(app, host="127.0.0.1", port=8000)
    else:
        asyncio.run(main())
