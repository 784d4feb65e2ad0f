"""Template context shared by every page."""

from __future__ import annotations

from .roles import CHAIR, JUROR, ORGANIZER, user_roles


def roles(request) -> dict[str, bool]:
    """Expose the user's roles as is_organizer, is_chair, is_juror."""
    held = user_roles(request.user) if hasattr(request, "user") else set()
    return {
        "is_organizer": ORGANIZER in held,
        "is_chair": CHAIR in held,
        "is_juror": JUROR in held,
    }
