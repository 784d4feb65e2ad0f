"""The analytics pages of a competition, under /c/<slug>/analytics/ (organizers only)."""

from django.urls import path  # noqa: F401  (each analysis adds its routes below)

urlpatterns: list = [
    # one block per analysis, in issue 12's order
]
