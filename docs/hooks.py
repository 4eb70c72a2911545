"""MkDocs hooks: the pages that are views of the code are filled in from it at build time, so
they cannot fall behind it. A page writes a marker where a table goes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

EVENTS_MARKER = "<!-- generated:events-table -->"
BRIDGES_MARKER = "<!-- generated:bridge-capabilities -->"
GAPS_MARKER = "<!-- generated:bridge-gaps -->"
REPO = Path(__file__).resolve().parents[1]
# each bridge's README keeps its own "## Gaps" section; the site shows them side by side
BRIDGE_READMES = {
    "LangChain": "plugins/agenthooks-langchain/README.md",
    "OpenAI Agents SDK": "plugins/agenthooks-openai-agents/README.md",
    "Pydantic AI": "plugins/agenthooks-pydantic-ai/README.md",
    "Google ADK": "plugins/agenthooks-adk/README.md",
    "Strands": "plugins/agenthooks-strands/README.md",
}
BENCHMARKS_MARKER = "<!-- generated:benchmarks -->"
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


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


def bridge_gaps() -> str:
    """Each bridge README's "Gaps" section (what its framework cannot do), under the
    framework's name; its links become plain text, as they point inside the repository."""
    parts = []
    for framework, readme in BRIDGE_READMES.items():
        text = (REPO / readme).read_text(encoding="utf-8")
        if "\n## Gaps\n" not in text:
            raise RuntimeError(f"{readme} has no '## Gaps' section")
        section = text.split("\n## Gaps\n", 1)[1].split("\n## ", 1)[0].strip()
        section = _LINK.sub(r"\1", section)
        parts.append(f"### {framework}\n\n{section}\n")
    return "\n".join(parts)


def benchmarks() -> str:
    """benchmarks/README.md (the method and every figure) without its title, each heading one
    level down so it nests under the page's own."""
    text = (REPO / "benchmarks" / "README.md").read_text(encoding="utf-8")
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    out, fenced = [], False
    for line in body.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" + line if line.startswith("#") and not fenced else line)
    return _LINK.sub(r"\1", "\n".join(out)) + "\n"


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each marker with the table it stands for."""
    if EVENTS_MARKER in markdown:
        markdown = markdown.replace(EVENTS_MARKER, events_table())
    if BRIDGES_MARKER in markdown:
        markdown = markdown.replace(BRIDGES_MARKER, bridge_table())
    if BENCHMARKS_MARKER in markdown:
        markdown = markdown.replace(BENCHMARKS_MARKER, benchmarks())
    if GAPS_MARKER in markdown:
        markdown = markdown.replace(GAPS_MARKER, bridge_gaps())
    return markdown
