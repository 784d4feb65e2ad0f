from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from .models import (
    Assignment,
    Contestant,
    ContestantPoints,
    Criterion,
    DiscussionComment,
    Mark,
    ObservationTag,
    PairsSeen,
    Paper,
    ProblemJuror,
    ProblemJury,
    Resolution,
    Rubric,
)


class ReadOnly:
    """View-only in the admin: rubrics, marks and decisions change through the jury pages
    and commands, which check ranges, steps, frozen rubrics, submission and finalization
    and keep the audit history."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class CriterionInline(ReadOnly, admin.TabularInline):
    model = Criterion
    extra = 0
    fields = ["order", "code", "title", "kind", "maximum", "step", "task", "items"]


@admin.register(Rubric)
class RubricAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["problem", "version", "created_by", "created_at"]
    list_filter = ["problem__competition"]
    inlines = [CriterionInline]


@admin.register(Paper)
class PaperAdmin(admin.ModelAdmin):
    list_display = ["code", "problem", "system"]
    list_filter = ["problem__competition", "problem__number"]
    search_fields = ["code", "system__name"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["paper", "juror", "submitted_at"]
    list_filter = ["paper__problem__competition", "paper__problem__number"]
    search_fields = ["paper__code", "juror__username"]


@admin.register(Mark)
class MarkAdmin(ReadOnly, SimpleHistoryAdmin):
    list_display = ["assignment", "criterion", "points", "updated_at"]
    list_filter = ["assignment__paper__problem__competition"]
    search_fields = ["assignment__paper__code", "assignment__juror__username"]


@admin.register(Resolution)
class ResolutionAdmin(ReadOnly, SimpleHistoryAdmin):
    list_display = ["paper", "criterion", "points", "kind", "decided_by", "decided_at"]


@admin.register(PairsSeen)
class PairsSeenAdmin(ReadOnly, SimpleHistoryAdmin):
    """Who is not blind for which competition, since when, and who confirmed giving them
    papers of it (written by the pages and commands, never here)."""

    list_display = ["user", "competition", "source", "seen_at", "confirmed_by", "confirmed_at"]
    list_filter = ["competition"]
    search_fields = ["user__username"]


@admin.register(ObservationTag)
class ObservationTagAdmin(admin.ModelAdmin):
    list_display = ["name", "competition", "order"]
    list_filter = ["competition"]


admin.site.register(ProblemJuror)
admin.site.register(ProblemJury)
admin.site.register(DiscussionComment)


class ContestantPointsInline(ReadOnly, admin.TabularInline):
    model = ContestantPoints
    extra = 0
    fields = ["problem", "criterion_code", "points"]


@admin.register(Contestant)
class ContestantAdmin(ReadOnly, admin.ModelAdmin):
    """View-only: contestants change by import_contestants, which replaces them whole."""

    list_display = ["code", "competition", "total"]
    list_filter = ["competition"]
    search_fields = ["code"]
    inlines = [ContestantPointsInline]
