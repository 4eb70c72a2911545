"""The main job: an assistant whose policy, cache, retries and logs all come from plugins.

The agent code below registers no hook. The installed plugins do the work, configured the way
a deployment configures them, through their environment variables:

- ``agenthooks-guard`` denies ``delete_file`` (the reason reaches the model) and redacts the
  e-mail address and phone number in a tool result;
- ``agenthooks-retry`` retries the model call that fails with a dropped connection;
- ``agenthooks-cache`` answers the second session's identical requests and tool calls from the
  cache, so the model and the tools are not called again;
- ``agenthooks-structlog`` logs the denies and errors.

The timeline is an ``on_event`` observer printing each event as it fires.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import structlog

from ..bus import HookBus
from ..errors import ProviderConnectionError
from ..messages import ProviderResponse, ToolCall, Usage
from ..providers import AnthropicProvider, OpenAIChatProvider, Provider, ScriptedProvider
from ..record import Recorder
from ..runtime import Agent, Session
from ..tools import tool
from .timeline import Timeline

PLUGINS = ("structlog", "guard", "cache", "retry")
PROVIDERS = ("scripted", "openai", "anthropic")
CLAUDE_URL = "https://api.anthropic.com"
QUESTION = "Who is Ada, what is the weather in London, and please delete /etc/passwd."
INSTRUCTIONS = "You are a helpful office assistant. Use the tools; never invent facts."


def plugin_settings() -> dict[str, str]:
    """The environment the demo's plugins read (a variable already set wins)."""
    return {
        "AGENTHOOKS_GUARD_POLICY": str(Path(__file__).with_name("policy.toml")),
        "AGENTHOOKS_CACHE_TOOLS": "lookup_user,get_weather",
        "AGENTHOOKS_RETRY_ATTEMPTS": "3",
        "AGENTHOOKS_RETRY_INITIAL": "0.01",
        "AGENTHOOKS_RETRY_MAX_BACKOFF": "0.05",
        "AGENTHOOKS_RETRY_JITTER": "0",
        "AGENTHOOKS_STRUCTLOG_MIN_LEVEL": "warning",
    }


@tool
def lookup_user(name: str) -> dict[str, str]:
    """Look a colleague up in the directory."""
    return (
        {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "phone": "+44 20 7946 0958",
            "team": "Analytical Engines",
        }
        if name.lower().startswith("ada")
        else {}
    )


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"{city}: 14°C, light rain"


@tool
def delete_file(path: str) -> str:
    """Delete a file (the policy forbids it)."""
    raise RuntimeError(f"delete_file must never run, yet it was asked to delete {path}")


def scripted_model() -> ScriptedProvider:
    """The embedded model: the demo's conversation, including one dropped connection."""
    usage = Usage(input_tokens=120, output_tokens=30, total_tokens=150)
    return ScriptedProvider(
        [
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="call_user", name="lookup_user", arguments={"name": "Ada"}),
                    ToolCall(
                        id="call_delete", name="delete_file", arguments={"path": "/etc/passwd"}
                    ),
                ],
                finish_reason="tool_calls",
                usage=usage,
            ),
            ProviderConnectionError("connection reset by peer (scripted)"),
            ProviderResponse(
                tool_calls=[
                    ToolCall(id="call_weather", name="get_weather", arguments={"city": "London"}),
                ],
                finish_reason="tool_calls",
                usage=usage,
            ),
            ProviderResponse(
                content=(
                    "Ada Lovelace works in Analytical Engines (her contact details are redacted). "
                    "London: 14°C, light rain. I could not delete /etc/passwd: deleting files is not "
                    "allowed in this workspace."
                ),
                usage=usage,
            ),
        ],
        name="scripted",
    )


def build_agent(provider: Provider, bus: HookBus) -> Agent:
    """The assistant: three tools, no hooks of its own."""
    return Agent(
        "assistant",
        INSTRUCTIONS,
        provider=provider,
        tools=[lookup_user, get_weather, delete_file],
        bus=bus,
    )


@contextmanager
def _environment(settings: dict[str, str]) -> Iterator[None]:
    """``settings`` as environment variables while the plugins read them (a variable the
    user already set wins); the process environment is restored afterwards."""
    added = {k: v for k, v in settings.items() if k not in os.environ}
    os.environ.update(added)
    try:
        yield
    finally:
        for key in added:
            os.environ.pop(key, None)


def load_plugins(out: TextIO) -> HookBus | None:
    """A bus with the demo's plugins, found through their entry points."""
    with _environment(plugin_settings()):
        bus = HookBus(plugins=PLUGINS)
    missing = [name for name in PLUGINS if name not in bus.plugins]
    if missing:
        out.write(
            "The demo runs on the plugins "
            + ", ".join(PLUGINS)
            + "; not loaded: "
            + ", ".join(missing)
            + ".\nInstall them: `make demo` does, or "
            + " ".join(f"pip install -e plugins/agenthooks-{n}" for n in missing)
            + "\n"
        )
        for error in bus.plugin_errors:
            out.write(f"  {error}\n")
        return None
    return bus


async def run_demo(provider: Provider, out: TextIO, *, record: str | None = None) -> int:
    """Two sessions asking the same question; the second is served from the cache."""
    bus = load_plugins(out)
    if bus is None:
        return 2
    bus.on("on_event", Timeline(out))
    recorder = None
    if record is not None:
        recorder = Recorder(record)
        bus.use(recorder)
    agent = build_agent(provider, bus)
    out.write(f"plugins: {', '.join(f'{n} {i.version}' for n, i in bus.plugins.items())}\n")
    try:
        for title in ("Session 1", "Session 2: the same question again"):
            out.write(f"\n== {title}\n   user: {QUESTION}\n")
            async with Session(agent) as session:
                response = await session.chat(QUESTION)
            out.write(
                f"   {response.agent}: {response.content}\n"
                f"   ({response.finish_reason}, {response.iterations} turns, "
                f"{response.usage.total_tokens} tokens)\n"
            )
    finally:
        if recorder is not None:
            recorder.close()
    calls = getattr(provider, "requests", None)
    if calls is not None:
        out.write(
            f"\nmodel calls made: {len(calls)} (one failed and was retried; session 2 made none)\n"
        )
    if record is not None:
        out.write(
            f"recorded every event to {record}: `agenthooks trace {record} --html "
            "timeline.html` draws it\n"
        )
    return 0


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """``python -m agenthooks.demo [--provider P] [--base-url URL] [--model NAME]
    [--record FILE]``."""
    parser = argparse.ArgumentParser(prog="python -m agenthooks.demo", description=__doc__)
    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="scripted (offline; the default without --base-url), openai (an OpenAI-compatible "
        "endpoint; the default with --base-url) or anthropic (the Messages API)",
    )
    parser.add_argument("--base-url", help="the endpoint (anthropic: default " + CLAUDE_URL + ")")
    parser.add_argument("--model", help="the model name, with openai or anthropic")
    parser.add_argument(
        "--api-key", help="the API key (default: $OPENAI_API_KEY or $ANTHROPIC_API_KEY)"
    )
    parser.add_argument("--record", metavar="FILE", help="write every event as JSON Lines")
    args = parser.parse_args(argv)
    stream = out if out is not None else sys.stdout
    if not structlog.is_configured():  # the plugins' debug lines would drown the timeline
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))
    return asyncio.run(run_demo(choose_provider(parser, args), stream, record=args.record))


def choose_provider(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Provider:
    """The provider the options name (``parser.error`` on a bad combination)."""
    kind = args.provider or ("openai" if args.base_url else "scripted")
    if kind == "scripted":
        if args.base_url:
            parser.error("--base-url needs --provider openai or anthropic")
        if args.model:
            parser.error("--model needs --base-url (the offline demo runs the scripted model)")
        return scripted_model()
    if kind == "anthropic":
        if not args.model:
            parser.error("--provider anthropic needs --model")
        return AnthropicProvider(
            args.model, base_url=args.base_url or CLAUDE_URL, api_key=args.api_key
        )
    if not args.base_url:
        parser.error("--provider openai needs --base-url")
    if not args.model:
        parser.error("--base-url needs --model")
    return OpenAIChatProvider(args.model, base_url=args.base_url, api_key=args.api_key)


__all__ = [
    "build_agent",
    "choose_provider",
    "main",
    "plugin_settings",
    "run_demo",
    "scripted_model",
]
