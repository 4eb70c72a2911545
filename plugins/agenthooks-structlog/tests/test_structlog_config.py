"""StructlogPlugin's options: bad values, the installed entry point, the environment, failures."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import structlog
from agenthooks_structlog import StructlogConfigError, StructlogPlugin

from agenthooks import Agent, HookBus, RegistrationError, ScriptedProvider
from agenthooks.plugins import PluginError, entry_points
from agenthooks.testing import assert_option_error

ENV = "AGENTHOOKS_STRUCTLOG_"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith(ENV) or name == "AGENTHOOKS_DISABLE_PLUGINS":
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("options", "key", "problem"),
    [
        ({"renderer": "xml"}, "renderer", "'xml': Input should be 'console' or 'json'"),
        ({"max_chars": 0}, "max_chars", "0: Input should be greater than or equal to 1"),
        ({"max_chars": "many"}, "max_chars", "'many': Input should be a valid integer"),
        (
            {"min_level": "verbose"},
            "min_level",
            "'verbose' is not a level; use one of debug, info, warning, error, critical",
        ),
        (
            {"levels": {"on_message": "loud"}},
            "levels",
            "'loud' is not a level; use one of debug, info, warning, error, critical",
        ),
        (
            {"levels": {"on_mesage": "info"}},
            "levels",
            "unknown event 'on_mesage'; did you mean 'on_message', 'onMessage', 'on_user_message'?",
        ),
        ({"levels": ["on_message"]}, "levels", "Input should be a valid dictionary"),
        (
            {"events": ["on_chat_strat"]},
            "events",
            (
                "unknown event 'on_chat_strat'; did you mean 'on_chat_start', 'on_chat_abort', "
                "'on_chat_error'?"
            ),
        ),
        ({"file": 42}, "file", "42: Value error, expected a path or a text stream"),
        (
            {"logger": structlog.get_logger(), "renderer": "json"},
            "renderer",
            (
                "applies to the plugin's own logger only; with logger= your logger's configuration "
                "renders and filters"
            ),
        ),
    ],
)
def test_bad_options_raise_a_typed_error_naming_the_key(
    options: dict[str, object], key: str, problem: str
) -> None:
    error = assert_option_error(
        lambda: StructlogPlugin(**options),  # type: ignore[arg-type]
        key=key,
        source="StructlogPlugin",
        says=problem,
    )
    assert isinstance(error, StructlogConfigError) and isinstance(error, RegistrationError)
    assert str(error).startswith(f"structlog plugin: StructlogPlugin: {key}: ")


def test_an_unopenable_file_names_the_key(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "log.txt"
    with pytest.raises(StructlogConfigError) as caught:
        StructlogPlugin(file=str(missing))
    assert caught.value.key == "file"
    assert str(caught.value).startswith(
        f"structlog plugin: StructlogPlugin: file: cannot open {str(missing)!r}"
    )


def test_the_entry_point_is_installed() -> None:
    [ep] = [ep for ep in entry_points() if ep.name == "structlog"]
    assert ep.value == "agenthooks_structlog:StructlogPlugin"
    assert ep.dist is not None and ep.dist.name == "agenthooks-structlog"
    assert ep.load() is StructlogPlugin


async def test_loaded_by_name_it_is_configured_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "agent.jsonl"
    monkeypatch.setenv(ENV + "RENDERER", "json")
    monkeypatch.setenv(ENV + "FILE", str(log))
    monkeypatch.setenv(ENV + "EVENTS", "on_chat_start, AfterRun")
    monkeypatch.setenv(ENV + "LEVELS", "on_chat_start=warning")
    monkeypatch.setenv(ENV + "MAX_CHARS", "4")
    bus = HookBus(plugins=["structlog"], strict=True)
    info = bus.plugins["structlog"]
    assert (info.distribution, info.version) == ("agenthooks-structlog", "0.1.0")
    assert isinstance(info.plugin, StructlogPlugin)
    await Agent("calc", provider=ScriptedProvider(["fine"]), bus=bus).chat("hello")
    assert info.dispose is not None
    info.dispose()  # closes the file the plugin opened
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["event"], e["level"]) for e in entries] == [
        ("on_chat_start", "warning"),
        ("on_chat_end", "info"),
    ]
    assert entries[0]["input"] == "hell…(+1 chars)"
    assert entries[1]["output"].startswith('{"co…(+')


async def test_auto_loading_installs_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    others = [ep.name for ep in entry_points() if ep.name != "structlog"]
    monkeypatch.setenv("AGENTHOOKS_DISABLE_PLUGINS", ",".join(others))
    monkeypatch.setenv(ENV + "FILE", str(tmp_path / "log.txt"))
    monkeypatch.setenv(ENV + "EVENTS", "on_chat_done")
    bus = HookBus(plugins="auto")
    assert list(bus.plugins) == ["structlog"]
    await Agent("calc", provider=ScriptedProvider(["fine"]), bus=bus).chat("hello")
    bus.plugins["structlog"].plugin.teardown()
    [line] = (tmp_path / "log.txt").read_text().splitlines()
    assert "[info     ] on_chat_done" in line and "agent=calc" in line.split()


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("RENDERER", "xml", "'xml': Input should be 'console' or 'json'"),
        (
            "LEVELS",
            "on_message=loud",
            "'loud' is not a level; use one of debug, info, warning, error, critical",
        ),
        (
            "LEVELS",
            "on_message",
            "'on_message' is not EVENT=LEVEL (on_message=debug,pre_request=warning)",
        ),
        ("MAX_CHARS", "many", "'many': Input should be a valid integer"),
        ("MAX_CHARS", "-3", "'-3': Input should be greater than or equal to 1"),
        (
            "FILE",
            "/nonexistent-dir/agent.log",
            (
                "cannot open '/nonexistent-dir/agent.log' for "
                "appending: [Errno 2] No such file or directory: '/nonexistent-dir/agent.log'"
            ),
        ),
        (
            "EVENTS",
            "on_chat_start,on_chat_ned",
            (
                "unknown event 'on_chat_ned'; did you mean 'on_chat_end', 'on_chat_done', "
                "'on_chat_paused'?"
            ),
        ),
        ("RENDERR", "json", "unknown option; did you mean 'AGENTHOOKS_STRUCTLOG_RENDERER'?"),
    ],
)
def test_a_bad_variable_fails_the_plugin_naming_the_variable_and_distribution(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, problem: str
) -> None:
    monkeypatch.setenv(ENV + variable, value)
    expected = (
        f"plugin 'structlog' (distribution agenthooks-structlog) failed: "
        f"StructlogConfigError: structlog plugin: environment: {ENV}{variable}: "
    )
    bus = HookBus(plugins=["structlog"])
    assert "structlog" not in bus.plugins
    [error] = bus.plugin_errors
    assert str(error).startswith(expected) and problem in str(error)
    assert isinstance(error.error, StructlogConfigError)
    assert_option_error(
        StructlogPlugin.from_env, key=ENV + variable, source="environment", says=problem
    )
    with pytest.raises(PluginError) as caught:
        HookBus(plugins=["structlog"], strict=True)
    assert str(caught.value) == str(error)


def test_max_chars_none_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV + "MAX_CHARS", "None")
    assert StructlogPlugin.from_env().max_chars is None


async def test_a_failing_logger_never_breaks_a_run() -> None:
    out = io.StringIO()
    bus = HookBus()  # errors="raise": only the plugin's own handler is isolated
    bus.use(StructlogPlugin(renderer="json", file=out))
    out.close()  # every write now raises ValueError
    seen: list[str] = []
    bus.on("on_event", lambda record: seen.append(record.type))
    agent = Agent("calc", provider=ScriptedProvider(["still fine"]), bus=bus)
    with structlog.testing.capture_logs() as logs:
        response = await agent.chat("hi")
    assert (response.content, response.finish_reason) == ("still fine", "stop")
    isolated = [e for e in logs if e["event"] == "hook_error_isolated"]
    assert {e["hook_event"] for e in isolated} == {"on_event"}
    assert {e["error"] for e in isolated} == {"ValueError: I/O operation on closed file"}
    assert len(isolated) == len(seen) > 10  # one per event of the run
