"""The README is a newcomer's document and the reference lives in docs/: the README is at
most 300 lines with the two commands in its first 40, it links every docs file (and says
where configuration, the management commands and deploying are, as ARCHITECTURE.md asks),
and every relative link of the README and docs/ reaches a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    first = "\n".join(lines[:40])
    assert "make run" in first and "make test" in first


def test_the_readme_links_every_docs_file():
    readme = README.read_text(encoding="utf-8")
    linked = {Path(target).name for target in LINK.findall(readme) if target.startswith("docs/")}
    assert {path.name for path in DOCS.glob("*.md")} <= linked
    for topic in ("configuration.md", "commands.md", "deploying.md"):
        assert topic in linked


def test_every_relative_link_reaches_a_file():
    broken = []
    for page in (README, *DOCS.glob("*.md"), ROOT / "benchmarks" / "README.md"):
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_statistical_methods_table_is_whole_in_one_file_linked_from_review_and_analytics():
    holders = [p.name for p in DOCS.glob("*.md") if "| figure | where | p-value" in p.read_text()]
    assert holders == ["statistical-methods.md"]
    for page in ("review.md", "analytics.md"):
        assert "(statistical-methods.md)" in (DOCS / page).read_text(encoding="utf-8")
