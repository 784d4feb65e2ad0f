"""The analytics pages of a competition, under /c/<slug>/analytics/ (organizers only)."""

from django.urls import path

from . import probe_views, run_views, tier_views, views
from .oracle import views as oracle_views

urlpatterns: list = [
    # one block per analysis, in issue 12's order
    # 1. runs and teams
    path("c/<slug:slug>/analytics/runs/", run_views.runs, name="analytics_runs"),
    path(
        "c/<slug:slug>/analytics/runs/chart.svg",
        run_views.runs_chart,
        name="analytics_runs_chart",
    ),
    path(
        "c/<slug:slug>/analytics/runs.<str:fmt>",
        run_views.runs_export,
        name="analytics_runs_export",
    ),
    # 2. tiers
    path("c/<slug:slug>/analytics/tiers/", tier_views.tiers, name="analytics_tiers"),
    path(
        "c/<slug:slug>/analytics/tiers.svg",
        tier_views.tiers_chart,
        name="analytics_tiers_chart",
    ),
    path(
        "c/<slug:slug>/analytics/tiers.<str:fmt>",
        tier_views.tiers_export,
        name="analytics_tiers_export",
    ),
    # 3. format failures
    path("c/<slug:slug>/analytics/formats/", views.formats, name="analytics_formats"),
    path(
        "c/<slug:slug>/analytics/formats.svg",
        views.formats_chart,
        name="analytics_formats_chart",
    ),
    path(
        "c/<slug:slug>/analytics/formats.<str:fmt>",
        views.formats_export,
        name="analytics_formats_export",
    ),
    path(
        "c/<slug:slug>/analytics/formats/<int:system_id>/<str:family>/",
        views.formats_cell,
        name="analytics_formats_cell",
    ),
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
    # 6. knowledge probes
    path("c/<slug:slug>/analytics/probes/", probe_views.probes, name="analytics_probes"),
    path(
        "c/<slug:slug>/analytics/probes/chart.svg",
        probe_views.probes_chart,
        name="analytics_probes_chart",
    ),
    path(
        "c/<slug:slug>/analytics/probes.<str:fmt>",
        probe_views.probes_export,
        name="analytics_probes_export",
    ),
]
