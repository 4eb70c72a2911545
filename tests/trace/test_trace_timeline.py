"""The timeline page in real headless Chromium: the DOM after the page's script ran has one
element per span, with the right labels and classes; a screenshot shows the error bars red.
And the README's commands take a fresh checkout to a rendered timeline of the demo run."""

from __future__ import annotations

import asyncio
import html
import re
import shlex
import subprocess
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli
from record_support import record_scenario, write_jsonl
from trace_support import REPO, chromium, png_pixels

from agenthooks.trace import build_trace, load_recording, page_data

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

ARTIFACTS = REPO / "artifacts"
EXAMPLES_README = REPO / "examples" / "README.md"
ERROR_RED = (0xD6, 0x28, 0x28)
DENIED_ORANGE = (0xF1, 0x8F, 0x01)


class DomElements(HTMLParser):
    """Every element's tag and attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    @classmethod
    def parse(cls, text: str) -> DomElements:
        dom = cls()
        dom.feed(text)
        return dom

    def with_class(self, name: str) -> Iterator[dict[str, str]]:
        for _, attrs in self.elements:
            if name in attrs.get("class", "").split():
                yield attrs


def text_of(pattern: str, dom: str) -> str:
    """The unescaped text the first match of ``pattern`` captures."""
    match = re.search(pattern, dom)
    assert match is not None, f"{pattern!r} not in {dom[:500]!r}"
    return html.unescape(match.group(1))


def rendered_dom(page: Path) -> DomElements:
    result = chromium("--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = DomElements()
    dom.feed(result.stdout)
    return dom


def assert_page_shows_the_recording(page: Path, recording: Path) -> dict[str, Any]:
    """The DOM Chromium built holds one bar per span of ``recording``, each with the span's
    id, kind, status and label, grouped in one lane per branch; returns the page data."""
    data = page_data(build_trace(load_recording(recording).records), title=recording.name)
    dom = rendered_dom(page)
    bars = [
        (a["data-span-id"], a["data-kind"], a["data-status"], a["data-label"])
        for a in dom.with_class("span")
    ]
    branches = list(dict.fromkeys(s["branch"] for s in data["spans"]))
    in_lanes = sorted(data["spans"], key=lambda s: branches.index(s["branch"]))  # stable
    assert bars == [(str(s["id"]), s["kind"], s["status"], s["label"]) for s in in_lanes]
    for attrs, span in zip(dom.with_class("span"), in_lanes):
        point = "" if span["duration_ms"] > 0 else " point"  # took no time: drawn as a point
        assert attrs["class"] == f"span kind-{span['kind']} status-{span['status']}{point}"
        assert re.fullmatch(r"left: [\d.]+%; width: [\d.]+%;", attrs["style"]), attrs["style"]
    assert [a["data-branch"] for a in dom.with_class("lane")] == branches
    body = next(attrs for tag, attrs in dom.elements if tag == "body")
    assert body["data-rendered"] == str(len(data["spans"]))
    marks = sum(len(s["marks"]) for s in data["spans"])
    assert len(list(dom.with_class("mark"))) == marks
    labels = list(dom.with_class("label"))
    assert len(labels) == len(data["spans"])
    return data


@pytest.fixture(scope="module")
def scenario_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("timeline")
    recording = write_jsonl(folder / "run.jsonl", asyncio.run(record_scenario()))
    page = folder / "run.html"
    result = run_cli("trace", str(recording), "--html", str(page))
    assert result.returncode == 0, result.stderr
    return recording, page


def test_chromium_renders_one_bar_per_span(scenario_page: tuple[Path, Path]) -> None:
    recording, page = scenario_page
    data = assert_page_shows_the_recording(page, recording)
    statuses = {s["name"]: s["status"] for s in data["spans"] if s["kind"] == "tool"}
    assert statuses == {
        "search": "ok",
        "delete_file": "denied",
        "flaky_api": "error",
        "researcher": "ok",
        "lookup": "ok",
    }
    assert [s["branch"] for s in data["spans"] if s["kind"] == "run"] == [
        "support",
        "support/researcher",
    ]


def test_a_span_link_opens_its_details(scenario_page: tuple[Path, Path]) -> None:
    recording, page = scenario_page
    data = page_data(build_trace(load_recording(recording).records), title=recording.name)
    flaky = next(s for s in data["spans"] if s["name"] == "flaky_api")
    result = chromium(
        "--virtual-time-budget=5000", "--dump-dom", f"{page.resolve().as_uri()}#span-{flaky['id']}"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    tooltip = dom.split('<div id="tooltip" role="tooltip"', 1)[1].split("</dl></div>", 1)[0]
    assert " hidden" not in tooltip.split(">", 1)[0]
    assert text_of('<div class="title">(.*?)</div>', tooltip) == flaky["label"]
    assert (
        text_of('<div class="err">(.*?)</div>', tooltip) == "ConnectionError: upstream returned 503"
    )
    fields = {
        html.unescape(k): html.unescape(v)
        for k, v in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", tooltip)
    }
    assert {k: fields[k] for k in ("kind", "branch", "status", "tool_call_id", "arguments")} == {
        "kind": "tool",
        "branch": "support",
        "status": "error",
        "tool_call_id": flaky["details"]["tool_call_id"],
        "arguments": "{}",
    }
    assert re.fullmatch(r"\d+(\.\d)? ms", fields["duration"]), fields["duration"]
    selected = list(DomElements.parse(dom).with_class("selected"))
    assert [a["data-span-id"] for a in selected] == [str(flaky["id"])]


def test_screenshot_shows_error_bars_in_red(scenario_page: tuple[Path, Path]) -> None:
    _, page = scenario_page
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "timeline-scenario.png"
    shot.unlink(missing_ok=True)
    result = chromium(
        "--window-size=900,640",
        "--hide-scrollbars",
        f"--screenshot={shot}",
        page.resolve().as_uri(),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    width, height, pixels = png_pixels(shot.read_bytes())
    assert (width, height) == (900, 640)
    assert pixels.count(ERROR_RED) > 200  # the flaky_api bar (and its red label)
    # the legend's swatch (~120) and the delete_file call, denied before it ran (0 ms): an
    # orange point on its time (~100)
    assert pixels.count(DENIED_ORANGE) > 180
    ignored = subprocess.run(["git", "check-ignore", "-q", str(shot)], cwd=REPO, check=False)
    assert ignored.returncode == 0, f"{shot} must be ignored by git (.gitignore: artifacts/)"


def quickstart_commands(readme: Path) -> list[str]:
    text = readme.read_text(encoding="utf-8")
    block = text.split("<!-- quickstart:timeline -->", 1)[1].split(
        "<!-- /quickstart:timeline -->", 1
    )[0]
    code = block.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in code.splitlines() if line.strip()]


def test_readme_commands_go_from_a_clone_to_a_rendered_timeline(tmp_path: Path) -> None:
    commands = quickstart_commands(EXAMPLES_README)
    setup, run = commands[:2], commands[2:]
    # `make install` and the activated venv of this checkout are what this test runs in
    assert setup == ["make install", ". .venv/bin/activate"]
    assert run == [
        "agenthooks demo --record run.jsonl",
        "agenthooks trace run.jsonl",
        "agenthooks trace run.jsonl --html timeline.html",
    ], run
    root_readme = REPO / "README.md"
    if "<!-- quickstart:timeline -->" in root_readme.read_text(encoding="utf-8"):
        assert quickstart_commands(root_readme) == commands
    for command in run:
        argv = shlex.split(command)
        assert argv[0] == "agenthooks"
        result = run_cli(*argv[1:], cwd=tmp_path)
        assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
        if argv[1:3] == ["trace", "run.jsonl"] and len(argv) == 3:
            assert result.stdout.startswith("agent "), result.stdout
    data = assert_page_shows_the_recording(tmp_path / "timeline.html", tmp_path / "run.jsonl")
    kinds = {s["kind"] for s in data["spans"]}
    assert {"run", "turn", "model", "tool"} <= kinds
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "timeline-demo.png"
    result = chromium(
        "--window-size=1200,900",
        f"--screenshot={shot}",
        (tmp_path / "timeline.html").resolve().as_uri(),
    )
    assert result.returncode == 0 and shot.stat().st_size > 0
