"""The context lab's results routes, included (without a namespace of their own) by
puzzles/urls.py, so their names read `puzzles:context_...`."""

from django.urls import path

from . import views

urlpatterns = [
    path("context/results/", views.results, name="context_results"),
    path("context/judges/", views.judges, name="context_judges"),
    path(
        "context/results/<str:table>.<str:fmt>",
        views.results_export,
        name="context_results_export",
    ),
]
