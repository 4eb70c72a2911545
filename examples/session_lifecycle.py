"""Session hooks: the first chat of a session, the end of every chat (errors included), and
per-session analytics of what the user said and what the agent answered.

Seed 004 (session-lifecycle.ts): ``onSessionStart`` fires once, on the first ``stream()``;
``onSessionEnd`` after every ``stream()``, including when errors occur. Seed 004
(session-hooks.ts): ``beforeRun`` / ``afterRun`` on a session logging ``user_message`` and
``agent_response`` to analytics.

Output:
    Session started
    analytics: user_message 'Hi'
    analytics: agent_response 'Hello! How can I help?'
    Stream ended
    analytics: user_message 'Summarize my inbox'
    Stream ended
    the second chat failed: ConnectionError
    analytics: user_message 'Try again'
    analytics: agent_response 'You have 3 unread emails.'
    Stream ended
    Session closed
"""

import asyncio

from agenthooks import Agent, ScriptedProvider, Session, TextDelta
from agenthooks.events import ChatDoneContext, ChatStartContext, SessionContext


def log_to_analytics(name: str, value: object) -> None:
    print(f"analytics: {name} {value!r}")


def session_start(ctx: SessionContext) -> None:
    print("Session started")


def session_end(ctx: SessionContext) -> None:
    print("Stream ended")


def before_run(ctx: ChatStartContext) -> None:
    log_to_analytics("user_message", ctx.message)


def after_run(ctx: ChatDoneContext) -> None:
    log_to_analytics("agent_response", ctx.response.content)


async def main() -> None:
    model = ScriptedProvider(
        ["Hello! How can I help?", ConnectionError("mail server down"), "You have 3 unread emails."]
    )
    agent = Agent("mail", provider=model)
    agent.on("onSessionStart", session_start)
    agent.on("onSessionEnd", session_end)
    agent.on("beforeRun", before_run)
    agent.on("afterRun", after_run)
    agent.on("on_session_close", lambda ctx: print("Session closed"))

    async with Session(agent) as session:
        for message in ("Hi", "Summarize my inbox", "Try again"):
            try:
                async for item in session.chat_stream(message):
                    assert not isinstance(item, TextDelta) or item.text
            except ConnectionError as exc:
                print("the second chat failed:", type(exc).__name__)


if __name__ == "__main__":
    asyncio.run(main())
