"""The README is the front door: at most 8 KB, and every link in it leads to a file of the
repository (the site's pages are checked by ``mkdocs build --strict``)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_at_most_8_kb() -> None:
    assert len(README.read_bytes()) <= 8 * 1024, len(README.read_bytes())


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    targets = [t for t in LINK.findall(README.read_text(encoding="utf-8")) if "://" not in t]
    assert "docs/index.md" in targets and "docs/reference/events.md" in targets, targets
    missing = [t for t in targets if not (REPO / t).is_file()]
    assert missing == [], missing


def test_every_page_the_readme_links_is_in_the_site_navigation() -> None:
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [t for t in LINK.findall(README.read_text(encoding="utf-8")) if t.startswith("docs/")]
    absent = [p for p in pages if p.removeprefix("docs/") not in nav]
    assert absent == [], absent
