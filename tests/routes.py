"""The project's named routes, for tests that sweep every one of them."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver


def project_routes() -> list[tuple[str, URLPattern]]:
    """Return (namespaced name, pattern) for every named route of the project."""

    def walk(patterns, namespace):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, entry.namespace or namespace)
            elif isinstance(entry, URLPattern) and entry.name:
                yield (f"{namespace}:{entry.name}" if namespace else entry.name), entry

    return list(walk(get_resolver().url_patterns, None))
