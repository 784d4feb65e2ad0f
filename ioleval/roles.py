"""The three roles, as Django groups, and the checks views use."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse

ORGANIZER = "organizer"
CHAIR = "chair"
JUROR = "juror"
ROLES = (ORGANIZER, CHAIR, JUROR)


def user_roles(user) -> set[str]:
    """Return the role names a user holds; a superuser is an organizer and chair."""
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_ioleval_roles", None)
    if cached is None:
        cached = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if user.is_superuser:
            cached |= {ORGANIZER, CHAIR}
        user._ioleval_roles = cached
    return cached


def has_role(user, *roles: str) -> bool:
    """Tell whether the user holds any of the roles."""
    return bool(user_roles(user) & set(roles))


def role_required(*roles: str) -> Callable:
    """Let a view through only for logged-in users holding one of the roles (403 otherwise).

    Anonymous users are sent to the login page; an htmx request gets a 401 instead, since
    htmx would follow the redirect and swap the login page into the fragment's place.
    """

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                if getattr(request, "htmx", False):
                    return HttpResponse("You are logged out.", status=401)
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, *roles):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


organizer_required = role_required(ORGANIZER)
