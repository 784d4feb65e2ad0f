"""Every page a logged-in user gets reports the server's time (Server-Timing), and the
analytics benchmark reads it; an anonymous visitor gets no timing."""

from __future__ import annotations

import re

from django.urls import reverse

TIMING = re.compile(r"^app;dur=\d+\.\d$")


def test_logged_in_pages_report_server_time(organizer_client, demo_competition):
    for name in ("puzzles:analytics_runs", "puzzles:analytics_techniques", "puzzles:leaderboard"):
        response = organizer_client.get(reverse(name, args=[demo_competition.slug]))
        assert response.status_code == 200
        assert TIMING.match(response["Server-Timing"]), response["Server-Timing"]


def test_anonymous_visitors_get_no_timing(client, db):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert "Server-Timing" not in response
