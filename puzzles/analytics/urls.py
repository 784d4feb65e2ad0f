"""The analytics pages of a competition, under /c/<slug>/analytics/ (organizers only)."""

from django.urls import path

from .oracle import views as oracle_views

urlpatterns: list = [
    # one block per analysis, in issue 12's order
    # 4. oracle ensemble
    path("c/<slug:slug>/analytics/oracle/", oracle_views.oracle, name="analytics_oracle"),
    path(
        "c/<slug:slug>/analytics/oracle/save/",
        oracle_views.oracle_save,
        name="analytics_oracle_save",
    ),
    path(
        "c/<slug:slug>/analytics/oracle.<str:fmt>",
        oracle_views.oracle_export,
        name="analytics_oracle_export",
    ),
]
