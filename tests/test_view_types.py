"""Every view of ours takes django-htmx's request type, as CONVENTIONS.md asks."""

from __future__ import annotations

import inspect

from tests.routes import project_routes


def _our_views():
    for name, pattern in project_routes():
        view = inspect.unwrap(pattern.callback)
        view = getattr(view, "view_class", view)  # a class-based view's class
        if view.__module__.split(".")[0] in {"grading", "puzzles", "ioleval"}:
            yield name, view


def test_every_view_of_ours_takes_an_htmx_request():
    views = list(_our_views())
    assert len(views) >= 100  # the sweep reaches every app's routes
    untyped = [
        f"{name} ({view.__module__}.{view.__qualname__})"
        for name, view in views
        if inspect.isfunction(view)
        and inspect.signature(view).parameters["request"].annotation != "HtmxHttpRequest"
    ]
    assert untyped == []
