"""The analytics pages of a competition, under /c/<slug>/analytics/ (organizers only)."""

from django.urls import path

from . import probe_views

urlpatterns: list = [
    # one block per analysis, in issue 12's order
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
