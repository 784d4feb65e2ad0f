from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from .models import AnswerAmendment, Competition, ExternalScore, Output, Problem, System, Task


class ProblemInline(admin.TabularInline):
    model = Problem
    extra = 0
    fields = ["number", "title", "language", "language_name", "points"]


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "year", "jury_scale", "gold_threshold", "silver_threshold"]
    search_fields = ["slug", "name"]
    # Set on the competition page or with set_scale / set_thresholds, which check the
    # thresholds against the jury's scale; the admin would not.
    readonly_fields = [
        "jury_scale",
        "gold_threshold",
        "silver_threshold",
        "bronze_threshold",
        "honourable_mention_threshold",
    ]
    inlines = [ProblemInline]


class TaskInline(admin.TabularInline):
    model = Task
    extra = 0
    fields = ["number", "external_id", "task_type", "eval_type", "split", "weight"]


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ["competition", "number", "title", "language_label", "points"]
    list_filter = ["competition"]
    inlines = [TaskInline]


@admin.register(Task)
class TaskAdmin(SimpleHistoryAdmin):
    list_display = ["external_id", "problem", "task_type", "eval_type", "split", "weight"]
    list_filter = ["problem__competition", "split", "task_type"]
    search_fields = ["external_id"]


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ["name", "competition", "team", "tier", "external"]
    list_filter = ["competition", "tier", "external"]
    search_fields = ["name", "team"]


@admin.register(Output)
class OutputAdmin(admin.ModelAdmin):
    list_display = ["system", "task", "source", "updated_at"]
    list_filter = ["system__competition", "source"]
    search_fields = ["system__name", "task__external_id"]
    raw_id_fields = ["system", "task"]
    readonly_fields = ["parsed_items", "extracted_items", "format_flags", "scores"]


@admin.register(AnswerAmendment)
class AnswerAmendmentAdmin(admin.ModelAdmin):
    list_display = ["task", "item_number", "action", "text", "created_by", "created_at"]
    list_filter = ["task__problem__competition", "action"]
    readonly_fields = ["before", "after", "changes", "created_by", "created_at"]


@admin.register(ExternalScore)
class ExternalScoreAdmin(admin.ModelAdmin):
    """View-only: figures change through import_system_scores, which checks the 0-1 scale."""

    list_display = ["system", "problem", "score", "exact_match", "chrf", "updated_at"]
    list_filter = ["system__competition"]
    search_fields = ["system__name"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
