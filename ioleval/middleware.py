"""Response headers every page gets."""

from __future__ import annotations

import time

from django.conf import settings


class ContentSecurityPolicyMiddleware:
    """Send the Content-Security-Policy of settings.CONTENT_SECURITY_POLICY.

    Model outputs are shown escaped or sanitized with nh3; the policy is the second line:
    should markup slip through, the browser runs no script and loads nothing from
    elsewhere.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", "")
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response


class ServerTimingMiddleware:
    """Report the server's time on a request in a Server-Timing header (`app;dur=<ms>`,
    shown by the browser's developer tools), so an organizer or a benchmark sees what a
    page cost without a profiler. Only for logged-in users: an anonymous visitor (the login
    page, the public board) gets no timing to measure the server by."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            elapsed = (time.perf_counter() - started) * 1000
            response["Server-Timing"] = f"app;dur={elapsed:.1f}"
        return response
