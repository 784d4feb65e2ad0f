"""The context lab's results routes, included (without a namespace of their own) by
puzzles/urls.py, so their names read `puzzles:context_...`."""

from django.urls import path

from . import results_views

urlpatterns = [
    path("context/results/", results_views.results, name="context_results"),
    path("context/judges/", results_views.judges, name="context_judges"),
    path(
        "context/results/<str:table>.<fmt:fmt>",
        results_views.results_export,
        name="context_results_export",
    ),
]
