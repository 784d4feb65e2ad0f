from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Jury grading"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Answer what `puzzles` asks of the jury (puzzles.jury), by id, from our tables."""
        from puzzles import jury

        from .selectors import competition_still_grading

        jury.register(still_grading=competition_still_grading)
