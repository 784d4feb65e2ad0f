"""Untrusted model text made safe for pages and PDFs: markdown in, allowlisted HTML out."""

from __future__ import annotations

from decimal import Decimal

import markdown
import nh3
from django.utils.safestring import SafeString, mark_safe

# Structure only: no links, images, forms, styles, classes or ids. Markdown passes raw
# HTML through, so this allowlist, not the markdown step, is what keeps model text inert.
ALLOWED_TAGS = frozenset(
    {
        "p",
        "br",
        "b",
        "i",
        "hr",
        "em",
        "strong",
        "code",
        "pre",
        "ul",
        "ol",
        "li",
        "blockquote",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "dl",
        "dt",
        "dd",
        "sup",
        "sub",
        "del",
    }
)
# Dropped together with everything inside them, not just unwrapped.
DROPPED_WITH_CONTENT = frozenset({"script", "style", "title", "template", "noscript"})
MARKDOWN_EXTENSIONS = ["extra", "sane_lists"]


def explanation_html(text: str) -> SafeString:
    """Render a system's markdown explanation as sanitized HTML."""
    if not text or not text.strip():
        return mark_safe("")
    html = markdown.markdown(text, extensions=MARKDOWN_EXTENSIONS, output_format="html")
    cleaned = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={},
        url_schemes=set(),
        strip_comments=True,
        link_rel=None,
    )
    return mark_safe(cleaned)  # noqa: S308 -- nh3 allowlist above


def points_text(value: Decimal | int | str | None) -> str:
    """Return points as written by hand: 3, 0.5, 10 (never 3.00 or 1E+1); "" for None."""
    if value is None or value == "":
        return ""
    return format(Decimal(str(value)).normalize(), "f")
