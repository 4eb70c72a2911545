"""Our own wire, ``POST /v1/events``: a local bus's interceptor events, decided by the
server's bus (``RemoteHooks`` sends them).

A request is one event of a run in another process::

    {"event": "pre_tool_call", "run_id": "...", "agent": "...", "session_id": null,
     "call": {"id": "...", "name": "...", "arguments": {...}}}

``message`` (``on_chat_start``, ``on_user_message``), ``call`` (the tool events), ``result``
(``on_tool_call_result``) and ``error`` (``on_tool_call_error``, a text) carry the event's
values. The answer is ``{"decision": null | "deny" | "ask", "reason": ...}``, with
``arguments`` (a rewritten call), ``message`` (a rewritten user message) or ``result`` (a
rewritten tool result) when a handler changed one. The remote run's ``run_id`` is the
session: its ``on_chat_end`` closes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..decisions import Deny
from ..errors import StopRun
from ..messages import ToolCall
from .claude_code import JSON, ClientEvent
from .errors import MISSING, BadRequest, field_error
from .runs import ServedRun
from .sessions import Sessions

CLIENT = "events"

EVENTS: Mapping[str, ClientEvent] = {
    "on_chat_start": ClientEvent("on_chat_start", "`deny`"),
    "on_user_message": ClientEvent("on_user_message", "`deny`, or `message` rewritten"),
    "pre_tool_call": ClientEvent("pre_tool_call", "`deny`, `ask`, or `arguments` rewritten"),
    "on_tool_call_result": ClientEvent("on_tool_call_result", "`deny`, or `result` rewritten"),
    "on_tool_call_error": ClientEvent("on_tool_call_error", "`deny` (the error stands)"),
    "on_chat_end": ClientEvent("on_chat_done", "nothing: the session's run ends"),
}
"""The events a remote bus sends; any other is recorded and gets no decision."""


def _text(body: JSON, key: str, default: str | None = None) -> str:
    value = body.get(key, MISSING if default is None else default)
    if not isinstance(value, str):
        raise field_error(CLIENT, key, "a string", value)
    return value


def _call(body: JSON) -> ToolCall:
    call = body.get("call", MISSING)
    if not isinstance(call, dict):
        raise field_error(CLIENT, "call", "an object with id, name and arguments", call)
    arguments = call.get("arguments", {})
    if not isinstance(arguments, dict):
        raise field_error(CLIENT, "call.arguments", "an object", arguments)
    return ToolCall(id=_text(call, "id"), name=_text(call, "name"), arguments=arguments)


def _verdict(decision: str | None = None, reason: str | None = None, **changed: Any) -> JSON:
    return {"decision": decision, "reason": reason, **changed}


async def _start(served: ServedRun, body: JSON) -> JSON:
    deny = await served.start(_text(body, "message", ""))
    return _verdict() if deny is None else _verdict("deny", deny.text())


async def _user(served: ServedRun, body: JSON) -> JSON:
    message = _text(body, "message")
    deny = await served.start(message)
    if deny is not None:
        return _verdict("deny", deny.text())
    got = await served.user_message(message)
    if isinstance(got, Deny):
        return _verdict("deny", got.text())
    return _verdict() if got is None else _verdict(message=got)


async def _pre_tool(served: ServedRun, body: JSON) -> JSON:
    call = _call(body)
    await served.start()
    verdict = await served.pre_tool(call)
    if verdict.stop is not None:
        await served.stop(verdict.stop)
        return _verdict("deny", verdict.stop, stop=True)
    if verdict.decision is not None:
        return _verdict(verdict.decision, verdict.reason)
    if verdict.arguments is not None:
        return _verdict(arguments=verdict.arguments)
    return _verdict()


async def _after(served: ServedRun, body: JSON) -> JSON:
    call = _call(body)
    await served.start()
    if body["event"] == "on_tool_call_error":
        verdict = await served.tool_done(call, error=_text(body, "error"))
    else:
        verdict = await served.tool_done(call, result=body.get("result"))
    if verdict.stop is not None:
        await served.stop(verdict.stop)
        return _verdict("deny", verdict.stop, stop=True)
    if verdict.block is not None:
        return _verdict("deny", verdict.block)
    if verdict.changed and body["event"] == "on_tool_call_result":
        return _verdict(result=verdict.result)
    return _verdict()


async def _end(served: ServedRun, body: JSON) -> JSON:
    await served.end()
    return _verdict()


async def _record(served: ServedRun, body: JSON) -> JSON:
    await served.start()
    await served.record(str(body["event"]), body)
    return _verdict()


HANDLERS: dict[str, Callable[[ServedRun, JSON], Awaitable[JSON]]] = {
    "on_chat_start": _start,
    "on_user_message": _user,
    "pre_tool_call": _pre_tool,
    "on_tool_call_result": _after,
    "on_tool_call_error": _after,
    "on_chat_end": _end,
}


async def answer(sessions: Sessions, caller: str, body: Any) -> JSON:
    """The verdict of the server's bus on one event of a remote run.

    Raises:
        BadRequest: The body is not an event of our wire (names the field).
    """
    if not isinstance(body, dict):
        raise BadRequest(f"{CLIENT} request must be a JSON object, not {type(body).__name__}")
    event = _text(body, "event")
    run_id = _text(body, "run_id")
    if not run_id:
        raise BadRequest(f"{CLIENT} request: 'run_id' must not be empty")
    served = await sessions.get(CLIENT, run_id, caller)
    if served.stopped is not None:
        return _verdict("deny", served.stopped, stop=True)
    try:
        return await HANDLERS.get(event, _record)(served, body)
    except StopRun as stop:
        await served.stop(stop.reason)
        return _verdict("deny", stop.reason, stop=True)
    except Exception as exc:
        await served.fail(exc)
        raise
    finally:
        await sessions.done(served)


__all__ = ["CLIENT", "EVENTS", "answer"]
