"""``bus.guards(event)`` lists the guard tier, inherited guards included."""

from __future__ import annotations

from agenthooks import HookBus


def test_guards_lists_own_then_inherited_guards_in_order() -> None:
    parent, child = HookBus(), HookBus()

    def parent_guard(ctx: object) -> None: ...
    def child_guard(ctx: object) -> None: ...
    def ordinary(ctx: object) -> None: ...

    parent.on("post_agent", parent_guard, guard=True)
    child.on("post_agent", ordinary)
    child.on("PostToolUse", child_guard, guard=True)  # an alias of on_tool_call_result
    child.on("post_agent", child_guard, guard=True)
    view = child.with_guards_of(parent)
    assert view.guards("post_agent") == [child_guard, parent_guard]
    assert child.guards("post_agent") == [child_guard]
    assert child.guards("on_tool_call_result") == [child_guard]
    assert parent.guards("pre_tool_call") == []
