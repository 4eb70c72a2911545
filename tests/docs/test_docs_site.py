"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a missing
reference or a docstring mkdocstrings cannot read fails it), and its pages render in real
headless Chromium, served over HTTP on 127.0.0.1, without a single console message (an error,
a failed load or a stray log line)."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agenthooks import Deny, HookBus
from agenthooks.bridges import capability_table, installed_bridges
from agenthooks.events import CATALOG
from agenthooks.events.describe import markdown_table
from agenthooks.testing import require

pytestmark = [pytest.mark.subprocess, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",  # every console message of the page, one line each
    "--v=0",
    "--virtual-time-budget=5000",
]
CONSOLE = re.compile(r":CONSOLE(?:\(\d+\))?:?\d*\] (.*)")


@pytest.fixture(scope="module")
def site() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="agenthooks-site-") as out:
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", out],
            cwd=REPO,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert result.returncode == 0, result.stderr[-4000:]
        yield Path(out)


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves the site without a log line per request in the test output."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def render(url: str) -> tuple[str, list[str]]:
    """The page's DOM after its scripts ran, and every console message it logged."""
    require(
        None
        if CHROMIUM.exists()
        else f"{CHROMIUM} is missing: the site is checked in real headless Chromium. "
        "Install the system package: apt-get update && apt-get install -y chromium"
    )
    with tempfile.TemporaryDirectory(prefix="agenthooks-chromium-") as profile:
        result = subprocess.run(
            [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, [m.group(1) for m in CONSOLE.finditer(result.stderr)]


def test_the_console_check_sees_an_error(served: str, site: Path) -> None:
    # the check below would pass vacuously if Chromium's console never reached us
    (site / "broken.html").write_text(
        "<html><body><script>console.error('on purpose'); missing();</script></body></html>"
    )
    _, console = render(f"{served}/broken.html")
    assert console[0].startswith('"on purpose"'), console
    assert any("ReferenceError: missing is not defined" in line for line in console), console


def test_the_home_page_renders(served: str) -> None:
    dom, console = render(f"{served}/")
    assert console == []
    assert "<h1" in dom and "agenthooks is the hook layer for LLM agents" in dom
    assert 'href="reference/events/"' in dom  # the navigation reaches the reference


def test_the_event_reference_is_the_catalog(served: str, site: Path) -> None:
    dom, console = render(f"{served}/reference/events/")
    assert console == []
    rows = re.findall(r"<tr>\s*<td><code>([a-z_]+)</code></td>", dom)
    assert rows == list(CATALOG), rows
    # built from the declarations: the same table `agenthooks events` describes
    assert markdown_table().count("\n") == len(CATALOG) + 1


def test_an_api_page_renders_the_docstrings(served: str) -> None:
    dom, console = render(f"{served}/reference/api/core/")
    assert console == []
    for name in ("HookBus", "Agent", "Deny", "PreToolCallContext", "Middleware"):
        assert f'id="agenthooks.{name}"' in dom, name
    # each docstring's own first line, rendered from the code
    for obj in (HookBus, Deny):
        first = (obj.__doc__ or "").strip().splitlines()[0]
        words = re.sub(r"``([^`]*)``", r"<code>\1</code>", first)
        assert words in dom, (obj.__name__, words)


def test_the_bridges_page_holds_the_generated_capability_table(site: Path) -> None:
    html = (site / "how-to" / "bridges" / "index.html").read_text(encoding="utf-8")
    bridges = installed_bridges()
    assert len(bridges) == 5, sorted(bridges)
    for line in capability_table(bridges).splitlines()[2:]:
        event = line.split("`", 2)[1]
        assert f"<td><code>{event}</code></td>" in html, event
    for framework in ("LangChain", "OpenAI Agents SDK", "Pydantic AI", "Google ADK", "Strands"):
        assert f">{framework}</th>" in html or f">{framework}<" in html, framework
