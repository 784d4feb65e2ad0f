from django.urls import include, path

from . import views

app_name = "puzzles"

urlpatterns = [
    path("competitions/", views.competition_list, name="competitions"),
    path("competitions/import/", views.import_iolai, name="import_iolai"),
    path("c/<slug:slug>/", views.competition_detail, name="competition"),
    path("c/<slug:slug>/names/", views.competition_names, name="names"),
    path("c/<slug:slug>/thresholds/", views.competition_thresholds, name="thresholds"),
    path("c/<slug:slug>/scale/", views.competition_scale, name="scale"),
    path("c/<slug:slug>/publish/", views.competition_publish, name="publish"),
    path("c/<slug:slug>/rescore/", views.competition_rescore, name="rescore"),
    path(
        "c/<slug:slug>/rescore/<str:task_id>/",
        views.competition_rescore_status,
        name="rescore_status",
    ),
    path("c/<slug:slug>/leaderboard/", views.leaderboard_page, name="leaderboard"),
    path(
        "c/<slug:slug>/leaderboard.<str:fmt>",
        views.leaderboard_export,
        name="leaderboard_export",
    ),
    path("c/<slug:slug>/import/", views.import_outputs, name="import_outputs"),
    path("c/<slug:slug>/answers/", views.answer_key, name="answer_key"),
    path(
        "c/<slug:slug>/answers/proposals/<int:proposal_id>/accept/",
        views.proposal_accept,
        name="proposal_accept",
    ),
    path(
        "c/<slug:slug>/answers/proposals/<int:proposal_id>/reject/",
        views.proposal_reject,
        name="proposal_reject",
    ),
    path("board/<slug:slug>/", views.public_board, name="public_board"),
    path("", include("puzzles.context.lab.urls")),
    path("", include("puzzles.analytics.urls")),
    path("", include("puzzles.context.results.urls")),
]
