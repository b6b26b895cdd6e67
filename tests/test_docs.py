"""Documents at home: what the code and the rule table cite is in the repository and exists.

Rule references, comments and docstrings point at sections of ``docs/`` (``docs/formats.md#hook-log``);
every such section must exist, every relative link between the documents must resolve, and no
reference may cite material a maintainer cannot open (the summaries the project started from, by
name or by their requirement numbers).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from phasewatch.core.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
CITE = re.compile(r"\bdocs/([\w.-]+\.md)(?:#([\w-]+))?")
LINK = re.compile(r"\]\(([^)\s#]*)(?:#([\w-]+))?\)")
OUTSIDE = re.compile(r"FORMATS|DESIGN\.md|seed 00[0-4]|\b00[0-4] (IR|FR|TS|AC)-|/work/shared")


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"#{1,6} (.+)", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def _resolves(target: Path, anchor: str | None) -> bool:
    return target.is_file() and (anchor is None or anchor in anchors(target))


def test_slug_follows_github():
    assert slug("How the state file is written") == "how-the-state-file-is-written"
    assert slug("Init, and what a process.json skips") == "init-and-what-a-processjson-skips"
    assert slug("Plugin Freedom System — `glittercowboy/plugin-freedom-system`") == (
        "plugin-freedom-system--glittercowboyplugin-freedom-system"
    )


def test_every_rule_reference_names_a_section_that_exists():
    for r in all_rules():
        assert not OUTSIDE.search(r.seed), f"{r.id} cites outside material: {r.seed}"
        for name, anchor in CITE.findall(r.seed):
            assert _resolves(ROOT / "docs" / name, anchor or None), f"{r.id}: {r.seed}"


def test_every_docs_citation_in_the_code_exists():
    files = subprocess.run(
        ["git", "ls-files", "core", "widgets", "tui"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert files
    for rel in files:
        if not rel.endswith(".py"):
            continue
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert not OUTSIDE.search(text), f"{rel} cites material outside the repository"
        for name, anchor in CITE.findall(text):
            assert _resolves(ROOT / "docs" / name, anchor or None), f"{rel}: docs/{name}#{anchor}"


def test_links_between_documents_resolve():
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]
    for page in pages:
        if not page.exists():
            continue
        for target, anchor in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or (target and not target.endswith(".md")):
                continue
            path = (page.parent / target).resolve() if target else page
            assert _resolves(path, anchor or None), f"{page.name}: ({target}#{anchor})"
