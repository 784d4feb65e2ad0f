"""Response headers every page gets."""

from __future__ import annotations

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
