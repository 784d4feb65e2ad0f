"""axe-core in the browser tests: inject it, run it, and say what it found readably.

axe-core is pinned in package.json / package-lock.json at the repository root and
installed by ``make js`` (``npm ci``), which ``make test`` runs first. The app's
Content-Security-Policy (``script-src 'self'``) refuses inline scripts, and
``page.add_script_tag(path=...)`` inlines the file, so the script is given to the
browser context as an init script instead (``Page.addScriptToEvaluateOnNewDocument``),
which Chromium runs in every document before the page's own scripts and outside its CSP.
The policy the pages are served with stays exactly as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import new_context

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0 and 2.1, levels A and AA: the target of issue 11.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# Runs in the page (as a function, not a string the page's CSP would refuse to eval).
RUN_AXE = """
async (tags) => {
  const results = await window.axe.run(document, {
    runOnly: {type: "tag", values: tags},
    resultTypes: ["violations"],
  });
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    targets: v.nodes.map((n) => n.target.join(" ")),
  }));
}
"""


def axe_script() -> Path:
    """Return axe.min.js, or stop the test saying how to install it."""
    if not AXE_JS.is_file():
        message = f"{AXE_JS.relative_to(ROOT)} is missing: run `make js` (npm ci)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE_JS


def axe_context(browser, refused: list[str], **options):
    """A browser context whose every page has axe loaded; CSP refusals go to ``refused``."""
    context = new_context(browser, **options)
    context.add_init_script(path=str(axe_script()))
    context.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return context


def axe_violations(page) -> list[dict]:
    """Run axe (WCAG 2.1 A and AA) on the page as it is now; return its violations."""
    return page.evaluate(RUN_AXE, WCAG_TAGS)


def violations_text(found: dict[str, list[dict]]) -> str:
    """One line per violation and page: rule id, impact, help, then the target selectors."""
    lines = []
    for url, violations in found.items():
        for v in violations:
            targets = ", ".join(v["targets"][:8])
            more = f" (+{len(v['targets']) - 8} more)" if len(v["targets"]) > 8 else ""
            lines.append(f"{url}: {v['id']} [{v['impact']}] {v['help']}: {targets}{more}")
    return "\n".join(lines)
