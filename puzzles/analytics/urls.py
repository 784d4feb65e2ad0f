"""The analytics pages of a competition, under /c/<slug>/analytics/ (organizers only)."""

from django.urls import path

from . import probe_views, views

urlpatterns: list = [
    # one block per analysis, in issue 12's order
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
