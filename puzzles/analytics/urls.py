"""The analytics pages of a competition, under /c/<slug>/analytics/ (organizers only)."""

from django.urls import path

from .views import ablations, formats, oracle, probes, runs, techniques, tiers

urlpatterns: list = [
    # one block per analysis, in issue 12's order
    # 1. runs and teams
    path("c/<slug:slug>/analytics/runs/", runs.runs, name="analytics_runs"),
    path(
        "c/<slug:slug>/analytics/runs/chart.svg",
        runs.runs_chart,
        name="analytics_runs_chart",
    ),
    path(
        "c/<slug:slug>/analytics/runs.<fmt:fmt>",
        runs.runs_export,
        name="analytics_runs_export",
    ),
    # 2. tiers
    path("c/<slug:slug>/analytics/tiers/", tiers.tiers, name="analytics_tiers"),
    path(
        "c/<slug:slug>/analytics/tiers.svg",
        tiers.tiers_chart,
        name="analytics_tiers_chart",
    ),
    path(
        "c/<slug:slug>/analytics/tiers.<fmt:fmt>",
        tiers.tiers_export,
        name="analytics_tiers_export",
    ),
    # 3. format failures
    path("c/<slug:slug>/analytics/formats/", formats.formats, name="analytics_formats"),
    path(
        "c/<slug:slug>/analytics/formats.svg",
        formats.formats_chart,
        name="analytics_formats_chart",
    ),
    path(
        "c/<slug:slug>/analytics/formats.<fmt:fmt>",
        formats.formats_export,
        name="analytics_formats_export",
    ),
    path(
        "c/<slug:slug>/analytics/formats/<int:system_id>/<str:family>/",
        formats.formats_cell,
        name="analytics_formats_cell",
    ),
    # 4. oracle ensemble
    path("c/<slug:slug>/analytics/oracle/", oracle.oracle, name="analytics_oracle"),
    path(
        "c/<slug:slug>/analytics/oracle/save/",
        oracle.oracle_save,
        name="analytics_oracle_save",
    ),
    # before the export: "oracle.svg" would otherwise be taken for an export format
    path(
        "c/<slug:slug>/analytics/oracle.svg",
        oracle.oracle_chart,
        name="analytics_oracle_chart",
    ),
    path(
        "c/<slug:slug>/analytics/oracle.<fmt:fmt>",
        oracle.oracle_export,
        name="analytics_oracle_export",
    ),
    # 5. techniques
    path("c/<slug:slug>/analytics/techniques/", techniques.techniques, name="analytics_techniques"),
    path(
        "c/<slug:slug>/analytics/techniques/tag/",
        techniques.techniques_tag,
        name="analytics_techniques_tag",
    ),
    path(
        "c/<slug:slug>/analytics/techniques/chart.svg",
        techniques.techniques_chart,
        name="analytics_techniques_chart",
    ),
    path(
        "c/<slug:slug>/analytics/techniques.<fmt:fmt>",
        techniques.techniques_export,
        name="analytics_techniques_export",
    ),
    # 6. knowledge probes
    path("c/<slug:slug>/analytics/probes/", probes.probes, name="analytics_probes"),
    path(
        "c/<slug:slug>/analytics/probes/chart.svg",
        probes.probes_chart,
        name="analytics_probes_chart",
    ),
    path(
        "c/<slug:slug>/analytics/probes.<fmt:fmt>",
        probes.probes_export,
        name="analytics_probes_export",
    ),
    # 7. ablations
    path("c/<slug:slug>/analytics/ablations/", ablations.ablations, name="analytics_ablations"),
    path(
        "c/<slug:slug>/analytics/ablations/chart.svg",
        ablations.ablations_chart,
        name="analytics_ablations_chart",
    ),
    path(
        "c/<slug:slug>/analytics/ablations.<fmt:fmt>",
        ablations.ablations_export,
        name="analytics_ablations_export",
    ),
]
