"""The guard-bypass corpus: generated attempts to get a denied tool past ``agenthooks-guard``
or a secret past its redaction, by class: type coercions, case, unicode, sub-agents,
handoffs, streaming, exporters and approvals.

Every case checks the same invariants:

- no tool ever received arguments that its deny rule matches (an oracle written here, apart
  from the guard, judges each call the tools recorded), and a call the oracle forbids gets an
  error tool message;
- every tool call of the transcript has exactly one tool message;
- no secret in any output: the stream, history, the structlog lines, the spans, the recorder;
- no task left pending.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import math
import random
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
from agenthooks_guard import Guard, Policy, Redactor, Rule
from agenthooks_otel import OtelPlugin
from agenthooks_structlog import StructlogPlugin
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import AfterValidator, BaseModel

from agenthooks import (
    Agent,
    ChatMessage,
    Deny,
    OpenAIChatProvider,
    ProviderResponse,
    Scope,
    ScriptedProvider,
    TextDelta,
    Tool,
    ToolCall,
    tool,
)
from agenthooks.errors import ToolValidationError
from agenthooks.record import Recorder

# wire_server.py (a real loopback OpenAI-format server) lives beside the core's provider tests
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "providers"))
from wire_server import WireServer, chunk, sse_reply, usage_chunk

RNG = random.Random(20240611)

# the tools, and what each one received ----------------------------------------------------

RAN: list[tuple[str, dict[str, Any]]] = []
LEAKED = {"secret": ""}  # what lookup() returns this case


def normalise(text: str) -> str:
    """What fetch() does to its URL before using it."""
    return unicodedata.normalize("NFKC", text).strip().casefold()


class Options(BaseModel):
    force: bool = False


@tool
def wipe(force: bool = False) -> str:
    """Wipe the disk."""
    RAN.append(("wipe", {"force": force}))
    return "wiped"


@tool
def wipe_opts(options: Options) -> str:
    """Wipe with options."""
    RAN.append(("wipe_opts", {"options": options}))
    return "wiped"


@tool
def pay(amount: float) -> str:
    """Pay someone."""
    RAN.append(("pay", {"amount": amount}))
    return "paid"


@tool
def read_file(path: Path) -> str:
    """Read a file."""
    RAN.append(("read_file", {"path": path}))
    return "contents"


@tool
def fetch(url: Annotated[str, AfterValidator(normalise)]) -> str:
    """Fetch a URL."""
    RAN.append(("fetch", {"url": url}))
    return "page"


@tool
def delete_all() -> str:
    """Delete everything."""
    RAN.append(("delete_all", {}))
    return "deleted"


@tool
def launch() -> str:
    """Launch (needs approval)."""
    RAN.append(("launch", {}))
    return "launched"


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    RAN.append(("lookup", {"key": key}))
    return f"{key} = {LEAKED['secret']}"


TOOLS = [wipe, wipe_opts, pay, read_file, fetch, delete_all, launch, lookup]
BY_NAME = {t.name: t for t in TOOLS}

# the policy, and an oracle for it written apart from the guard -----------------------------


def policy(*, redact: bool = True, approver_timeout: float = 0.02) -> Policy:
    return Policy(
        [
            Rule("delete_all", "deny", reason="never"),
            Rule("wipe", "deny", args={"force": True}, reason="no forced wipe"),
            Rule("wipe_opts", "deny", args={"options.force": True}, reason="no forced wipe"),
            Rule("pay", "deny", args={"amount": {"gt": 100}}, reason="too much"),
            Rule("read_file", "deny", args={"path": {"startswith": "/etc/"}}, reason="not /etc"),
            Rule("read_file", "deny", args={"path": {"matches": r"(^|/)\.\.(/|$)"}}, reason=".."),
            Rule("fetch", "deny", args={"url": {"startswith": "http://internal"}}, reason="intra"),
            Rule("launch", "ask", timeout=approver_timeout),
        ],
        redact=Redactor() if redact else None,
    )


def forbidden(name: str, args: dict[str, Any]) -> bool:
    """True when the tool ``name`` must never receive ``args`` (validated values)."""
    if name in ("delete_all", "launch"):
        return True  # launch: only an approver's True lets it run (checked per case)
    if name == "wipe":
        return args["force"] is True
    if name == "wipe_opts":
        return args["options"].force is True
    if name == "pay":
        return math.isnan(args["amount"]) or args["amount"] > 100
    if name == "read_file":
        return str(args["path"]).startswith("/etc/") or ".." in Path(args["path"]).parts
    if name == "fetch":
        return str(args["url"]).startswith("http://internal")
    return False


def verdict(name: str, raw: dict[str, Any]) -> str:
    """What must happen to a call: "unknown", "invalid", "forbidden" or "allowed"."""
    tool_ = BY_NAME.get(name)
    if tool_ is None:
        return "unknown"
    try:
        validated = tool_.validate(raw)
    except ToolValidationError:
        return "invalid"
    return "forbidden" if forbidden(name, validated) else "allowed"


# secrets ------------------------------------------------------------------------------------


def _token(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
SECRETS: dict[str, tuple[str, str]] = {  # kind: (text that carries it, the secret itself)
    "openai": (s := "sk-proj-" + _token(ALNUM, 28), s),
    "anthropic": (s := "sk-ant-" + _token(ALNUM, 30), s),
    "aws": (s := "AKIA" + _token("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), s),
    "github": (s := "ghp_" + _token(ALNUM, 36), s),
    "bearer": ("Bearer " + (s := _token(ALNUM, 32)), s),
    "email": (s := "ada.lovelace+ops@analytical-engines.example.org", s),
    "card": (s := "4111 1111 1111 1111", s),
    "phone": (s := "+44 20 7946 0958", s),
}


def leaks(secret: str, *outputs: Any) -> list[str]:
    """The outputs (as text) that still carry ``secret``."""
    found = []
    for output in outputs:
        text = output if isinstance(output, str) else json.dumps(output, default=repr)
        if secret in text:
            found.append(text[:200])
    return found


# running one case ---------------------------------------------------------------------------


def calls(*items: tuple[str, dict[str, Any]], text: str | None = None) -> ProviderResponse:
    return ProviderResponse(
        content=text,
        tool_calls=[ToolCall(id=f"c{next(_ids)}", name=n, arguments=a) for n, a in items],
    )


_ids = itertools.count(1)


def check_transcript(history: list[ChatMessage]) -> None:
    """Every tool call has exactly one tool message."""
    asked = [c.id for m in history for c in m.tool_calls]
    answered = [m.tool_call_id for m in history if m.role == "tool"]
    assert sorted(asked) == sorted(answered), (asked, answered)


def check_ran() -> None:
    """No tool received arguments its deny rule matches."""
    for name, args in RAN:
        assert not forbidden(name, args), f"{name} ran with {args}"


def check_no_pending_tasks() -> None:
    me = asyncio.current_task()
    assert [t for t in asyncio.all_tasks() if t is not me and not t.done()] == []


def tool_messages(history: list[ChatMessage]) -> dict[str, ChatMessage]:
    return {m.tool_call_id or "": m for m in history if m.role == "tool"}


async def one_call_case(
    agent: Agent, name: str, raw: dict[str, Any], model: ScriptedProvider
) -> None:
    """Run ``agent`` on a script whose first turn is one call; check the invariants."""
    RAN.clear()
    await agent.chat("go")
    check_ran()
    check_transcript(agent.history)
    outcome = verdict(name, raw)
    message = model.requests[1].messages[-1]
    assert message.role == "tool"
    if outcome in ("unknown", "invalid", "forbidden"):
        assert message.is_error, (name, raw, message.content)
        assert not any(n == name for n, _ in RAN)
    else:
        assert not message.is_error, (name, raw, message.content)
        assert [n for n, _ in RAN] == [name]
    check_no_pending_tasks()


def guarded(model: ScriptedProvider, **options: Any) -> Agent:
    agent = Agent("root", provider=model, tools=TOOLS, **options)
    agent.use(Guard(policy()))
    return agent


# class 1: type coercions --------------------------------------------------------------------

BOOLS: list[Any] = [
    True,
    1,
    1.0,
    "1",
    "true",
    "True",
    "TRUE",
    "tRuE",
    "yes",
    "YES",
    "Yes",
    "y",
    "Y",
    "on",
    "ON",
    "On",
    "t",
    "T",
    False,
    0,
    "0",
    "false",
    "no",
    "off",
    "f",
    "n",
    2,
    "2",
    "maybe",
    None,
    [],
    "  true",
    "true ",
    1.5,
]
FLOATS: list[Any] = [
    "1e3",
    "1E3",
    "101",
    "100.0000001",
    " 250 ",
    1000,
    101,
    "inf",
    "+inf",
    "Infinity",
    "-inf",
    "nan",
    "NaN",
    "-nan",
    1e308,
    "1_000",
    "0x100",
    "100",
    100,
    "99.99",
    -5,
    "1e2",
    "1.00000000000000001e2",
    True,
    "١٠١",
]
PATHS: list[str] = [
    "/etc/passwd",
    "/etc//passwd",
    "//etc/passwd",
    "/etc/./passwd",
    "/./etc/passwd",
    "/tmp/../etc/passwd",
    "/tmp/x/../../etc/passwd",
    "../etc/passwd",
    "/tmp/ok.txt",
    "tmp/ok.txt",
    "/etcetera/x",
    "/ETC/passwd",
    "/etc",
    "/etc/",
]

COERCIONS = (
    [("wipe", {"force": v}) for v in BOOLS]
    + [("wipe_opts", {"options": {"force": v}}) for v in BOOLS]
    + [("pay", {"amount": v}) for v in FLOATS]
    + [("read_file", {"path": v}) for v in PATHS]
)


@pytest.mark.parametrize(("name", "raw"), COERCIONS, ids=[f"{n}-{a!r}" for n, a in COERCIONS])
async def test_coercions(name: str, raw: dict[str, Any]) -> None:
    model = ScriptedProvider([calls((name, raw)), "done"])
    await one_call_case(guarded(model), name, raw, model)


def test_the_coercion_class_is_not_vacuous() -> None:
    outcomes = [verdict(n, a) for n, a in COERCIONS]
    assert outcomes.count("forbidden") >= 40 and outcomes.count("allowed") >= 20


# class 2: case -------------------------------------------------------------------------------


def casings(text: str, n: int) -> list[str]:
    found = {text.upper(), text.title(), text.swapcase(), text.capitalize()}
    while len(found) < n + 4:
        found.add("".join(c.upper() if RNG.random() < 0.5 else c.lower() for c in text))
    found.discard(text)
    return sorted(found)


CASE = (
    [(v, {}) for v in casings("delete_all", 10)]
    + [(v, {"force": True}) for v in casings("wipe", 10)]
    + [("fetch", {"url": v}) for v in casings("http://internal.corp/admin", 16)]
    + [("fetch", {"url": v}) for v in casings("http://example.org/a", 4)]
)


@pytest.mark.parametrize(("name", "raw"), CASE, ids=[f"{n}-{a!r}" for n, a in CASE])
async def test_case(name: str, raw: dict[str, Any]) -> None:
    model = ScriptedProvider([calls((name, raw)), "done"])
    await one_call_case(guarded(model), name, raw, model)


# class 3: unicode ----------------------------------------------------------------------------

CONFUSABLES = {
    "a": ["\u0430", "\u03b1", "\uff41"],  # Cyrillic a, Greek alpha, fullwidth a
    "e": ["\u0435", "\uff45", "\u212f"],  # Cyrillic ie, fullwidth e, script e
    "l": ["\u04cf", "\u2113", "\uff4c"],
    "i": ["\u0456", "\u0131", "\uff49"],
    "p": ["\u0440", "\uff50"],
    "o": ["\u043e", "\u03bf"],
    "t": ["\uff54"],
    "d": ["\u0501", "\uff44"],
    "w": ["\u051d", "\uff57"],
    "_": ["\uff3f"],
}
INVISIBLE = ["\u200b", "\u200d", "\u00ad", "\u2060", "\ufeff"]


def lookalikes(name: str) -> list[str]:
    found = set()
    for i, c in enumerate(name):
        for swap in CONFUSABLES.get(c, []):
            found.add(name[:i] + swap + name[i + 1 :])
    for mark in INVISIBLE:
        found.add(name[:2] + mark + name[2:])
    found.add(
        unicodedata.normalize("NFKC", name).translate(
            {ord(c): ord(c) + 0xFEE0 for c in "abcdefghijklmnopqrstuvwxyz_"}
        )
    )
    found.add(name + "\u0301")  # a combining accent
    found.add(" " + name)
    found.add(name + "\n")
    return sorted(found - {name})


def url_forms(url: str) -> list[str]:
    fullwidth = url.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)})
    bold = "".join(
        chr(0x1D41A + ord(c) - ord("a")) if "a" <= c <= "z" else c for c in url
    )  # mathematical bold small letters: NFKC folds them
    return [
        fullwidth,
        bold,
        "\u3000" + url,  # ideographic space
        "\u00a0" + url + "\u2003",
        url.upper().replace("I", "\u0130"),  # dotted capital I: casefolds to i + combining dot
        unicodedata.normalize("NFD", url),
        url.replace("t", "\uff54"),
        "\u2028" + url,
    ]


UNICODE = (
    [(v, {}) for v in lookalikes("delete_all")]
    + [(v, {"force": True}) for v in lookalikes("wipe")]
    + [("fetch", {"url": v}) for v in url_forms("http://internal.corp/admin")]
    + [
        ("read_file", {"path": p})
        for p in ("/\u0435tc/passwd", "/e\u200btc/passwd", "/ｅｔｃ/passwd")
    ]
)


@pytest.mark.parametrize(("name", "raw"), UNICODE, ids=[f"{n!a}-{a!a}" for n, a in UNICODE])
async def test_unicode(name: str, raw: dict[str, Any]) -> None:
    model = ScriptedProvider([calls((name, raw)), "done"])
    await one_call_case(guarded(model), name, raw, model)


# class 4: sub-agents -------------------------------------------------------------------------

PAYLOADS: list[tuple[str, dict[str, Any]]] = [
    ("wipe", {"force": v}) for v in ("yes", "1", "on", "true", 1, True)
] + [("delete_all", {}), ("pay", {"amount": "1e3"}), ("fetch", {"url": "HTTP://INTERNAL/x"})]


def worker(name: str, payload: tuple[str, dict[str, Any]], *, own_bus: bool) -> Agent:
    agent = Agent(name, provider=ScriptedProvider([calls(payload), f"{name} done"]), tools=TOOLS)
    if own_bus:
        agent.on("on_loop_start", lambda ctx: None)  # any hook gives it a bus of its own
    return agent


def delegating(name: str, subs: list[Agent], *, parallel: bool = False) -> Agent:
    first = calls(*[(s.name, {"task": "do it"}) for s in subs])
    return Agent(
        name,
        provider=ScriptedProvider([first, f"{name} done"]),
        sub_agents=subs,
        parallel_tool_calls=parallel,
    )


def sub_topologies(payload: tuple[str, dict[str, Any]]) -> dict[str, Callable[[], Agent]]:
    def shared_bus() -> Agent:
        root = delegating("root", [worker("w", payload, own_bus=False)])
        root.use(Guard(policy()))
        return root

    def own_bus() -> Agent:
        root = delegating("root", [worker("w", payload, own_bus=True)])
        root.use(Guard(policy()))
        return root

    def two_deep() -> Agent:
        middle = delegating("middle", [worker("w", payload, own_bus=True)])
        middle.on("on_loop_start", lambda ctx: None)
        root = delegating("root", [middle])
        root.use(Guard(policy()))
        return root

    def guard_on_the_sub() -> Agent:
        sub = worker("w", payload, own_bus=True)
        sub.use(Guard(policy()))
        return delegating("root", [sub])

    def parallel() -> Agent:
        subs = [worker(f"w{i}", payload, own_bus=i == 1) for i in range(3)]
        root = delegating("root", subs, parallel=True)
        root.use(Guard(policy()))
        return root

    return {
        "shared-bus": shared_bus,
        "own-bus": own_bus,
        "two-deep": two_deep,
        "guard-on-sub": guard_on_the_sub,
        "parallel": parallel,
    }


SUBAGENTS = [(topology, payload) for payload in PAYLOADS for topology in sub_topologies(payload)]


@pytest.mark.parametrize(
    ("topology", "payload"), SUBAGENTS, ids=[f"{t}-{p[0]}-{p[1]!r}" for t, p in SUBAGENTS]
)
async def test_subagents(topology: str, payload: tuple[str, dict[str, Any]]) -> None:
    RAN.clear()
    root = sub_topologies(payload)[topology]()
    await root.chat("go")
    check_ran()
    assert not any(name == payload[0] for name, _ in RAN)
    check_transcript(root.history)
    check_no_pending_tasks()


# class 5: handoffs ---------------------------------------------------------------------------


def handing(name: str, to: Agent, **kwargs: Any) -> Agent:
    return Agent(
        name,
        provider=ScriptedProvider([calls((f"transfer_to_{to.name}", {}))]),
        handoffs=[to],
        **kwargs,
    )


def handoff_topologies(payload: tuple[str, dict[str, Any]]) -> dict[str, Callable[[], Agent]]:
    def guard_on_target() -> Agent:
        target = worker("ops", payload, own_bus=False)
        target.use(Guard(policy()))
        return handing("front", target)

    def guard_on_source_shared() -> Agent:
        front = handing("front", worker("ops", payload, own_bus=False))
        front.use(Guard(policy()))
        return front

    def guard_on_source_own() -> Agent:
        front = handing("front", worker("ops", payload, own_bus=True))
        front.use(Guard(policy()))
        return front

    def guard_mid_chain() -> Agent:
        middle = handing("middle", worker("ops", payload, own_bus=True))
        middle.use(Guard(policy()))
        return handing("front", middle)

    def back_to_the_source() -> Agent:
        ops = Agent("ops", provider=ScriptedProvider([calls(("transfer_to_front", {}))]))
        ops.use(Guard(policy()))
        front = Agent(
            "front",
            provider=ScriptedProvider([calls(("transfer_to_ops", {})), calls(payload), "done"]),
            tools=TOOLS,
            handoffs=[ops],
        )
        back = Tool(lambda: "", name="transfer_to_front", description="Back to front.")
        back.handoff = front
        ops.scopes.add(Scope("back", [back]))  # a cycle: front -> ops -> front
        return front

    def from_a_subagent() -> Agent:
        target = worker("ops", payload, own_bus=True)
        helper = handing("helper", target)
        helper.on("on_loop_start", lambda ctx: None)
        root = delegating("root", [helper])
        root.use(Guard(policy()))
        return root

    return {
        "guard-on-target": guard_on_target,
        "guard-on-source-shared": guard_on_source_shared,
        "guard-on-source-own": guard_on_source_own,
        "guard-mid-chain": guard_mid_chain,
        "back-to-source": back_to_the_source,
        "from-subagent": from_a_subagent,
    }


HANDOFFS = [(t, p) for p in PAYLOADS for t in handoff_topologies(p)]


@pytest.mark.parametrize(
    ("topology", "payload"), HANDOFFS, ids=[f"{t}-{p[0]}-{p[1]!r}" for t, p in HANDOFFS]
)
async def test_handoffs(topology: str, payload: tuple[str, dict[str, Any]]) -> None:
    RAN.clear()
    root = handoff_topologies(payload)[topology]()
    await root.chat("go")
    check_ran()
    assert not any(name == payload[0] for name, _ in RAN)
    check_transcript(root.history)
    check_no_pending_tasks()


# class 6: streaming --------------------------------------------------------------------------

CHUNKS = [None, 1, 3, 7]
STREAMING = [
    (kind, size, source)
    for kind in SECRETS
    for size in CHUNKS
    for source in ("answer", "tool_result")
]


def streamed_outputs(items: list[Any]) -> list[Any]:
    """Each stream item, and the text deltas joined (a secret may span several)."""
    joined = "".join(item.text for item in items if isinstance(item, TextDelta))
    return [joined, *(repr(item) for item in items)]


@pytest.mark.parametrize(
    ("kind", "size", "source"), STREAMING, ids=[f"{k}-{s}-{w}" for k, s, w in STREAMING]
)
async def test_streaming(kind: str, size: int | None, source: str) -> None:
    carrier, secret = SECRETS[kind]
    LEAKED["secret"] = carrier
    RAN.clear()
    answer = f"Here it is: {carrier} (keep it safe)" if source == "answer" else "Looked it up."
    model = ScriptedProvider(
        [
            calls(("lookup", {"key": "token"}), ("wipe", {"force": "yes"}), text="Checking. "),
            answer,
        ],
        chunk_size=size,
    )
    agent = guarded(model)
    items = [item async for item in agent.chat_stream("the token?", gated=False)]
    check_ran()
    assert ("wipe", {"force": True}) not in RAN and ("lookup", {"key": "token"}) in RAN
    assert leaks(secret, streamed_outputs(items), repr(agent.history)) == []
    assert leaks(secret, repr(model.requests)) == []  # nor the model, for the tool result
    check_transcript(agent.history)
    check_no_pending_tasks()


WIRE = [(kind, size) for kind in SECRETS for size in (2, 5)]


@pytest.mark.server
@pytest.mark.parametrize(("kind", "size"), WIRE, ids=[f"{k}-{s}" for k, s in WIRE])
async def test_streaming_over_the_wire(kind: str, size: int) -> None:
    """A real OpenAI-compatible stream on loopback, the secret cut into ``size``-character
    deltas (a split no pattern matches in any one piece)."""
    carrier, secret = SECRETS[kind]
    text = f"Your key: {carrier}."
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    events = [chunk(role="assistant", content="")] + [chunk(p) for p in pieces]
    events += [chunk(finish_reason="stop"), usage_chunk()]
    with WireServer() as server:
        server.reply(sse_reply(events))
        provider = OpenAIChatProvider("m", base_url=server.url, api_key="k", timeout=10)
        agent = Agent("root", provider=provider)
        agent.use(Guard(policy()))
        recorder = Recorder()
        agent.use(recorder)
        items = [item async for item in agent.chat_stream("key?")]
        await provider.aclose()
    assert leaks(secret, streamed_outputs(items), repr(agent.history), recorder.records) == []
    check_no_pending_tasks()


# class 7: exporters --------------------------------------------------------------------------

ORDERS = list(itertools.permutations(["guard", "otel", "structlog", "recorder"]))
EXPORTERS = [
    (order, mode, source)
    for order in ORDERS
    for mode in ("chat", "stream")
    for source in ("answer", "tool_result", "user_message")
]


@pytest.mark.slow  # 144 orders of exporters, modes and sources
@pytest.mark.parametrize(
    ("order", "mode", "source"),
    EXPORTERS,
    ids=["-".join(o) + f"-{m}-{s}" for o, m, s in EXPORTERS],
)
async def test_exporters(order: tuple[str, ...], mode: str, source: str) -> None:
    kind = list(SECRETS)[EXPORTERS.index((order, mode, source)) % len(SECRETS)]
    carrier, secret = SECRETS[kind]
    LEAKED["secret"] = carrier if source == "tool_result" else "nothing"
    RAN.clear()
    spans = InMemorySpanExporter()
    tracer = TracerProvider()
    tracer.add_span_processor(SimpleSpanProcessor(spans))
    log = io.StringIO()
    recorder = Recorder()
    plugins = {
        "guard": Guard(policy()),
        "otel": OtelPlugin(tracer_provider=tracer, capture_content=True),
        "structlog": StructlogPlugin(renderer="json", file=log, min_level="debug", max_chars=None),
        "recorder": recorder,
    }
    answer = f"It is {carrier}." if source == "answer" else "Done."
    model = ScriptedProvider(
        [
            calls(("lookup", {"key": "k"}), ("wipe", {"force": "on"})),
            ProviderResponse(content=answer, raw={"choices": [{"message": {"content": answer}}]}),
        ],
        chunk_size=4,
    )
    agent = Agent("root", provider=model, tools=TOOLS)
    for name in order:
        agent.use(plugins[name])
    message = f"My key is {carrier}" if source == "user_message" else "hello"
    if mode == "stream":
        items = [item async for item in agent.chat_stream(message)]
    else:
        items = [await agent.chat(message)]
    check_ran()
    assert ("wipe", {"force": True}) not in RAN
    exported = [
        [
            {
                "attributes": dict(s.attributes or {}),
                "status": s.status.description,
                "events": [dict(e.attributes or {}) for e in s.events],
            }
            for s in spans.get_finished_spans()
        ],
        log.getvalue(),
        recorder.records,
    ]
    assert spans.get_finished_spans() and log.getvalue() and recorder.records
    assert leaks(secret, *exported) == []
    if source != "user_message":  # the user's own message stays in history as written
        outputs = streamed_outputs(items) if mode == "stream" else [repr(items)]
        assert leaks(secret, *outputs, repr(agent.history)) == []
    check_transcript(agent.history)
    check_no_pending_tasks()


# class 8: approvals --------------------------------------------------------------------------


async def _swallow_then(value: Any) -> Any:
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        await asyncio.sleep(0)
        return value
    return value


APPROVERS: dict[str, Callable[..., Any]] = {
    "swallows-cancel-returns-true": lambda call, ctx: _swallow_then(True),
    "swallows-cancel-returns-1": lambda call, ctx: _swallow_then(1),
    "never-answers": lambda call, ctx: asyncio.Event().wait(),
    "shielded-late-true": lambda call, ctx: asyncio.shield(asyncio.sleep(0.2, result=True)),
    "returns-1": lambda call, ctx: asyncio.sleep(0, result=1),
    "returns-yes": lambda call, ctx: asyncio.sleep(0, result="yes"),
    "returns-true-string": lambda call, ctx: asyncio.sleep(0, result="True"),
    "returns-list": lambda call, ctx: asyncio.sleep(0, result=[True]),
    "returns-none": lambda call, ctx: asyncio.sleep(0, result=None),
    "sync-returns-1": lambda call, ctx: 1,
    "sync-raises": lambda call, ctx: _raise(RuntimeError("boom")),
    "raises-cancelled": lambda call, ctx: _cancelled(),
    "returns-deny-without-reason": lambda call, ctx: asyncio.sleep(0, result=Deny()),
}


def _raise(exc: Exception) -> Any:
    raise exc


async def _cancelled() -> bool:
    raise asyncio.CancelledError


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("behaviour", sorted(APPROVERS))
async def test_approvals(behaviour: str, parallel: bool) -> None:
    RAN.clear()
    model = ScriptedProvider([calls(("launch", {}), ("launch", {})), "done"])
    agent = Agent("root", provider=model, tools=TOOLS, parallel_tool_calls=parallel)
    agent.use(Guard(policy(), approver=APPROVERS[behaviour]))
    await agent.chat("go")
    assert RAN == []
    assert all(m.is_error for m in tool_messages(agent.history).values())
    check_transcript(agent.history)
    if behaviour == "shielded-late-true":  # its inner sleep outlives the deny: let it end
        await asyncio.sleep(0.25)
    check_no_pending_tasks()


async def test_an_approval_in_time_runs_the_call() -> None:
    """The control: the corpus does not pass by denying everything."""
    RAN.clear()
    model = ScriptedProvider([calls(("launch", {})), "done"])
    agent = Agent("root", provider=model, tools=TOOLS)
    agent.use(Guard(policy(), approver=lambda call, ctx: asyncio.sleep(0, result=True)))
    await agent.chat("go")
    assert RAN == [("launch", {})]
