"""AGENT-HOOKS-0.1 hosts delegating to the hook server: ``POST /v1/agent-hooks``.

A host of the standard that delegates its interception to a remote interceptor posts each
interception context (the §4 envelope: ``spec``, ``interception_point``, ``session``,
``target`` and the point's own fields) and reads a verdict in the remote-interceptor envelope
(§5.5, ``{"verdict": ..., "extensions": ...}``). The server's bus decides: each session of the
host is one run (``agent-hooks-SESSION_ID``), each context one event of it, as for every other
client. Installed as the ``agent-hooks`` entry point of the ``agenthooks.server_clients``
group, so ``agenthooks serve`` serves it wherever this distribution is installed.

| interception point | our event | the verdict |
|---|---|---|
| ``agent_startup`` | ``on_chat_start`` | ``deny`` with the reason |
| ``input`` | ``on_user_message`` | ``deny``; a rewritten message: ``transform`` of ``$target.content`` |
| ``pre_tool_call`` | ``pre_tool_call`` | ``deny``; ``Ask``: a liftable deny (``approval``); rewritten arguments: ``transform`` of ``$target`` |
| ``post_tool_call`` | ``on_tool_call_result`` / ``on_tool_call_error`` | ``deny``; a rewritten result: ``transform`` of ``$target`` |
| ``agent_shutdown`` | ``on_chat_done``: the run ends | ``allow`` |
| any other | an ``on_event`` record ``agent-hooks:POINT`` | ``allow`` |
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agent_hooks import Decision, InterceptionPoint, InterceptorResponse, Transform, Verdict

from agenthooks import Deny, StopRun, ToolCall
from agenthooks.server import BadRequest, ServedRun, Sessions

CLIENT = "agent-hooks"
POINTS = frozenset(point.value for point in InterceptionPoint)

JSON = dict[str, Any]


def _object(body: JSON, key: str) -> JSON:
    value = body.get(key)
    if not isinstance(value, dict):
        shown = "missing" if key not in body else f"got {type(value).__name__}"
        raise BadRequest(f"{CLIENT} context: {key!r} must be an object ({shown})")
    return value


def _text(body: JSON, key: str, where: str = "") -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        shown = "missing" if key not in body else f"got {type(value).__name__}"
        raise BadRequest(f"{CLIENT} context: '{where}{key}' must be a non-empty string ({shown})")
    return value


def _call(context: JSON) -> ToolCall:
    call = _object(context, "tool_call")
    arguments = call.get("args", {})
    if not isinstance(arguments, dict):
        raise BadRequest(f"{CLIENT} context: 'tool_call.args' must be an object")
    call_id = call.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else "agent-hooks-call",
        name=_text(call, "name", "tool_call."),
        arguments=arguments,
    )


def _deny(reason: str, *, liftable: bool = False, code: str = "agenthooks:deny") -> Verdict:
    return Verdict(
        decision=Decision.DENY, reason=code, message=reason, approval={} if liftable else None
    )


def _transform(path: str, value: Any) -> Verdict:
    return Verdict(decision=Decision.TRANSFORM, transform=Transform(path=path, value=value))


async def _startup(served: ServedRun, context: JSON) -> Verdict:
    deny = await served.start()
    return Verdict.allow() if deny is None else _deny(deny.text())


async def _input(served: ServedRun, context: JSON) -> Verdict:
    message = _object(context, "input").get("content")
    if not isinstance(message, str):
        return Verdict.allow()  # a multi-part input: nothing of ours judges it as text
    deny = await served.start(message)
    if deny is not None:
        return _deny(deny.text())
    got = await served.user_message(message)
    if isinstance(got, Deny):
        return _deny(got.text())
    return Verdict.allow() if got is None else _transform("$target.content", got)


async def _pre_tool(served: ServedRun, context: JSON) -> Verdict:
    call = _call(context)
    await served.start()
    verdict = await served.pre_tool(call)
    if verdict.stop is not None:
        await served.stop(verdict.stop)
        return _deny(verdict.stop, code="agenthooks:stop")
    if verdict.decision == "deny":
        return _deny(verdict.reason or "denied")
    if verdict.decision == "ask":
        return _deny(verdict.reason or "needs approval", liftable=True, code="agenthooks:ask")
    if verdict.arguments is not None:
        return _transform("$target", verdict.arguments)
    return Verdict.allow()


async def _post_tool(served: ServedRun, context: JSON) -> Verdict:
    call = _call(context)
    result = _object(context, "tool_result")
    await served.start()
    if result.get("is_error"):
        verdict = await served.tool_done(call, error=str(result.get("value")))
    else:
        verdict = await served.tool_done(call, result=result.get("value"))
    if verdict.stop is not None:
        await served.stop(verdict.stop)
        return _deny(verdict.stop, code="agenthooks:stop")
    if verdict.block is not None:
        return _deny(verdict.block)
    if verdict.changed and not result.get("is_error"):
        return _transform("$target", verdict.result)
    return Verdict.allow()


async def _shutdown(served: ServedRun, context: JSON) -> Verdict:
    await served.end()
    return Verdict.allow()


async def _record(served: ServedRun, context: JSON) -> Verdict:
    await served.start()
    await served.record(str(context["interception_point"]), context)
    return Verdict.allow()


HANDLERS: dict[str, Callable[[ServedRun, JSON], Awaitable[Verdict]]] = {
    InterceptionPoint.AGENT_STARTUP.value: _startup,
    InterceptionPoint.INPUT.value: _input,
    InterceptionPoint.PRE_TOOL_CALL.value: _pre_tool,
    InterceptionPoint.POST_TOOL_CALL.value: _post_tool,
    InterceptionPoint.AGENT_SHUTDOWN.value: _shutdown,
}


async def answer(sessions: Sessions, caller: str, body: Any) -> JSON:
    """The verdict of the server's bus on one interception context, in the §5.5 envelope.

    Raises:
        BadRequest: The body is not an interception context (names the field).
    """
    if not isinstance(body, dict):
        raise BadRequest(f"{CLIENT} context must be a JSON object, not {type(body).__name__}")
    _text(body, "spec")
    point = _text(body, "interception_point")
    if point not in POINTS:
        raise BadRequest(
            f"{CLIENT} context: 'interception_point' {point!r} is not one of {sorted(POINTS)}"
        )
    session_id = _text(_object(body, "session"), "id", "session.")
    served = await sessions.get(CLIENT, session_id, caller)
    extensions = {"agenthooks": {"run_id": served.run.run_id, "caller": caller}}
    if served.stopped is not None:
        verdict = _deny(served.stopped, code="agenthooks:stop")
    else:
        try:
            verdict = await HANDLERS.get(point, _record)(served, body)
        except StopRun as stop:
            await served.stop(stop.reason)
            verdict = _deny(stop.reason, code="agenthooks:stop")
        except Exception as exc:
            await served.fail(exc)
            raise
        finally:
            await sessions.done(served)
    return InterceptorResponse(verdict=verdict, extensions=extensions).to_wire()


__all__ = ["CLIENT", "answer"]
