"""MkDocs hooks: the pages that are views of the code are filled in from it at build time, so
they cannot fall behind it. A page writes a marker where a table goes."""

from __future__ import annotations

from typing import Any

EVENTS_MARKER = "<!-- generated:events-table -->"
BRIDGES_MARKER = "<!-- generated:bridge-capabilities -->"


def events_table() -> str:
    """The event catalog as the Markdown table ``agenthooks events`` describes."""
    from agenthooks.events.describe import markdown_table

    return markdown_table()


def bridge_table() -> str:
    """What each installed bridge fires and honours, from the bridges' own declarations. With
    no bridge installed the build fails: the site never ships an empty table."""
    from agenthooks.bridges import capability_table, installed_bridges

    bridges = installed_bridges()
    if not bridges:
        raise RuntimeError(
            "no agenthooks bridge is installed: the capability table needs the five bridge "
            "distributions (make install)"
        )
    return capability_table(bridges)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each marker with the table it stands for."""
    if EVENTS_MARKER in markdown:
        markdown = markdown.replace(EVENTS_MARKER, events_table())
    if BRIDGES_MARKER in markdown:
        markdown = markdown.replace(BRIDGES_MARKER, bridge_table())
    return markdown
