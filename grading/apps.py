from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Jury grading"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Answer what `puzzles` asks of the jury (puzzles.jury), by id, from our tables, give
        the accounts page each juror's load, and have the result review refresh itself after
        a finalization (grading.signals)."""
        from ioleval.accounts.selectors import register_loads
        from puzzles import jury

        from .selectors import (
            competition_still_grading,
            juror_loads,
            jury_scale,
            problems_finalized,
            proposals_pending,
            scale_status,
        )
        from .services.proposals import proposal_accept, proposal_reject_message
        from .services.scale import competition_set_scale, competition_set_thresholds
        from .signals import problem_finalized

        register_loads(juror_loads)
        jury.register(still_grading=competition_still_grading)
        jury.register_finalized(finalized=problems_finalized)
        jury.register_proposals(
            pending=proposals_pending, accept=proposal_accept, reject=proposal_reject_message
        )
        jury.register_scale(
            scale=lambda competition: scale_status(jury_scale(competition)),
            set_thresholds=lambda **kw: scale_status(competition_set_thresholds(**kw)),
            set_scale=competition_set_scale,
        )
        problem_finalized.connect(_review_after_finalize, dispatch_uid="grading.review.refresh")


def _review_after_finalize(sender, **kwargs) -> None:
    """Have the result review refresh itself after a finalization (imported on the first
    one, not at start-up: the review's statistics load scipy, a second more per command)."""
    from .review.refresh import review_refresh_after_finalize

    review_refresh_after_finalize(sender, **kwargs)
