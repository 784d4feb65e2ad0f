"""The context lab's routes, included (without a namespace of their own) by puzzles/urls.py."""

from django.urls import path

from . import views

urlpatterns = [
    path("context/", views.context_corpus, name="context_corpus"),
    path("context/corpus.<str:fmt>", views.context_corpus_export, name="context_corpus_export"),
    path("context/p/<slug:slug>/", views.context_puzzle, name="context_puzzle"),
    path(
        "context/p/<slug:slug>/<str:table>.<str:fmt>",
        views.context_puzzle_export,
        name="context_puzzle_export",
    ),
]
