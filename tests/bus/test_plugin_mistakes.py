"""Plugin mistakes fail loudly: a method named like an event that does not exist, a second
plugin of one name, a setup that raises (nothing is left behind), and two installed
distributions that claim one entry-point name (checked against real installed metadata)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agenthooks import HookBus, Middleware, RegistrationError
from agenthooks.errors import UnknownEventError
from agenthooks.plugins import hook, looks_like_event

# misnamed hook methods ---------------------------------------------------------------------


class Misnamed:
    name = "misnamed"

    def on_message(self, ctx: Any) -> None:
        pass

    def on_tool_result(self, ctx: Any) -> None:
        pass


def test_a_method_named_like_a_missing_event_is_an_error_naming_the_closest() -> None:
    bus = HookBus()
    with pytest.raises(UnknownEventError) as caught:
        bus.use(Misnamed())
    assert str(caught.value) == (
        "plugin 'misnamed': method 'on_tool_result' is named like an event, but there is no "
        "event 'on_tool_result'; did you mean 'on_tool_call_result'? (a method that is not a "
        "hook: start its name with '_')"
    )
    assert caught.value.suggestions[0] == "on_tool_call_result"
    assert bus.empty and bus.plugins == {} and bus.listened == frozenset()


def test_a_closest_name_that_is_an_alias_names_its_event_too() -> None:
    plugin_class = type("P", (), {"name": "p", "pre_tool": lambda self, ctx: None})
    with pytest.raises(UnknownEventError) as caught:
        HookBus().use(plugin_class())
    assert str(caught.value) == (
        "plugin 'p': method 'pre_tool' is named like an event, but there is no event "
        "'pre_tool'; did you mean 'pre_tool_use'? (an alias of 'pre_tool_call'; a method that "
        "is not a hook: start its name with '_')"
    )


@pytest.mark.parametrize(
    ("method", "closest"),
    [
        ("on_tool_result", "on_tool_call_result"),
        ("pre_tool_cal", "pre_tool_call"),
        ("onToolResult", "onToolCallResult"),
        ("BeforeToolcall", "BeforeToolCall"),
        ("post_agnet", "post_agent"),
        ("transform_contxt", "transform_context"),
        ("should_stp", "should_stop"),
        ("on_sesion_start", "on_session_start"),
    ],
)
def test_each_event_like_name_is_refused(method: str, closest: str) -> None:
    plugin_class = type("P", (), {"name": "p", method: lambda self, ctx: None})
    with pytest.raises(UnknownEventError) as caught:
        HookBus().use(plugin_class())
    assert caught.value.suggestions[0] == closest
    assert f"did you mean {closest!r}?" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "eventish"),
    [
        ("on_message", True),
        ("BeforeTool", True),
        ("on_anything", True),
        ("afterSomething", True),
        ("setup", False),
        ("teardown", False),
        ("current_span", False),
        ("redact_value", False),
        ("online", False),
        ("precompute", False),
        ("open_spans", False),
    ],
)
def test_what_counts_as_named_like_an_event(name: str, eventish: bool) -> None:
    assert looks_like_event(name) is eventish


async def test_helpers_that_are_not_event_like_or_private_are_left_alone() -> None:
    seen: list[str] = []

    class Fine:
        name = "fine"

        def on_message(self, ctx: Any) -> None:
            seen.append(self.render(ctx.message.content))

        def render(self, text: str) -> str:
            return text.upper()

        def _on_tool_result(self, ctx: Any) -> None:  # private: not a hook
            raise AssertionError("never called")

        @hook("on_chat_start")
        def started(self, ctx: Any) -> None:
            seen.append("start")

    bus = HookBus()
    bus.use(Fine())
    assert sorted(bus.listened) == ["on_chat_start", "on_message"]


# one name, one plugin ------------------------------------------------------------------------


class Counter:
    name = "counter"

    def __init__(self) -> None:
        self.calls = 0

    def on_loop_start(self, ctx: Any) -> None:
        self.calls += 1


def test_a_second_plugin_of_one_name_is_an_error_and_the_first_stays_removable() -> None:
    bus = HookBus()
    first = Counter()
    dispose = bus.use(first)
    second = Counter()
    with pytest.raises(RegistrationError) as caught:
        bus.use(second)
    assert str(caught.value).startswith(
        "a plugin named 'counter' is installed on this bus already (<"
    )
    assert str(caught.value).endswith(
        "remove it first (bus.plugins['counter'].dispose()) or give this one another name"
    )
    assert bus.plugins["counter"].plugin is first
    assert len(bus.handlers("on_loop_start")) == 1
    with pytest.raises(RegistrationError, match="this very plugin"):
        bus.use(first)
    dispose()
    assert bus.empty and bus.plugins == {}
    bus.use(second)  # the name is free again
    assert bus.plugins["counter"].plugin is second


def test_two_plugins_of_one_class_under_two_names() -> None:
    bus = HookBus()
    one, two = Counter(), Counter()
    two.name = "counter-2"
    bus.use(one)
    bus.use(two)
    assert sorted(bus.plugins) == ["counter", "counter-2"]
    assert len(bus.handlers("on_loop_start")) == 2


# a failed setup leaves nothing behind -----------------------------------------------------


class Layer(Middleware):
    name = "layer"
    stacks = ("provider", "tool")


class Nested:
    name = "nested"

    def on_message(self, ctx: Any) -> None:
        pass


class Broken:
    """Registers through every door the setup has, then fails."""

    name = "broken"

    def __init__(self) -> None:
        self.middleware = [Layer()]
        self.received: list[str] = []

    def on_chat_start(self, ctx: Any) -> None:
        pass

    def receive(self, sender: Any, ctx: Any = None, **_: Any) -> None:
        self.received.append("receiver")

    def setup(self, bus: Any) -> None:
        bus.on("pre_request", lambda ctx: None, guard=True)
        bus.once("on_loop_end", lambda ctx: None)
        bus.on("on_stop")(lambda ctx: None)  # the decorator form
        bus.signal("on_chat_end").connect(self.receive)
        bus.signal("on_session_end").connect_via(bus.target)(self.receive)
        bus.use(Nested())
        raise RuntimeError("setup failed half way")


async def test_a_failed_setup_rolls_back_every_registration_middleware_and_receiver() -> None:
    bus = HookBus()
    plugin = Broken()
    with pytest.raises(RuntimeError, match="setup failed half way"):
        bus.use(plugin)
    assert bus.empty
    assert bus.plugins == {}
    assert bus.listened == frozenset()
    assert not bus.provider_stack and not bus.tool_stack
    assert not bus.signal("on_chat_end").receivers
    assert not bus.signal("on_session_end").receivers
    bus.signal("on_chat_end").send(bus, ctx=None)
    assert plugin.received == []


async def test_removing_a_plugin_disconnects_the_receivers_its_setup_connected() -> None:
    received: list[Any] = []

    class Listening:
        name = "listening"

        def receive(self, sender: Any, ctx: Any = None, **_: Any) -> None:
            received.append(ctx)

        def setup(self, bus: Any) -> None:
            bus.signal("on_chat_end").connect(self.receive)

    bus = HookBus()
    dispose = bus.use(Listening())
    assert "on_chat_end" in bus.listened
    dispose()
    assert bus.empty and bus.listened == frozenset()
    assert not bus.signal("on_chat_end").receivers


# two distributions, one name (real installed metadata) ----------------------------------


def install_distribution(
    root: Path, dist: str, version: str, module: str, source: str, entry_points: dict[str, str]
) -> None:
    """Lay a distribution out the way pip installs one: the module and a ``.dist-info`` with
    its metadata and entry points (``root`` goes on PYTHONPATH)."""
    (root / f"{module}.py").write_text(source, encoding="utf-8")
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[agenthooks.plugins]\n{lines}", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


PLUGIN_SOURCE = "class Audit:\n    def on_message(self, ctx):\n        pass\n"

SCRIPT = r"""
import json, sys
from agenthooks import HookBus
from agenthooks.plugins import PluginConflictError, PluginError

names = json.loads(sys.argv[1])
strict = sys.argv[2] == "strict"
try:
    bus = HookBus(plugins=names, strict=strict)
except PluginConflictError as exc:
    print(json.dumps({"raised": type(exc).__name__, "message": str(exc), "name": exc.name,
                      "distribution": exc.distribution,
                      "error": f"{type(exc.error).__name__}: {exc.error}"}))
else:
    print(json.dumps({"plugins": {n: i.distribution for n, i in sorted(bus.plugins.items())}}))
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    install_distribution(
        root, "audit-one", "1.0", "audit_one", PLUGIN_SOURCE, {"audit": "audit_one:Audit"}
    )
    install_distribution(
        root, "audit-two", "2.0", "audit_two", PLUGIN_SOURCE, {"audit": "audit_two:Audit"}
    )
    install_distribution(
        root, "zz-extra", "0.1", "zz_extra", PLUGIN_SOURCE, {"zz-extra": "zz_extra:Audit"}
    )
    (root / "script.py").write_text(SCRIPT, encoding="utf-8")
    return root


def load(site: Path, names: list[str] | str, strict: bool = False, **env: str) -> dict[str, Any]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("AGENTHOOKS_")}
    full.update(PYTHONPATH=str(site), **env)
    done = subprocess.run(
        [sys.executable, str(site / "script.py"), json.dumps(names), "strict" if strict else "-"],
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


CONFLICT = (
    "2 installed distributions claim the plugin name 'audit': audit-one 1.0 (audit_one:Audit) "
    "and audit-two 2.0 (audit_two:Audit); neither is loaded. Uninstall the one you do not "
    "want, or switch the name off with AGENTHOOKS_DISABLE_PLUGINS=audit"
)


@pytest.mark.subprocess
@pytest.mark.parametrize("strict", [False, True])
def test_two_distributions_with_one_plugin_name_is_an_error_naming_both(
    site: Path, strict: bool
) -> None:
    assert load(site, ["audit", "zz-extra"], strict) == {
        "raised": "PluginConflictError",
        "message": CONFLICT,
        "name": "audit",
        "distribution": "audit-one, audit-two",
        "error": f"RegistrationError: {CONFLICT}",
    }


@pytest.mark.subprocess
def test_the_conflict_stops_auto_loading_too(site: Path) -> None:
    assert load(site, "auto")["message"] == CONFLICT


@pytest.mark.subprocess
def test_other_names_load_and_disabling_the_name_loads_neither(site: Path) -> None:
    assert load(site, ["zz-extra"]) == {"plugins": {"zz-extra": "zz-extra"}}
    disabled = load(site, ["zz-extra", "audit"], AGENTHOOKS_DISABLE_PLUGINS="audit")
    assert disabled == {"plugins": {"zz-extra": "zz-extra"}}
